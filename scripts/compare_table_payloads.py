#!/usr/bin/env python3
"""Compares two table folders written by different format versions (2 or 3).

For every *.mtb file of OLD there must be a file of the same name in NEW (and no
other), and the bytes after the header (the zstd value blocks, each with its
content checksum, and the position list of a reachable-set table) must be
identical: the values are then the same, bit for bit, whatever the header.

  scripts/compare_table_payloads.py OLD_DIR NEW_DIR   # exit 1 on any difference

Header layouts: version 2 = magic, version, H (u32), a text archive of H bytes,
CRC-32; version 3 = tablebase/include/mancala/format.h (H at offset 12, CRC at H).
"""
import os
import struct
import sys


def payload(path):
    data = open(path, "rb").read()
    if data[:8] != b"MANCALTB":
        raise ValueError(f"{path}: bad magic")
    version, hlen = struct.unpack_from("<II", data, 8)
    if version == 2:
        return version, data[16 + hlen + 4:]
    if version == 3:
        return version, data[hlen + 4:]
    raise ValueError(f"{path}: format version {version}")


def main(old_dir, new_dir):
    old = sorted(f for f in os.listdir(old_dir) if f.endswith(".mtb"))
    new = sorted(f for f in os.listdir(new_dir) if f.endswith(".mtb"))
    bad = 0
    if old != new:
        print(f"file names differ: {sorted(set(old) ^ set(new))[:10]}")
        bad += 1
    versions = set()
    same = 0
    for name in sorted(set(old) & set(new)):
        vo, po = payload(os.path.join(old_dir, name))
        vn, pn = payload(os.path.join(new_dir, name))
        versions.add((vo, vn))
        if po != pn:
            print(f"{name}: value blocks differ ({len(po)} vs {len(pn)} bytes)")
            bad += 1
        else:
            same += 1
    print(f"{old_dir} vs {new_dir}: {same} files with identical value blocks, {bad} differences, "
          f"versions {sorted(versions)}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))

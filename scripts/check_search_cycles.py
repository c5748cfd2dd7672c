#!/usr/bin/env python3
"""The search of games with cycles against complete tables, at sizes beyond the unit tests.

Plays pseudo-random games (`mancala-tb play --player random`) from START, keeps every
position with more than PART seeds in play and at most the seeds of the FULL tables, and
solves each by search over the classes up to PART seeds only (`solve --tables PART_DIR`,
PART_DIR holding links to those files of FULL), then compares the value and every move's
value with `probe FULL`. Exit status 1 on any difference.

  /usr/bin/python3 scripts/check_search_cycles.py BUILD VARIANT "START" FULL PART [--games N] [--cycles alphabeta|region]

Example (Oware over 14 seeds, full tables to 20 made by
`mancala-tb generate oware --max-seeds 20 --out T20 --threads 2`):

  /usr/bin/python3 scripts/check_search_cycles.py build oware "2,2,2,2,2,2/2,2,2,2,2,2 S" T20 14 --games 20
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def seeds_of(pos):
    pits = pos.split()[1]
    return sum(int(x) for x in re.findall(r"\d+", pits))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("variant")
    ap.add_argument("start")
    ap.add_argument("full")
    ap.add_argument("part", type=int)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--cycles", default="alphabeta")
    ap.add_argument("--time-limit", type=int, default=120)
    a = ap.parse_args()
    exe = os.path.join(a.build, "tools", "mancala-tb")
    files = [f for f in os.listdir(a.full) if f.startswith(a.variant.split(":")[0]) and f.endswith(".mtb")]
    full_max = max(int(f.split(".")[-3]) for f in files)
    part_dir = tempfile.mkdtemp(prefix="check_search_cycles_")
    for f in files:
        if int(f.split(".")[-3]) <= a.part:
            os.symlink(os.path.abspath(os.path.join(a.full, f)), os.path.join(part_dir, f))
    positions = []
    for game in range(1, a.games + 1):
        out = subprocess.run([exe, "play", a.variant] + a.start.split() + ["--seed", str(game), "--player", "random"],
                             capture_output=True, text=True, check=True).stdout
        for m in re.finditer(r"-> (\S+ \S+ [SN](?: \S+)?)\s", out):
            pos = m.group(1)
            if a.part < seeds_of(pos) <= full_max and pos not in positions:
                positions.append(pos)
    checked = differ = gave_up = 0
    seconds = 0.0
    for pos in positions:
        t0 = time.monotonic()
        s = subprocess.run([exe, "solve", pos, "--tables", part_dir, "--json", "--no-pv", "--threads", "2",
                            "--cycles", a.cycles, "--time-limit", str(a.time_limit)], capture_output=True, text=True)
        seconds += time.monotonic() - t0
        if s.returncode != 0:
            print(f"{pos}: search failed: {s.stderr.strip().splitlines()[-1]}", flush=True)
            if "gave up at the time limit" in s.stderr:
                gave_up += 1
            else:
                differ += 1
            continue
        got = json.loads(s.stdout)
        want = json.loads(subprocess.run([exe, "probe", a.full, pos, "--json"], capture_output=True, text=True,
                                         check=True).stdout)
        if isinstance(want, list):
            want = want[0]
        gm = {m["move"]: m["value"] for m in got["moves"]}
        wm = {m["move"]: m["value"] for m in want["moves"]}
        checked += 1
        same = got["value"] == want["value"] and gm == wm
        differ += not same
        print(f"{pos}: search {got['value']}, tables {want['value']}, {len(gm)} moves "
              f"{'equal' if same else 'DIFFER: search ' + str(gm) + ' tables ' + str(wm)} "
              f"({got['nodes']} positions, {time.monotonic() - t0:.1f} s)", flush=True)
    for f in os.listdir(part_dir):
        os.unlink(os.path.join(part_dir, f))
    os.rmdir(part_dir)
    print(f"{a.variant} from {a.start}: {checked} positions of {a.part + 1}..{full_max} seeds searched over the "
          f"tables up to {a.part} ({a.cycles}), {differ} differ from the tables to {full_max}, {gave_up} more gave up at "
          f"--time-limit {a.time_limit}; "
          f"{seconds:.1f} s of search in all")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()

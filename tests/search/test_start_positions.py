#!/usr/bin/env python3
"""The small rows of results/start_positions.csv solved again (issue 33): the same value
and the same value of every first move as recorded, for each start that was solved
without tables of its own (no --tables, no --max-plies) in at most MAX_SECONDS.

Usage: test_start_positions.py MANCALA_TB [CSV] [MAX_SECONDS]"""
import csv
import json
import subprocess
import sys
from pathlib import Path


def main() -> int:
    tb = sys.argv[1]
    table = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[2] / "results/start_positions.csv"
    max_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    rows, bad = 0, []
    with open(table, newline="") as f:
        for r in csv.DictReader(f):
            cmd = r["command"]
            if r["status"] != "solved" or not r["seconds"] or float(r["seconds"]) > max_seconds:
                continue
            if not cmd.startswith("mancala-tb solve ") or "--tables" in cmd or "--max-plies" in cmd or "--strategy" in cmd:
                continue
            args = [tb, "solve", r["variant"], "--per-pit", r["per_pit"], "--json", "--threads", "1", "--tt-mb", "64"]
            out = subprocess.run(args, capture_output=True, text=True, timeout=120)
            rows += 1
            if out.returncode != 0:
                bad.append(f"{' '.join(args[1:])}: exit {out.returncode}: {out.stderr.strip()}")
                continue
            got = json.loads(out.stdout)
            want_moves = {m.split(":")[0]: int(m.split(":")[1]) for m in r["moves"].split()} if r["moves"] else {}
            got_moves = {m["move"]: m["value"] for m in got["moves"]}
            if got["value"] != int(r["value"]) or got_moves != want_moves:
                bad.append(f"{' '.join(args[1:])}: value {got['value']} moves {got_moves}, recorded {r['value']} {want_moves}")
    print(f"{rows} rows of {table.name} solved again, {len(bad)} differ")
    for b in bad:
        print("  " + b)
    return 1 if bad or rows == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

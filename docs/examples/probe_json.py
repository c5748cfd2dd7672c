#!/usr/bin/env python3
"""Prints the value and the ranked moves of positions, read from `mancala-tb probe --json`.
usage: probe_json.py DIR POSITION..."""
import json
import subprocess
import sys

out = subprocess.run(["mancala-tb", "probe", sys.argv[1], "--json", *sys.argv[2:]],
                     capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    r = json.loads(line)
    moves = ", ".join(f"{m['move']} ({m['value']})" for m in r["moves"])
    print(f"{r['position']}: value {r['value']}; moves {moves}")

#!/usr/bin/env python3
"""mancala-tb picture: the SVG is well-formed XML and carries the values probe --json gives.

usage: test_picture.py MANCALA_TB WORK_DIR

For positions of every game (North to move, ties, bulls, closed pits, a jeppe,
Cenne's pits out of play, a claim), each move's badge (<g class="move">, data-move,
data-value, data-depth) must match probe --json move for move, the root's data-value
the position's value, and data-best mark probe's first move.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

TB, WORK = sys.argv[1], sys.argv[2]
SVG = "{http://www.w3.org/2000/svg}"

TABLES = [  # (folder, generate arguments)
    ("kalah", ["kalah:6:empty", "--max-seeds", "9"]),
    ("cenne", ["cenne:5:4", "--max-seeds", "9"]),
    ("kotu", ["kotu-baendum", "--max-seeds", "5"]),
    ("imbelece", ["--from", "imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S", "--max-seeds", "12"]),
    ("enkeshui", ["--from", "enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S", "--max-seeds", "12"]),
]
POSITIONS = [
    ("kalah", "kalah:6:empty 1,0,3,0,2,1/0,1,0,1,0,0 S"),
    ("kalah", "kalah:6:empty 1,0,3,0,2,1/0,1,0,1,0,0 N"),
    ("cenne", "cenne:5:4 2,1,3,0,1/1,0,1,0 S jeppe=4"),  # a jeppe, a claim, dead pits
    ("cenne", "cenne:5:4 2,1,3,0,1/1,0,1,0 N"),
    ("kotu", "kotu-baendum 0S,1,1,0,0,0,0/0,1,0,2,0,0,0N N"),  # ties
    ("imbelece", "imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S"),  # closed pits, win/loss
    ("enkeshui", "enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S"),  # bulls
]


def run(*args):
    r = subprocess.run([TB, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: mancala-tb {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def value_of(obj):
    """probe --json's value (and depth) in the form the SVG writes them."""
    return (str(obj["value"]), str(obj["depth"]) if "depth" in obj else None)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for folder, args in TABLES:
        run("generate", *args, "--out", os.path.join(WORK, folder))
    failures, checked = 0, 0
    for folder, pos in POSITIONS:
        tables = os.path.join(WORK, folder)
        out = os.path.join(WORK, "picture.svg")
        run("picture", tables, pos, "--out", out)
        root = ET.parse(out).getroot()  # raises on malformed XML
        probe = json.loads(run("probe", tables, pos, "--json"))
        want = sorted((m["move"], *value_of(m)) for m in probe["moves"])
        badges = [g for g in root.iter(SVG + "g") if g.get("class") == "move"]
        got = sorted((g.get("data-move"), g.get("data-value"), g.get("data-depth")) for g in badges)
        best = [g.get("data-move") for g in badges if g.get("data-best") == "true"]
        problems = []
        if root.tag != SVG + "svg":
            problems.append(f"root element {root.tag}")
        if (root.get("data-value"), root.get("data-depth")) != value_of(probe):
            problems.append(f"value {root.get('data-value')} != probe's {probe['value']}")
        if got != want:
            problems.append(f"moves {got} != probe's {want}")
        if probe["moves"] and best != [probe["moves"][0]["move"]]:
            problems.append(f"best {best} != probe's first move {probe['moves'][0]['move']}")
        if root.get("data-position") != probe["position"]:
            problems.append(f"position {root.get('data-position')} != {probe['position']}")
        for p in problems:
            print(f"FAIL {pos}: {p}")
        failures += bool(problems)
        checked += 1
    # A position beyond the tables: an error, no picture.
    r = subprocess.run([TB, "picture", os.path.join(WORK, "kalah"), "kalah:6:empty 9,9,9,9,9,9/9,9,9,9,9,9 S"],
                       capture_output=True, text=True)
    if r.returncode == 0 or r.stdout:
        print("FAIL: a position beyond the tables gave a picture")
        failures += 1
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"{checked - failures + (r.returncode != 0)} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

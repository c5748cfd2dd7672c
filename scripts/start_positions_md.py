#!/usr/bin/python3
"""Renders the tables of results/start-positions.md from results/start_positions.csv.

    /usr/bin/python3 scripts/start_positions_md.py [results]

Rewrites the part of start-positions.md between the markers
<!-- tables: begin --> and <!-- tables: end -->; the prose around them is kept.
For each game the newest solved row wins; a game never solved shows its newest
attempt ("open (> T s)": the search stopped at its time limit, never a guess).
"""
import csv
import os
import sys

RESULTS = sys.argv[1] if len(sys.argv) > 1 else "results"
CSV = os.path.join(RESULTS, "start_positions.csv")
MD = os.path.join(RESULTS, "start-positions.md")
BEGIN, END = "<!-- tables: begin -->", "<!-- tables: end -->"

# Published values (first player's margin), with where they were read.
LITERATURE = {
    ("kalah:6:empty", "4"): ("+10", "Irving, Donkers & Uiterwijk 2000; Rawlings 2015"),
    ("kalah:6:empty", "5"): ("+12", "Irving, Donkers & Uiterwijk 2000; Rawlings 2015"),
    ("kalah:6:empty", "6"): ("+2", "Rawlings 2015"),
    ("kalah:6:standard", "4"): ("+8", "Rawlings 2015"),
    ("kalah:6:standard", "5"): ("+10", "Rawlings 2015"),
}


def load():
    best = {}
    for r in csv.DictReader(open(CSV)):
        key = (r["variant"], r["per_pit"])
        old = best.get(key)
        if old is None or r["status"] == "solved" or old["status"] != "solved":
            best[key] = r
    return best


def signed(v):
    try:
        n = int(v)
    except ValueError:
        return v
    return f"+{n}" if n > 0 else str(n)


def cell(r):
    if r is None:
        return "not run"
    t = float(r["seconds"])
    if r["status"] != "solved":
        return f"open (> {t:.0f} s)"
    lit = LITERATURE.get((r["variant"], r["per_pit"]))
    mark = ""
    if lit:
        mark = " = lit." if signed(r["value"]) == lit[0] else f" **≠ lit. {lit[0]}**"
    return f"{signed(r['value'])}{mark} ({t:.2f} s)"


def render(best):
    out = []
    n_max = max([6] + [int(n) for v, n in best if v.startswith("kalah:")])
    for cap in ("empty", "standard"):
        out.append(f"### Kalah(m, n), capture rule `{cap}` (first player's margin; time in s)\n")
        out.append("| m \\ n | " + " | ".join(str(n) for n in range(1, n_max + 1)) + " |")
        out.append("|---" * (n_max + 1) + "|")
        for m in range(1, 7):
            row = [cell(best.get((f"kalah:{m}:{cap}", str(n)))) for n in range(1, n_max + 1)]
            out.append(f"| {m} | " + " | ".join(row) + " |")
        out.append("")
    out.append("### Other games (start position with N seeds in each pit)\n")
    out.append("| game | seeds/pit | value | first moves | pv ends | time (s) | positions searched | status |")
    out.append("|---|---|---|---|---|---|---|---|")
    for (v, n), r in sorted(best.items()):
        if v.startswith("kalah"):
            continue
        status = "solved" if r["status"] == "solved" else r["status"].split("error: ")[-1]
        out.append(f"| {v} | {n} | {signed(r['value']) or '-'} | {r['moves'] or '-'} | {r['pv_end'] or '-'} | "
                   f"{float(r['seconds']):.2f} | {r['nodes'] or '-'} | {status} |")
    out.append("")
    out.append("Literature: " + "; ".join(f"Kalah({v.split(':')[1]},{n}) {v.split(':')[2]} {val} ({src})"
                                         for (v, n), (val, src) in sorted(LITERATURE.items())) + ".")
    return "\n".join(out)


def main():
    text = open(MD).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{MD}: markers {BEGIN} / {END} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(MD, "w").write(head + BEGIN + "\n" + render(load()) + "\n" + END + tail)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Plots of the recorded results (reads CSV files in results/, writes PNGs there).

  results/start_positions.csv  (scripts/run_start_positions.sh)
      -> results/start_values.png     value of each solved start position by seeds in play
      -> results/start_times.png      search time by seeds in play
  results/table_growth.csv     (mancala-tb generate --verbose, see start-positions.md)
      -> results/table_growth.png     positions, bytes and seconds per class by seeds
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = sys.argv[1] if len(sys.argv) > 1 else "results"


def seeds_in_play(variant, per_pit):
    parts = variant.split(":")
    base = parts[0]
    pits = {"oware": 12, "djenon-aboure": 12, "kotu-baendum": 14, "imbelece": 24}.get(base)
    if base == "kalah":
        pits = 2 * int(parts[1])
    elif base == "cenne":
        pits = int(parts[1]) + int(parts[2])
    elif base == "enkeshui":
        pits = 2 * int(parts[1])
    return (pits or 0) * int(per_pit)


def start_positions():
    path = os.path.join(RESULTS, "start_positions.csv")
    if not os.path.exists(path):
        return
    # Margins only (win/loss games record "win in N" and are left out of these plots).
    rows = [r for r in csv.DictReader(open(path))
            if r["status"] == "solved" and r["value"].lstrip("-").isdigit()]
    fig, ax = plt.subplots(figsize=(8, 5))
    groups = {}
    for r in rows:
        base = r["variant"] if not r["variant"].startswith("kalah") else "kalah " + r["variant"].split(":")[2]
        groups.setdefault(base, []).append((seeds_in_play(r["variant"], r["per_pit"]), int(r["value"])))
    for name, pts in sorted(groups.items()):
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], label=name, s=18)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("seeds in play at the start")
    ax.set_ylabel("value for the first player (margin)")
    ax.set_title("Perfect-play values of start positions")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "start_values.png"), dpi=110)

    fig, ax = plt.subplots(figsize=(8, 5))
    for name, _ in sorted(groups.items()):
        pts = [(seeds_in_play(r["variant"], r["per_pit"]), max(float(r["seconds"]), 1e-4)) for r in rows
               if (r["variant"] if not r["variant"].startswith("kalah") else "kalah " + r["variant"].split(":")[2]) == name]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], label=name, s=18)
    ax.set_yscale("log")
    ax.set_xlabel("seeds in play at the start")
    ax.set_ylabel("search time (s)")
    ax.set_title("Time to solve start positions (mancala-tb solve)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "start_times.png"), dpi=110)

    # Distribution of values per seeds in play (Kalah, both capture rules).
    fig, ax = plt.subplots(figsize=(8, 5))
    by_seeds = {}
    for r in rows:
        if r["variant"].startswith("kalah"):
            by_seeds.setdefault(seeds_in_play(r["variant"], r["per_pit"]), []).append(int(r["value"]))
    xs = sorted(by_seeds)
    ax.boxplot([by_seeds[x] for x in xs], positions=xs, widths=1.5)
    ax.set_xlabel("seeds in play")
    ax.set_ylabel("start value (Kalah, all boards with that many seeds)")
    ax.set_title("Distribution of Kalah start values per seed count")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "value_distribution.png"), dpi=110)


def table_growth():
    path = os.path.join(RESULTS, "table_growth.csv")
    if not os.path.exists(path):
        return
    rows = list(csv.DictReader(open(path)))
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for variant in sorted({r["variant"] for r in rows}):
        pts = sorted((int(r["seeds"]), int(r["positions"]), int(r["bytes"]), float(r["seconds"])) for r in rows
                     if r["variant"] == variant)
        for ax, k, label in zip(axes, (1, 2, 3), ("positions per class", "bytes on disk per class", "seconds per class")):
            ax.plot([p[0] for p in pts], [max(p[k], 1e-4) for p in pts], marker="o", label=variant)
            ax.set_yscale("log")
            ax.set_xlabel("seeds in play")
            ax.set_title(label)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "table_growth.png"), dpi=110)


if __name__ == "__main__":
    start_positions()
    table_growth()

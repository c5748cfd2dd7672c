#!/usr/bin/python3
"""Plots of the recorded results (reads CSV files in results/, writes PNGs there).

  results/start_positions.csv  (scripts/run_start_positions.sh)
      -> results/start_values.png     value of each solved start position by seeds in play
      -> results/start_times.png      search time by seeds in play
      -> results/kalah_start_values.png   heat map of Kalah(m, n) start values, both capture rules
      -> results/start_values_per_pit.png each game's start value per seeds per pit
  results/table_growth.csv     (mancala-tb generate --verbose, see start-positions.md)
      -> results/table_growth.png     positions, bytes and seconds per class by seeds

For each (game, seeds per pit) the newest solved row of the CSV counts (else the newest
attempt), as in scripts/start_positions_md.py.
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


def best_rows():
    """(variant, per_pit) -> the newest solved row, else the newest attempt."""
    path = os.path.join(RESULTS, "start_positions.csv")
    best = {}
    if not os.path.exists(path):
        return best
    for r in csv.DictReader(open(path)):
        key = (r["variant"], int(r["per_pit"]))
        old = best.get(key)
        if old is None or r["status"] == "solved" or old["status"] != "solved":
            best[key] = r
    return best


# Published margins of starts this machine has not solved (shown in the open cells).
KALAH_LITERATURE = {("empty", 6, 5): "+12", ("empty", 6, 6): "+2", ("standard", 6, 4): "+8",
                    ("standard", 6, 5): "+10"}


def margin(r):
    """A solved row's margin; win/draw/loss (Imbelece) as +1/0/-1; None if not decided."""
    if not r or r["status"] != "solved":
        return None
    v = r["value"]
    if v.lstrip("-").isdigit():
        return int(v)
    return {"win": 1, "draw": 0, "loss": -1}.get(v.split(" ")[0])


def kalah_heatmap(best):
    """Kalah(m, n) start values, one panel per capture rule; colour = margin / seeds."""
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    kalah = [k for k in best if k[0].startswith("kalah:")]
    if not kalah:
        return
    n_max = max(6, max(k[1] for k in kalah))
    fig, axes = plt.subplots(1, 2, figsize=(2.2 + 1.05 * n_max * 2, 5.2))
    norm = TwoSlopeNorm(vmin=-0.5, vcenter=0, vmax=0.5)
    for ax, cap in zip(axes, ("empty", "standard")):
        grid = np.full((6, n_max), np.nan)
        for m in range(1, 7):
            for n in range(1, n_max + 1):
                r = best.get((f"kalah:{m}:{cap}", n))
                v = margin(r)
                if v is not None:
                    grid[m - 1, n - 1] = v / (2 * m * n)
                    text = f"+{v}" if v > 0 else str(v)
                    color = "white" if abs(v / (2 * m * n)) > 0.3 else "black"
                elif r is not None:
                    lit = KALAH_LITERATURE.get((cap, m, n))
                    text = "open" + (f"\nlit. {lit}" if lit else "")
                    color = "dimgrey"
                else:
                    lit = KALAH_LITERATURE.get((cap, m, n))
                    text = f"lit. {lit}" if lit else ""
                    color = "dimgrey"
                ax.text(n - 1, m - 1, text, ha="center", va="center", fontsize=9 if "\n" not in text else 7.5,
                        color=color, fontweight="bold" if v is not None else "normal")
        masked = np.ma.masked_invalid(grid)
        cmap = plt.get_cmap("RdBu").copy()
        cmap.set_bad("#e8e4dc")
        im = ax.imshow(masked, cmap=cmap, norm=norm, origin="upper", aspect="equal")
        ax.set_xticks(range(n_max), [str(n) for n in range(1, n_max + 1)])
        ax.set_yticks(range(6), [str(m) for m in range(1, 7)])
        ax.set_xlabel("n = seeds per pit")
        ax.set_ylabel("m = pits per side")
        ax.set_title(f"Kalah(m, n), capture rule '{cap}'")
    cbar = fig.colorbar(im, ax=axes, shrink=0.8)
    cbar.set_label("first player's margin / seeds in play")
    fig.suptitle("Start values under perfect play (first player's margin in seeds; grey: not solved here)")
    fig.savefig(os.path.join(RESULTS, "kalah_start_values.png"), dpi=110, bbox_inches="tight")
    plt.close(fig)


def start_values_per_pit(best):
    """One panel per game: the start value by seeds per pit (Kalah: Kalah(6, n))."""
    families = {}
    for (variant, n), r in best.items():
        base = variant.split(":")[0]
        if base == "kalah":
            if not variant.startswith("kalah:6:"):
                continue
            label = "Kalah(6, n), rule " + variant.split(":")[2]
            fam = "kalah(6)"
        elif base == "cenne":
            label, fam = variant, "cenne"
        elif base == "imbelece":
            label, fam = variant, "imbelece"
        elif base == "enkeshui":
            label, fam = variant, "enkeshui"
        else:
            label, fam = variant, base
        families.setdefault(fam, {}).setdefault(label, []).append((n, r))
    order = [f for f in ("oware", "kalah(6)", "djenon-aboure", "kotu-baendum", "cenne", "enkeshui", "imbelece")
             if f in families] + sorted(f for f in families if f not in
                                        ("oware", "kalah(6)", "djenon-aboure", "kotu-baendum", "cenne", "enkeshui",
                                         "imbelece"))
    cols = 4
    cenne_boards = sorted((v, r) for (v, n), r in best.items() if v.startswith("cenne:") and n == 1)
    rows = (len(order) + bool(cenne_boards) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax, fam in zip(axes.flat, order):
        open_notes, opened, ns = [], [], []
        for label, pts in sorted(families[fam].items()):
            pts.sort(key=lambda p: p[0])
            ns += [n for n, _ in pts]
            solved = [(n, margin(r)) for n, r in pts if margin(r) is not None]
            if fam == "cenne" and len(pts) < 2:  # one seed count only: in the board map below
                continue
            if solved:
                ax.plot([p[0] for p in solved], [p[1] for p in solved], marker="o", ms=4, label=label)
            for n, r in pts:
                if margin(r) is None:
                    what = r["value"] if r["status"] in ("solved", "bounded") and r["value"] else "open"
                    short = label.split(", ")[-1] if label.startswith("Kalah") else label
                    open_notes.append(f"{short} n={n}: {what}")
                    opened.append(n)
        if opened:  # not decided here: hollow grey marks on the axis
            ax.scatter(opened, [0] * len(opened), s=40, facecolors="none", edgecolors="grey", label="not decided")
        ax.set_xlim(0.5, max(ns) + 0.5)
        ax.set_xticks(range(1, max(ns) + 1))
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, -1), max(hi, 1))
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(fam if fam != "kalah(6)" else "Kalah(6, n)", fontsize=10)
        ax.set_xlabel("seeds per pit")
        ax.set_ylabel("win (+1) / draw / loss (-1)" if fam == "imbelece" else "first player's margin")
        if len(ax.get_legend_handles_labels()[0]) > 1:
            ax.legend(fontsize=6, ncol=2 if len(families[fam]) > 6 else 1)
        if open_notes:
            ax.text(0.02, 0.02, "\n".join(open_notes[:6]), transform=ax.transAxes, fontsize=6, color="dimgrey",
                    va="bottom")
    spare = list(axes.flat)[len(order):]
    if cenne_boards:  # Cenne, 1 seed per pit: South's pits in play x North's
        import numpy as np
        ax = spare.pop(0)
        grid = np.full((4, 4), np.nan)
        for v, r in cenne_boards:
            a, b = (int(x) for x in v.split(":")[1:])
            m = margin(r)
            if m is not None:
                grid[a - 4, b - 4] = m / (a + b)
            ax.text(b - 4, a - 4, "open" if m is None else (f"+{m}" if m > 0 else str(m)), ha="center", va="center",
                    fontsize=9, fontweight="bold", color="white" if m is not None and abs(m / (a + b)) > 0.6 else "black")
        cmap = plt.get_cmap("RdBu").copy()
        cmap.set_bad("#e8e4dc")
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-1, vmax=1)
        ax.set_xticks(range(4), [str(b) for b in range(4, 8)])
        ax.set_yticks(range(4), [str(a) for a in range(4, 8)])
        ax.set_xlabel("B = North's pits in play")
        ax.set_ylabel("A = South's (first player's)")
        ax.set_title("cenne:A:B, 1 seed per pit", fontsize=10)
    for ax in spare:
        ax.axis("off")
    fig.suptitle("Start values per seeds per pit (mancala-tb solve; grey notes: not decided here)")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "start_values_per_pit.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    start_positions()
    table_growth()
    best = best_rows()
    kalah_heatmap(best)
    start_values_per_pit(best)

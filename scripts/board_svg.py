#!/usr/bin/env python3
"""Draws the board pictures of docs/rules/ (small SVG files, no dependencies).

    python3 scripts/board_svg.py [OUT_DIR]      (default: docs/rules/img)
    python3 scripts/board_svg.py --check        (exit 1 if a committed picture is stale)

Each picture shows one game's start position as South sees it (South at the bottom):
every pit with its seeds (large) and its circuit number (small, the number the
notation and move labels use), stores and special pits, and the sowing circuit as a
line through the pits in circuit order with arrow heads (counterclockwise).
"""
import html
import math
import pathlib
import sys

R = 17          # pit radius
STEP = 46       # distance between pit centres in a row
MARGIN = 34


class Board:
    def __init__(self, title):
        self.title = title
        self.pits = {}      # circuit number -> (x, y, seeds, style)
        self.extras = []    # (kind, x, y, w, h, label)
        self.notes = []

    def pit(self, n, x, y, seeds, style=""):
        self.pits[n] = (x, y, seeds, style)

    def store(self, x, y, w, h, label, on_circuit=None):
        self.extras.append((x, y, w, h, label, on_circuit))


def two_rows(board, k, south, north_in_circuit_order, x0=0, styles=None):
    """South's row left to right = pits 0..k-1; North's row right to left = k..2k-1."""
    styles = styles or {}
    for i in range(k):
        board.pit(i, x0 + i * STEP, 2 * STEP, south[i], styles.get(i, ""))
        board.pit(k + i, x0 + (k - 1 - i) * STEP, STEP, north_in_circuit_order[i], styles.get(k + i, ""))


def render(board, path_order, width, height, legend):
    out = []
    board_width = width
    width = max(width, int(24 + 5.4 * max(len(line) for line in legend)))
    dx = (width - board_width) / 2
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" font-family="sans-serif">')
    out.append('<defs><marker id="a" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" markerHeight="5" '
               'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#b33"/></marker></defs>')
    out.append(f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="12" fill="#f4e6c8" stroke="#8a6d3b"/>')
    out.append(f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">{html.escape(board.title)}</text>')
    out.append(f'<g transform="translate({dx:.0f},0)">')
    for x, y, w, h, label, _ in board.extras:
        out.append(f'<rect x="{x - w / 2}" y="{y - h / 2}" width="{w}" height="{h}" rx="{min(w, h) / 2}" '
                   'fill="#e2cc9c" stroke="#8a6d3b"/>')
        for j, part in enumerate(label.split("|")):
            out.append(f'<text x="{x}" y="{y + 4 + (j - (label.count("|")) / 2) * 12}" text-anchor="middle" '
                       f'font-size="10">{html.escape(part)}</text>')
    # The circuit: segments between consecutive stations, each with an arrow head.
    pts = []
    for s in path_order:
        if isinstance(s, tuple):
            pts.append(s)
        else:
            x, y, _, _ = board.pits[s]
            pts.append((x, y))
    for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1]):
        d = math.hypot(x2 - x1, y2 - y1)
        if d == 0:
            continue
        ux, uy = (x2 - x1) / d, (y2 - y1) / d
        sx, sy, ex, ey = x1 + ux * (R + 2), y1 + uy * (R + 2), x2 - ux * (R + 4), y2 - uy * (R + 4)
        out.append(f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#b33" '
                   'stroke-width="1.2" stroke-dasharray="3,2" marker-end="url(#a)"/>')
    for n, (x, y, seeds, style) in sorted(board.pits.items()):
        fill = {"end": "#fff2a8", "dead": "#cccccc"}.get(style, "#fffaf0")
        out.append(f'<circle cx="{x}" cy="{y}" r="{R}" fill="{fill}" stroke="#5a4020" stroke-width="1.5"/>')
        out.append(f'<text x="{x}" y="{y + 5}" text-anchor="middle" font-size="14">{seeds}</text>')
        below = y > board.mid_y
        ty = y + R + 11 if below else y - R - 4
        out.append(f'<text x="{x}" y="{ty}" text-anchor="middle" font-size="9" fill="#355">{n}</text>')
    out.append('</g>')
    for j, line in enumerate(legend):
        out.append(f'<text x="10" y="{height - 10 - (len(legend) - 1 - j) * 13}" font-size="10">{html.escape(line)}</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def two_row_picture(name, title, k, south, north, legend, styles=None, stores=None, circuit_extra=None):
    b = Board(title)
    x0 = MARGIN + R + (50 if stores else 0)
    two_rows(b, k, south, north, x0=x0, styles=styles)
    # shift rows down to make room for the title and the numbers above North's row
    b.pits = {n: (x, y + 12, s, st) for n, (x, y, s, st) in b.pits.items()}
    b.mid_y = 1.5 * STEP + 12
    width = x0 + (k - 1) * STEP + R + MARGIN + (50 if stores else 0)
    order = list(range(2 * k))
    if stores:
        for (label, side, on_circuit) in stores:
            x = x0 - R - 32 if side == "left" else x0 + (k - 1) * STEP + R + 32
            b.store(x, b.mid_y, 40, 70, label, on_circuit)
            if on_circuit is not None:
                pos = order.index(on_circuit) + 1
                order.insert(pos, (x, b.mid_y))
    height = int(2 * STEP + 12 + R + 22 + 13 * len(legend) + 8)
    return name, render(b, order, width, height, legend)


def imbelece_picture():
    b = Board("Imbelece: start (3 seeds in each of the 16 pits)")
    x0 = MARGIN + R
    y_top, y_mid, y_bot = 58, 58 + 56, 58 + 112
    for i in range(6):                                   # South's outer row 0..5, left to right
        b.pit(i, x0 + i * STEP, y_bot, 3)
        b.pit(8 + i, x0 + (5 - i) * STEP, y_top, 3)      # North's outer row 8..13, right to left
    b.pit(15, x0 + 0 * STEP, y_mid, 3)                   # central row, left to right as South sees it:
    b.pit(14, x0 + 1 * STEP, y_mid, 3)                   #   15 14 [store] 6 7
    b.pit(6, x0 + 4 * STEP, y_mid, 3)
    b.pit(7, x0 + 5 * STEP, y_mid, 3)
    b.store(x0 + 2.5 * STEP, y_mid, 70, 30, "store (nobody's)")
    b.mid_y = y_mid + 1  # central row numbers above the pits
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    legend = ["South (bottom) owns 0..7, North 8..15; sowing follows the numbers 0, 1, ... 15, 0.",
              "A seed sown at an opponent's closed pit goes to the store instead."]
    width = x0 + 5 * STEP + R + MARGIN
    height = int(y_bot + R + 22 + 13 * len(legend) + 6)
    return "imbelece.svg", render(b, order, width, height, legend)


def pictures():
    yield two_row_picture(
        "djenon-aboure.svg", "Djenon-aboure: start (2 x 6, 48 seeds, no stores)", 6, [4] * 6, [4] * 6,
        ["South (bottom) owns pits 0..5, North 6..11; sowing follows the numbers, counterclockwise."])
    yield two_row_picture(
        "oware.svg", "Oware / Awari: start (2 x 6, 48 seeds)", 6, [4] * 6, [4] * 6,
        ["South (bottom) owns pits 0..5, North 6..11; captured seeds leave the board.",
         "A lap of 12 or more seeds skips the pit it started from."])
    yield two_row_picture(
        "kalah.svg", "Kalah(6,4): start (2 x 6 and two stores)", 6, [4] * 6, [4] * 6,
        ["South's store follows pit 5 on South's circuit; North's store follows pit 11 on North's.",
         "Each player skips the opponent's store."],
        stores=[("North's|store", "left", None), ("South's|store", "right", 5)])
    ends = {0: "end", 6: "end", 7: "end", 13: "end"}
    yield two_row_picture(
        "kotu-baendum.svg", "Kotu-baendum: start (2 x 7, 56 seeds)", 7, [4] * 7, [4] * 7,
        ["Yellow: the end holes 0, 6, 7, 13 (a capture there ties the pit). Stores are off the circuit.",
         "Counterclockwise play shown; a clockwise game is the mirror image (pit i <-> 6-i in each row)."],
        styles=ends, stores=[("North's|store", "left", None), ("South's|store", "right", None)])
    yield two_row_picture(
        "cenne.svg", "Cenne 7:7: start of a round (2 x 7, 56 seeds)", 7, [4] * 7, [4] * 7,
        ["South (bottom) owns 0..6, North 7..13. On cenne:A:B only A + B pits are in play",
         "(each side's leftmost ones) and they are numbered 0..A+B-1 along the circuit."],
        stores=[("North's|store", "left", None), ("South's|store", "right", None)])
    yield two_row_picture(
        "enkeshui.svg", "Enkeshui 2 x 8 (layout a): start (48 seeds)", 8,
        [0, 0, 4, 4, 4, 4, 4, 4], [0, 0, 4, 4, 4, 4, 4, 4],
        ["South (bottom) owns 0..7, North 8..15; pit i faces pit 15-i. Bulls are pits that keep",
         "their place on the circuit; seeds sown into a bull go to its owner."])
    yield imbelece_picture()


def main():
    default = pathlib.Path(__file__).resolve().parent.parent / "docs/rules/img"
    if sys.argv[1:] == ["--check"]:  # the committed pictures are what this script draws
        stale = [n for n, svg in pictures() if not (default / n).is_file() or (default / n).read_text(encoding="utf-8") != svg]
        for n in stale:
            print(f"docs/rules/img/{n} is not what scripts/board_svg.py draws: run it", file=sys.stderr)
        return 1 if stale else 0
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    out.mkdir(parents=True, exist_ok=True)
    for name, svg in pictures():
        (out / name).write_text(svg, encoding="utf-8")
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

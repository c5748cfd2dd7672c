#!/usr/bin/env python3
"""Prints the value, the best move and the position after it, with the mancala_tb module.
usage: probe_module.py DIR POSITION"""
import sys

import mancala_tb

tb = mancala_tb.open(sys.argv[1])
r = tb.probe(sys.argv[2])
print(f"{r.position}: value {r.value}; moves", ", ".join(f"{m.move} ({m.value})" for m in r.moves))
if r.best:
    turn = mancala_tb.play(r.position, r.best.move)
    print(f"best {r.best.move} -> {turn.position or 'game over'}, gains {turn.gains}")
try:
    tb.probe("oware 4,4,4,4,4,4/4,4,4,4,4,4 S")
except mancala_tb.NotFoundError as e:
    print("NotFoundError:", e)

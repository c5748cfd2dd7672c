#!/usr/bin/env python3
"""The mancala_tb package's bulk calls against a Python loop of tb.value (issue 34).

    PYTHONPATH=build/python /usr/bin/python3 scripts/bench_python_bulk.py build/tools/mancala-tb

Makes kalah:4:empty tables up to 12 seeds in a scratch folder, takes the 12-seed class
(50,388 positions), and times, over the same positions in a random order:
  loop       [tb.value(p) for p in positions]                (text parsed per call)
  values_of  tb.values_of(positions)                          (texts, one call)
  codes      tb.values(variant, 12, codes)                    (numpy array of codes)
  class      tb.values(variant, 12)                           (the whole class, code order)
Each is the best of 3 runs; every result is checked equal to the loop's. Prints a
Markdown table with the processor's name.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import mancala_tb

VARIANT, SEEDS = "kalah:4:empty", 12


def best_of(runs, f):
    best, out = float("inf"), None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    tb_program = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bench_bulk_")
    try:
        subprocess.run([tb_program, "generate", VARIANT, "--max-seeds", str(SEEDS), "--out", work],
                       check=True, capture_output=True)
        with mancala_tb.open(work) as tb:
            positions = list(tb.positions(VARIANT, SEEDS))
            order = list(range(len(positions)))
            random.Random(1).shuffle(order)
            texts = [positions[i] for i in order]
            codes = np.array(order, dtype=np.int64)
            t_loop, loop = best_of(3, lambda: [tb.value(p) for p in texts])
            t_texts, by_texts = best_of(3, lambda: tb.values_of(texts))
            t_codes, by_codes = best_of(3, lambda: tb.values(VARIANT, SEEDS, codes))
            t_class, whole = best_of(3, lambda: tb.values(VARIANT, SEEDS))
            assert by_texts.tolist() == loop and by_codes.tolist() == loop
            assert whole[codes].tolist() == loop
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
        n = len(positions)
        print(f"{VARIANT}, class of {SEEDS} seeds: {n} positions, random order; best of 3; {cpu}, "
              f"{os.cpu_count()} cores\n")
        print("| call | seconds | values/s | vs the loop |")
        print("|---|---|---|---|")
        for name, t in [("`[tb.value(p) for p in texts]`", t_loop), ("`tb.values_of(texts)`", t_texts),
                        ("`tb.values(variant, seeds, codes)`", t_codes), ("`tb.values(variant, seeds)` (whole class)", t_class)]:
            print(f"| {name} | {t:.4f} | {n / t / 1e6:.2f} M | {t_loop / t:.1f}x |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Bulk values of the Python module against a loop of tb.value (issue 34's figure).

    PYTHONPATH=build/python /usr/bin/python3 bench/probe_bulk.py DIR

DIR holds Oware's tables up to 16 seeds at least (scripts/bench_probe.sh makes them in
/tmp/mancala-probe-bench/oware-16). Prints the CPU time a position of each call on
the 16-seed class: 20,000 positions drawn uniformly by a loop of tb.value, 200,000
codes by tb.values(variant, seeds, codes), the whole class by tb.values(variant,
seeds), the 20,000 texts by tb.values_of; every answer checked against the loop's.
"""
import sys
import time

import mancala_tb
import numpy as np

d = sys.argv[1]
with mancala_tb.open(d) as tb:
    cls = [c for c in tb.classes("oware") if c.seeds == 16][0]
    rng = np.random.default_rng(1)
    codes = rng.integers(0, cls.size, 200000)
    positions = list(tb.positions("oware", 16))
    sample = [positions[int(c)] for c in codes[:20000]]
    t = time.process_time(); loop = [tb.value(p) for p in sample]; t_loop = (time.process_time() - t) / len(sample)
    t = time.process_time(); bulk = tb.values("oware", 16, codes); t_codes = (time.process_time() - t) / len(codes)
    t = time.process_time(); allv = tb.values("oware", 16); t_all = (time.process_time() - t) / cls.size
    t = time.process_time(); of = tb.values_of(sample); t_of = (time.process_time() - t) / len(sample)
    assert list(bulk[:20000]) == loop and list(of) == loop and allv[int(codes[5])] == bulk[5]
    print(f"class oware 16: {cls.size} positions; CPU time a position: loop of tb.value {t_loop*1e9:.0f} ns; "
          f"tb.values(codes) {t_codes*1e9:.0f} ns ({t_loop/t_codes:.0f}x); tb.values(all) {t_all*1e9:.1f} ns ({t_loop/t_all:.0f}x); "
          f"tb.values_of(texts) {t_of*1e9:.0f} ns ({t_loop/t_of:.1f}x)")

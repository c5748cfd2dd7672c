#!/usr/bin/env python3
"""Issue 16: `mancala-tb solve` of every game's start with up to 16 seeds, without --tables.

Each start is solved as a user would ask it (no --tables: solve searches alone first, then makes the small tables it
needs on the spot), one at a time, under `nice -n 10`, with a wall-clock cap; the time,
the value and what solve said about its tables go to results/small_starts.csv and the
table in results/small-starts.md.

  /usr/bin/python3 scripts/bench_small_starts.py [BUILD_DIR] [--cap SECONDS] [--only SPEC ...]
"""
import argparse
import csv
import json
import os
import re
import resource
import subprocess
import time

MAX_SEEDS = 16


def starts():
    """(variant spec, seeds per pit, seeds in all) of every start up to MAX_SEEDS seeds."""
    out = []
    for rule in ("empty", "standard"):
        for m in range(1, 7):
            for n in range(1, 9):
                if 2 * m * n <= MAX_SEEDS:
                    out.append((f"kalah:{m}:{rule}", n, 2 * m * n))
    for spec, pits in (("oware", 12), ("djenon-aboure", 12), ("kotu-baendum", 14), ("enkeshui:8", 16),
                       ("enkeshui:8:b", 16), ("imbelece", 16)):
        for n in range(1, 9):
            if n * pits <= MAX_SEEDS:
                out.append((spec, n, n * pits))
    for a in range(4, 8):
        for b in range(4, 8):
            for n in range(1, 9):
                if n * (a + b) <= MAX_SEEDS:
                    out.append((f"cenne:{a}:{b}", n, n * (a + b)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--cap", type=float, default=60, help="give up after this many seconds (default 60)")
    ap.add_argument("--only", nargs="*", default=None, help="only these variant specs")
    ap.add_argument("--csv", default="results/small_starts.csv")
    ap.add_argument("--md", default="results/small-starts.md")
    a = ap.parse_args()
    exe = os.path.join(a.build, "tools", "mancala-tb")
    rows = []
    for spec, n, seeds in starts():
        if a.only and spec not in a.only:
            continue
        cmd = ["mancala-tb", "solve", spec, "--per-pit", str(n), "--json", "--time-limit", str(int(a.cap))]
        load = os.getloadavg()[0]
        t0 = time.monotonic()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            p = subprocess.run(["nice", "-n", "10", exe] + cmd[1:], capture_output=True, text=True,
                               timeout=a.cap + 30)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = -9, e.stdout or "", (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        secs = time.monotonic() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        value, tables = "", ""
        if rc == 0:
            try:
                j = json.loads(out)
                value = j.get("value", j.get("result", ""))
            except (ValueError, AttributeError):
                value = out.strip().splitlines()[-1] if out.strip() else ""
        m = re.search(r"made the tables of (.*?) \((\d+) positions, ([0-9.]+) s\)", err)
        alone = re.search(r"solved by search alone \((\d+) positions, ([0-9.]+) s\)", err)
        if alone:
            tables = f"none: solved by search alone ({int(alone.group(1)):,} positions, {alone.group(2)} s)"
        elif m:
            tables = f"{m.group(1)}: {int(m.group(2)):,} positions, {m.group(3)} s"
        elif "too large for tables made on the spot" in err:
            tables = "too large for tables on the spot: searched without"
        status = "ok" if rc == 0 and secs < 10 else ("slow" if rc == 0 else f"failed (rc {rc})")
        if rc != 0:
            last = [l for l in err.strip().splitlines() if l.strip()]
            value = (last[-1].replace("mancala-tb solve: error: ", "")[:240] if last else "")
        row = dict(variant=spec, per_pit=n, seeds=seeds, value=value, seconds=f"{secs:.2f}", cpu_seconds=f"{cpu:.2f}",
                   status=status, tables=tables, load=f"{load:.1f}", command=" ".join(cmd))
        rows.append(row)
        print(f"{spec:18} {n} ({seeds:2} seeds) {secs:7.2f} s ({cpu:6.2f} s CPU, load {load:4.1f})  {status:10} {value}  [{tables}]",
              flush=True)
    if a.only:
        return
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    ok = sum(r["status"] == "ok" for r in rows)
    ok_cpu = sum(r["status"] != "ok" and not r["status"].startswith("failed") and float(r["cpu_seconds"]) < 10
                 for r in rows)
    # The notes written by hand below the table are kept.
    notes = ""
    if os.path.exists(a.md):
        old = open(a.md).read()
        if "\n## Notes" in old:
            notes = old[old.index("\n## Notes"):]
    loads = [float(r["load"]) for r in rows]
    with open(a.md, "w") as f:
        f.write("# `solve` of every start up to 16 seeds, without `--tables` (issue 16)\n\n")
        f.write("Made by `/usr/bin/python3 scripts/bench_small_starts.py build` (one start at a time, "
                f"`nice -n 10`, `--time-limit {int(a.cap)}`; data in `results/small_starts.csv`). Target: each under "
                f"10 s. **{ok} of {len(rows)} under 10 s** of wall time"
                + (f", {ok_cpu} more under 10 s of CPU time (user + system, both threads)" if ok_cpu else "")
                + f". Load: the 1-minute load average of the shared 2-core machine when the start began "
                f"({min(loads):.1f} to {max(loads):.1f}).\n\n")
        f.write("| start | seeds | value | time (s) | CPU (s) | status | tables made on the spot (after the search alone stopped at 16 M positions) | load |\n"
                "|---|---:|---|---:|---:|---|---|---:|\n")
        for r in rows:
            f.write(f"| `{r['variant']}` {r['per_pit']}/pit | {r['seeds']} | {r['value']} | {r['seconds']} | "
                    f"{r['cpu_seconds']} | {r['status']} | {r['tables']} | {r['load']} |\n")
        f.write(notes)

if __name__ == "__main__":
    main()

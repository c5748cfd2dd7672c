#!/usr/bin/env bash
# Probe speed from C, C++ and Python (issue 14), written to results/probe.md.
#
#   bash scripts/bench_probe.sh            (after scripts/build.sh; about a minute)
#
# Tables: oware up to SEEDS seeds (default 12) in WORK (default /tmp/mancala-probe-bench).
# Positions: COUNT (default 20000) drawn uniformly from every table ("cold": nearly every
# value needs a block read from the file and decompressed; the folder is opened afresh
# for the first pass, so its cache starts empty), and COUNT from the first four blocks
# of the largest table ("warm": after the first pass every block is in the cache).
# Each language probes the same lists: PASSES passes of value-only probes (the first pass
# and the later ones apart), then one pass of full probes (value and every move's value).
# Memory: the block cache's bound from the table headers, and each run's peak resident
# size (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
WORK=${WORK:-/tmp/mancala-probe-bench}
SEEDS=${SEEDS:-12}
COUNT=${COUNT:-20000}
PASSES=${PASSES:-3}
PYTHON=$(sed -n 's/^MANCALA_PYTHON:FILEPATH=//p' "$BUILD/CMakeCache.txt")
PYTHON=${PYTHON:-/usr/bin/python3}
TB=$BUILD/tools/mancala-tb
for exe in "$TB" "$BUILD/bench/probe_bench" "$BUILD/bench/probe_bench_c"; do
  [ -x "$exe" ] || { echo "missing $exe: build first (scripts/build.sh)" >&2; exit 1; }
done
mkdir -p "$WORK"
"$TB" generate oware --max-seeds "$SEEDS" --out "$WORK/tb" > /dev/null
cache=$("$BUILD/bench/probe_bench" positions "$WORK/tb" oware "$COUNT" 1 "$WORK/cold.txt" "$WORK/warm.txt")

py_bench() {  # FILE: the Python module, the same passes
  PYTHONPATH=$BUILD/python "$PYTHON" - "$WORK/tb" "$1" "$PASSES" <<'PY'
import sys, time
import mancala_tb
tables, path, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path).read().split("\n")[:-1]
tb = mancala_tb.open(tables)
first = later = 0.0
for p in range(passes):
    t0 = time.perf_counter()
    for l in lines:
        tb.value(l)
    dt = time.perf_counter() - t0
    if p == 0: first = dt
    else: later += dt
t0 = time.perf_counter()
for l in lines:
    tb.probe(l)
probes = time.perf_counter() - t0
n = len(lines)
print(f"first {n / first:.0f} later {n * (passes - 1) / later:.0f} probes {n / probes:.0f}")
PY
}

measure() {  # LANGUAGE FILE -> "first later probes peak_kib"
  local out rss
  case $1 in
    C) out=$(/usr/bin/time -f "rss %M" "$BUILD/bench/probe_bench_c" "$WORK/tb" "$2" "$PASSES" 2> "$WORK/time.txt") ;;
    C++) out=$(/usr/bin/time -f "rss %M" "$BUILD/bench/probe_bench" run "$WORK/tb" "$2" "$PASSES" 2> "$WORK/time.txt") ;;
    Python) out=$(/usr/bin/time -f "rss %M" bash -c "$(declare -f py_bench); BUILD=$BUILD PYTHON=$PYTHON WORK=$WORK PASSES=$PASSES py_bench $2" 2> "$WORK/time.txt") ;;
  esac
  rss=$(sed -n 's/^rss //p' "$WORK/time.txt")
  echo "$(awk '{for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)} END {print v["first"], v["later"], v["probes"], v["parsed"] ? v["parsed"] : "-"}' <<<"$out") $rss"
}

fmt() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else if (x >= 1e6) printf "%.2f M", x / 1e6; else printf "%.0f k", x / 1e3 }'; }

rows=""
for lang in C C++ Python; do
  read -r cf cl cp cparsed crss <<<"$(measure $lang "$WORK/cold.txt")"
  read -r wf wl wp wparsed wrss <<<"$(measure $lang "$WORK/warm.txt")"
  rows+="| $lang | $(fmt "$cf") | $(fmt "$cl") | $(fmt "$wf") | $(fmt "$wl") | $(fmt "$cp") | $(fmt "$wp") | $((crss / 1024)) / $((wrss / 1024)) MiB |"$'\n'
  [ "$cparsed" != "-" ] && parsed="C++ with positions parsed once: $(fmt "$cparsed") values/s cold (later passes), $(fmt "$wparsed") warm."
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
  echo "# Probe speed from C, C++ and Python"
  echo
  echo "Made by \`bash scripts/bench_probe.sh\` (SEEDS=$SEEDS COUNT=$COUNT PASSES=$PASSES) on $(date -u +%Y-%m-%d),"
  echo "$cpu, $(nproc) cores shared with other jobs; one thread. The programs link the installable"
  echo "libraries as an engine does: C \`bench/probe_bench_c.c\` (libmancala_probe, \`mtb_value\`/\`mtb_probe\`),"
  echo "C++ \`bench/probe_bench.cpp\` (libmancala_tb, \`Tablebase::value\`/\`probe\`), Python the \`mancala_tb\`"
  echo "module (\`tb.value\`/\`tb.probe\`). Every value is probed from its text, as the C API and Python"
  echo "take it (parsing included)."
  echo
  echo "Tables: oware up to $SEEDS seeds. $cache."
  echo
  echo "- **cold**: $COUNT positions drawn uniformly from every table: nearly every value reads a"
  echo "  block from its file (the OS file cache is warm) and decompresses it. First pass: the folder"
  echo "  freshly opened; later passes: the same positions again (still mostly misses: the cache"
  echo "  holds only the last few blocks of each file)."
  echo "- **warm**: $COUNT positions from the first four blocks of the largest table: after the first"
  echo "  pass every value is a cache hit."
  echo
  echo "Values per second (value only), and full probes per second (the value and every move's value:"
  echo "one value per legal move):"
  echo
  echo "| language | cold, first pass | cold, later | warm, first pass | warm, later (hits) | probes cold | probes warm | peak RSS cold / warm |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "$parsed"
  echo
  echo "The block cache holds at most 8 decompressed blocks per open table file (the bound above);"
  echo "the peak resident size includes the program, the libraries and, for Python, the interpreter."
  echo "A full probe of a warm position is no faster than a cold one: its moves lead to positions"
  echo "of other classes and blocks (captures, sowing), which miss. The machine's two cores are"
  echo "shared with other jobs: differences under about 30% between rows are noise."
} > results/probe.md
cat results/probe.md

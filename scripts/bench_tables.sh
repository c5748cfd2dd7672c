#!/usr/bin/env bash
# The issue-3 table benchmarks: Oware up to 20 seeds and Kalah(6) up to 20 seeds on
# board, with 1 and 2 threads; wall time, CPU time, peak memory (GNU time), files.
# Usage: scripts/bench_tables.sh [BUILD_DIR] [MAX_SEEDS]   (writes results/raw/*.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
N=${2:-20}
OUT=results/raw
mkdir -p "$OUT"
for job in "oware 2" "kalah:6:empty 1" "kalah:6:empty 2" "oware 1"; do
  set -- $job
  v=$1; t=$2
  dir=$(mktemp -d /tmp/tb-bench.XXXXXX)
  log="$OUT/generate-${v//:/_}-$N-t$t.txt"
  echo "# $B generate $v --max-seeds $N --out $dir --threads $t --verbose" > "$log"
  /usr/bin/time -v "$B" generate "$v" --max-seeds "$N" --out "$dir" --threads "$t" --verbose >> "$log" 2>&1
  du -sb "$dir" >> "$log"
  rm -rf "$dir"
done

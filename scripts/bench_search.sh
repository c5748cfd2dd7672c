#!/usr/bin/env bash
# The issue-16 search benchmark: Kalah(6,4) (empty capture) over the <=20-seed Kalah(6)
# tables, printing seconds (wall and CPU), positions searched and peak memory (GNU time):
#   1. value and best move, 1 thread        (solve --best-only --threads 1)
#   2. value and best move, 2 threads       (solve --best-only --threads 2)
#   3. every first move's exact value, 1 thread (solve --threads 1)
# Job 1 runs twice: first "cold", then as the figure. The cold run is the first to touch
# about 500 MB of fresh memory. On a virtual machine that can cost an extra second of
# system time, while the host backs the pages or the kernel zeroes them. The second run
# measures the search. Both rows are printed.
# Usage: scripts/bench_search.sh [BUILD_DIR] [TABLES] [TT_MB]
#   TABLES: `mancala-tb generate kalah:6:empty --max-seeds 20 --out TABLES` (made here
#   when missing, about 3 minutes). Raw outputs: results/raw/search-*.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
T=${2:-/tmp/large/kalah_6_empty}
TT=${3:-256}
LIMIT=${TIME_LIMIT:-0}  # seconds per run, 0 = none
OUT=results/raw
mkdir -p "$OUT"
if [ ! -f "$T/kalah_6_empty.20.0000000000000000.mtb" ]; then
  "$B" generate kalah:6:empty --max-seeds 20 --out "$T" --threads 2
fi
# Tables of an older format are refused by the reader: say so before timing anything.
if ! err=$("$B" solve kalah:6:empty --per-pit 2 --tables "$T" --threads 1 --best-only --no-pv 2>&1 >/dev/null); then
  echo "the tables in $T cannot be read: $err" >&2
  echo "make them with: $B generate kalah:6:empty --max-seeds 20 --out NEW_DIR --threads 2" >&2
  exit 1
fi
printf '%-28s %8s %8s %12s %9s  %s\n' job wall_s cpu_s positions peak_MiB value
for job in "best-t1-cold --best-only --threads 1" "best-t1 --best-only --threads 1" "best-t2 --best-only --threads 2" "all-t1 --threads 1"; do
  set -- $job
  name=$1; shift
  log="$OUT/search-kalah64-$name.txt"
  cmd="$B solve kalah:6:empty --per-pit 4 --tables $T --tt-mb $TT --no-pv --time-limit $LIMIT $*"
  echo "\$ $cmd" > "$log"
  /usr/bin/time -v $cmd >> "$log" 2>&1 || true
  sed -i "s|$T|TABLES|g" "$log"   # no machine paths in results/
  wall=$(grep -o 'Elapsed (wall clock) time (h:mm:ss or m:ss): .*' "$log" | awk '{print $NF}' |
         awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  cpu=$(awk '/User time|System time/ { s += $NF } END { print s }' "$log")
  nodes=$(grep -o '[0-9]* positions searched' "$log" | head -1 | awk '{print $1}' || true)
  mem=$(awk '/Maximum resident/ { printf "%.0f", $NF / 1024 }' "$log")
  value=$(grep -m1 '^  value' "$log" | awk '{print $2}' || true)
  [ -n "$value" ] || value="(stopped: see $log)"
  printf '%-28s %8s %8s %12s %9s  %s\n' "kalah(6,4) $name" "$wall" "$cpu" "$nodes" "$mem" "$value"
done

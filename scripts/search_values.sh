#!/usr/bin/env bash
# The issue-16 start values by search, one at a time, niced, each run's full output in
# results/raw/solve-<name>.txt (with its command and GNU time). Restartable: a run whose
# log ends with a value is skipped. Usage:
#   scripts/search_values.sh BUILD_DIR TIME_LIMIT_S NAME...
# NAME: k64s (Kalah(6,4) standard), k65e, k65s, kotu2, enk1 (see the table below).
# Tables: $K6E and $K6S (Kalah(6) up to 20 seeds, `generate kalah:6:empty|standard --max-seeds 20`).
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1; limit=$2; shift 2
K6E=${K6E:-/tmp/large/kalah_6_empty}; K6S=${K6S:-/tmp/large/kalah_6_standard}
TT_MB=${TT_MB:-2048}; THREADS=${THREADS:-1}
for name in "$@"; do
  case $name in
    k64s) args="kalah:6:standard --per-pit 4 --tables $K6S --best-only" ;;
    k65e) args="kalah:6:empty --per-pit 5 --tables $K6E --best-only" ;;
    k65s) args="kalah:6:standard --per-pit 5 --tables $K6S --best-only" ;;
    k64e) args="kalah:6:empty --per-pit 4 --tables $K6E" ;;
    kotu2) args="kotu-baendum --per-pit 2" ;;
    enk1) args="enkeshui:8 --per-pit 1" ;;
    *) echo "unknown $name" >&2; continue ;;
  esac
  log=results/raw/solve-$name.txt
  if [ -f "$log" ] && grep -q "^  value" "$log"; then echo "$name: done"; continue; fi
  cmd="$build/tools/mancala-tb solve $args --threads $THREADS --tt-mb $TT_MB --time-limit $limit"
  { echo "\$ $cmd"; /usr/bin/time -v nice -n 10 $cmd 2>&1 | tr '\r' '\n' | grep -v "first moves, "; } > "$log" 2>&1
  grep -E "^  value|gave up|Elapsed|Maximum resident" "$log" | sed "s/^/$name: /"
done

#!/usr/bin/env bash
# Issue 16: every start position of up to 16 seeds solved without --tables (solve makes
# the tables it needs on the spot, else searches), one at a time, 1 thread; the wall
# and CPU seconds of each (GNU time). Usage: scripts/bench_small_starts.sh [BUILD_DIR]
# Output: one line per start, also in results/raw/small-starts.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
out=results/raw/small-starts.txt
starts=()
for cap in empty standard; do
  for m in 1 2 3 4 5 6; do
    for n in 1 2 3 4 5 6 7 8; do
      [ $((2 * m * n)) -le 16 ] && starts+=("kalah:$m:$cap $n $((2 * m * n))")
    done
  done
done
starts+=("oware 1 12" "djenon-aboure 1 12" "djenon-aboure 2 24" "kotu-baendum 1 14" "enkeshui:8 1 16")
for a in 4 5 6 7; do for b in 4 5 6 7; do [ $((a + b)) -le 16 ] && starts+=("cenne:$a:$b 1 $((a + b))"); done; done
printf '%-22s %5s %6s %8s %8s  %s\n' start seeds value wall_s cpu_s how | tee "$out"
for s in "${starts[@]}"; do
  set -- $s
  log=$(mktemp)
  /usr/bin/time -f "TIME %e %U %S" timeout 300 "$B" solve "$1" --per-pit "$2" --threads 1 --no-pv > "$log" 2>&1
  value=$(grep -m1 '^  value' "$log" | sed 's/^  value //')
  [ -n "$value" ] || value="-"
  read -r wall user sys < <(grep '^TIME' "$log" | awk '{print $2, $3, $4}')
  how=$(grep -o 'made the tables of [^(]*\|too large for tables made on the spot\|error: .*' "$log" | head -1)
  printf '%-22s %5s %6s %8s %8s  %s\n' "$1/$2" "$3" "$value" "$wall" "$(echo "$user + $sys" | bc)" "${how:-searched}" | tee -a "$out"
  rm -f "$log"
done

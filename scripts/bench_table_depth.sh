#!/usr/bin/env bash
# What each extra seed of tables buys the Kalah search (issue 33): one Kalah(6) table
# folder, read up to D seeds for each D (a folder of links to its classes of up to D
# seeds), and `solve --best-only` of Kalah(6,N) over each, one after the other on the
# same machine in one run. Prints, per depth and start: wall and CPU seconds (GNU time),
# positions searched, table values read, peak memory and the value and best move.
#
#   scripts/bench_table_depth.sh BUILD_DIR TABLES RULE "DEPTHS" "PER_PITS" [THREADS] [TT_MB]
#
# TABLES: `mancala-tb generate kalah:6:RULE --max-seeds S --out TABLES` with S at least
# the largest depth. RULE: empty or standard. TIME_LIMIT (seconds, default 300) ends a
# search that takes longer (its row then says "stopped"). Example (Kalah(6,4) and (6,5)
# over 20 to 26 seeds):
#   scripts/bench_table_depth.sh build K6E26 empty "20 22 24 26" "4 5" 2 4096
set -euo pipefail
build=$1 tables=$2 rule=$3 depths=$4 pits=$5 threads=${6:-2} tt=${7:-4096}
limit=${TIME_LIMIT:-300}
tb=$build/tools/mancala-tb
v=kalah:6:$rule
name=kalah_6_$rule
[ -f "$tables/$name.0.0000000000000000.mtb" ] || { echo "no $v tables in $tables" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-6s %8s %8s %14s %14s %9s  %s\n' start depth wall_s cpu_s positions table_values peak_MiB result
for d in $depths; do
  dir=$work/up-to-$d
  mkdir -p "$dir"
  for s in $(seq 0 "$d"); do
    f=$tables/$name.$s.0000000000000000.mtb
    [ -f "$f" ] || { echo "$tables has no class of $s seeds" >&2; exit 1; }
    ln -s "$(readlink -f "$f")" "$dir/"
  done
  for n in $pits; do
    log=$work/log-$d-$n
    /usr/bin/time -f "time %e %U %S %M" "$tb" solve "$v" --per-pit "$n" --tables "$dir" --threads "$threads" \
      --tt-mb "$tt" --best-only --no-pv --time-limit "$limit" > "$log" 2>&1 || true
    read -r wall user sys peak < <(grep '^time ' "$log" | tail -1 | cut -d' ' -f2-)
    positions=$(grep -o '[0-9]* positions searched' "$log" | awk '{print $1}' || true)
    values=$(grep -o '[0-9]* table values' "$log" | awk '{print $1}' || true)
    value=$(sed -n 's/^ *value //p' "$log")
    move=$(awk '/^ *move /{print $2; exit}' "$log")
    result=$([ -n "$value" ] && echo "$value, move $move" || echo "stopped: $(grep 'error: ' "$log" | tail -1 | sed 's/.*error: //')")
    printf '%-7s %-6s %8s %8.1f %14s %14s %9d  %s\n' "($n)" "$d" "$wall" "$(echo "$user + $sys" | bc)" \
      "${positions:--}" "${values:--}" $((peak / 1024)) "$result"
  done
done

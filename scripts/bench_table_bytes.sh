#!/usr/bin/env bash
# Bytes a position on disk, per game, for the values (.mtb) and the distances (.mtz)
# (issue 31): each game generated with --distances where it has distance tables (the
# score games with cycles), values alone else; one line per game.
#
#   bash scripts/bench_table_bytes.sh [BUILD_DIR]       (after scripts/build.sh; minutes)
#
# WORK (default /tmp/mancala-table-bytes) keeps the folders; JOBS overrides the set:
# "spec seeds" pairs separated by ';', a spec being a variant or --from=VARIANT ROOT
# (as scripts/table_checksums.sh). The output goes to stdout: results/probe.md keeps it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TB=$BUILD/tools/mancala-tb
[ -x "$TB" ] || { echo "missing $TB: build first (scripts/build.sh)" >&2; exit 1; }
WORK=${WORK:-/tmp/mancala-table-bytes}
THREADS=${THREADS:-2}
# The games with distance tables (score games with cycles).
distances="djenon-aboure oware kotu-baendum cenne:7:7 --from=enkeshui:8"
JOBS=${JOBS:-"oware 16;djenon-aboure 13;kotu-baendum 11;cenne:7:7 14;--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S 16;kalah:6:empty 18;--from=imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S 16"}
mkdir -p "$WORK"
# bytes of the files matching a pattern in a folder (0 when none)
bytes() { find "$1" -maxdepth 1 -name "$2" -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $THREADS threads, $(date -u +%Y-%m-%d)"
printf "| %s | %s | %s | %s | %s | %s |\n" game "up to" positions "values B/pos" "distances B/pos" "CPU s"
printf "|---|---:|---:|---:|---:|---:|\n"
IFS=';' read -ra jobs <<< "$JOBS"
for job in "${jobs[@]}"; do
  seeds=${job##* } what=${job% *} flag=()
  [[ " $distances " == *" ${what%%[ ,]*} "* ]] && flag=(--distances)
  if [[ $what == --from=* ]]; then
    root=${what#--from=} dir=$WORK/$(echo "$root" | tr -c 'a-z0-9\n' _) label="${root%% *} (from a root)"
    args=(--from "$root")
  else
    dir=$WORK/$(echo "$what" | tr : _) label=$what args=("$what")
  fi
  if ! "$TB" info "$dir" > /dev/null 2>&1; then
    rm -rf "$dir"
    /usr/bin/time -f "%U %S" -o "$WORK/time.txt" "$TB" generate "${args[@]}" --max-seeds "$seeds" --out "$dir" \
      --threads "$THREADS" "${flag[@]}" > /dev/null
    cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$WORK/time.txt")
  else
    cpu="(kept)"
  fi
  positions=$("$TB" info "$dir" --json | python3 -c 'import json,sys; print(sum(v["positions"] for v in json.load(sys.stdin)["variants"]))')
  mtb=$(bytes "$dir" '*.mtb') mtz=$(bytes "$dir" '*.mtz')
  dz="-"
  [ "${#flag[@]}" -gt 0 ] && dz=$(awk -v b="$mtz" -v n="$positions" 'BEGIN { printf "%.3f", b / n }')
  printf "| %s | %s | %s | %s | %s | %s |\n" "$label" "$seeds" "$positions" \
    "$(awk -v b="$mtb" -v n="$positions" 'BEGIN { printf "%.3f", b / n }')" "$dz" "$cpu"
done

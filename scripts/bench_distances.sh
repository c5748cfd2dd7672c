#!/usr/bin/env bash
# Generation with distance tables against values alone, side by side in one run
# (issue 31): for each job, `generate` of the values alone, then `generate --distances`
# into another folder, each timed by GNU time; prints wall and CPU seconds, peak memory,
# the ratio of the walls (target: at most 1.5), bytes a position on disk of the values
# and of the distances, and checks that both runs wrote the same value files.
#
#   scripts/bench_distances.sh [BUILD_DIR]          (default jobs: oware 16, kotu-baendum 16)
#   JOBS="oware 16;kotu-baendum 14" THREADS=2 scripts/bench_distances.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
THREADS=${THREADS:-2}
IFS=';' read -r -a jobs <<< "${JOBS:-oware 16;kotu-baendum 16}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lscpu | sed -n 's/^Model name: *//p' | sed 's/^/processor: /'
printf "%-14s %5s %7s %-9s %8s %8s %9s %7s %10s %10s\n" job seeds threads run wall_s cpu_s peak_MiB ratio "value B/pos" "dist B/pos"
for job in "${jobs[@]}"; do
  read -r variant seeds <<< "$job"
  base=""
  for run in values distances; do
    dir=$work/$run
    rm -rf "$dir"
    flag=""
    [[ $run == distances ]] && flag=--distances
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$B" generate "$variant" --max-seeds "$seeds" --out "$dir" \
      --threads "$THREADS" $flag > "$work/out"
    read -r wall user sys peak < "$work/time"
    vbp=$(sed -n 's/.*(\([0-9.]*\) bytes\/position).*/\1/p' "$work/out" | head -1)
    dbp=$(sed -n 's/^distances:.*(\([0-9.]*\) bytes\/position).*/\1/p' "$work/out")
    [[ -z $base ]] && base=$wall
    ratio=$(awk -v a="$wall" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
    printf "%-14s %5s %7s %-9s %8.1f %8.1f %9.1f %7s %10s %10s\n" "$variant" "$seeds" "$THREADS" "$run" "$wall" \
      "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v m="$peak" 'BEGIN { print m / 1024 }')" \
      "$ratio" "$vbp" "${dbp:--}"
  done
  (cd "$work/values" && sha256sum -- *.mtb) > "$work/a"
  (cd "$work/distances" && sha256sum -- *.mtb) > "$work/b"
  cmp -s "$work/a" "$work/b" && echo "  $variant: the same value files with and without --distances" ||
    { echo "  $variant: VALUE FILES DIFFER" >&2; exit 1; }
done

#!/usr/bin/env bash
# Reachable-set tables of issue 5 (results/reachable.md): Imbelece and Enkeshui 2x8
# from roots with 16 seeds in play; time, memory, size, verify, the root's value and
# the value distribution. Usage: scripts/reachable_results.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
for root in "imbelece 2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S" \
            "enkeshui:8 0S,0,2,2,2,2,0,0/0N,0,2,2,2,2,0,0 S"; do
  dir=$(mktemp -d /tmp/tb-reach.XXXXXX)
  echo "\$ mancala-tb generate --from \"$root\" --max-seeds 16 --out DIR --threads 2"
  /usr/bin/time -f "wall %e s, cpu %U s, peak memory %M KB" "$B" generate --from "$root" --max-seeds 16 --out "$dir" --threads 2
  "$B" verify "$dir"
  "$B" probe "$dir" "$root"
  "$B" info "$dir" --stats
  rm -rf "$dir"
  echo
done

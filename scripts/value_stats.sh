#!/usr/bin/env bash
# The value distribution per seed count of the three anchor variants (results/values.md):
# generates the tables in a temporary folder, then `info --stats`.
# Usage: scripts/value_stats.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
dir=$(mktemp -d /tmp/tb-stats.XXXXXX)
for job in "djenon-aboure 11" "oware 16" "kalah:6:empty 16"; do
  set -- $job
  echo "\$ mancala-tb generate $1 --max-seeds $2 --out DIR && mancala-tb info DIR --stats"
  "$B" generate "$1" --max-seeds "$2" --out "$dir" >/dev/null
  "$B" info "$dir" --stats | sed -n "/^$1\$/,/^$1:/p"
  echo
done
rm -rf "$dir"

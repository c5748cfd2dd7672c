#!/usr/bin/env bash
# Tables of the multi-lap games (bound sweeps) as far as this machine gets in a few
# minutes: time, memory and size per seed count (results/multilap.md).
# Usage: scripts/bench_multilap.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
for job in "kotu-baendum 8" "cenne:7:7 10" "djenon-aboure 12"; do
  set -- $job
  dir=$(mktemp -d /tmp/tb-ml.XXXXXX)
  echo "\$ mancala-tb generate $1 --max-seeds $2 --out DIR --threads 2 --verbose"
  /usr/bin/time -f "wall %e s, cpu %U s, peak memory %M KB" "$B" generate "$1" --max-seeds "$2" --out "$dir" --threads 2 --verbose \
    | awk '/^solved/ {k=$2; c[k]+=$(NF-6); s[k]+=$(NF-2); b[k]+=$NF; r[k]=($(NF-4)>r[k]?$(NF-4):r[k]); n[k]++} !/^solved/ {print}
           END {printf "%6s %8s %14s %10s %10s %12s\n", "seeds", "classes", "positions", "max sweeps", "seconds", "bytes";
                for (k in c) printf "%6s %8d %14d %10d %10.2f %12d\n", k, n[k], c[k], r[k], s[k], b[k] | "sort -n"}'
  "$B" verify "$dir" | tail -1
  rm -rf "$dir"
  echo
done

#!/usr/bin/env bash
# Strategy proofs of Imbelece positions (results/reachable.md, "Strategy proofs"):
# win / draw / loss of roots whose reachable sets are too large for tables, each side's
# certificate, time and peak memory. Usage: scripts/strategy_results.sh [BUILD_DIR]
# Env: TT_MB (default 4000) per proof, LIMIT seconds per root (default 300),
# START=1 adds the 1-seed-per-pit start (needs TT_MB=18000 and does not finish here).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/tools/mancala-tb
TT_MB=${TT_MB:-4000}
LIMIT=${LIMIT:-300}
roots=("2,2,2,2,0x,0x,0x,0x/2,2,2,2,0x,0x,0x,0x S"
       "3,3,3,3,0x,0x,0x,0x/3,3,3,3,0x,0x,0x,0x S"
       "4,4,4,4,0x,0x,0x,0x/4,4,4,4,0x,0x,0x,0x S"
       "2,2,2,2,2,0x,0x,0x/2,2,2,2,2,0x,0x,0x S"
       "3,3,3,3,3,0x,0x,0x/3,3,3,3,3,0x,0x,0x S"
       "2,2,2,2,2,2,0x,0x/2,2,2,2,2,2,0x,0x S")
[[ ${START:-0} == 1 ]] && roots+=("1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 S first")
for root in "${roots[@]}"; do
  # shellcheck disable=SC2086
  echo "\$ mancala-tb solve imbelece $root --strategy --tt-mb $TT_MB --time-limit $LIMIT"
  /usr/bin/time -f "wall %e s, peak memory %M KB" "$B" solve imbelece $root --strategy --tt-mb "$TT_MB" --time-limit "$LIMIT"
  echo
done

#!/usr/bin/env bash
# One command from a fresh Debian machine: install, build, then the main job on a
# small default: generate Oware tables up to 12 seeds in play with their distances
# (so that the best move the probe names realises the value), verify them, and
# probe a few positions (text and JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
TARGET=mancala-tb bash scripts/build.sh
TB=${TB_DIR:-tb-demo}
./build/tools/mancala-tb generate oware --max-seeds 12 --distances --out "$TB"
./build/tools/mancala-tb info "$TB"
./build/tools/mancala-tb verify "$TB"
./build/tools/mancala-tb probe "$TB" "oware 0,0,1,0,3,2/2,1,0,3,0,0 S" "oware 1,1,1,1,1,1/1,1,1,1,1,0 N"
./build/tools/mancala-tb probe "$TB" "oware 2,0,0,0,1,3/0,2,2,0,0,0 S" --json

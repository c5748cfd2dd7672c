#!/usr/bin/env bash
# Configures and builds the project (Release) into ${BUILD_DIR:-build}.
# TARGET=name builds one target only (default: all). Extra CMake options may be
# passed as arguments, e.g. -DMANCALA_SANITIZE=address.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" ${TARGET:+--target "$TARGET"}

#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (MANCALA_FUZZ=ON, its own build folder) and
# runs each for a bounded time on a scratch copy of its committed seed corpus.
#
#   fuzz/run_fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR]      # defaults: 30, build-fuzz
#
# Prints one line per target (executions, corpus size, findings) and a total; exit 1
# on any finding (crash, sanitizer report or broken invariant; the input is kept in
# BUILD_DIR/artifacts/), 77 when clang or its libFuzzer runtime is missing (ctest
# reports the test as skipped). FUZZ_JOBS=N builds with N jobs (default 2);
# FUZZ_CC / FUZZ_CXX = the compilers (default clang / clang++).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
seconds=${1:-30}
build=${2:-build-fuzz}
mkdir -p "$build"
build=$(cd "$build" && pwd)

cc=${FUZZ_CC:-clang} cxx=${FUZZ_CXX:-clang++}
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe_dir/t.cpp"
if ! command -v "$cxx" > /dev/null || ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/t.cpp" -o "$probe_dir/t" 2> /dev/null; then
  echo "SKIPPED: clang++ with the libFuzzer runtime (-fsanitize=fuzzer) is not available; install clang (scripts/install-deps.sh)"
  exit 77
fi

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DMANCALA_FUZZ=ON \
  -DMANCALA_TESTS=OFF -DMANCALA_MPI=OFF -DMANCALA_BENCH=OFF -DCMAKE_BUILD_TYPE=Fuzz \
  -DCMAKE_CXX_FLAGS_FUZZ="-O1 -g" -DCMAKE_C_FLAGS_FUZZ="-O1 -g" > "$build/configure.log" 2>&1 ||
  { echo "FAILED: configuring the fuzz build (log: $build/configure.log)"; tail -20 "$build/configure.log"; exit 1; }
if ! nice -n 10 cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target fuzz_targets > "$build/build.log" 2>&1; then
  echo "FAILED: the fuzz build (log: $build/build.log):"; tail -20 "$build/build.log"; exit 1
fi

total=0 findings=0
mkdir -p "$build/artifacts"
for target in table position_list notation; do
  run=$build/corpus/$target
  mkdir -p "$run"
  log=$build/fuzz_$target.log
  status=0
  nice -n 10 "$build/fuzz/fuzz_$target" "$run" "$src/fuzz/corpus/$target" -max_total_time="$seconds" \
    -print_final_stats=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 \
    -artifact_prefix="$build/artifacts/${target}-" > "$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  units=$(ls "$run" | wc -l)
  found=0
  if [ "$status" -ne 0 ]; then
    found=1
    echo "FINDING in fuzz_$target (exit $status):"; grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -10
  fi
  echo "fuzz_$target: $execs executions in ${seconds} s, corpus $units inputs, $found findings"
  total=$((total + execs)) findings=$((findings + found))
done
echo "total: $total executions, $findings findings"
[ "$findings" -eq 0 ]

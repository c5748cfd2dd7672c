#!/usr/bin/env bash
# The installed library used from outside the build tree (issue 14):
#   install to a temporary prefix, then probe a generated table from
#   1. a separate CMake project: find_package(mancala), mancala::probe (C++) and mancala::probe_c (C)
#   2. a plain `cc -std=c99 consumer.c -lmancala_probe` (paths given by CPATH/LIBRARY_PATH only)
#   3. pkg-config builds: the C API (mancala_probe) and the C++ library (mancala)
# and check each answer against `mancala-tb probe --json`.
# usage: test_consumer.sh BUILD_DIR WORK_DIR C_COMPILER CXX_COMPILER
set -euo pipefail
build=$1 work=$2 cc=$3 cxx=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libmancala_probe.so' | head -1)")
[ -n "$libdir" ] || { echo "FAIL: libmancala_probe.so not installed"; exit 1; }
for f in include/mancala/mancala_probe.h include/mancala/probe.h include/mancala/version.h; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
[ -f "$libdir/cmake/mancala/mancalaConfig.cmake" ] && [ -f "$libdir/cmake/mancala/mancalaConfigVersion.cmake" ] \
  || { echo "FAIL: no mancalaConfig.cmake"; exit 1; }
# Only the C API leaves libmancala_probe.
if nm -D --defined-only "$libdir/libmancala_probe.so" | awk '$2 == "T" && $3 !~ /^mtb_/' | grep -q .; then
  echo "FAIL: libmancala_probe exports more than mtb_*:"; nm -D --defined-only "$libdir/libmancala_probe.so" | head; exit 1
fi
# No tuning flag in the exported interface.
if grep -rqE 'march|fsanitize' "$libdir/cmake/mancala" "$libdir/pkgconfig"; then
  echo "FAIL: -march or -fsanitize in the exported interface"; exit 1
fi

tables=$work/tables
"$prefix/bin/mancala-tb" generate oware --max-seeds 5 --out "$tables" >/dev/null
pos="oware 1,0,0,2,0,0/0,1,0,0,1,0 S"
json=$("$prefix/bin/mancala-tb" probe "$tables" "$pos" --json)
want_value=$(sed -E 's/.*"value":(-?[0-9]+).*/\1/' <<<"${json%%,\"moves\"*}")
want_moves=$(grep -o '"move":' <<<"$json" | wc -l)
want="$want_value $want_moves"
status=0
check() {  # NAME PROGRAM
  local got
  got=$(LD_LIBRARY_PATH=$libdir "$2" "$tables" "$pos" | cut -d' ' -f1,2) || { echo "FAIL $1: exit $?"; status=1; return; }
  if [ "$got" = "$want" ]; then echo "ok   $1: value and move count $got"; else echo "FAIL $1: got '$got', want '$want'"; status=1; fi
}

# 1. find_package(mancala)
cmake -S "$here/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake" >/dev/null
check "find_package C++ (mancala::probe)" "$work/cmake/consumer_cxx"
check "find_package C (mancala::probe_c)" "$work/cmake/consumer_c"

# 2. cc -std=c99 consumer.c -lmancala_probe, nothing else
(cd "$work" && CPATH=$prefix/include LIBRARY_PATH=$libdir "$cc" -std=c99 -o plain_c "$here/consumer/consumer.c" -lmancala_probe)
check "cc -std=c99 consumer.c -lmancala_probe" "$work/plain_c"

# 3. pkg-config
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
"$cc" -std=c99 -o "$work/pkgconfig_c" "$here/consumer/consumer.c" $(pkg-config --cflags --libs mancala_probe)
check "pkg-config mancala_probe" "$work/pkgconfig_c"
# With the rpath variable the program runs without LD_LIBRARY_PATH.
# shellcheck disable=SC2046
"$cc" -std=c99 -o "$work/pkgconfig_rpath" "$here/consumer/consumer.c" $(pkg-config --cflags --libs mancala_probe) \
  $(pkg-config --variable=rpath mancala_probe)
if env -u LD_LIBRARY_PATH "$work/pkgconfig_rpath" "$tables" "$pos" >/dev/null; then echo "ok   pkg-config rpath: runs without LD_LIBRARY_PATH"
else echo "FAIL pkg-config rpath: the program does not run without LD_LIBRARY_PATH"; status=1; fi
# and the C++ library through pkg-config alone: its Cflags carry the standard the
# headers need (g++ 12 defaults to C++17, where <expected> is missing).
# shellcheck disable=SC2046
"$cxx" -o "$work/pkgconfig_cxx" "$here/consumer/consumer.cpp" $(pkg-config --cflags --libs mancala)
check "pkg-config mancala (C++)" "$work/pkgconfig_cxx"
[ "$(pkg-config --variable=cxx_std mancala)" = c++23 ] || { echo "FAIL: pkg-config mancala: no cxx_std"; status=1; }
[ "$(pkg-config --modversion mancala_probe)" = "$("$prefix/bin/mancala-tb" --version | cut -d' ' -f2)" ] \
  || { echo "FAIL: pkg-config version differs from mancala-tb --version"; status=1; }

# 4. the installed Python package (when built), found through PYTHONPATH alone (its
#    compiled part carries the probe library: no libmancala_tb needed at run time).
module=$(find "$prefix" -path '*/mancala_tb/__init__.py' | head -1)
[ -z "$module" ] || module=$(dirname "$module")
python=$(sed -n 's/^MANCALA_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
if [ -n "$module" ] && [ -n "$python" ]; then
  got=$(env -u LD_LIBRARY_PATH PYTHONPATH="$(dirname "$module")" "$python" -c \
        'import sys, mancala_tb; r = mancala_tb.open(sys.argv[1]).probe(sys.argv[2]); print(r.value, len(r.moves))' \
        "$tables" "$pos") || got="import failed"
  if [ "$got" = "$want" ]; then echo "ok   installed Python module: value and move count $got"
  else echo "FAIL installed Python module: got '$got', want '$want'"; status=1; fi
fi
exit $status

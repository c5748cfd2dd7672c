#!/usr/bin/env bash
# The Python package installed as a user installs it (issue 34): a fresh virtual
# environment (--system-site-packages: Debian's numpy), `pip install --no-build-isolation`
# offline, then the package used from outside the source tree, its stubs checked by
# mypy's stubtest against the module and an example type-checked with mypy --strict
# (both skipped with a line saying so when Debian's python3-mypy is missing).
#
#   test_pip_install.sh SOURCE_DIR BUILD_DIR PYTHON MANCALA_TB WORK
#
# pip builds with MANCALA_BUILD_DIR=BUILD_DIR: setup.py builds the module target in the
# test suite's own build folder (already built: no second compile), so this checks the
# packaging (metadata, files, stubs, py.typed), not the compiler.
set -euo pipefail
src=$1 build=$2 python=$3 tb=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# The files pip needs, copied (pip builds in the folder it is given: the source tree
# stays untouched).
mkdir "$work/src"
cp "$src"/{pyproject.toml,setup.py,MANIFEST.in,CMakeLists.txt,README.md} "$work/src/"
cp -r "$src/python" "$work/src/python"

"$python" -m venv --system-site-packages "$work/v"
MANCALA_BUILD_DIR=$build "$work/v/bin/pip" install --no-build-isolation --no-index --no-deps -q "$work/src"
cd "$work"  # not the build's python/ folder, whose mancala_tb/ would be imported first
site=$("$work/v/bin/python" -c 'import mancala_tb, os; print(os.path.dirname(mancala_tb.__file__))')
case $site in "$work/v/"*) ;; *) echo "FAIL: mancala_tb imported from $site, not the venv"; exit 1;; esac
for f in py.typed _core.pyi __init__.py; do
  [ -f "$site/$f" ] || { echo "FAIL: $f not installed in $site"; exit 1; }
done
shown=$("$work/v/bin/pip" show mancala-tb)
grep -qx "Version: $("$tb" --version | cut -d' ' -f2)" <<<"$shown" \
  || { echo "FAIL: pip's version differs from mancala-tb --version: $shown"; exit 1; }

"$tb" generate kalah:4:empty --max-seeds 6 --out "$work/tables" >/dev/null
(cd "$work" && "$work/v/bin/python" "$here/example.py" "$work/tables")

if "$work/v/bin/python" -m mypy --version >/dev/null 2>&1; then
  (cd "$work" && "$work/v/bin/python" -m mypy.stubtest mancala_tb --allowlist "$here/stubtest_allowlist.txt")
  (cd "$work" && "$work/v/bin/python" -m mypy --strict --no-incremental --cache-dir=/dev/null "$here/example.py")
else
  echo "skipped: mypy (stubtest, --strict) not installed: apt-get install python3-mypy"
fi
echo "ok   pip install into a fresh venv, import, stubs"

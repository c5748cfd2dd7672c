#!/usr/bin/env bash
# Installs every Debian package the project needs (build, tests, MPI, plots).
# Idempotent: packages already present are left alone.
set -euo pipefail
pkgs=(build-essential cmake pkg-config git
      libtbb-dev libzstd-dev zlib1g-dev libboost-dev libboost-serialization-dev
      libboost-mpi-dev libopenmpi-dev openmpi-bin
      libgtest-dev libgmock-dev libbenchmark-dev
      python3 python3-matplotlib time
      libcli11-dev nlohmann-json3-dev pybind11-dev python3-pybind11 python3-dev python3-pytest
      python3-numpy python3-venv python3-pip python3-setuptools python3-wheel python3-build python3-mypy
      libcpp-httplib-dev chromium chromium-driver python3-selenium
      clang libclang-rt-14-dev slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

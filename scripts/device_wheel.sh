#!/usr/bin/env bash
# On the GPU machine (no LLVM, Python 3.12): builds tritium's cp312 wheel from the core
# library prebuilt by `scripts/build_wheel.sh --device DIR` here, installs it, and runs the
# GPU suite against the INSTALLED package (not a module compiled in the checkout).
#
#   bash scripts/device_wheel.sh DIR      (DIR carried from the build machine)
# Writes $OUT/wheel.txt (wheel size, build and install times) and $OUT/gpu_tests_wheel.log.
set -uo pipefail
cd "$(dirname "$0")/.."
DIR="$(cd "${1:?usage: device_wheel.sh DIR}" && pwd)"
OUT="${OUT:-/tmp/tritium-out}"
mkdir -p "$OUT"
python3 -c "import scikit_build_core" 2>/dev/null ||
  python3 -m pip install -q --no-index --find-links "$DIR/wheelhouse" scikit-build-core
start=$(date +%s.%N)
python3 -m pip wheel . -w /tmp/tritium-dist --no-build-isolation --no-deps \
  -C cmake.define.TRITIUM_PREBUILT_DIR="$DIR" -C build-dir=/tmp/tritium-wheel-build
built=$(date +%s.%N)
wheel="$(ls /tmp/tritium-dist/tritium-*.whl)"
python3 -m pip install --force-reinstall --no-deps "$wheel"
installed=$(date +%s.%N)
{
  echo "wheel: $(basename "$wheel") $(stat -c %s "$wheel") bytes"
  echo "build (module + CLI against the prebuilt library): $(python3 -c "print(round($built - $start, 2))") s"
  echo "pip install: $(python3 -c "print(round($installed - $built, 2))") s"
  cd /tmp && python3 -c "import tritium; print('tritium', tritium.__version__, 'from', tritium.__file__)"
  tritium --version
} 2>&1 | tee "$OUT/wheel.txt"
# The checkout's python/ must not shadow the installed package: conftest prefers an
# installed tritium, and PYTHONPATH is cleared.
# WHEEL_TESTS picks test files (default: all of tests/gpu), WHEEL_TESTS_K pytest's -k.
env -u PYTHONPATH TRITIUM_CLI="$(command -v tritium)" timeout 600 python3 -m pytest -q -rs \
  -p no:cacheprovider ${WHEEL_TESTS_K:+-k "$WHEEL_TESTS_K"} ${WHEEL_TESTS:-tests/gpu} 2>&1 \
  | tee "$OUT/gpu_tests_wheel.log" | tail -5

#!/usr/bin/env bash
# The main job on a machine without a GPU: builds the tritium CLI, prints the IR of the
# vector add of examples/vector_add.py specialized for a signature, and runs it in the
# interpreter on random inputs (printing the signature used and the first elements), then
# prints the PTX the NVPTX backend emits for it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja
fi
cmake --build "$BUILD" -j "$JOBS" --target tritium_cli
TRITIUM="$BUILD/tools/tritium"

"$TRITIUM" --version
SIGNATURE="*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=256"
echo
echo "== IR of add_kernel for: $SIGNATURE"
"$TRITIUM" compile examples/vector_add.py --kernel add_kernel --signature "$SIGNATURE" --emit ir
echo
echo "== the same after the optimization pipeline"
"$TRITIUM" compile examples/vector_add.py --kernel add_kernel --signature "$SIGNATURE" --emit ir-opt
echo
echo "== add_kernel run in the interpreter (1000 elements, BLOCK=256, grid 4)"
"$TRITIUM" run examples/vector_add.py --kernel add_kernel --grid 4 \
  --args "x_ptr=arange:fp32:1000, y_ptr=rand:fp32:1000, out_ptr=zeros:fp32:1000, n_elements=1000, BLOCK=256"
echo
echo "== the PTX that LLVM's NVPTX backend emits for it (sm_90; first 40 lines)"
"$TRITIUM" compile examples/vector_add.py --kernel add_kernel --signature "$SIGNATURE" --emit ptx | sed -n 1,40p

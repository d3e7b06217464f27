#!/usr/bin/env bash
# Exports examples/vector_add.py with `tritium aot`, builds examples/aot/main.c against the
# generated C (plus libcuda for the example's own memory calls), and runs it on the GPU.
#   TRITIUM_CLI=build/tools/tritium bash examples/aot/run.sh [OUT_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CLI="${TRITIUM_CLI:-$ROOT/build/tools/tritium}"
OUT="${1:-/tmp/tritium-aot-example}"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
mkdir -p "$OUT"
"$CLI" aot "$ROOT/examples/vector_add.py" --kernel add_kernel --name add_kernel \
  --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024" \
  --signature "*fp32, *fp32, *fp32, i32, BLOCK=1024" \
  --signature "*fp32, *fp32, *fp32, 1, BLOCK=1024" \
  --num-warps 4 --grid "cdiv(n_elements, BLOCK)" -o "$OUT"
# The example's own cuMemAlloc & co. link against libcuda (the generated code dlopens it).
LIBCUDA="-lcuda"
if [ -e "$CUDA/lib64/stubs/libcuda.so" ]; then
  LIBCUDA="-L$CUDA/lib64/stubs -lcuda"
elif ! ldconfig -p | grep -q "libcuda.so "; then
  LIBCUDA="-l:libcuda.so.1"
fi
cc -O2 -std=gnu11 -Wall -Wextra -I"$OUT" -I"$CUDA/include" "$ROOT/examples/aot/main.c" \
  "$OUT/add_kernel.c" -o "$OUT/main" $LIBCUDA -ldl -lpthread
"$OUT/main" "$OUT"

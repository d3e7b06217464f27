#!/usr/bin/env bash
# The real-kernel cases (run_realk.py) on a GPU: first under the real Triton (the baseline),
# then under tritium, each case checked against torch, and tritium's outputs compared with
# Triton's case by case. Skips (exit 0, a SKIPPED line) without the fetched folder or CUDA.
#
#   [HALF=triton|tritium] [RESUME=1] [REALK_ARGS="-k vllm ..."] bash tests/realk/gpu_compare.sh [SRC] [OUTDIR]
#
# SRC: the fetched projects (default build-gpu/realk/src; tests/realk/fetch_corpus.sh fetches
# them). OUTDIR (default /tmp/realk-gpu; copied to $OUT/realk at the end when $OUT
# is set): triton.txt, tritium.txt, their .json, and each case's outputs. Both halves take
# more than one 10-minute device command: HALF runs one of them; RESUME=1 appends to the
# half's table and skips the cases it holds (run_realk.py --skip-done), so on a machine still
# held the next command goes on where the last was cut off; REALK_ARGS go to both halves. tritium must be importable, else it is built and
# installed from build-gpu/dist (as run_triton_suite.py --install does). On the device machine, carry
# build-gpu/realk/src.tar.xz (below), build-gpu/realk/deps (the wheels the image lacks: pydantic
# and pyzmq, which vLLM's fused_moe and fp8 modules import, and einops for mamba-ssm) and
# build-gpu/dist. unsloth's cases need transformers; without it they are skipped.
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC="${1:-build-gpu/realk/src}"
DEST="${2:-/tmp/realk-gpu}"
HALF="${HALF:-both}"
read -r -a EXTRA <<< "${REALK_ARGS:-}"
PY="${PYTHON:-python3}"

# The sources travel to the device machine packed (about 170 MB unpacked, over the 64 MiB a
# command may carry with build-gpu/dist), without the parts no case imports (sglang's models
# and tests, FlagGems' other vendors' backends, all of bitsandbytes and FlashInfer but the
# files the cases import; FlashInfer's Python alone is 81 MB; torchao whole, 5.6 MB, which
# unsloth imports on a CUDA machine); tests/realk/fetch_corpus.sh --pack does this:
#   cd build-gpu/realk && F=src/flashinfer/experimental/b12x && S=src/flashinfer/fused_moe/cute_dsl/blackwell_sm12x \
#     && tar -cf src.tar --exclude=__pycache__ --exclude=src/sglang/multimodal_gen \
#     --exclude=src/sglang/test --exclude=src/sglang/benchmark --exclude=src/sglang/srt/models \
#     --exclude='src/flag_gems/runtime/backend/_[a-mo-z]*' --exclude=src/bitsandbytes \
#     --exclude=src/flashinfer src && tar -rf src.tar --exclude=__pycache__ \
#     src/bitsandbytes/__init__.py \
#     src/bitsandbytes/backends/__init__.py src/bitsandbytes/backends/triton \
#     src/flashinfer/triton src/flashinfer/kda_kernels/ptx/recurrent_kernel.py $F/_lib/__init__.py \
#     $F/_lib/runtime_control.py $F/attention/dsa_indexer/schedule_metadata.py \
#     $F/gemm/blockscaled/_quantize.py $F/loader/_gds_kernels.py $F/moe/_shared/routing.py \
#     $F/moe/calibration.py $S/_moe_utils/moe_route_meta.py $S/moe_mxfp8_q0_route_triton.py \
#     && rm -f src.tar.xz && xz -T2 src.tar
# here, carry build-gpu/realk/src.tar.xz and build-gpu/realk/deps; unpacked there on first use.
# shellcheck source=tests/realk/device_env.sh
source tests/realk/device_env.sh "$SRC" "$PY"
if [ ! -d "$SRC/liger_kernel" ] && [ ! -d "$SRC/vllm" ] && [ ! -d "$SRC/fla" ] && [ ! -d "$SRC/mamba_ssm" ] \
    && [ ! -d "$SRC/sglang" ] && [ ! -d "$SRC/flash_attn" ] && [ ! -d "$SRC/unsloth" ]; then
  echo "SKIPPED: no fetched projects in $SRC (see tests/realk/RESULTS.md)"
  exit 0
fi
if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "SKIPPED: torch sees no CUDA device"
  exit 0
fi
if ! "$PY" -c "import tritium" 2>/dev/null; then
  if [ -d build-gpu/dist ]; then  # the prebuilt libtritium.so: build and install the wheel
    "$PY" -c "import sys; sys.path.insert(0, 'tests/triton_suite'); import run_triton_suite as r; r.install('build-gpu/dist')" \
      || { echo "FAILED: could not install tritium from build-gpu/dist"; exit 1; }
  else
    echo "SKIPPED: tritium is not importable and build-gpu/dist is not here"
    exit 0
  fi
fi
mkdir -p "$DEST"
export PYTHONUNBUFFERED=1

copy_out() {  # the tables and records where the device returns files
  if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/realk" && cp "$DEST"/*.txt "$DEST"/*.json "$OUT/realk/" 2>/dev/null; fi
}
trap copy_out EXIT
run_half() {  # IMPL, then run_realk.py's other arguments
  local impl="$1"; shift
  local table="$DEST/$impl.txt" json="$DEST/$impl.json" resume=()
  if [ "${RESUME:-0}" = 1 ] && [ -f "$table" ]; then
    resume=(--skip-done "$table")
    json="$DEST/$impl.$(date +%s).json"
  else
    : > "$table"
  fi
  "$PY" tests/realk/run_realk.py --src "$SRC" --device cuda --impl "$impl" --json "$json" \
    "${resume[@]}" "$@" "${EXTRA[@]}" 2>&1 | grep -v '^W[0-9]' | tee -a "$table"
}
if [ "$HALF" != tritium ]; then
  echo "== real Triton"
  run_half triton --save "$DEST/triton"
fi
if [ "$HALF" != triton ]; then
  echo "== tritium (vs torch, and vs Triton's outputs where that half ran)"
  run_half tritium --save "$DEST/tritium" --compare "$DEST/triton"
fi

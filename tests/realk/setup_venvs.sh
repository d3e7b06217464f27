#!/usr/bin/env bash
# The two Python environments the real-kernel corpus (run_realk.py, static_compare.py) and the
# Triton test-suite runs use on the CPU machine, made from PyPI alone:
#
#   bash tests/realk/setup_venvs.sh [CPU_VENV] [TRITON_VENV]
#
# CPU_VENV (default /work/tsuite-venv): torch as PyPI publishes it (torch 2.15.0, the CUDA
#   build; run on the CPU, its own triton shadowed by tritium's alias), numpy and pytest, and
#   what the fetched projects import: psutil, regex, pydantic, requests, pyzmq (vLLM), einops
#   (mamba-ssm, fla), huggingface_hub and transformers (unsloth), scipy (Triton's
#   test_random), expecttest (PyTorch's OpInfo database, tests/inductor).
# TRITON_VENV (default /tmp/tvl): triton 3.6.0 alone. Its wheel bundles ptxas, the assembler
#   run_realk.py --gpu-compile uses:
#     TRITIUM_SUITE_PTXAS=/tmp/tvl/lib/python3.11/site-packages/triton/backends/nvidia/bin/ptxas
#   static_compare.py runs the real Triton from it with the CPU venv's torch:
#     PYTHONPATH=/tmp/tvl/lib/python3.11/site-packages /work/tsuite-venv/bin/python tests/realk/static_compare.py ...
#
# An existing venv is kept and completed (pip installs what is missing). PYTHON picks the
# interpreter (default python3; the paths above assume 3.11).
set -euo pipefail
CPU_VENV="${1:-/work/tsuite-venv}"
TRITON_VENV="${2:-/tmp/tvl}"
PY="${PYTHON:-python3}"

TORCH_VERSION="${TORCH_VERSION:-2.15.0}"
CPU_PACKAGES=(numpy pytest psutil regex pydantic requests pyzmq einops huggingface_hub transformers
              scipy expecttest)

[ -x "$CPU_VENV/bin/python" ] || "$PY" -m venv "$CPU_VENV"
"$CPU_VENV/bin/python" -m pip install -q "torch==$TORCH_VERSION" "${CPU_PACKAGES[@]}"
"$CPU_VENV/bin/python" -c "import torch, numpy, transformers; print('cpu venv:', torch.__version__, 'transformers', transformers.__version__)"

[ -x "$TRITON_VENV/bin/python" ] || "$PY" -m venv "$TRITON_VENV"
"$TRITON_VENV/bin/python" -m pip install -q triton==3.6.0
PTXAS=$(ls "$TRITON_VENV"/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas)
echo "triton venv: $("$PTXAS" --version | tail -1)"
echo "export TRITIUM_SUITE_PTXAS=$PTXAS"

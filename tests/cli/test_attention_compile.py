"""The flash-attention benchmark kernel (benchmarks/kernels_attention.py) compiled for sm_90
without a GPU, over the block shapes, warps and stages the benchmark's check sweeps: every
one fits shared memory, and its K and V copies run num_stages - 1 iterations ahead where the
stage buffers stay within 64 KiB (prefetch_loads: more would leave one CTA per SM), with each
dot's cp.async wait leaving the later batches in flight (emit_dot.cpp)."""

import os
import pathlib
import re
import subprocess

import pytest

CLI = os.environ.get("TRITIUM_CLI", "tritium")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    text = (ROOT / "benchmarks" / "kernels_attention.py").read_text()
    text = text.replace("jit = importlib.import_module(JIT).jit", "from triton import jit")
    text = text.replace('tl = importlib.import_module(JIT + ".language")', "import triton.language as tl")
    path = tmp_path_factory.mktemp("attention") / "attention.py"
    path.write_text(text)
    return path


def compile_attention(source, emit, head_dim, block_n, warps, stages, causal, inflight_copies=""):
    signature = ("*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32, i32:16, "
                 f"HEAD_DIM={head_dim}, BLOCK_M=128, BLOCK_N={block_n}, STAGE={3 if causal else 1}")
    env = {k: v for k, v in os.environ.items() if k != "TRITIUM_INFLIGHT_COPIES"}
    if inflight_copies:
        env["TRITIUM_INFLIGHT_COPIES"] = inflight_copies
    return subprocess.run([CLI, "compile", str(source), "--kernel", "attn_fwd", "--signature", signature, "--emit", emit,
                           "--arch", "sm_90", "--num-warps", str(warps), "--num-stages", str(stages)],
                          capture_output=True, text=True, check=True, env=env).stdout


@pytest.mark.parametrize("head_dim,block_n,expected_stages", [(64, 64, 3), (64, 128, 2), (128, 64, 2), (128, 128, 2)])
def test_stage_buffers_fit(source, head_dim, block_n, expected_stages):
    gpu_ir = compile_attention(source, "gpu-ir", head_dim, block_n, 8, 3, True)
    total = int(re.search(r"stage buffers: (\d+) bytes", gpu_ir).group(1))
    assert total <= 200 * 1024
    # K's and V's buffers: num_stages (3) of them where they fit in 64 KiB (d=64 with 64-row
    # blocks: 3 x 16 KiB), else 2 (32 KiB a stage: three made d=128 attention 20% slower on
    # the H200, one CTA per SM instead of two; benchmarks/RESULTS.md 2026-12-04).
    buffers = re.findall(r"cp\.async into stage buffers at bytes ([\d, and]+) \(", gpu_ir)
    assert buffers and all(len(re.findall(r"\d+", b)) == expected_stages for b in buffers)


@pytest.mark.parametrize("head_dim,block_n,expected_stages", [(64, 64, 4), (64, 128, 3), (128, 64, 2), (128, 128, 2)])
def test_stage_buffers_with_p_v_in_flight(source, head_dim, block_n, expected_stages):
    # TRITIUM_INFLIGHT_COPIES=pv (opt-in): P.V kept in flight into the next iteration
    # (async_copy.cpp's last_dot_in_flight) takes one more buffer at d=64, which costs no CTA
    # per SM there; at d=128 it would, so the copies wait for that dot instead (2).
    gpu_ir = compile_attention(source, "gpu-ir", head_dim, block_n, 8, 3, True, "pv")
    total = int(re.search(r"stage buffers: (\d+) bytes", gpu_ir).group(1))
    assert total <= 200 * 1024
    buffers = re.findall(r"cp\.async into stage buffers at bytes ([\d, and]+) \(", gpu_ir)
    assert buffers and all(len(re.findall(r"\d+", b)) == expected_stages for b in buffers)


@pytest.mark.parametrize("head_dim,waits,commits", [(64, ["3", "4", "0"], 6), (128, ["1", "2", "0"], 4)])
def test_each_dot_waits_for_its_own_copies_only(source, head_dim, waits, commits):
    ptx = compile_attention(source, "ptx", head_dim, 64, 4, 3, False)
    # d=64: two batches (K and V of two iterations) before the loop; in it the first dot (Q Kᵀ)
    # leaves V of its own iteration and the next iteration's batch in flight, the second (P V)
    # the next batch and the one the first just committed. d=128 (one iteration ahead): the
    # first dot leaves V in flight, then the next batch is issued and the second dot leaves it.
    assert re.findall(r"cp\.async\.wait_group (\d+);", ptx) == waits
    assert ptx.count("cp.async.commit_group") == commits

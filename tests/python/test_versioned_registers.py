"""Registers of a kernel that version_on_signs compiles twice, without a GPU (issue 9).

Triton's matmul tutorial as written (no multiple_of/max_contiguous hints) gets its column
runs proved only behind `pid_n * BLOCK_N >= 0`; the other copy, which launches of the
tutorial's grid never take, is cold (DESIGN.md, GPU pass 0). Registers are allocated per
kernel, so the cold copy's B copies, whose 16-element runs the facts cannot prove, must not
hold one pointer per element across their loop: the emitter computes their addresses where
they are copied. Before that, the kernel needed 230 registers at 128x128x64 and 255 with
832 bytes of spills at 128x256x64 (8 warps), where Triton 3.6 needs 126 and 207 with its
unsound assumption of the runs. The PTX is assembled by ptxas -v when ptxas is here.
"""

import re
import subprocess

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import ptxas
import dot_kernels

K = dot_kernels.load("tritium")


def tutorial_ptx(block, num_warps, dtype=np.float16):
    bm, bn, bk = block
    size = 512  # M, N, K and the row strides: multiples of 16, so the runs are worth proving
    a = np.zeros((size, size), dtype)
    c = np.zeros((size, size), np.float16)
    try:
        return K.matmul_kernel.emit(
            "ptx", a, a, c, size, size, size, size, 1, size, 1, size, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
            BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACC_IN_DOT=True, PREC=None, OUT_FP16=True, num_warps=num_warps,
            num_stages=3, arch=90)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise


def assembled(ptx, tmp_path):
    """(registers, spill store bytes, spill load bytes) from ptxas -v."""
    tool = ptxas()
    if tool is None:
        pytest.skip("no ptxas here")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90a", "-v", str(path), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    regs = int(re.search(r"Used (\d+) registers", result.stderr).group(1))
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", result.stderr)
    return regs, int(spills.group(1)), int(spills.group(2))


def test_the_unhinted_tutorial_is_versioned_and_its_second_copy_cold():
    size = 512
    a = np.zeros((size, size), np.float16)
    gpu_ir = K.matmul_kernel.emit(
        "gpu-ir", a, a, a, size, size, size, size, 1, size, 1, size, 1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
        BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACC_IN_DOT=True, PREC=None, OUT_FP16=True, num_warps=8, num_stages=3,
        arch=90)
    then_branch, else_branch = gpu_ir.split("} else {")
    # Behind the test B's copies are proved 16-byte runs; the cold copy's addresses are
    # computed where each element is copied.
    assert "cold" not in then_branch
    assert re.search(r"load .*\{cold = 1\}.*stage 0, 16-byte copies$", else_branch, re.M)  # A: proved anyway
    cold_b = re.findall(r"load .*\{cold = 1\}.*2-byte copies, addresses computed where copied \(cold\)$",
                        else_branch, re.M)
    assert len(cold_b) == 3  # stages 0 and 1 before the loop, the next one inside it


# Triton 3.6's registers for the same kernel (benchmarks/RESULTS.md, static_regs.py).
@pytest.mark.parametrize("block,num_warps,triton_regs", [((128, 128, 64), 8, 126), ((128, 256, 64), 8, 207)])
def test_unhinted_tutorial_registers_at_most_tritons_without_spills(tmp_path, block, num_warps, triton_regs):
    regs, spill_stores, spill_loads = assembled(tutorial_ptx(block, num_warps), tmp_path)
    assert (spill_stores, spill_loads) == (0, 0)
    assert regs <= triton_regs


def test_unhinted_tutorial_four_warps_without_spills(tmp_path):
    # 128x128x32 in 4 warps: 128 accumulator registers; the cold copy's own arithmetic (a
    # `% N` per element) still costs some over the taken copy's (166 hinted, Triton 174).
    regs, spill_stores, spill_loads = assembled(tutorial_ptx((128, 128, 32), 4), tmp_path)
    assert (spill_stores, spill_loads) == (0, 0)
    assert regs < 200


@tritium.jit
def dequant_matmul_kernel(a_ptr, w_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_wk, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """DeepSpeed's fp8 GEMM shape: uint8 weights dequantized in the loop (bit operations, a
    per-row scale) before the dot, its columns `% N` as written (no hints), `pid_n` from
    DeepSpeed's grouping (divisions by values of unknown sign: versioned)."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = 8 * num_pid_n
    first_pid_m = pid // num_pid_in_group * 8
    group_size_m = min(num_pid_m - first_pid_m, 8)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < K, other=0)
        scale = tl.load(scale_ptr + k * BLOCK_K + offs_k)
        bits = ((w & 0x7f).to(tl.uint16) << 7) + 0x2000
        wf = (bits.to(tl.float16, bitcast=True).to(tl.float32) * scale[:, None]).to(tl.float16)
        acc += tl.dot(a, wf)
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.float16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def dequant_emit(what, block=(256, 128, 64), num_warps=8):
    bm, bn, bk = block
    size = 512
    a = np.zeros((size, size), np.float16)
    w = np.zeros((size, size), np.uint8)
    scale = np.zeros(size, np.float32)
    try:
        return dequant_matmul_kernel.emit(what, a, w, scale, a, size, size, size, size, size, size, BLOCK_M=bm,
                                          BLOCK_N=bn, BLOCK_K=bk, num_warps=num_warps, num_stages=3, arch=90)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise


def test_a_cold_dequantized_load_computes_its_addresses_in_the_loop():
    # The weights are no dot operand (the dequantization reads them): a plain load, whose cold
    # copy used to hold one 64-bit pointer per element across the loop.
    gpu_ir = dequant_emit("gpu-ir")
    then_branch, else_branch = gpu_ir.split("} else {")
    assert "addresses computed where loaded (cold)" not in then_branch
    cold = re.findall(r"load .*\{cold = 1\} : block<\d+x\d+xu8.*addresses computed where loaded \(cold\)$", else_branch, re.M)
    assert len(cold) == 1, else_branch


# (block, registers at most, spill-store bytes at most): before, 226 and 255 registers with
# 552 bytes spilled (ptxas 12.x); now 156 and 255 with 40.
@pytest.mark.parametrize("block,max_regs,max_spill", [((128, 128, 64), 180, 0), ((256, 128, 128), 255, 128)])
def test_cold_dequantized_load_registers(tmp_path, block, max_regs, max_spill):
    # 8 warps. The cold copy's 64 weight pointers held across the loop (one per byte of each
    # thread's 16-byte runs along N, which `% N` keeps unproven there) set the kernel's count.
    regs, spill_stores, _ = assembled(dequant_emit("ptx", block), tmp_path)
    assert regs <= max_regs and spill_stores <= max_spill, (regs, spill_stores)

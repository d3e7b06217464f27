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

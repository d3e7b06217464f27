"""The GPU code generation of reductions, scans and moves without a GPU: representative
kernels of test_reduce.py compiled to PTX for sm_90 (and assembled by ptxas when it is on
the machine), so CI notices an op the NVPTX back end rejects or miscompiles into invalid
PTX. Correctness on the GPU is tests/gpu/test_gpu_reduce.py's."""

import subprocess

import numpy as np
import pytest

import tritium
from helpers import ptxas
import reduce_kernels as K




def emit_and_assemble(kernel, tmp_path, *args, num_warps=4, **kwargs):
    try:
        ptx = kernel.emit("ptx", *args, num_warps=num_warps, arch=90, **kwargs)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise
    assert ".visible .entry" in ptx
    tool = ptxas()
    if tool is None:
        return ptx
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return ptx


def arr(shape, dtype):
    return np.zeros(shape, dtype)


@pytest.mark.parametrize("op, dtype, shape, axis, keep, num_warps", [
    ("sum", "int8", (4, 32), 1, False, 4), ("sum", "float16", (2, 8, 16), None, True, 1),
    ("max", "bfloat16", (128,), 0, False, 8), ("min", "uint32", (32, 2), 0, True, 4),
    ("argmax", "float32", (16, 64), -1, False, 8), ("argmin", "int64", (2, 4, 2, 8), 2, True, 4),
    ("max_with_indices", "float64", (1, 64), 1, False, 1),
    ("xor_sum", "uint8", (8, 16, 2), -2, False, 4), ("sum", "float32", (1,), 0, False, 4),
    ("max", "int16", (256, 256), 0, False, 8)])
def test_reduce_ptx(tmp_path, op, dtype, shape, axis, keep, num_warps):
    dims = list(shape) + [1] * (4 - len(shape))
    storage = "uint16" if dtype == "bfloat16" else dtype
    emit_and_assemble(K.reduce_kernel, tmp_path, arr(shape, storage), arr(4, "float64"),
                      arr(4, "int32"), num_warps=num_warps, OP=op, RANK=len(shape),
                      D0=dims[0], D1=dims[1], D2=dims[2], D3=dims[3], AXIS=axis, KEEP=keep,
                      IN_BF16=dtype == "bfloat16", OUT_BF16=False,
                      SCALAR=axis is None and not keep or len(shape) == 1 and not keep,
                      TIE_LEFT=True)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "get_first_element", "linear_recurrence",
                                "cummax", "roll"])
@pytest.mark.parametrize("shape, axis, reverse", [((8, 32), 1, False), ((64, 2), 0, True),
                                                  ((4, 8, 16), 1, False)])
def test_scan_ptx(tmp_path, op, shape, axis, reverse):
    rank = len(shape)
    dims = list(shape) + [1] * (3 - rank)
    stride = int(np.prod(shape[axis + 1:]))
    emit_and_assemble(K.scan_kernel, tmp_path, arr(shape, "float32"), arr(shape, "float32"),
                      arr(shape, "float32"), OP=op, RANK=rank, D0=dims[0], D1=dims[1],
                      D2=dims[2], AXIS=axis, REVERSE=reverse, IN_BF16=False,
                      AX_STRIDE=stride, AX_LEN=shape[axis], OUT_BF16=False)


def test_moves_and_user_kernels_ptx(tmp_path):
    f32, i32 = arr(4096, "float32"), arr(4096, "int32")
    emit_and_assemble(K.trans_4d_kernel, tmp_path, i32, i32, 2, 2, 8, 64, 64, 8, 2, 2, 3, 2, 1, 0)
    emit_and_assemble(K.cat_kernel, tmp_path, f32, f32, f32, N=128)
    emit_and_assemble(K.join_kernel, tmp_path, f32, f32, f32, N=128)
    emit_and_assemble(K.split_kernel, tmp_path, i32, i32, i32, N=256)
    emit_and_assemble(K.interleave_2d_kernel, tmp_path, f32, f32, f32, M=4, N=16)
    emit_and_assemble(K.histogram_mask_kernel, tmp_path, i32, i32, 100, M=256, N=64)
    emit_and_assemble(K.flip_kernel, tmp_path, f32, f32, RANK=2, D0=4, D1=8, D2=1, DIM=1,
                      BOOL=False)
    emit_and_assemble(K.sort_kernel, tmp_path, f32, f32, f32, RANK=2, D0=4, D1=32, D2=1,
                      DESCENDING=True, K=8)
    emit_and_assemble(K.var_mean_kernel, tmp_path, f32, f32, f32, BLOCK=512)
    emit_and_assemble(K.softmax_kernel, tmp_path, f32, f32, 4096, 4096, 4096, BLOCK=4096,
                      num_warps=8)
    emit_and_assemble(K.layer_norm_kernel, tmp_path, f32, f32, f32, f32, f32, f32, 1000, 1000,
                      1e-5, BLOCK=256)
    emit_and_assemble(K.cross_entropy_kernel, tmp_path, f32, arr(8, "int64"), f32, 4096, 4000,
                      BLOCK=1024)
    emit_and_assemble(K.while_sum_kernel, tmp_path, f32, f32, 1000, BLOCK=1024)
    emit_and_assemble(K.cumsum_rows_kernel, tmp_path, f32, f32, 100, 100, BLOCK=128)


def test_reduce_ptx_uses_warp_butterflies(tmp_path):
    ptx = emit_and_assemble(K.reduce_kernel, tmp_path, arr((4, 32), "float32"),
                            arr(4, "float32"), arr(4, "int32"), OP="sum", RANK=2, D0=4, D1=32,
                            D2=1, D3=1, AXIS=1, KEEP=False, IN_BF16=False, OUT_BF16=False,
                            SCALAR=False, TIE_LEFT=True)
    assert "shfl.sync.bfly" in ptx

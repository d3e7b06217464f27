"""Dots whose operands are loaded column-major, run on the host (test_cpu_emulation.py's
driver: each thread of the CTA a host thread). gpu/coalesce.h gives such a load a column
layout (16-byte vectors along M or K) and the dot stages it into shared memory straight from
that layout (emit_convert.cpp, stage_slot), with no conversion between. fp32 with
input_precision="ieee" runs on FMAs (in fragments, or flat below one tile), so no inline PTX
is involved and the staging can be checked element by element; the tensor-core paths share
the staging and run on the GPU (tests/gpu/test_gpu_dot.py)."""

import re
import textwrap

import numpy as np
import pytest

import test_cpu_emulation as emu

pytestmark = emu.pytestmark

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def column_dot(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # A (BM x BN) column-major at x, B (BN x BM) column-major after it.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        a = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
        b = tl.load(x_ptr + BN * stride + n[:, None] + m[None, :] * stride)
        c = tl.dot(a, b, input_precision="ieee")
        tl.store(out_ptr + m[:, None] * BM + m[None, :], c)


    @tritium.jit
    def column_a_row_b(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # Only A column-major; B row-major keeps the flat layout.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        a = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
        b = tl.load(x_ptr + BN * stride + n[:, None] * BM + m[None, :])
        c = tl.dot(a, b, input_precision="ieee")
        tl.store(out_ptr + m[:, None] * BM + m[None, :], c)


    @tritium.jit
    def column_chain_dot(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # column_dot with ops between the loads and the dot (as tl.dot_scaled's upcast): the
        # loads are coalesced and converted back through shared memory before the chain.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        a = tl.load(x_ptr + m[:, None] + n[None, :] * stride) * 2.0 + 1.0
        b = tl.abs(tl.load(x_ptr + BN * stride + n[:, None] + m[None, :] * stride) - 3.0)
        c = tl.dot(a, b, input_precision="ieee")
        tl.store(out_ptr + m[:, None] * BM + m[None, :], c)


    @tritium.jit
    def column_store_dot(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # Row-major A (BM x BN) and B (BN x BM); C stored column-major (C.T row-major): the
        # store's layout runs down the columns, and the result goes there from its fragments.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        a = tl.load(x_ptr + m[:, None] * stride + n[None, :])
        b = tl.load(x_ptr + BM * stride + n[:, None] * stride + m[None, :])
        c = tl.dot(a, b, input_precision="ieee") * 2.0 + 1.0
        tl.store(out_ptr + m[:, None] + m[None, :] * BM, c)
''')


@pytest.mark.parametrize("kernel", ["column_dot", "column_a_row_b"])
@pytest.mark.parametrize("tile,warps", [((64, 32), 4), ((32, 64), 2), ((128, 16), 8), ((16, 16), 1), ((8, 16), 1)])
def test_column_major_operands_staged_from_their_layout(tmp_path, kernel, tile, warps):
    BM, BN = tile
    stride = max(BM, BN) + 16  # a multiple of 16, not a power of two
    nin = (BN + BM) * stride + BM * BN
    x, out, ll, ptx = emu.run_on_host(tmp_path, kernel, "fp32", tile, warps, nin, BM * BM, stride, kernels=KERNELS)
    m = np.arange(BM)[:, None]
    n = np.arange(BN)[None, :]
    a = x[m + n * stride].astype(np.float64)
    if kernel == "column_dot":
        b = x[BN * stride + n.T + m.T * stride].astype(np.float64)
    else:
        b = x[BN * stride + n.T * BM + m.T].astype(np.float64)
    np.testing.assert_allclose(out.reshape(BM, BM), a @ b, rtol=1e-5, atol=1e-5)
    # The column-major loads are 16-byte vectors (they were one element each before).
    assert re.search(r"ld\.global\.v4\.b32", ptx)


@pytest.mark.parametrize("tile,warps", [((64, 32), 4), ((32, 64), 2), ((128, 16), 8), ((16, 16), 1)])
def test_column_major_loads_before_ops_that_feed_a_dot(tmp_path, tile, warps):
    BM, BN = tile
    stride = max(BM, BN) + 16
    nin = (BN + BM) * stride + BM * BN
    x, out, ll, ptx = emu.run_on_host(tmp_path, "column_chain_dot", "fp32", tile, warps, nin, BM * BM, stride,
                                      kernels=KERNELS)
    m = np.arange(BM)[:, None]
    n = np.arange(BN)[None, :]
    a = x[m + n * stride].astype(np.float64) * 2 + 1
    b = np.abs(x[BN * stride + n.T + m.T * stride].astype(np.float64) - 3)
    np.testing.assert_allclose(out.reshape(BM, BM), a @ b, rtol=1e-5, atol=1e-5)
    assert re.search(r"ld\.global\.v4\.b32", ptx)


@pytest.mark.parametrize("tile,warps", [((64, 32), 4), ((32, 64), 2), ((128, 16), 8), ((16, 16), 1), ((8, 16), 1)])
def test_dot_result_stored_column_major(tmp_path, tile, warps):
    BM, BN = tile
    stride = max(BM, BN) + 16
    nin = (BM + BN) * stride
    x, out, ll, ptx = emu.run_on_host(tmp_path, "column_store_dot", "fp32", tile, warps, nin, BM * BM, stride,
                                      kernels=KERNELS)
    m = np.arange(BM)[:, None]
    n = np.arange(BN)[None, :]
    a = x[m * stride + n].astype(np.float64)
    b = x[BM * stride + n.T * stride + m.T].astype(np.float64)
    expected = (a @ b) * 2 + 1
    np.testing.assert_allclose(out.reshape(BM, BM).T, expected, rtol=1e-5, atol=1e-5)
    if BM * BM >= 4 * 32 * warps:  # at least four elements a thread: 16-byte stores down the columns
        assert re.search(r"st\.global\.v4\.b32", ptx)

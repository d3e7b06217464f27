"""Tensor descriptors made in the kernel (tl.make_tensor_descriptor, desc.load/store,
tl.load_tensor_descriptor/tl.store_tensor_descriptor) through the interpreter, after
Triton's test_tensor_descriptor.py: they lower to plain pointer code whose out-of-bounds
elements read as the padding (zero, or NaN) and are not written."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line

DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32]


def _random(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@tritium.jit
def descriptor_load_kernel(out_ptr, a_ptr, M, N, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    block = desc.load([M_BLOCK, 2 * N_BLOCK])
    idx = tl.arange(0, M_BLOCK)[:, None] * N_BLOCK + tl.arange(0, N_BLOCK)[None, :]
    tl.store(out_ptr + idx, block)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("M_BLOCK, N_BLOCK", [(2, 16), (8, 16), (8, 32), (8, 128), (1, 1024)])
def test_tensor_descriptor_load(rng, dtype, M_BLOCK, N_BLOCK):
    if N_BLOCK * np.dtype(dtype).itemsize < 16:
        pytest.skip("the last block dimension must hold 16 bytes (an error, tested below)")
    M, N = M_BLOCK * 3, N_BLOCK * 4
    inp = _random(rng, (M, N), dtype)
    out = np.zeros((M_BLOCK, N_BLOCK), dtype)
    descriptor_load_kernel[(1,)](out, inp, M, N, M_BLOCK=M_BLOCK, N_BLOCK=N_BLOCK)
    np.testing.assert_array_equal(out, inp[M_BLOCK:2 * M_BLOCK, 2 * N_BLOCK:3 * N_BLOCK])


@tritium.jit
def descriptor_store_kernel(out_ptr, a_ptr, M, N, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr):
    moffset = tl.program_id(0) * M_BLOCK
    noffset = tl.program_id(1) * N_BLOCK
    midx = moffset + tl.arange(0, M_BLOCK)[:, None]
    nidx = noffset + tl.arange(0, N_BLOCK)[None, :]
    val = tl.load(a_ptr + midx * N + nidx)
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    desc.store([moffset, noffset], val)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("M_BLOCK, N_BLOCK", [(2, 16), (8, 32), (1, 1024)])
def test_tensor_descriptor_store(rng, dtype, M_BLOCK, N_BLOCK):
    if N_BLOCK * np.dtype(dtype).itemsize < 16:
        pytest.skip("the last block dimension must hold 16 bytes")
    M, N = M_BLOCK * 2, N_BLOCK * 2
    inp = _random(rng, (M, N), dtype)
    out = np.zeros((M, N), dtype)
    descriptor_store_kernel[(M // M_BLOCK, N // N_BLOCK)](out, inp, M, N, M_BLOCK=M_BLOCK, N_BLOCK=N_BLOCK)
    np.testing.assert_array_equal(out, inp)


@tritium.jit
def functional_copy(out_ptr, a_ptr, M, N, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr):
    in_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    moffset = tl.program_id(0) * M_BLOCK
    noffset = tl.program_id(1) * N_BLOCK
    block = tl.load_tensor_descriptor(in_desc, [moffset, noffset])
    tl.store_tensor_descriptor(out_desc, [moffset, noffset], block)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32])
def test_tensor_descriptor_functional_interface(rng, dtype):
    M, N = 32, 128
    inp = _random(rng, (M, N), dtype)
    out = np.zeros((M, N), dtype)
    functional_copy[(M // 8, N // 32)](out, inp, M, N, M_BLOCK=8, N_BLOCK=32)
    np.testing.assert_array_equal(out, inp)


@tritium.jit
def load3d_kernel(out_ptr, a_ptr, M, N, K, stride_m, stride_n, stride_k, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr,
                  K_BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N, K], strides=[stride_m, stride_n, stride_k],
                                     block_shape=[M_BLOCK, N_BLOCK, K_BLOCK])
    pid_m, pid_n, pid_k = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    offs = pid_m * M_BLOCK, pid_n * N_BLOCK, pid_k * K_BLOCK
    block = desc.load(offs)
    idx_m = offs[0] + tl.arange(0, M_BLOCK)[:, None, None]
    idx_n = offs[1] + tl.arange(0, N_BLOCK)[None, :, None]
    idx_k = offs[2] + tl.arange(0, K_BLOCK)[None, None, :]
    idx = idx_m * N * K + idx_n * K + idx_k
    mask = (idx_m < M) & (idx_n < N) & (idx_k < K)
    tl.store(out_ptr + idx, block, mask)


@pytest.mark.parametrize("dtype", [np.int8, np.float32])
@pytest.mark.parametrize("K_BLOCK", [16, 32])
def test_tensor_descriptor_load3d_of_a_strided_view(rng, dtype, K_BLOCK):
    full = _random(rng, (4, 16, 32), dtype)
    inp = full[:, :10, :23]  # a view: strides of the full array, a smaller shape
    out = np.zeros(inp.shape, dtype)
    strides = [s // full.itemsize for s in full.strides]
    grid = tuple(tritium.cdiv(size, block) for size, block in zip(inp.shape, (2, 8, K_BLOCK)))
    load3d_kernel[grid](out, full, *inp.shape, *strides, M_BLOCK=2, N_BLOCK=8, K_BLOCK=K_BLOCK)
    np.testing.assert_array_equal(out, inp)


@tritium.jit
def store3d_kernel(out_ptr, a_ptr, M, N, K, stride_m, stride_n, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N, K], strides=[stride_m, stride_n, 1],
                                     block_shape=[2, 4, BLOCK])
    offs = (tl.program_id(0) * 2, tl.program_id(1) * 4, tl.program_id(2) * BLOCK)
    idx_m = offs[0] + tl.arange(0, 2)[:, None, None]
    idx_n = offs[1] + tl.arange(0, 4)[None, :, None]
    idx_k = offs[2] + tl.arange(0, BLOCK)[None, None, :]
    mask = (idx_m < M) & (idx_n < N) & (idx_k < K)
    block = tl.load(a_ptr + idx_m * N * K + idx_n * K + idx_k, mask)
    desc.store(offs, block)


def test_tensor_descriptor_store3d_leaves_out_of_bounds_alone(rng):
    inp = _random(rng, (3, 5, 19), np.float32)
    out = np.full((3, 8, 32), -1, np.float32)
    grid = (2, 2, 2)
    store3d_kernel[grid](out, inp, 3, 5, 19, 8 * 32, 32, BLOCK=16)
    np.testing.assert_array_equal(out[:, :5, :19], inp)
    untouched = np.ones(out.shape, bool)
    untouched[:, :5, :19] = False
    assert np.all(out[untouched] == -1)


@tritium.jit
def padding_kernel(in_ptr, out_ptr, IM, IN, YN, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr, padding: tl.constexpr):
    desc = tl.make_tensor_descriptor(in_ptr, shape=[IM, IN], strides=[IN, 1], block_shape=[M_BLOCK, N_BLOCK],
                                     padding_option=padding)
    moffset = tl.program_id(0) * M_BLOCK
    noffset = tl.program_id(1) * N_BLOCK
    value = desc.load([moffset, noffset])
    offs_m = moffset + tl.arange(0, M_BLOCK)
    offs_n = noffset + tl.arange(0, N_BLOCK)
    tl.store(out_ptr + offs_m[:, None] * YN + offs_n[None, :], value)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_tensor_descriptor_padding(padding):
    IM, IN, OM, ON = 48, 48, 64, 64
    inp = np.arange(IM * IN, dtype=np.float32).reshape(IM, IN)
    out = np.zeros((OM, ON), np.float32)
    padding_kernel[(2, 2)](inp, out, IM, IN, ON, M_BLOCK=32, N_BLOCK=32, padding=padding)
    np.testing.assert_array_equal(out[:IM, :IN], inp)
    outside = np.ones(out.shape, bool)
    outside[:IM, :IN] = False
    if padding == "nan":
        assert np.all(np.isnan(out[outside]))
    else:
        assert np.all(out[outside] == 0)


@tritium.jit
def descriptor_fields(out_ptr, M, N, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK])
    tl.static_assert(desc.block_shape == [1, BLOCK])  # a list, as in Triton
    tl.store(out_ptr, desc.shape[0] * 1000 + desc.shape[1])
    tl.store(out_ptr + 1, desc.strides[0].to(tl.int32))
    tl.store(out_ptr + 2, desc.block_shape[1] + (desc.dtype == tl.int32))


def test_descriptor_shape_strides_block_shape_dtype():
    out = np.zeros(4, np.int32)
    descriptor_fields[(1,)](out, 7, 9, BLOCK=8)
    np.testing.assert_array_equal(out[:3], [7009, 9, 9])


@tritium.jit
def descriptor_in_loop(out_ptr, a_ptr, M, N, BLOCK: tl.constexpr):
    # The descriptor is made once; its loads walk the rows in a loop.
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK])
    acc = tl.zeros([1, BLOCK], tl.float32)
    for row in range(M):
        acc += desc.load([row, tl.program_id(0) * BLOCK])
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[None, :]
    tl.store(out_ptr + cols, acc, cols < N)


def test_descriptor_loads_in_a_loop(rng):
    a = rng.standard_normal((5, 40)).astype(np.float32)
    out = np.zeros(40, np.float32)
    descriptor_in_loop[(3,)](out, a, 5, 40, BLOCK=16)
    np.testing.assert_allclose(out, a.sum(axis=0), rtol=1e-6, atol=1e-6)


@tritium.jit
def misuse(x_ptr, n, CASE: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [4, 16])
    if CASE == "offsets":
        d.load([0])  # LINE: offsets
    if CASE == "store_shape":
        d.store([0, 0], tl.zeros([4, 8], tl.float32))  # LINE: store_shape
    if CASE == "small_block":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [4, 2])  # LINE: small_block
    if CASE == "last_stride":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [1, 16], [4, 16])  # LINE: last_stride
    if CASE == "runtime_stride":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [16, n], [4, 16])  # LINE: runtime_stride
    if CASE == "ndim":
        tl.make_tensor_descriptor(x_ptr, [1, 1, 1, 1, 1, 16], [1, 1, 1, 1, 16, 1], [1, 1, 1, 1, 1, 16])  # LINE: ndim
    if CASE == "strides":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [1], [4, 16])  # LINE: strides
    if CASE == "block_rank":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [16])  # LINE: block_rank
    if CASE == "padding":
        tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [4, 16], padding_option="one")  # LINE: padding
    if CASE == "tl_load":
        tl.load(d)  # LINE: tl_load


@pytest.mark.parametrize("case, message", [
    ("offsets", "expected 2 offsets, but got 1"),
    ("store_shape", "must be a block of shape [4, 16]"),
    ("small_block", "Descriptor block shape must have at least 16 bytes in the last dimension, but got 2 * 4 = 8 bytes"),
    ("last_stride", "Tensor descriptor last dim must be 1 but got 16"),
    ("runtime_stride", "Tensor descriptor last dim must be 1"),
    ("ndim", "Expected 1 <= ndim <= 5 but got 6 dimensions"),
    ("strides", "Expected 2 strides but got 1"),
    ("block_rank", "Expected block_shape to have 2 dimensions but got 1"),
    ("padding", "Padding option one not supported"),
    ("tl_load", "tl.load cannot take a tensor descriptor; use desc.load(offsets)"),
])
def test_misuse_is_a_located_error(case, message):
    line, _ = marked_line(__file__, case)
    with pytest.raises(tritium.CompilationError) as info:
        misuse[(1,)](np.zeros(256, np.float32), 3, CASE=case)
    assert info.value.line == line, info.value
    assert message in info.value.message


@tritium.jit
def nan_int(x_ptr):
    tl.make_tensor_descriptor(x_ptr, [16], [1], [16], padding_option="nan")  # LINE: nan_int


def test_nan_padding_of_integers_is_an_error():
    line, _ = marked_line(__file__, "nan_int")
    with pytest.raises(tritium.CompilationError) as info:
        nan_int[(1,)](np.zeros(16, np.int32))
    assert info.value.line == line
    assert "Padding option `nan` is not supported for integer blocks" in info.value.message


@tritium.jit
def descriptor_atomics(acc_ptr, bits_ptr, x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Every program adds its x tile into one shared (M, N) accumulator through a descriptor;
    # the tile hangs over the edge of the tensor, and out-of-bounds elements are left alone.
    acc = tl.make_tensor_descriptor(acc_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    bits = tl.make_tensor_descriptor(bits_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK_M * BLOCK_N + rows * BLOCK_N + cols)
    y = tl.load(y_ptr + tl.program_id(0) * BLOCK_M * BLOCK_N + rows * BLOCK_N + cols)
    acc.atomic_add([0, 0], x)
    bits.atomic_or([0, 0], y)
    bits.atomic_max([0, 0], y)


def test_descriptor_atomics_accumulate_within_bounds(rng):
    programs, M, N, BM, BN = 5, 6, 12, 8, 16
    x = rng.integers(-50, 50, (programs, BM, BN)).astype(np.int32)
    y = rng.integers(0, 1 << 20, (programs, BM, BN)).astype(np.int32)
    acc = np.full((M + 2) * N, 3, np.int32)  # two guard rows after the tensor
    bits = np.zeros((M + 2) * N, np.int32)
    descriptor_atomics[(programs,)](acc, bits, x, y, M, N, BLOCK_M=BM, BLOCK_N=BN)
    acc2 = acc.reshape(M + 2, N)
    np.testing.assert_array_equal(acc2[:M], 3 + x[:, :M, :N].sum(axis=0))
    assert np.all(acc2[M:] == 3)
    bits2 = bits.reshape(M + 2, N)
    ored = np.bitwise_or.reduce(y[:, :M, :N], axis=0)
    np.testing.assert_array_equal(bits2[:M], np.maximum(ored, y[:, :M, :N].max(axis=0)))
    assert np.all(bits2[M:] == 0)


@tritium.jit
def bad_atomic(x_ptr, CASE: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [4, 16])
    if CASE == "dtype":
        d.atomic_and([0, 0], tl.zeros([4, 16], tl.float32))  # LINE: atomic_dtype
    if CASE == "value":
        d.atomic_add([0, 0], tl.zeros([4, 16], tl.float16))  # LINE: atomic_value
    if CASE == "gather":
        d.gather(tl.arange(0, 8), 0)  # LINE: atomic_gather


@pytest.mark.parametrize("case, message", [
    ("dtype", "Unsupported dtype fp32 for a tensor descriptor atomic_and"),
    ("value", "must have the descriptor's dtype fp32, got fp16"),
    # (this pinned "not supported by tritium yet" until session 10 built gather; the block
    # [4, 16] is now Triton's error)
    ("gather", "descriptor block must have 1 row, but got [4, 16]"),
])
def test_descriptor_atomic_misuse(case, message):
    line, _ = marked_line(__file__, "atomic_" + case)
    with pytest.raises(tritium.CompilationError) as info:
        bad_atomic[(1,)](np.zeros(256, np.float32), CASE=case)
    assert info.value.line == line, info.value
    assert message in info.value.message


@tritium.jit
def gather_rows(out_ptr, x_ptr, idx_ptr, M, N, y, ROWS: tl.constexpr, BN: tl.constexpr, NAN: tl.constexpr):
    if NAN:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN], padding_option="nan")
    else:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, ROWS))
    block = desc.gather(rows, y)
    tl.store(out_ptr + tl.arange(0, ROWS)[:, None] * BN + tl.arange(0, BN)[None, :], block)


@tritium.jit
def scatter_rows(x_ptr, v_ptr, idx_ptr, M, N, y, ROWS: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, ROWS))
    value = tl.load(v_ptr + tl.arange(0, ROWS)[:, None] * BN + tl.arange(0, BN)[None, :])
    desc.scatter(value, rows, y)


def _gather_reference(x, idx, y, bn, fill):
    want = np.full((idx.size, bn), fill, x.dtype)
    for i, r in enumerate(idx):
        for j in range(bn):
            if 0 <= r < x.shape[0] and 0 <= y + j < x.shape[1]:
                want[i, j] = x[r, y + j]
    return want


@pytest.mark.parametrize("dtype, bn", [(np.float32, 8), (np.float16, 16), (np.int8, 32), (np.int32, 64)])
@pytest.mark.parametrize("y", [0, 24, -8])
def test_descriptor_gather_reads_rows_and_pads_out_of_bounds(rng, dtype, bn, y):
    M, N = 40, 72
    x = _random(rng, (M, N), dtype)
    idx = np.array([3, 39, 0, 40, -1, 17, 17, 100, 5, 38, 2, 1, 0, 9, 12, 31], np.int32)  # 40, -1, 100: outside
    out = np.full((idx.size, bn), 7, dtype)
    gather_rows[(1,)](out, x, idx, M, N, y, ROWS=idx.size, BN=bn, NAN=False)
    np.testing.assert_array_equal(out, _gather_reference(x, idx, y, bn, 0))


def test_descriptor_gather_nan_padding(rng):
    x = rng.standard_normal((16, 32)).astype(np.float32)
    idx = np.array([0, 15, 16, -3, 4, 4, 8, 1], np.int32)
    out = np.zeros((8, 16), np.float32)
    gather_rows[(1,)](out, x, idx, 16, 32, 24, ROWS=8, BN=16, NAN=True)
    np.testing.assert_array_equal(out, _gather_reference(x, idx, 24, 16, np.nan))


def test_descriptor_scatter_writes_rows_inside_the_bounds_only(rng):
    M, N, bn = 24, 40, 16
    x = np.zeros((M, N), np.float32)
    idx = np.array([2, 23, 24, -1, 7, 11, 0, 19], np.int32)  # 24 and -1: outside, not written
    v = rng.standard_normal((idx.size, bn)).astype(np.float32)
    scatter_rows[(1,)](x, v, idx, M, N, 30, ROWS=idx.size, BN=bn)
    want = np.zeros((M, N), np.float32)
    for i, r in enumerate(idx):
        for j in range(bn):
            if 0 <= r < M and 0 <= 30 + j < N:
                want[r, 30 + j] = v[i, j]
    np.testing.assert_array_equal(x, want)


def test_descriptor_gather_compiles_for_the_gpu():
    ptx = gather_rows.emit("ptx", signature="*fp32:16, *fp32:16, *i32:16, i32:16, i32:16, i32, ROWS=16, BN=32, NAN=False",
                           arch=90)
    assert ".visible .entry gather_rows" in ptx


@tritium.jit
def bad_gather(x_ptr, CASE: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [1, 16])
    if CASE == "rows":
        d.gather(tl.arange(0, 4), 0)  # LINE: gather_rows
    if CASE == "columns":
        h = tl.make_tensor_descriptor(x_ptr.to(tl.pointer_type(tl.float16)), [16, 16], [16, 1], [1, 8])
        h.gather(tl.arange(0, 8), 0)  # LINE: gather_columns
    if CASE == "offsets_2d":
        d.gather(tl.zeros([8, 2], tl.int32), 0)  # LINE: gather_offsets_2d
    if CASE == "scatter_shape":
        d.scatter(tl.zeros([8, 8], tl.float32), tl.arange(0, 8), 0)  # LINE: gather_scatter_shape


@pytest.mark.parametrize("case, message", [
    ("rows", "descriptor gather must have at least 8 rows, but got [4]"),
    ("columns", "descriptor gather of fp16 must have at least 16 columns, but got 8"),
    ("offsets_2d", "x offsets must be a 1D block of integers"),
    ("scatter_shape", "must be a block of shape [8, 16]"),
])
def test_descriptor_gather_misuse(case, message):
    line, _ = marked_line(__file__, "gather_" + case)
    with pytest.raises(tritium.CompilationError) as info:
        bad_gather[(1,)](np.zeros(256, np.float32), CASE=case)
    assert info.value.line == line, info.value
    assert message in info.value.message


@tritium.jit
def descriptor_half_max_min(out_ptr, v_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, MAX: tl.constexpr):
    # Every program reduces its [BM, BN] tile of v into the same [M, N] tensor (the tile hangs
    # over its edge), so each element sees one value per program.
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(v_ptr + tl.program_id(0) * BM * BN + rows * BN + cols)
    desc = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    if MAX:
        desc.atomic_max([0, 0], v)
    else:
        desc.atomic_min([0, 0], v)


def _half_max_min(old, value, is_max):
    """PTX's max/min on fp16/bf16 (what the GPU's compare-and-swap loop computes): a NaN
    operand yields the other, +0.0 above -0.0 (values as float32)."""
    out = old.copy()
    for i in np.ndindex(old.shape):
        a, b = old[i], value[i]
        if np.isnan(a):
            out[i] = b
        elif np.isnan(b):
            out[i] = a
        elif a == b == 0:
            neg = (np.signbit(a) and np.signbit(b)) if is_max else (np.signbit(a) or np.signbit(b))
            out[i] = -0.0 if neg else 0.0
        else:
            out[i] = max(a, b) if is_max else min(a, b)
    return out


def _bf16_bits(x):  # float32 -> bf16 bits, to nearest even (no NaNs here but explicit ones)
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), bits)


def _bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("is_max", [True, False])
def test_descriptor_atomic_max_min_of_16_bit_floats(rng, dtype, is_max):
    """desc.atomic_max/min on fp16 and bf16 (Triton 3.6 allows them on descriptors, natively
    from sm_90): PTX's max/min per element, NaNs and signed zeros included, out-of-bounds
    elements untouched."""
    programs, M, N, BM, BN = 3, 6, 12, 8, 16
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, -1.0], np.float32)
    start = rng.standard_normal((M + 2) * N).astype(np.float32)
    start[:M * N] = np.where(rng.random(M * N) < 0.4, rng.choice(special, M * N), start[:M * N])
    values = rng.standard_normal((programs, BM, BN)).astype(np.float32)
    values = np.where(rng.random(values.shape) < 0.4, rng.choice(special, values.shape), values)
    if dtype == "float16":
        start, values = start.astype(np.float16), values.astype(np.float16)
        out = start.copy()
        descriptor_half_max_min[(programs,)](out, values, M, N, BM=BM, BN=BN, MAX=is_max)
        got = out.astype(np.float32)
        start32, values32 = start.astype(np.float32), values.astype(np.float32)
    else:
        start_bits, value_bits = _bf16_bits(start), _bf16_bits(values)
        out_bits = start_bits.copy()
        bf16 = tl.bfloat16
        descriptor_half_max_min[(programs,)](tritium.reinterpret(out_bits, bf16), tritium.reinterpret(value_bits, bf16),
                                             M, N, BM=BM, BN=BN, MAX=is_max)
        got = _bf16_value(out_bits)
        start32, values32 = _bf16_value(start_bits), _bf16_value(value_bits)
    want = start32.reshape(M + 2, N).copy()
    for p in range(programs):  # any order gives the same result: max/min as above commute
        want[:M] = _half_max_min(want[:M], values32[p, :M, :N], is_max)
    got = got.reshape(M + 2, N)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    assert np.any(np.isnan(values32[:, :M, :N])) and np.any((values32 == 0) & np.signbit(values32))
    # The guard rows stay as they were.
    np.testing.assert_array_equal(got[M:], start32.reshape(M + 2, N)[M:])


@tritium.jit
def pointer_half_max(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_max(p + offs, tl.load(p + offs))  # LINE: pointer_half_max


@pytest.mark.parametrize("dtype, name", [(np.float16, "fp16"), (np.uint16, "bf16")])
def test_atomic_max_on_16_bit_float_pointers_is_triton_error(dtype, name):
    """tl.atomic_max/min on fp16/bf16 pointers stay refused as Triton 3.6 refuses them
    ("atomic_max does not support fp16"): only descriptors take them."""
    line, _ = marked_line(__file__, "pointer_half_max")
    x = np.zeros(16, dtype)
    arg = x if dtype == np.float16 else tritium.reinterpret(x, tl.bfloat16)
    with pytest.raises(tritium.CompilationError) as info:
        pointer_half_max[(1,)](arg, BLOCK=16)
    assert info.value.line == line
    assert f"atomic_max does not support {name}" in info.value.message

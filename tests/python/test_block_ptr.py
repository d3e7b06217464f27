"""Block pointers (tl.make_block_ptr, tl.advance, tl.load/tl.store with boundary_check and
padding_option) through the interpreter, after Triton's test_block_pointer.py, plus 2-D tiles
walked with tl.advance in loops, and the misuse errors with Triton's wording."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def block_copy_kernel(a_ptr, b_ptr, N, BLOCK_SIZE: tl.constexpr, PADDING_OPTION: tl.constexpr,
                      TEST_LOWER_BOUND: tl.constexpr, TEST_UPPER_BOUND: tl.constexpr):
    pid = tl.program_id(0)
    offset = pid * BLOCK_SIZE
    if TEST_LOWER_BOUND:
        offset = -N
    elif TEST_UPPER_BOUND:
        offset = N
    # Only half of the data is in bounds of `a`, so the padding shows in the second half.
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(N // 2, ), strides=(1, ), offsets=(offset, ),
                                    block_shape=(BLOCK_SIZE, ), order=(0, ))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(N, ), strides=(1, ), offsets=(offset, ),
                                    block_shape=(BLOCK_SIZE, ), order=(0, ))
    if PADDING_OPTION is None:
        a = tl.load(a_block_ptr, boundary_check=(0, ))
    else:
        a = tl.load(a_block_ptr, boundary_check=(0, ), padding_option=PADDING_OPTION)
    tl.store(b_block_ptr, a, boundary_check=(0, ))


def _random(rng, dtype, n):
    if dtype in (np.bool_, np.int16, np.int32):
        return rng.integers(0, 2, n).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.int32, np.float16, np.float32])
@pytest.mark.parametrize("n", [64, 256, 1024])
@pytest.mark.parametrize("padding", [None, "zero", "nan"])
@pytest.mark.parametrize("bound", [None, "lower", "upper"])
def test_block_copy(rng, dtype, n, padding, bound):
    if padding == "nan" and dtype in (np.bool_, np.int16, np.int32):
        pytest.skip("padding with NaN is not supported for integer types (tested as an error below)")
    a = _random(rng, dtype, n)
    b = np.zeros(n, dtype)
    block_copy_kernel[(tritium.cdiv(n, 64),)](a, b, n, BLOCK_SIZE=64, PADDING_OPTION=padding,
                                               TEST_LOWER_BOUND=bound == "lower", TEST_UPPER_BOUND=bound == "upper")
    if bound is not None:
        assert np.all(b == 0)
        return
    np.testing.assert_array_equal(a[:n // 2], b[:n // 2])
    if padding == "zero":
        assert np.all(b[n // 2:] == 0)
    elif padding == "nan":
        assert np.all(np.isnan(b[n // 2:]))


@tritium.jit
def block_copy_3d_kernel(src_ptr, dst_ptr, dim0, dim1, dim2, stride0, stride1, stride2, BLOCK0: tl.constexpr,
                         BLOCK1: tl.constexpr, BLOCK2: tl.constexpr):
    src_block_ptr = tl.make_block_ptr(base=src_ptr, shape=(dim0, dim1, dim2), strides=(stride0, stride1, stride2),
                                      offsets=(dim0 - 1, 0, dim2 - 2), block_shape=(BLOCK0, BLOCK1, BLOCK2),
                                      order=(2, 1, 0))
    dst_block_ptr = tl.make_block_ptr(base=dst_ptr, shape=(dim0, dim1, dim2), strides=(stride0, stride1, stride2),
                                      offsets=(dim0 - 1, 0, dim2 - 2), block_shape=(BLOCK0, BLOCK1, BLOCK2),
                                      order=(2, 1, 0))
    values = tl.load(src_block_ptr, boundary_check=(0, 2), padding_option="zero")
    tl.store(dst_block_ptr, values, boundary_check=(0, 2))


def test_block_ptr_rank_3():
    src = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    dst = np.zeros_like(src)
    s = [x // src.itemsize for x in src.strides]
    block_copy_3d_kernel[(1,)](src, dst, 3, 4, 5, s[0], s[1], s[2], BLOCK0=2, BLOCK1=4, BLOCK2=4)
    expected = np.zeros_like(src)
    expected[2:3, 0:4, 3:5] = src[2:3, 0:4, 3:5]
    np.testing.assert_array_equal(dst, expected)


@tritium.jit
def block_ptr_dtype_kernel(src_ptr, dst_ptr, N, BLOCK_SIZE: tl.constexpr):
    block_ptr = tl.make_block_ptr(base=src_ptr, shape=(N, ), strides=(1, ), offsets=(0, ), block_shape=(BLOCK_SIZE, ),
                                  order=(0, ))
    values = tl.load(block_ptr, boundary_check=(0, ), padding_option="zero").to(block_ptr.dtype.element_ty)
    tl.store(dst_ptr + tl.arange(0, BLOCK_SIZE), values)


def test_block_ptr_dtype_element_ty():
    src = np.arange(16, dtype=np.float16)
    dst = np.zeros_like(src)
    block_ptr_dtype_kernel[(1,)](src, dst, 16, BLOCK_SIZE=16)
    np.testing.assert_array_equal(dst, src)


@tritium.jit
def advance_negative_kernel(a_ptr, out_ptr, M, K, stride_am, stride_ak,
                            BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak), offsets=(0, 0),
                                    block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    # Negative offsets for advance, as Triton's matmul_no_scf test does.
    a_block_ptr = tl.advance(a_block_ptr, (BLOCK_M, -BLOCK_K))
    a_block_ptr = a_block_ptr.advance((-BLOCK_M, BLOCK_K))
    a = tl.load(a_block_ptr, boundary_check=(1, ), padding_option="zero")
    out = tl.make_block_ptr(out_ptr, (BLOCK_M, BLOCK_K), (BLOCK_K, 1), (0, 0), (BLOCK_M, BLOCK_K), (1, 0))
    tl.store(out, a)


def test_advance_negative_offsets(rng):
    m, k = 16, 8
    a = rng.standard_normal((m, k)).astype(np.float32)
    out = np.full((16, 16), -1, np.float32)
    advance_negative_kernel[(1,)](a, out, m, k, k, 1, BLOCK_M=16, BLOCK_K=16)
    # (0, 0) + (16, -16) + (-16, 16) = (0, 0); columns from K on are out of bounds: zero.
    expected = np.zeros((16, 16), np.float32)
    expected[:, :k] = a
    np.testing.assert_array_equal(out, expected)


@tritium.jit
def tiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # A matmul over 2-D tiles walked with tl.advance in a loop; the product is formed by
    # broadcasting (no tl.dot): acc[m, n] += sum_k a[m, k] * b[k, n], one k column at a time.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, K, BLOCK_K):
        a_col = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, k), (BLOCK_M, 1), (1, 0))
        b_row = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (k, pid_n * BLOCK_N), (1, BLOCK_N), (1, 0))
        for kk in range(BLOCK_K):
            a = tl.load(a_col, boundary_check=(0, 1), padding_option="zero")
            b = tl.load(b_row, boundary_check=(0, 1), padding_option="zero")
            acc += a * b
            a_col = tl.advance(a_col, (0, 1))
            b_row = tl.advance(b_row, (1, 0))
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, (BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


@pytest.mark.parametrize("m, n, k", [(16, 16, 16), (20, 12, 10), (33, 17, 9)])
def test_tiled_matmul_with_advance_in_loops(rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), 7, np.float32)
    grid = (tritium.cdiv(m, 8), tritium.cdiv(n, 8))
    tiled_matmul[grid](a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=8, BLOCK_N=8, BLOCK_K=4)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@tritium.jit
def tile_copy_advance(src_ptr, dst_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program walks the whole matrix: rows in a while loop, columns in a for loop.
    src = tl.make_block_ptr(src_ptr, (M, N), (N, 1), (0, 0), (BLOCK_M, BLOCK_N), (1, 0))
    dst = tl.make_block_ptr(dst_ptr, (M, N), (N, 1), (0, 0), (BLOCK_M, BLOCK_N), (1, 0))
    row = 0
    while row < M:
        for col in range(0, N, BLOCK_N):
            tile = tl.load(src, boundary_check=(0, 1))
            tl.store(dst, tile * 2, boundary_check=(0, 1))
            src = tl.advance(src, (0, BLOCK_N))
            dst = dst.advance((0, BLOCK_N))
        src = tl.advance(src, (BLOCK_M, -tl.cdiv(N, BLOCK_N) * BLOCK_N))
        dst = tl.advance(dst, (BLOCK_M, -tl.cdiv(N, BLOCK_N) * BLOCK_N))
        row += BLOCK_M


@pytest.mark.parametrize("m, n", [(16, 16), (13, 29)])
def test_advance_in_while_and_for(rng, m, n):
    src = rng.standard_normal((m, n)).astype(np.float32)
    dst = np.zeros((m, n), np.float32)
    tile_copy_advance[(1,)](src, dst, m, n, BLOCK_M=4, BLOCK_N=8)
    np.testing.assert_array_equal(dst, src * 2)


@tritium.jit
def column_major_tile(src_ptr, dst_ptr, M, N, BLOCK: tl.constexpr):
    # A column-major source (order=(0, 1), stride 1 along dim 0) copied to a row-major one.
    src = tl.make_block_ptr(src_ptr, (M, N), (1, M), (0, 0), (BLOCK, BLOCK), (0, 1))
    dst = tl.make_block_ptr(dst_ptr, (M, N), (N, 1), (0, 0), (BLOCK, BLOCK), (1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1), padding_option="zero"), boundary_check=(1, 0))


def test_column_major_block(rng):
    m, n = 6, 7
    src = rng.standard_normal((m, n)).astype(np.float32)
    dst = np.zeros((m, n), np.float32)
    column_major_tile[(1,)](np.asfortranarray(src).ravel(order="K"), dst, m, n, BLOCK=8)
    np.testing.assert_array_equal(dst, src)


@tritium.jit
def select_block_ptr(src_ptr, dst_ptr, flag, N, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(src_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    if flag > 0:
        p = tl.advance(p, (BLOCK,))
    tl.store(dst_ptr + tl.arange(0, BLOCK), tl.load(p, boundary_check=(0,), padding_option="zero"))


@pytest.mark.parametrize("flag", [0, 1])
def test_block_ptr_through_dynamic_if(rng, flag):
    src = rng.standard_normal(24).astype(np.float32)
    dst = np.zeros(16, np.float32)
    select_block_ptr[(1,)](src, dst, flag, 24, BLOCK=16)
    expected = src[:16] if flag == 0 else np.concatenate([src[16:], np.zeros(8, np.float32)])
    np.testing.assert_array_equal(dst, expected)


@tritium.jit
def store_scalar_through_block_ptr(dst_ptr, N, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(dst_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    tl.store(p, 3, boundary_check=(0,))


def test_store_scalar_broadcasts_over_block():
    dst = np.zeros(16, np.int32)
    store_scalar_through_block_ptr[(1,)](dst, 10, BLOCK=16)
    np.testing.assert_array_equal(dst, [3] * 10 + [0] * 6)


@tritium.jit
def block_ptr_from_helper_kernel(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    p = make_1d(src_ptr, N, BLOCK)
    tl.store(dst_ptr + tl.arange(0, BLOCK), tl.load(p, boundary_check=(0,), padding_option="zero"))


@tritium.jit
def make_1d(ptr, n, BLOCK: tl.constexpr):
    return tl.make_block_ptr(ptr, (n,), (1,), (0,), (BLOCK,), (0,))


def test_block_ptr_returned_from_jit_function(rng):
    src = rng.standard_normal(8).astype(np.float32)
    dst = np.full(16, 5, np.float32)
    block_ptr_from_helper_kernel[(1,)](src, dst, 8, BLOCK=16)
    np.testing.assert_array_equal(dst, np.concatenate([src, np.zeros(8, np.float32)]))


# ---- misuse: located errors with Triton's messages ----

@tritium.jit
def misuse(x_ptr, CASE: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (16, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    if CASE == "advance_rank":
        p = tl.advance(p, (1,))  # LINE: advance_rank
    if CASE == "boundary_range":
        tl.load(p, boundary_check=(2,))  # LINE: boundary_range
    if CASE == "boundary_duplicate":
        tl.load(p, boundary_check=(1, 1))  # LINE: boundary_duplicate
    if CASE == "padding_on_store":
        tl.store(p, tl.zeros((16, 16), tl.float32), padding_option="zero")  # LINE: padding_on_store
    if CASE == "bad_padding":
        tl.load(p, boundary_check=(0,), padding_option="one")  # LINE: bad_padding
    if CASE == "mask":
        tl.load(p, mask=tl.arange(0, 16) < 4)  # LINE: mask
    if CASE == "store_shape":
        tl.store(p, tl.zeros((8, 16), tl.float32))  # LINE: store_shape
    if CASE == "store_dtype":
        tl.store(p, tl.zeros((16, 16), tl.float16))  # LINE: store_dtype
    if CASE == "order":
        tl.make_block_ptr(x_ptr, (16, 16), (16, 1), (0, 0), (16, 16), (1, 1))  # LINE: order
    if CASE == "lengths":
        tl.make_block_ptr(x_ptr, (16, 16), (16, 1), (0,), (16, 16), (1, 0))  # LINE: lengths
    if CASE == "base":
        tl.make_block_ptr(x_ptr + tl.arange(0, 4), (16,), (1,), (0,), (16,), (0,))  # LINE: base
    if CASE == "offset_i64":
        tl.make_block_ptr(x_ptr, (16,), (1,), (tl.program_id(0).to(tl.int64),), (16,), (0,))  # LINE: offset_i64
    if CASE == "block_shape":
        tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (tl.program_id(0),), (0,))  # LINE: block_shape
    if CASE == "advance_tensor":
        tl.advance(x_ptr, (1,))  # LINE: advance_tensor
    if CASE == "legacy_boundary":
        tl.load(x_ptr + tl.arange(0, 16), boundary_check=(0,))  # LINE: legacy_boundary
    if CASE == "arith":
        q = p + 1  # LINE: arith


@tritium.jit
def nan_padding_int(x_ptr):
    p = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.load(p, boundary_check=(0,), padding_option="nan")  # LINE: nan_int


@pytest.mark.parametrize("case, message", [
    ("advance_rank", "tl.advance got 1 offsets for a block pointer of rank 2"),
    ("boundary_range", "boundary_check dimension 2 is out of range for a block pointer of rank 2"),
    ("boundary_duplicate", "Duplicate dimension in `boundary_check`"),
    ("padding_on_store", "store() got an unexpected keyword argument 'padding_option'"),
    ("bad_padding", "Padding option one not supported"),
    ("mask", "`mask` and `other` arguments cannot be specified for loading block pointers"),
    ("store_shape", "Block shape([16, 16]) and value shape([8, 16]) mismatch"),
    ("store_dtype", "Block element type(fp32) and value element type(fp16) mismatch"),
    ("order", "Expected a permutation of (0, 1, ..., len(order)-1) in order"),
    ("lengths", "Expected shape/strides/offsets/block_shape to have the same length"),
    ("base", "Expected `base` to be a pointer type (but not a block pointer type or others)"),
    ("offset_i64", "Block pointers only support 32 bit `offsets/block_shape`"),
    ("block_shape", "Expected a list of constant integers (`int32_t` range) in `block_shape`"),
    ("advance_tensor", "tl.advance needs a block pointer made by tl.make_block_ptr"),
    ("legacy_boundary", "`padding_option` or `boundary_check` argument is not supported for loading a tensor of"),
    ("arith", "a block pointer"),
])
def test_misuse_is_a_located_error(case, message):
    line, _ = marked_line(__file__, case)
    with pytest.raises(tritium.CompilationError) as info:
        misuse[(1,)](np.zeros(256, np.float32), CASE=case)
    assert info.value.line == line, info.value
    assert message in info.value.message


def test_nan_padding_of_integers_is_an_error():
    line, _ = marked_line(__file__, "nan_int")
    with pytest.raises(tritium.CompilationError) as info:
        nan_padding_int[(1,)](np.zeros(16, np.int32))
    assert info.value.line == line
    assert "Padding option `nan` is not supported for integer block pointers" in info.value.message


@tritium.jit
def pick_block(a_ptr, b_ptr, flag, N, BLOCK: tl.constexpr):
    if flag > 0:
        return tl.make_block_ptr(a_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    return tl.make_block_ptr(b_ptr, (N,), (1,), (BLOCK,), (BLOCK,), (0,))


@tritium.jit
def returned_from_branches(a_ptr, b_ptr, out_ptr, flag, N, BLOCK: tl.constexpr):
    p = pick_block(a_ptr, b_ptr, flag, N, BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(p, boundary_check=(0,), padding_option="zero"))


@pytest.mark.parametrize("flag", [0, 1])
def test_block_ptr_returned_from_dynamic_branches(rng, flag):
    a = rng.standard_normal(12).astype(np.float32)
    b = rng.standard_normal(12).astype(np.float32)
    out = np.zeros(8, np.float32)
    returned_from_branches[(1,)](a, b, out, flag, 12, BLOCK=8)
    expected = a[:8] if flag else np.concatenate([b[8:], np.zeros(4, np.float32)])
    np.testing.assert_array_equal(out, expected)


@tritium.jit
def ternary_block_ptr(src_ptr, dst_ptr, flag, N, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(src_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    p = tl.advance(p, (BLOCK,)) if flag > 0 else p
    pair = (tl.load(p, boundary_check=(0,), padding_option="zero"), flag)
    pair = (pair[0] * 2, pair[1]) if flag > 1 else pair
    tl.store(dst_ptr + tl.arange(0, BLOCK), pair[0])


@pytest.mark.parametrize("flag", [0, 1, 2])
def test_block_ptr_and_tuple_through_ternary(rng, flag):
    src = rng.standard_normal(24).astype(np.float32)
    dst = np.zeros(16, np.float32)
    ternary_block_ptr[(1,)](src, dst, flag, 24, BLOCK=16)
    expected = src[:16] if flag == 0 else np.concatenate([src[16:], np.zeros(8, np.float32)])
    np.testing.assert_array_equal(dst, expected * (2 if flag > 1 else 1))

"""Reductions, scans, histogram and shape ops through the interpreter against numpy, over the
grid of Triton 3.6's own language tests (test_reduce1d, test_reduce, test_generic_reduction,
test_scan2d, test_histogram, test_trans_2d/4d, test_permute, test_cat, test_join,
test_split, test_interleave, test_reshape), with Triton's accumulation types: sum of
<32-bit integers in (u)int32, max/min of <32-bit inputs in int32/fp32, bf16 max/min/cumsum
through fp32, argmax/argmin int32 and first index on ties, NaN dropped by max/min.

bf16 has no numpy type: such inputs are uint16 arrays of the bits, bitcast in the kernel,
and bf16 results come back the same way. The kernels live in reduce_kernels.py, shared
with the GPU suite."""

import itertools
import math

import numpy as np
import pytest

import reduce_kernels as K

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
DTYPES = INTS + FLOATS
EPS = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}


# ---------------------------------------------------------------------------------------
# Inputs and references.


def bf16_bits(values):
    """uint16 bits of float32 values (truncated to bf16) and the exact values they hold."""
    bits = (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return bits, from_bf16_bits(bits)


def from_bf16_bits(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def random_values(rng, dtype, shape, ties=False):
    """(kernel argument, logical values): a random block of `dtype`; with `ties`, few
    distinct values so that max/min are hit many times."""
    if dtype in FLOATS:
        v = rng.standard_normal(shape)
        if ties:
            v = np.round(v * 2) / 2
        if dtype == "bfloat16":
            return bf16_bits(v)
        v = v.astype(dtype)
        return v, v
    info = np.iinfo(dtype)
    if ties:
        low, high = (0, 3) if info.min == 0 else (-2, 2)
    elif info.bits <= 16:
        low, high = info.min, info.max  # sums overflow the input type: the accumulator must not
    else:
        low, high = max(info.min, -(2**40)), min(info.max, 2**40)
        if info.bits == 32:
            low, high = max(info.min, -(2**30)), min(info.max, 2**30)
    v = rng.integers(low, high, shape, dtype=dtype, endpoint=True)
    return v, v


def reduced_dtype(op, dtype):
    """Triton 3.6's result element type of `op` over `dtype` (numpy name)."""
    small = dtype in ("int8", "int16", "uint8", "uint16")
    if op in ("argmax", "argmin"):
        return "int32"
    if op == "sum":
        if small:
            return "uint32" if dtype.startswith("u") else "int32"
        return dtype
    if op in ("max", "min"):
        if small:
            return "int32"
        if dtype in ("float16", "bfloat16"):
            return "float32"
        return dtype
    if op in ("max_with_indices", "min_with_indices"):
        return "float32" if dtype == "bfloat16" else dtype
    return dtype  # xor_sum


def numpy_reduce(op, values, axis, keep, dtype):
    out = reduced_dtype(op, dtype)
    kw = dict(axis=axis, keepdims=keep)
    if op == "sum":
        if dtype in FLOATS:
            return np.sum(values.astype(np.float64), **kw)
        return np.sum(values, dtype=out, **kw)
    if op in ("max", "max_with_indices"):
        return np.max(values, **kw).astype(np.float32 if out == "float32" else out)
    if op in ("min", "min_with_indices"):
        return np.min(values, **kw).astype(np.float32 if out == "float32" else out)
    if op == "argmax":
        return np.argmax(values, **kw).astype(np.int32)
    if op == "argmin":
        return np.argmin(values, **kw).astype(np.int32)
    assert op == "xor_sum"
    return np.bitwise_xor.reduce(values, **kw)


def poisoned(shape, dtype):
    if dtype == "bfloat16":
        return np.full(shape, 0x7FC1, np.uint16)  # a NaN
    out = np.empty(shape, dtype)
    out.fill(np.nan if dtype.startswith("float") else np.array(-1).astype(dtype))
    return out


def check_sum(got, ref64, values, axis, dtype):
    """Float sums: within the error of a tree of additions in `dtype`: for k terms
    |got - exact| <= (ceil(log2 k) + 2) * eps * sum |x|."""
    got = np.asarray(got, np.float64)
    k = values.size if axis is None else values.shape[axis]
    bound = (math.ceil(math.log2(max(k, 1))) + 2) * EPS[dtype] * np.sum(
        np.abs(values.astype(np.float64)), axis=axis, keepdims=got.ndim == values.ndim and got.ndim > 0)
    bound = np.reshape(bound, np.shape(ref64))
    err = np.abs(np.reshape(got, np.shape(ref64)) - ref64)
    assert np.all(err <= bound + 1e-300), f"sum off by {err.max()} (bound {np.max(bound)})"


def run_reduce(op, dtype, shape, axis, keep, x, values, tie_left=True):
    """Launches reduce_kernel; returns (values, indices or None) shaped like numpy's result."""
    ref = numpy_reduce(op, values, axis, keep, dtype)
    out_dtype = reduced_dtype(op, dtype)
    scalar = np.ndim(ref) == 0
    out_shape = np.shape(ref)
    z = poisoned(max(int(np.size(ref)), 1), out_dtype)
    zi = poisoned(max(int(np.size(ref)), 1), "int32")
    dims = list(shape) + [1] * (4 - len(shape))
    K.reduce_kernel[(1,)](x, z, zi, OP=op, RANK=len(shape), D0=dims[0], D1=dims[1],
                          D2=dims[2], D3=dims[3], AXIS=axis, KEEP=keep,
                          IN_BF16=dtype == "bfloat16", OUT_BF16=out_dtype == "bfloat16",
                          SCALAR=scalar, TIE_LEFT=tie_left)
    if out_dtype == "bfloat16":
        z = from_bf16_bits(z)
    got = z[0] if scalar else z.reshape(out_shape)
    got_i = zi[0] if scalar else zi.reshape(out_shape)
    return ref, got, got_i


def check_reduce(op, dtype, shape, axis, keep, rng, ties=False):
    x, values = random_values(rng, dtype, shape, ties=ties)
    ref, got, got_i = run_reduce(op, dtype, shape, axis, keep, x, values)
    if op == "sum" and dtype in FLOATS:
        check_sum(got, ref, values, axis, dtype)
        return
    assert np.asarray(got).dtype == np.asarray(ref).dtype or dtype == "bfloat16"
    np.testing.assert_array_equal(got, ref)
    if op in ("max_with_indices", "min_with_indices"):
        arg = np.argmax if op.startswith("max") else np.argmin
        np.testing.assert_array_equal(got_i, arg(values, axis=axis, keepdims=keep))


# ---------------------------------------------------------------------------------------
# Reductions: every op over every element type (test_reduce1d), then shapes x axes x
# keep_dims (test_reduce) with the element types rotated through the grid.

OPS = ["sum", "max", "min", "argmax", "argmin", "max_with_indices", "min_with_indices",
       "xor_sum"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce1d(rng, op, dtype):
    if op == "xor_sum" and dtype in FLOATS:
        pytest.skip("xor_sum of floats is a compile error (tests/errors/xor_sum_float.py)")
    for shape, ties in (((128,), False), ((512,), True), ((1,), False)):
        check_reduce(op, dtype, shape, 0, False, rng, ties=ties)


SHAPES = [(1,), (32,), (1, 1), (4, 32), (32, 2), (1, 64), (16, 1), (2, 8, 16), (4, 1, 8),
          (8, 16, 2), (1, 1, 1, 1), (2, 4, 2, 8)]


def reduce_grid():
    cases = []
    for shape in SHAPES:
        rank = len(shape)
        axes = [None] + list(range(rank)) + list(range(-rank, 0))
        for axis, keep in itertools.product(axes, (False, True)):
            for op in ("sum", "max", "min", "argmax", "argmin", "xor_sum"):
                if axis is None and op.startswith("arg"):
                    continue  # Triton's argmax/argmin need an axis
                cases.append((op, shape, axis, keep))
    # Rotate the element types through the grid: every type meets every rank and op.
    out = []
    for i, (op, shape, axis, keep) in enumerate(cases):
        pool = INTS if op == "xor_sum" else DTYPES
        out.append((op, pool[(i * 7) % len(pool)], shape, axis, keep))
    return out


@pytest.mark.parametrize("op, dtype, shape, axis, keep", reduce_grid())
def test_reduce(rng, op, dtype, shape, axis, keep):
    check_reduce(op, dtype, shape, axis, keep, rng, ties=op.startswith("arg"))


@pytest.mark.parametrize("op", ["max_with_indices", "min_with_indices"])
@pytest.mark.parametrize("shape, axis", [((4, 32), 1), ((4, 32), -2), ((2, 8, 16), 1),
                                         ((2, 4, 2, 8), 3)])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_with_indices_nd(rng, op, shape, axis, keep):
    check_reduce(op, "float32", shape, axis, keep, rng, ties=True)


@pytest.mark.parametrize("op", ["argmax", "argmin", "max_with_indices", "min_with_indices"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float16", "bfloat16", "float32"])
def test_arg_ties(rng, op, dtype):
    # test_reduce1d's ties: x[3:10] all hold the extremum.
    x, values = random_values(rng, dtype, (128,))
    pick = np.argmax if "max" in op else np.argmin
    x[3:10] = x[pick(values)]
    values = from_bf16_bits(x) if dtype == "bfloat16" else x
    for tie_left in (True, False):
        ref, got, got_i = run_reduce(op, dtype, (128,), 0, False, x, values, tie_left)
        index = got if op.startswith("arg") else got_i
        if tie_left:
            assert index == pick(values) <= 3
        else:  # any index of an extremum
            assert values[index] == values[pick(values)], index
        if not op.startswith("arg"):
            assert got == ref


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan(dtype):
    """max/min drop NaN (tl.maximum's NONE policy) unless every element is NaN; sum keeps it."""
    v = np.array([1.5, np.nan, -3.0, 2.0, np.nan, 0.5, -1.0, 0.0], np.float64)
    x, values = bf16_bits(v) if dtype == "bfloat16" else (v.astype(dtype), v.astype(dtype))
    for op, want in (("max", 2.0), ("min", -3.0)):
        _, got, _ = run_reduce(op, dtype, (8,), 0, False, x, values)
        assert got == want, (op, got)
    _, got, _ = run_reduce("sum", dtype, (8,), 0, False, x, values)
    assert np.isnan(got)
    all_nan = np.full(8, np.nan)
    x, values = bf16_bits(all_nan) if dtype == "bfloat16" else (all_nan.astype(dtype),) * 2
    for op in ("max", "min"):
        _, got, _ = run_reduce(op, dtype, (8,), 0, False, x, values)
        assert np.isnan(got)


def test_max_returns_zero():
    _, got, _ = run_reduce("max", "float32", (128,), 0, False, np.zeros(128, np.float32),
                           np.zeros(128, np.float32))
    assert got == 0


def test_infinities(rng):
    v = rng.standard_normal(64).astype(np.float32)
    v[5], v[9] = np.inf, -np.inf
    for op, want in (("max", np.inf), ("min", -np.inf), ("argmax", 5), ("argmin", 9)):
        _, got, _ = run_reduce(op, "float32", (64,), 0, False, v, v)
        assert got == want


def test_method_spellings(rng):
    x = rng.standard_normal(64).astype(np.float32)
    z = np.full(4 + 64, np.nan, np.float32)
    K.method_reduce_kernel[(1,)](x, z, N=64)
    check_sum(z[0], np.sum(x.astype(np.float64)), x, None, "float32")
    assert z[1] == x.max() and z[2] == x.min() and z[3] == np.argmin(x)
    np.testing.assert_allclose(z[4:], np.cumsum(x), rtol=1e-5, atol=1e-5)


def test_scalar_reduce(rng):
    x = np.array([rng.standard_normal()], np.float32)
    z = np.full(3, np.nan, np.float32)
    K.scalar_reduce_kernel[(1,)](x, z)
    np.testing.assert_array_equal(z, [x[0]] * 3)


# test_sum_dtype: the dtype= argument and the default accumulators.
@pytest.mark.parametrize("init, in_dtype, out_dtype, want", [
    (1, "int1", None, 32 * 32),
    (1, "int1", "int1", 0),  # 1024 ones summed in one bit
    (7, "int8", "int8", (7 * 32 * 32) % 256),
    (7, "int8", None, 7 * 32 * 32),
    (1, "int32", None, 32 * 32),
    (100, "uint8", "uint16", (100 * 1024) % 65536),
    (3, "float16", "float32", 3 * 1024),
])
def test_sum_dtype(init, in_dtype, out_dtype, want):
    import tritium.language as tl
    z = np.full(1, -1, np.int32)
    K.sum_dtype_kernel[(1,)](z, INIT=init, IN_DTYPE=getattr(tl, in_dtype),
                             OUT_DTYPE=None if out_dtype is None else getattr(tl, out_dtype))
    assert z[0] == want


@pytest.mark.parametrize("in_dtype, acc", [("int1", np.uint32), ("int8", np.int32),
                                           ("uint8", np.uint32), ("int16", np.int32),
                                           ("uint16", np.uint32)])
def test_sum_default_accumulator(in_dtype, acc):
    """The result type shows in the signature of the store: a kernel whose Z is the
    accumulator type compiles and holds the exact sum of 4096 large values."""
    import tritium.language as tl
    np_in = {"int1": np.int8}.get(in_dtype, in_dtype)
    info = np.iinfo(np_in)
    x = np.full((1024, 4), 1 if in_dtype == "int1" else info.max, np_in)
    z = np.zeros(1, acc)
    K.sum_default_kernel[(1,)](x, z, IN_DTYPE=getattr(tl, in_dtype))
    assert z[0] == (4096 if in_dtype == "int1" else 4096 * int(info.max))


def test_sum_bf16_stays_bf16():
    x, _ = bf16_bits(np.ones((32, 32)))
    ref, got, _ = run_reduce("sum", "bfloat16", (32, 32), None, False, x, from_bf16_bits(x))
    assert got == 1024.0 and ref == 1024.0


# ---------------------------------------------------------------------------------------
# tl.reduce with user combine functions.


def test_generic_reduction(rng):
    size = 512
    x = rng.random(size).astype(np.float32)
    mean = np.full(1, np.nan, np.float32)
    var = np.full(1, np.nan, np.float32)
    K.var_mean_kernel[(1,)](x, mean, var, BLOCK=size)
    np.testing.assert_allclose(mean[0], x.astype(np.float64).mean(), rtol=1e-5)
    np.testing.assert_allclose(var[0], x.astype(np.float64).var(), rtol=1e-4)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("keep", [False, True])
def test_tuple_reduction(rng, axis, keep):
    m, n = 8, 16
    x = np.round(rng.standard_normal((m, n)) * 4).astype(np.float32) / 4
    outs = m if axis == 1 else n
    v = np.full(outs, np.nan, np.float32)
    i = np.full(outs, -1, np.int32)
    bits_or = np.zeros(outs, np.int32)
    prod = np.full(outs, np.nan, np.float32)
    K.generic_reduce_kernel[(1,)](x, v, i, bits_or, prod, M=m, N=n, AXIS=axis, KEEP=keep)
    want_i = np.argmax(np.abs(x), axis=axis)  # first index of the largest |x|
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(v, np.take_along_axis(x, np.expand_dims(want_i, axis), axis)
                                  .reshape(outs))
    np.testing.assert_array_equal(bits_or, np.bitwise_or.reduce(x.view(np.int32), axis=axis))
    np.testing.assert_allclose(prod, np.prod(x.astype(np.float64), axis=axis), rtol=1e-5)


# ---------------------------------------------------------------------------------------
# Scans (test_scan2d and more).


def scan_reference(op, x, y, axis, reverse):
    x_in = np.flip(x, axis) if reverse else x
    y_in = np.flip(y, axis) if reverse else y
    if op == "cumsum":
        z = np.cumsum(x_in, axis=axis, dtype=x.dtype)
    elif op == "cumprod":
        z = np.cumprod(x_in, axis=axis, dtype=x.dtype)
    elif op == "get_first_element":
        first = np.take(x_in, [0], axis=axis)
        z = np.broadcast_to(first, x_in.shape).copy()
    elif op == "linear_recurrence":
        xm, ym = np.moveaxis(x_in, axis, -1), np.moveaxis(y_in, axis, -1)
        acc = np.zeros(xm.shape[:-1], x.dtype)
        zs = []
        for j in range(xm.shape[-1]):
            acc = xm[..., j] * acc + ym[..., j]
            zs.append(acc)
        z = np.moveaxis(np.stack(zs, -1), -1, axis)
    elif op == "cummax":  # index of the running maximum; the later one on ties
        xm = np.moveaxis(x_in, axis, -1)
        best_v = xm[..., 0].copy()
        best_i = np.zeros(xm.shape[:-1], np.int64)
        zs = [best_i.copy()]
        for j in range(1, xm.shape[-1]):
            take_new = ~(best_v > xm[..., j])
            best_v = np.where(take_new, xm[..., j], best_v)
            best_i = np.where(take_new, j, best_i)
            zs.append(best_i.copy())
        z = np.moveaxis(np.stack(zs, -1), -1, axis)
        if reverse:
            z = x.shape[axis] - 1 - z
    else:  # roll: shift by one along the axis, zero in front
        z = np.roll(x_in, 1, axis=axis)
        idx = [slice(None)] * x.ndim
        idx[axis] = 0
        z[tuple(idx)] = 0
    return np.flip(z, axis) if reverse else z


def run_scan(op, dtype, shape, axis, reverse, rng):
    if op == "linear_recurrence" and dtype in INTS:
        x = rng.integers(-1, 2, shape).astype(dtype)
        y = rng.integers(-1, 2, shape).astype(dtype)
        xv, yv = x, y
    elif op == "cumprod":
        # near 1, so that products stay in range
        base = 1 + rng.standard_normal(shape) * 0.1
        if dtype in INTS:
            base = rng.integers(-1, 2, shape) * (rng.random(shape) < 0.05) + 1
        x, xv = random_values(rng, dtype, shape)
        if dtype == "bfloat16":
            x, xv = bf16_bits(base)
        else:
            x = xv = base.astype(dtype)
        y, yv = x, xv
    else:
        x, xv = random_values(rng, dtype, shape)
        if dtype in INTS:
            x = xv = (x % 100).astype(dtype)
        y, yv = random_values(rng, dtype, shape)
    rank = len(shape)
    dims = list(shape) + [1] * (3 - rank)
    ax = axis % rank
    stride = int(np.prod(shape[ax + 1:]))
    out_dtype = np.float32 if dtype == "bfloat16" and op in ("cumsum", "cumprod") else (
        np.int64 if op == "cummax" else (np.uint16 if dtype == "bfloat16" else dtype))
    z = poisoned(shape, np.dtype(out_dtype).name)
    K.scan_kernel[(1,)](x, y, z, OP=op, RANK=rank, D0=dims[0], D1=dims[1], D2=dims[2],
                        AXIS=axis, REVERSE=reverse, IN_BF16=dtype == "bfloat16",
                        AX_STRIDE=stride, AX_LEN=shape[ax], OUT_BF16=out_dtype == np.uint16)
    if dtype == "bfloat16" and out_dtype == np.uint16:
        z = from_bf16_bits(z)
    ref_in = xv.astype(np.float64) if dtype in FLOATS else xv
    ref_y = yv.astype(np.float64) if dtype in FLOATS else yv
    ref = scan_reference(op, ref_in, ref_y, ax, reverse)
    if dtype in FLOATS and op not in ("cummax", "get_first_element", "roll"):
        tol = {"float16": 2e-2, "bfloat16": 5e-2}.get(dtype, 1e-5)
        np.testing.assert_allclose(z, ref, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(z, ref)


SCAN_OPS = ["cumsum", "cumprod", "get_first_element", "linear_recurrence", "cummax", "roll"]
SCAN2D_SHAPES = [(8, 32), (32, 16), (2, 64), (64, 2), (1, 32), (32, 1)]


def scan_grid():
    cases = []
    i = 0
    for op in SCAN_OPS:
        for shape in SCAN2D_SHAPES:
            for axis, reverse in itertools.product((0, 1, -1), (False, True)):
                dtype = ["int32", "float32", "bfloat16"][i % 3]
                if dtype == "bfloat16" and op in ("linear_recurrence", "cummax"):
                    dtype = "float32"  # Triton skips these (accuracy, bf16 compare)
                cases.append((op, dtype, shape, axis, reverse))
                i += 1
    return cases


@pytest.mark.parametrize("op, dtype, shape, axis, reverse", scan_grid())
def test_scan2d(rng, op, dtype, shape, axis, reverse):
    run_scan(op, dtype, shape, axis, reverse, rng)


@pytest.mark.parametrize("op", SCAN_OPS)
@pytest.mark.parametrize("shape, axis", [((128,), 0), ((1,), 0), ((4, 8, 16), 0),
                                         ((4, 8, 16), 1), ((4, 8, 16), -1)])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_nd(rng, op, shape, axis, reverse):
    run_scan(op, "float32" if op != "roll" else "int64", shape, axis, reverse, rng)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int64", "float16", "float64"])
def test_cumsum_dtypes(rng, dtype):
    run_scan("cumsum", dtype, (8, 32), 1, False, rng)


@pytest.mark.parametrize("in_dtype, acc", [("int8", np.int32), ("uint16", np.uint32),
                                           ("int32", np.int32)])
def test_cumsum_accumulator(in_dtype, acc):
    """cumsum widens <32-bit integers like sum: 128 copies of the maximum do not wrap."""
    info = np.iinfo(in_dtype)
    x = np.full(128, info.max, in_dtype)
    z = np.zeros(128, acc)
    K.cumsum_dtype_kernel[(1,)](x, z, N=128, DTYPE=None)
    np.testing.assert_array_equal(z, np.cumsum(x.astype(np.int64)).astype(acc))


def test_cumsum_explicit_dtype():
    import tritium.language as tl
    x = np.full(128, 100, np.int8)
    z = np.zeros(128, np.int8)
    K.cumsum_dtype_kernel[(1,)](x, z, N=128, DTYPE=tl.int8)
    np.testing.assert_array_equal(z, np.cumsum(x.astype(np.int64)).astype(np.int8))


@pytest.mark.parametrize("m, n", [(1, 64), (2, 32), (4, 16), (8, 8), (16, 4), (32, 2), (64, 1)])
def test_scan_1d(rng, m, n):
    x = rng.integers(-100, 100, m, dtype=np.int32)
    out = np.full(m * n, -1, np.int32)
    K.scan_1d_broadcast_kernel[(1,)](out, x, m, n)
    np.testing.assert_array_equal(out, np.broadcast_to(np.cumsum(x), (n, m)).reshape(-1))


# ---------------------------------------------------------------------------------------
# Histogram.


@pytest.mark.parametrize("m, n", [(2048, 2), (1024, 8), (1024, 128), (256, 512), (32, 512),
                                  (8, 512), (8, 2)])
def test_histogram(rng, m, n):
    x = rng.integers(0, n, m, dtype=np.int32)
    z = np.full(2 * n, -1, np.int32)
    K.histogram_kernel[(1,)](x, z, M=m, N=n)
    counts = np.bincount(x, minlength=n)
    np.testing.assert_array_equal(z[:n], counts)
    np.testing.assert_array_equal(z[n:], m * (counts + 1))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int16"])
@pytest.mark.parametrize("n_valid", [0, 1, 100, 256])
def test_histogram_mask(rng, dtype, n_valid):
    m, bins = 256, 64
    x = rng.integers(0, bins, m).astype(dtype)
    z = np.full(bins, -1, np.int32)
    K.histogram_mask_kernel[(1,)](x, z, n_valid, M=m, N=bins)
    np.testing.assert_array_equal(z, np.bincount(x[:n_valid].astype(np.int64), minlength=bins))


# ---------------------------------------------------------------------------------------
# Shape ops.


@pytest.mark.parametrize("dtype", ["int32", "int8", "float16", "float64"])
@pytest.mark.parametrize("shape", [(2, 4), (16, 16), (1, 8), (64, 64)])
@pytest.mark.parametrize("perm", [(0, 1), (1, 0)])
@pytest.mark.parametrize("spelling", ["permute", "permute_varargs", "trans", "trans_default",
                                      "T", "method"])
def test_trans_2d(dtype, shape, perm, spelling):
    x = np.arange(math.prod(shape)).astype(dtype).reshape(shape)
    want = np.transpose(x, perm)
    out = np.zeros(want.shape, dtype)
    K.trans_2d_kernel[(1,)](x, out, *shape, *want.shape, *perm, SPELLING=spelling)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["int32", "int8"])
@pytest.mark.parametrize("shape", [(2, 2, 8, 64), (4, 4, 4, 4)])
@pytest.mark.parametrize("perm", list(itertools.permutations([0, 1, 2, 3])))
def test_trans_4d(dtype, shape, perm):
    x = np.arange(math.prod(shape)).astype(dtype).reshape(shape)
    want = np.transpose(x, perm)
    out = np.zeros(want.shape, dtype)
    K.trans_4d_kernel[(1,)](x, out, *shape, *want.shape, *perm)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", INTS + ["float16", "float32", "float64"])
def test_cat(dtype):
    x = np.arange(0, 128).astype(dtype)
    y = np.arange(-128, 0).astype(dtype)
    z = np.zeros(256, dtype)
    K.cat_kernel[(1,)](x, y, z, N=128)
    # Triton's contract: the elements of both, in some order (can_reorder=True).
    np.testing.assert_array_equal(np.sort(z), np.sort(np.concatenate([x, y])))


@pytest.mark.parametrize("dtype", ["int32", "float16", "int8", "float64"])
def test_join(dtype):
    x = np.arange(0, 128).astype(dtype)
    y = np.arange(-128, 0).astype(dtype)
    z = np.zeros((128, 2), dtype)
    K.join_kernel[(1,)](x, y, z, N=128)
    np.testing.assert_array_equal(z, np.stack([x, y], axis=-1))


def test_join_broadcast(rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    y = rng.standard_normal(8).astype(np.float32)
    z = np.zeros((4, 8, 2), np.float32)
    K.join_2d_kernel[(1,)](x, y, z, M=4, N=8)
    np.testing.assert_array_equal(z, np.stack([x, np.broadcast_to(y, (4, 8))], axis=-1))


def test_join_scalars():
    z = np.zeros(2, np.int32)
    K.join_scalars_kernel[(1,)](np.array([42], np.int32), np.array([100], np.int32), z)
    np.testing.assert_array_equal(z, [42, 100])


def test_interleave():
    z = np.zeros(256, np.int32)
    K.interleave_kernel[(1,)](z, N=128)
    np.testing.assert_array_equal(z, np.stack([np.arange(128), np.arange(128, 256)], -1)
                                  .reshape(256))


def test_interleave_2d(rng):
    x = rng.integers(-9, 9, (4, 16), dtype=np.int64)
    y = rng.integers(-9, 9, (4, 16), dtype=np.int64)
    z = np.zeros((4, 32), np.int64)
    K.interleave_2d_kernel[(1,)](x, y, z, M=4, N=16)
    np.testing.assert_array_equal(z, np.stack([x, y], -1).reshape(4, 32))


def test_interleave_scalars():
    z = np.zeros(2, np.float32)
    K.interleave_scalars_kernel[(1,)](10, 20, z)
    np.testing.assert_array_equal(z, [10, 20])


def test_split():
    x = np.arange(0, 256, dtype=np.int32).reshape(128, 2)
    z1, z2 = np.zeros(128, np.int32), np.zeros(128, np.int32)
    K.split_kernel[(1,)](x, z1, z2, N=256)
    np.testing.assert_array_equal(z1, x[:, 0])
    np.testing.assert_array_equal(z2, x[:, 1])


def test_split_3d(rng):
    x = rng.standard_normal((4, 8, 2)).astype(np.float16)
    z1, z2 = np.zeros((4, 8), np.float16), np.zeros((4, 8), np.float16)
    K.split_3d_kernel[(1,)](x, z1, z2, M=4, N=8)
    np.testing.assert_array_equal(z1, x[..., 0])
    np.testing.assert_array_equal(z2, x[..., 1])


def test_split_to_scalar():
    x = np.array([7, 9], np.int64)
    z1, z2 = np.zeros(1, np.int64), np.zeros(1, np.int64)
    K.split_to_scalar_kernel[(1,)](x, z1, z2)
    assert (z1[0], z2[0]) == (7, 9)


@pytest.mark.parametrize("shapes", [((8,), (2, 4)), ((16,), (2, 2, 4)), ((2, 4), (8,)),
                                    ((2, 8), (4, 4)), ((4, 4, 2), (2, 16)),
                                    ((2, 2, 2, 4), (4, 8)), ((32,), (2, 2, 2, 4)),
                                    ((1,), (1, 1)), ((4, 8), (4, 8))])
@pytest.mark.parametrize("spelling", ["reshape", "method", "view"])
def test_reshape(rng, shapes, spelling):
    src, dst = shapes
    x = rng.integers(-100, 100, src).astype(np.int32)
    z = np.zeros(dst, np.int32)
    i = list(src) + [1] * (4 - len(src))
    o = list(dst) + [1] * (4 - len(dst))
    K.reshape_kernel[(1,)](x, z, len(src), *i, len(dst), *o, SPELLING=spelling)
    if spelling == "view":  # Triton's view may reorder: the same multiset of elements
        np.testing.assert_array_equal(np.sort(z, axis=None), np.sort(x, axis=None))
    else:
        np.testing.assert_array_equal(z, x.reshape(dst))


def test_ravel(rng):
    x = rng.standard_normal((8, 16)).astype(np.float32)
    z = np.zeros(128, np.float32)
    K.ravel_kernel[(1,)](x, z, M=8, N=16)
    np.testing.assert_array_equal(np.sort(z), np.sort(x.reshape(-1)))


def test_expand_dims_and_broadcast_to(rng):
    n, m = 16, 4
    x = rng.standard_normal(n).astype(np.float32)
    z = np.full(5 * m * n, np.nan, np.float32)
    K.expand_broadcast_kernel[(1,)](x, z, N=n, M=m)
    rows = np.broadcast_to(x, (m, n)).reshape(-1)
    for i in range(4):
        np.testing.assert_array_equal(z[i * m * n:(i + 1) * m * n], rows)
    np.testing.assert_array_equal(z[4 * m * n:], np.broadcast_to(x[:, None], (n, m)).reshape(-1))


# ---------------------------------------------------------------------------------------
# Kernels of the kind users write (the GPU suite runs them too).


def test_softmax(rng):
    rows, cols, block = 16, 300, 512
    x = rng.standard_normal((rows, cols)).astype(np.float32) * 4
    out = np.full_like(x, np.nan)
    K.softmax_kernel[(rows,)](out, x, x.shape[1], out.shape[1], cols, BLOCK=block)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_softmax_fp16(rng):
    rows, cols = 8, 128
    x = (rng.standard_normal((rows, cols)) * 3).astype(np.float16)
    out = np.full_like(x, np.nan)
    K.softmax_kernel[(rows,)](out, x, cols, cols, cols, BLOCK=cols)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-3, atol=1e-5)


def test_layer_norm(rng):
    rows, n, block = 8, 700, 256
    x = rng.standard_normal((rows, n)).astype(np.float32) * 2 + 1
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    mean = np.full(rows, np.nan, np.float32)
    rstd = np.full(rows, np.nan, np.float32)
    eps = 1e-5
    K.layer_norm_kernel[(rows,)](x, y, w, b, mean, rstd, n, n, eps, BLOCK=block)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(x64.var(axis=1, keepdims=True) + eps)
    np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, r[:, 0], rtol=1e-4)
    np.testing.assert_allclose(y, (x64 - mu) * r * w + b, rtol=1e-4, atol=1e-4)


def test_rms_norm(rng):
    rows, n = 8, 200
    x = rng.standard_normal((rows, n)).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    K.rms_norm_kernel[(rows,)](x, y, w, n, n, 1e-6, BLOCK=256)
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_cross_entropy(rng):
    rows, vocab, block = 4, 3000, 512
    logits = (rng.standard_normal((rows, vocab)) * 3).astype(np.float32)
    targets = rng.integers(0, vocab, rows).astype(np.int64)
    loss = np.full(rows, np.nan, np.float32)
    K.cross_entropy_kernel[(rows,)](logits, targets, loss, vocab, vocab, BLOCK=block)
    l64 = logits.astype(np.float64)
    mx = l64.max(axis=1)
    want = np.log(np.exp(l64 - mx[:, None]).sum(axis=1)) + mx - l64[np.arange(rows), targets]
    np.testing.assert_allclose(loss, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [0, 1, 1000, 4097])
def test_while_sum(rng, n):
    x = rng.standard_normal(max(n, 1)).astype(np.float32)
    z = np.full(1, np.nan, np.float32)
    K.while_sum_kernel[(1,)](x, z, n, BLOCK=1024)
    np.testing.assert_allclose(z[0], x[:n].astype(np.float64).sum(), rtol=1e-4, atol=1e-4)


def test_argmax_rows_with_ties(rng):
    rows, cols = 16, 100
    x = rng.integers(0, 5, (rows, cols)).astype(np.float32)  # many ties
    z = np.full(rows, -1, np.int32)
    K.argmax_rows_kernel[(rows,)](x, z, cols, cols, BLOCK=128)
    np.testing.assert_array_equal(z, np.argmax(x, axis=1))


def test_cumsum_rows(rng):
    rows, cols = 8, 100
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    z = np.full_like(x, np.nan)
    K.cumsum_rows_kernel[(rows,)](x, z, cols, cols, BLOCK=128)
    np.testing.assert_allclose(z, np.cumsum(x.astype(np.float64), axis=1), rtol=1e-5, atol=1e-5)


def test_column_sums(rng):
    m, n = 100, 70
    x = rng.standard_normal((m, n)).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    K.sum_2d_blocks_kernel[(math.ceil(n / 32),)](x, z, m, n, BLOCK_M=16, BLOCK_N=32)
    np.testing.assert_allclose(z, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_bf16_scans_accumulate_in_fp32(op):
    """Triton promotes bf16 to fp32 before cumsum/cumprod: 1 + 63 * 2^-9 is 1.123046875 in
    fp32 but stays 1.0 in bf16 (whose ulp at 1 is 2^-7)."""
    v = np.full(64, 2.0**-9 if op == "cumsum" else 1 + 2.0**-7)
    v[0] = 1.0
    x, xv = bf16_bits(v)
    z = np.full(64, np.nan, np.float32)
    K.scan_kernel[(1,)](x, x, z, OP=op, RANK=1, D0=64, D1=1, D2=1, AXIS=0, REVERSE=False,
                        IN_BF16=True, AX_STRIDE=1, AX_LEN=64, OUT_BF16=False)
    want = (np.cumsum if op == "cumsum" else np.cumprod)(xv.astype(np.float64))
    np.testing.assert_allclose(z, want, rtol=1e-6)


def _plain_add(a, b):
    return a + b


def test_combine_fn_must_be_jit():
    import tritium
    import tritium.language as tl

    def kernel(X, Z):
        tl.store(Z, tl.reduce(tl.load(X + tl.arange(0, 8)), 0, _plain_add))

    x = np.arange(8, dtype=np.float32)
    z = np.zeros(1, np.float32)
    with pytest.raises(tritium.CompilationError, match="_plain_add"):
        tritium.jit(kernel)[(1,)](x, z)
    # jit applied as a call, not as a decorator in the source: a combine function all the same
    global _jit_add
    _jit_add = tritium.jit(_plain_add)

    def kernel2(X, Z):
        tl.store(Z, tl.reduce(tl.load(X + tl.arange(0, 8)), 0, _jit_add))

    tritium.jit(kernel2)[(1,)](x, z)
    assert z[0] == 28

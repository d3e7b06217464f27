"""tl.dot and `a @ b` through the interpreter against numpy (issue 9).

The interpreter's order and rounding are documented in src/interp/eval_dot.h: acc first,
then k = 0..K-1, one fp32 rounding per product (fma); tf32 rounds each input to nearest,
ties away from zero (cvt.rna.tf32.f32); tf32x3 adds small*big, big*small, big*big; an fp16
result is rounded once at the end. Where every product is exact in fp32 (fp16, bf16, fp8,
tf32 inputs, and fp32 inputs of at most 12 significant bits) `emulate` below reproduces that
order bit for bit, so those results are compared exactly; fp64 and full-precision fp32 are
compared with a tolerance. bf16 and fp8 inputs are uint16/uint8 arrays of their bits passed
through tritium.reinterpret. The kernels live in dot_kernels.py, shared with the GPU suite.
"""

import numpy as np
import pytest

import tritium
import tritium.language as tl

import dot_kernels as D

# ---------------------------------------------------------------------------------------
# Inputs: (the kernel argument, the exact values as float64 or int64).

FP8 = {"float8e4nv": (4, 3, 7), "float8e5": (5, 2, 15), "float8e4b15": (4, 3, 15)}


def fp8_value(code, name):
    e, m, bias = FP8[name]
    sign = -1.0 if code & 0x80 else 1.0
    field = (code >> m) & ((1 << e) - 1)
    mant = code & ((1 << m) - 1)
    if field == 0:
        return sign * mant * 2.0 ** (1 - bias - m)
    return sign * (1 + mant / 2 ** m) * 2.0 ** (field - bias)


def fp8_codes(name):
    """The codes of finite values of magnitude at most 16 (no NaN, no infinity)."""
    e, m, _ = FP8[name]
    codes = []
    for c in range(256):
        field = (c >> m) & ((1 << e) - 1)
        if name == "float8e5" and field == 31:
            continue
        if name == "float8e4nv" and c & 0x7F == 0x7F:
            continue
        if abs(fp8_value(c, name)) <= 16:
            codes.append(c)
    return np.array(codes, np.uint8)


def make(rng, dtype, shape, full_fp32=True):
    if dtype == "int8":
        v = rng.integers(-128, 128, size=shape).astype(np.int8)
        return v, v.astype(np.int64)
    if dtype in FP8:
        codes = rng.choice(fp8_codes(dtype), size=shape).astype(np.uint8)
        values = np.vectorize(lambda c: fp8_value(int(c), dtype))(codes).astype(np.float64)
        return tritium.reinterpret(codes, getattr(tl, dtype)), values
    if dtype == "bfloat16":
        f = rng.standard_normal(shape).astype(np.float32)
        bits = (f.view(np.uint32) >> 16).astype(np.uint16)
        values = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return tritium.reinterpret(bits, tl.bfloat16), values
    if dtype == "float32" and not full_fp32:
        # At most 12 significant bits: products are exact in fp32, and tf32 (11 bits) differs.
        v = (rng.integers(-4095, 4096, size=shape) * 2.0 ** -11).astype(np.float32)
        return v, v.astype(np.float64)
    v = rng.standard_normal(shape).astype(dtype)
    return v, v.astype(np.float64)


# ---------------------------------------------------------------------------------------
# The reference order (eval_dot.h).


def rna_tf32(x):
    """float32 array rounded to tf32, nearest with ties away from zero (cvt.rna.tf32.f32)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    special = (bits & 0x7F800000) == 0x7F800000
    rounded = ((bits + 0x1000) & 0xFFFFE000) & 0xFFFFFFFF
    return np.where(special, bits, rounded).astype(np.uint32).view(np.float32)


def emulate(a, b, acc, prec="ieee"):
    """acc + a @ b in the interpreter's order, over the last two axes. Exact when every
    product is exact in fp32 (then round(acc + product) is the fma the interpreter does)."""
    a32 = a.astype(np.float32)
    b32 = b.astype(np.float32)
    if prec == "tf32":
        terms = [(rna_tf32(a32), rna_tf32(b32))]
    elif prec == "tf32x3":
        a_big, b_big = rna_tf32(a32), rna_tf32(b32)
        a_small, b_small = rna_tf32(a32 - a_big), rna_tf32(b32 - b_big)
        terms = [(a_small, b_big), (a_big, b_small), (a_big, b_big)]
    else:
        terms = [(a32, b32)]
    out = np.array(acc, np.float32)
    for k in range(a.shape[-1]):
        for x, y in terms:
            product = x[..., :, k, None].astype(np.float64) * y[..., None, k, :].astype(np.float64)
            out = (out.astype(np.float64) + product).astype(np.float32)
    return out


def run_dot(rng, dtype, M, N, K, prec=None, has_acc=False, out_dtype=None, trans_b=False,
            use_op=False, b_dtype=None, full_fp32=True):
    a_arg, a = make(rng, dtype, (M, K), full_fp32)
    b_arg, b = make(rng, b_dtype or dtype, (N, K) if trans_b else (K, N), full_fp32)
    if trans_b:
        b = b.T
    result = {"int8": np.int32, "float64": np.float64}.get(dtype, np.float32)
    if out_dtype == "float16":
        result = np.float16
    elif out_dtype == "int32":
        result = np.int32
    elif out_dtype == "float64":
        result = np.float64
    acc = (rng.integers(-1000, 1000, size=(M, N)) if result is np.int32
           else rng.standard_normal((M, N))).astype(result)
    c = np.zeros((M, N), result)
    stride_bk, stride_bn = (1, K) if trans_b else (N, 1)
    D.dot_kernel[(1,)](a_arg, b_arg, c, acc, K, 1, stride_bk, stride_bn, M=M, N=N, K=K, PREC=prec,
                       HAS_ACC=has_acc, OUT_DTYPE=getattr(tl, out_dtype or "float32"), USE_OP=use_op)
    return a, b, (acc if has_acc else np.zeros_like(acc)), c


SHAPES = [(16, 16, 16), (32, 64, 16), (64, 16, 32), (4, 8, 32), (1, 16, 64)]


@pytest.mark.parametrize("M,N,K", SHAPES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float8e4nv", "float8e5"])
@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_low_precision_inputs_exact(rng, dtype, M, N, K, has_acc):
    if dtype.startswith("float8"):
        K = max(K, 32)  # 8-bit inputs need K >= 32
    a, b, acc, c = run_dot(rng, dtype, M, N, K, has_acc=has_acc, trans_b=(M == 32))
    np.testing.assert_array_equal(c, emulate(a, b, acc))
    np.testing.assert_allclose(c, acc + a @ b, rtol=1e-5, atol=1e-4 * K)


@pytest.mark.parametrize("prec", ["ieee", "tf32", "tf32x3"])
@pytest.mark.parametrize("M,N,K", SHAPES[:4])
@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_fp32_precisions_exact(rng, prec, M, N, K, has_acc):
    # ieee with 12-bit inputs (exact products); tf32 and tf32x3 with full fp32 inputs.
    a, b, acc, c = run_dot(rng, "float32", M, N, K, prec=prec, has_acc=has_acc,
                           full_fp32=prec != "ieee")
    np.testing.assert_array_equal(c, emulate(a, b, acc, prec))
    tolerance = {"ieee": 1e-5, "tf32": 2e-2, "tf32x3": 1e-5}[prec]
    np.testing.assert_allclose(c, acc + a @ b, rtol=tolerance, atol=tolerance * K)


def test_dot_fp32_full_precision_inputs(rng):
    a, b, acc, c = run_dot(rng, "float32", 32, 32, 64, prec="ieee", has_acc=True)
    np.testing.assert_allclose(c, acc + a @ b, rtol=1e-5, atol=1e-5)
    a, b, acc, c3 = run_dot(np.random.default_rng(7), "float32", 32, 32, 64, prec="tf32x3")
    a, b, acc, c1 = run_dot(np.random.default_rng(7), "float32", 32, 32, 64, prec="tf32")
    exact = a @ b
    # tf32x3 recovers fp32 accuracy; plain tf32 is ~1e-3 relative.
    assert np.abs(c3 - exact).max() < 1e-4 < np.abs(c1 - exact).max()


def test_tf32_rounds_ties_away_from_zero():
    # 1 + 2^-11 sits exactly halfway between two tf32 values: nearest-even would give 1,
    # cvt.rna gives 1 + 2^-10 (and -1 - 2^-10 for the negative tie).
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1 + 2.0 ** -11
    a[1, 0] = -(1 + 2.0 ** -11)
    a[2, 0] = 1 + 2.0 ** -12  # below the tie: down to 1
    b = np.eye(16, dtype=np.float32)
    for prec, expected in [("tf32", [1 + 2.0 ** -10, -(1 + 2.0 ** -10), 1.0]),
                           ("ieee", [1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 2.0 ** -12]),
                           ("tf32x3", [1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 2.0 ** -12])]:
        c = np.zeros((16, 16), np.float32)
        D.dot_kernel[(1,)](a, b, c, c, 16, 1, 16, 1, M=16, N=16, K=16, PREC=prec, HAS_ACC=False,
                           OUT_DTYPE=tl.float32, USE_OP=False)
        assert list(c[:3, 0]) == expected, prec


@pytest.mark.parametrize("M,N,K", [(16, 16, 32), (32, 64, 32), (8, 16, 64)])
@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_int8_exact(rng, M, N, K, has_acc):
    a, b, acc, c = run_dot(rng, "int8", M, N, K, has_acc=has_acc, out_dtype="int32" if has_acc else None)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, acc.astype(np.int64) + a @ b)


def test_dot_int8_wraps_modulo_2_32():
    a = np.full((16, 32), 127, np.int8)
    b = np.full((32, 16), 127, np.int8)
    acc = np.full((16, 16), 2**31 - 100, np.int32)
    c = np.zeros((16, 16), np.int32)
    D.dot_kernel[(1,)](a, b, c, acc, 32, 1, 16, 1, M=16, N=16, K=32, PREC=None, HAS_ACC=True,
                       OUT_DTYPE=tl.int32, USE_OP=False)
    expected = (2**31 - 100 + 32 * 127 * 127) - 2**32
    assert (c == expected).all()


@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_fp16_result_rounds_once_at_the_end(rng, has_acc):
    a, b, acc, c = run_dot(rng, "float16", 32, 32, 64, has_acc=has_acc, out_dtype="float16")
    assert c.dtype == np.float16
    np.testing.assert_array_equal(c, emulate(a, b, acc.astype(np.float32)).astype(np.float16))


def test_dot_fp64(rng):
    # Triton's rule: an accumulator has the dtype out_dtype, so an fp64 acc needs
    # out_dtype=tl.float64 (the result is fp64 for fp64 inputs either way).
    a, b, acc, c = run_dot(rng, "float64", 16, 32, 16, has_acc=True, out_dtype="float64")
    assert c.dtype == np.float64
    np.testing.assert_allclose(c, acc + a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("a_dtype,b_dtype", [("float8e4nv", "float8e5"), ("float8e5", "float8e4nv"),
                                             ("float8e4b15", "float8e4b15"), ("float8e4b15", "float8e5")])
def test_dot_fp8_mixes(rng, a_dtype, b_dtype):
    # OCP fp8 mixes go to the dot as they are; fp8e4b15 is widened to fp16 first (exactly).
    a, b, acc, c = run_dot(rng, a_dtype, 16, 16, 32, b_dtype=b_dtype, has_acc=True)
    np.testing.assert_array_equal(c, emulate(a, b, acc))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8"])
def test_matmul_operator(rng, dtype):
    a, b, acc, c = run_dot(rng, dtype, 32, 16, 32, use_op=True, full_fp32=False)
    if dtype == "int8":
        np.testing.assert_array_equal(c, a @ b)
    else:
        # `a @ b` is tl.dot(a, b): fp32 inputs use the default precision, tf32.
        np.testing.assert_array_equal(c, emulate(a, b, np.zeros_like(c), "tf32" if dtype == "float32" else "ieee"))


@pytest.mark.parametrize("B,M,N,K", [(2, 16, 16, 16), (4, 32, 16, 32), (8, 16, 32, 16)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("use_op", [False, True])
def test_dot3d(rng, B, M, N, K, dtype, use_op):
    a_arg, a = make(rng, dtype, (B, M, K))
    b_arg, b = make(rng, dtype, (B, K, N))
    c = np.zeros((B, M, N), np.float32)
    D.dot3d_kernel[(1,)](a_arg, b_arg, c, B=B, M=M, N=N, K=K, PREC="tf32x3", USE_OP=use_op)
    prec = "ieee" if dtype == "float16" else ("tf32" if use_op else "tf32x3")
    np.testing.assert_array_equal(c, emulate(a, b, np.zeros_like(c), prec))


def test_dot_in_an_expression(rng):
    a = rng.standard_normal((32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    bias = rng.standard_normal(64).astype(np.float32)
    c = np.zeros((32, 64), np.float16)
    D.dot_bias_kernel[(1,)](a, b, bias, c, M=32, N=64, K=32)
    # `tl.dot(a, b) + bias` becomes dot(a, b, bias) (combine_dot_add, as Triton's Combine
    # patterns): the bias is the accumulator the products are added to.
    acc = np.broadcast_to(bias, (32, 64))
    expected = np.maximum(emulate(a.astype(np.float64), b.astype(np.float64), acc), 0)
    np.testing.assert_array_equal(c, expected.astype(np.float16))
    unfused = np.maximum(emulate(a.astype(np.float64), b.astype(np.float64), np.zeros((32, 64))) + bias, 0)
    np.testing.assert_allclose(c, unfused.astype(np.float16), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("M,N,K", [(128, 128, 128), (100, 72, 90), (64, 48, 200)])
@pytest.mark.parametrize("acc_in_dot", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_blocked_matmul_tutorial(rng, M, N, K, acc_in_dot, dtype):
    """Triton's tutorial kernel: grouped ordering, masks on the K edge (K not a multiple of
    BLOCK_SIZE_K), M and N edges masked on the store."""
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = np.full((M, N), np.nan, np.float32)
    BM, BN, BK = 32, 32, 32
    D.matmul_kernel[D.matmul_grid(M, N, BM, BN)](
        a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
        GROUP_SIZE_M=2, ACC_IN_DOT=acc_in_dot, PREC="tf32x3", OUT_FP16=False)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    # The accumulator runs through every K tile in order: one sequential sum over K
    # (masked-off k add +0), so the whole product is the reference order; with
    # `acc += tl.dot(a, b)` too, which combine_dot_add turns into tl.dot(a, b, acc).
    prec = "tf32x3" if dtype == "float32" else "ieee"
    np.testing.assert_array_equal(c, emulate(a.astype(np.float64), b.astype(np.float64),
                                             np.zeros((M, N)), prec))
    np.testing.assert_allclose(c, exact, rtol=1e-4, atol=1e-4)


def test_blocked_matmul_fp16_output(rng):
    M = N = K = 96
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    D.matmul_kernel[D.matmul_grid(M, N, 64, 32)](
        a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16,
        GROUP_SIZE_M=8, ACC_IN_DOT=True, PREC=None, OUT_FP16=True)
    expected = emulate(a.astype(np.float64), b.astype(np.float64), np.zeros((M, N))).astype(np.float16)
    np.testing.assert_array_equal(c, expected)


# ---------------------------------------------------------------------------------------
# The default precision: allow_tf32, TRITIUM_F32_DEFAULT / TRITON_F32_DEFAULT.


def default_precision_kernel_result(allow_tf32=None):
    @tritium.jit
    def k(a_ptr, b_ptr, c_ptr, ALLOW: tl.constexpr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
        tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, allow_tf32=ALLOW))

    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1 + 2.0 ** -11
    b = np.eye(16, dtype=np.float32)
    c = np.zeros((16, 16), np.float32)
    k[(1,)](a, b, c, ALLOW=allow_tf32)
    return c[0, 0]


@pytest.mark.parametrize("env", ["TRITIUM_F32_DEFAULT", "TRITON_F32_DEFAULT"])
def test_default_precision_from_the_environment(monkeypatch, env):
    for name in ("TRITIUM_F32_DEFAULT", "TRITON_F32_DEFAULT"):
        monkeypatch.delenv(name, raising=False)
    assert default_precision_kernel_result() == 1 + 2.0 ** -10  # tf32 by default
    assert default_precision_kernel_result(allow_tf32=False) == 1 + 2.0 ** -11
    assert default_precision_kernel_result(allow_tf32=True) == 1 + 2.0 ** -10
    monkeypatch.setenv(env, "ieee")
    assert default_precision_kernel_result() == 1 + 2.0 ** -11
    monkeypatch.setenv(env, "bogus")
    with pytest.raises(tritium.TritonError, match=r"input_precision must be one of \('tf32', 'tf32x3', 'ieee'\)\. Got bogus"):
        default_precision_kernel_result()


def test_dot_errors_are_located():
    @tritium.jit
    def bad(a_ptr):
        a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
        tl.store(a_ptr, tl.sum(tl.sum(tl.dot(a, tl.trans(a)), 1), 0))

    with pytest.raises(tritium.TritonError, match="Input shapes should have M >= 1, N >= 1 and K >= 16") as info:
        bad[(1,)](np.zeros(128, np.float32))
    assert "test_dot.py" in str(info.value)


# ---------------------------------------------------------------------------------------
# Poison (interp/poison.h): an undefined lane of a or b poisons its row or column of the
# result, and is an error only where such a result lane reaches memory.


@tritium.jit
def poisoned_dot(a_ptr, d_ptr, c_ptr, ROWS: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    d = tl.load(d_ptr + r[:, None] * 32 + r[None, :])
    q = (a // d).to(tl.int8)  # LINE: divide
    c = tl.dot(q, a.to(tl.int8), out_dtype=tl.int32)
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], c, mask=r[:, None] < ROWS)


def test_dot_moves_poison_by_row():
    from helpers import marked_line
    a = np.ones((32, 32), np.int32)
    d = np.ones((32, 32), np.int32)
    d[5, 7] = 0  # row 5 of q is undefined
    c = np.zeros((32, 32), np.int32)
    poisoned_dot[(1,)](a, d, c, ROWS=5)  # rows 0-4 stored: defined
    assert (c[:5] == 32).all() and (c[5:] == 0).all()
    line, _ = marked_line(__file__, "divide")
    with pytest.raises(tritium.TritonError, match=f"test_dot.py:{line}:.*integer division by zero"):
        poisoned_dot[(1,)](a, d, c, ROWS=6)


@tritium.jit
def matmul_assign(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    a @= b  # a becomes the fp32 product
    tl.static_assert(a.dtype == tl.float32)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], a)


def test_matmul_augmented_assignment(rng):
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float32)
    matmul_assign[(1,)](a, b, c)
    np.testing.assert_array_equal(c, emulate(a.astype(np.float64), b.astype(np.float64), np.zeros((16, 16))))


@pytest.mark.parametrize("M, N, K", [(64, 64, 64), (100, 72, 200)])
def test_matmul_with_a_transposed_weight_tile(rng, M, N, K):
    # y = x @ w.T with w's tiles loaded as they lie and transposed in the kernel (on sm_90 the
    # GPU pass transpose_loads loads them transposed; the interpreter runs the kernel as written).
    x = rng.standard_normal((M, K)).astype(np.float16)
    w = rng.standard_normal((N, K)).astype(np.float16)
    y = np.zeros((M, N), np.float32)
    D.matmul_nt_kernel[(-(-M // 64), -(-N // 32))](x, w, y, M, N, K, K, K, N, BLOCK_M=64, BLOCK_N=32, BLOCK_K=32)
    np.testing.assert_allclose(y, x.astype(np.float64) @ w.astype(np.float64).T, rtol=1e-2, atol=1e-2 * K ** 0.5)

"""The libdevice functions beyond the first ~70 (triton.language.extra.libdevice of Triton
3.6): every one in the interpreter against an independent reference (exact rationals for the
directed roundings, Python integers for the bit functions, numpy/math/mpmath for the rest)
over edge values (0, -0, inf, nan, negatives, INT_MIN), their result dtypes, Triton's type
errors, and the GPU code: PTX for sm_90 that calls (links) libdevice, assembled by ptxas when
it is on the machine."""

import math
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import tritium
from helpers import ptxas
from libdevice_more_kernels import (F_EDGE, I32_EDGE, I64_EDGE, INT32_MAX, INT32_MIN, N, finite, floats, ints,
                                    make_kernel)

F32, F64 = np.float32, np.float64
MODES = ["rn", "rz", "rd", "ru"]


def run(name, *inputs, out_dtype):
    out = np.zeros(N, dtype=out_dtype)
    make_kernel(name, len(inputs))[(1,)](*inputs, out, N=N)
    return out


# ---- exact references for the directed roundings ----

def round_exact(value, dtype, mode):
    """The rational `value` rounded to `dtype` in `mode` (finite, in range)."""
    if value == 0:
        return dtype(0.0)
    c = dtype(float(value))
    while Fraction(float(c)) > value:
        c = np.nextafter(c, dtype(-np.inf))
    while Fraction(float(np.nextafter(c, dtype(np.inf)))) <= value:
        c = np.nextafter(c, dtype(np.inf))
    lo = c
    if Fraction(float(lo)) == value:
        return lo
    hi = np.nextafter(lo, dtype(np.inf))
    if mode == "rd":
        return lo
    if mode == "ru":
        return hi
    if mode == "rz":
        return lo if value > 0 else hi
    dlo, dhi = value - Fraction(float(lo)), Fraction(float(hi)) - value
    if dlo != dhi:
        return lo if dlo < dhi else hi
    bits = np.array([lo]).view(np.uint32 if dtype == F32 else np.uint64)[0]
    return lo if bits % 2 == 0 else hi


def sqrt_exact(x, dtype, mode):
    value = Fraction(float(x))
    c = dtype(math.sqrt(float(x)))
    while Fraction(float(c)) ** 2 > value:
        c = np.nextafter(c, dtype(-np.inf))
    while Fraction(float(np.nextafter(c, dtype(np.inf)))) ** 2 <= value:
        c = np.nextafter(c, dtype(np.inf))
    lo, hi = c, np.nextafter(c, dtype(np.inf))
    if Fraction(float(lo)) ** 2 == value or mode in ("rd", "rz"):
        return lo
    if mode == "ru":
        return hi
    mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2
    return lo if value < mid * mid else hi  # no ties: a midpoint's square is not a float


EXACT_OPS = {
    "add": (2, lambda a: a[0] + a[1]), "sub": (2, lambda a: a[0] - a[1]), "mul": (2, lambda a: a[0] * a[1]),
    "div": (2, lambda a: a[0] / a[1]), "fma": (3, lambda a: a[0] * a[1] + a[2]), "rcp": (1, lambda a: 1 / a[0]),
}


def operands(rng, dtype, arity):
    # Magnitudes from tiny-ish to large (no overflow or subnormal results), both signs, with
    # values that cancel exactly (x + -x) and products of many bits.
    xs = []
    for i in range(arity):
        x = (rng.standard_normal(N) * np.exp2(rng.integers(-20, 20, N))).astype(dtype)
        xs.append(x)
    if arity >= 2:
        xs[1][:2] = -xs[0][:2]
        # 1 + 2^-60: beyond double, so an fp32 result rounded through double must keep the
        # lost bits (rounding up gives the float after 1, not 1).
        xs[0][2:4], xs[1][2:4] = [1, -1], [2.0**-60, 2.0**-60]
    if arity == 3:
        # (1 + 2^-12)^2 + 2^-80 = 1 + 2^-11 + 2^-24 + 2^-80: just above an fp32 midpoint, which
        # a double holding 1 + 2^-11 + 2^-24 would round to even (down).
        xs[0][4], xs[1][4], xs[2][4] = 1 + 2.0**-12, 1 + 2.0**-12, 2.0**-80
        xs[0][5], xs[1][5], xs[2][5] = 1, 1, 2.0**-60
    return xs


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", sorted(EXACT_OPS))
def test_directed_rounding_is_exact(rng, op, mode, dtype):
    if op == "div" and mode == "rn":
        pytest.skip("div_rn is the first table's")
    arity, fn = EXACT_OPS[op]
    xs = operands(rng, dtype, arity)
    got = run(f"{op}_{mode}", *xs, out_dtype=dtype)
    for i in range(N):
        exact = fn([Fraction(float(x[i])) for x in xs])
        want = round_exact(exact, dtype, mode)
        assert got[i] == want, (op, mode, [x[i] for x in xs], got[i], want)
        if exact == 0:  # an exact zero sum is -0 only rounding down
            assert np.signbit(got[i]) == (mode == "rd" and op in ("add", "sub", "fma")), (op, mode, got[i])


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("mode", ["rz", "rd", "ru"])
def test_sqrt_directed(rng, mode, dtype):
    x = np.abs(operands(rng, dtype, 1)[0])
    got = run(f"sqrt_{mode}", x, out_dtype=dtype)
    for i in range(N):
        assert got[i] == sqrt_exact(x[i], dtype, mode), (mode, x[i], got[i])


@pytest.mark.parametrize("name", ["add_rd", "mul_ru", "div_rz", "fma_rn", "rcp_rd", "sqrt_ru"])
def test_directed_special_values(name):
    x = floats(F32)
    y = np.roll(x, 3)
    args = {"add_rd": (x, y), "mul_ru": (x, y), "div_rz": (x, y), "fma_rn": (x, y, x), "rcp_rd": (x,),
            "sqrt_ru": (x,)}[name]
    ref = {"add_rd": lambda a, b: a + b, "mul_ru": lambda a, b: a * b, "div_rz": lambda a, b: a / b,
           "fma_rn": lambda a, b, c: a * b + c, "rcp_rd": lambda a: 1 / a, "sqrt_ru": np.sqrt}[name]
    got = run(name, *args, out_dtype=F32)
    with np.errstate(all="ignore"):
        want = ref(*[a.astype(F64) for a in args])
    special = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[special & ~np.isnan(want)], want[special & ~np.isnan(want)].astype(F32))


@pytest.mark.parametrize("mode", MODES)
def test_double2float(rng, mode):
    x = (rng.standard_normal(N) * np.exp2(rng.integers(-30, 30, N))).astype(F64)
    x[0], x[1] = 1 + 2.0**-30, -(1 + 2.0**-24)  # just above 1; exactly halfway (ties to even)
    got = run(f"double2float_{mode}", x, out_dtype=F32)
    assert got.dtype == F32
    for i in range(N):
        assert got[i] == round_exact(Fraction(float(x[i])), F32, mode), (mode, x[i], got[i])
    special = np.array([np.inf, -np.inf, np.nan, -0.0] + [1.0] * (N - 4))
    got = run(f"double2float_{mode}", special, out_dtype=F32)
    assert np.isposinf(got[0]) and np.isneginf(got[1]) and np.isnan(got[2]) and np.signbit(got[3])


# ---- conversions to integers ----

def saturate(values, lo, hi, nan):
    out = []
    for v in values:
        if math.isnan(v):
            out.append(nan)
        elif v <= lo:
            out.append(lo)
        elif v >= hi:
            out.append(hi)
        else:
            out.append(int(v))
    return out


ROUND = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, src, lo, hi, out", [
    ("float2int", F32, INT32_MIN, INT32_MAX, np.int32), ("double2int", F64, INT32_MIN, INT32_MAX, np.int32),
    ("float2uint", F32, 0, 2**32 - 1, np.int32), ("double2uint", F64, 0, 2**32 - 1, np.int32),
    ("float2ll", F32, -2**63, 2**63 - 1, np.int64), ("double2ll", F64, -2**63, 2**63 - 1, np.int64),
    ("float2ull", F32, 0, 2**64 - 1, np.int64), ("double2ull", F64, 0, 2**64 - 1, np.int64)])
def test_float_to_int(mode, name, src, lo, hi, out):
    x = np.array(F_EDGE[:15] + [-2.5], dtype=src)
    x[12] = 3e9 if "uint" in name else x[12]  # above INT32_MAX, below UINT32_MAX
    got = run(f"{name}_{mode}", x, out_dtype=out)
    with np.errstate(invalid="ignore"):
        rounded = ROUND[mode](x.astype(F64))
    # NaN as the H200 gives it (tests/gpu/RESULTS.md, session 10): 0 from fp32 into 32 bits,
    # otherwise the sign bit alone, for unsigned destinations too.
    nan = 0 if (src, out) == (F32, np.int32) else (2**31 if out == np.int32 else -2**63 if lo < 0 else 2**63)
    want = np.array(saturate(rounded, lo, hi, nan), dtype=np.uint64 if hi == 2**64 - 1 else np.int64)
    np.testing.assert_array_equal(got, want.astype(out))  # unsigned results are held as signed


@pytest.mark.parametrize("name, dtype", [("llrint", F32), ("llrint", F64), ("llround", F32), ("llround", F64)])
def test_llrint_llround(name, dtype):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 123456789.5,
                  2.0**40 + 1, -7.49], dtype=dtype)
    got = run(name, x, out_dtype=np.int64)
    def away(v):
        return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)
    want = []
    for v in x.astype(F64):
        if math.isnan(v):
            want.append(-2**63)  # the GPU's answer for all four (session 10)
        elif v >= 2**63:
            want.append(2**63 - 1)
        elif v <= -2**63:
            want.append(-2**63)
        else:
            want.append(int(np.rint(v)) if name == "llrint" else away(v))
    np.testing.assert_array_equal(got, np.array(want, dtype=np.int64))


# ---- integers ----

def as_unsigned(v, bits):
    return int(v) & ((1 << bits) - 1)


def as_signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_bit_functions(dtype):
    bits = np.dtype(dtype).itemsize * 8
    x = ints(dtype)
    u = [as_unsigned(v, bits) for v in x]
    cases = {
        "popc": (np.int32, [bin(v).count("1") for v in u]),
        "clz": (np.int32, [bits - v.bit_length() for v in u]),
        "ffs": (np.int32, [(v & -v).bit_length() for v in u]),
        "brev": (dtype, [as_signed(int(format(v, f"0{bits}b")[::-1], 2), bits) for v in u]),
    }
    for name, (out, want) in cases.items():
        got = run(name, x, out_dtype=out)
        np.testing.assert_array_equal(got, np.array(want, dtype=out), err_msg=name)


def test_byte_perm(rng):
    x = ints(np.int32)
    y = np.roll(x, 5)
    s = rng.integers(INT32_MIN, INT32_MAX, N, dtype=np.int64).astype(np.int32)
    s[0], s[1] = 0x3210, 0x7654  # x itself; y itself
    got = run("byte_perm", x, y, s, out_dtype=np.int32)
    for i in range(N):
        both = as_unsigned(x[i], 32) | (as_unsigned(y[i], 32) << 32)
        sel = as_unsigned(s[i], 32)
        want = sum(((both >> (8 * ((sel >> (4 * n)) & 7))) & 0xff) << (8 * n) for n in range(4))
        assert got[i] == as_signed(want, 32), (x[i], y[i], hex(sel))
    assert got[0] == x[0] and got[1] == y[1]


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_hadd_rhadd_mul24_sad(dtype):
    signed = dtype == np.int32
    x = ints(dtype)
    y = np.roll(x, 7)
    z = np.roll(ints(np.uint32), 3)
    val = (lambda v: int(v)) if signed else (lambda v: as_unsigned(v, 32))
    wrap = (lambda v: as_signed(v, 32)) if signed else (lambda v: as_unsigned(v, 32))
    def low24(v):
        return as_signed(v, 24) if signed else as_unsigned(v, 24)
    cases = {
        "hadd": ((x, y), [(val(a) + val(b)) >> 1 for a, b in zip(x, y)]),
        "rhadd": ((x, y), [(val(a) + val(b) + 1) >> 1 for a, b in zip(x, y)]),
        "mul24": ((x, y), [wrap(low24(int(a)) * low24(int(b))) for a, b in zip(x, y)]),
        "sad": ((x, y, z), [wrap(abs(val(a) - val(b)) + int(c)) for a, b, c in zip(x, y, z)]),
    }
    for name, (args, want) in cases.items():
        got = run(name, *args, out_dtype=dtype)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, np.array(want, dtype=np.int64).astype(dtype), err_msg=name)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_mulhi_and_abs(dtype):
    bits = np.dtype(dtype).itemsize * 8
    signed = np.dtype(dtype).kind == "i"
    x = ints(dtype)
    y = np.roll(x, 1)
    conv = (lambda v: as_signed(int(v), bits)) if signed else (lambda v: as_unsigned(int(v), bits))
    got = run("mulhi", x, y, out_dtype=dtype)
    want = [(conv(a) * conv(b)) >> bits for a, b in zip(x, y)]
    np.testing.assert_array_equal(got, np.array([as_unsigned(w, bits) for w in want], dtype=np.uint64).astype(dtype))
    if dtype in (np.int32, np.int64):
        got = run("abs", x, out_dtype=dtype)  # INT_MIN stays INT_MIN
        np.testing.assert_array_equal(got, np.array([as_signed(abs(int(v)), bits) for v in x], np.int64).astype(dtype))


# ---- classification, exponents, bit moves ----

@pytest.mark.parametrize("dtype", [F32, F64])
def test_classification(dtype):
    x = floats(dtype)
    with np.errstate(all="ignore"):
        got = run("isnan", x, out_dtype=np.bool_)
        np.testing.assert_array_equal(got, np.isnan(x))
        np.testing.assert_array_equal(run("isinf", x, out_dtype=np.bool_), np.isinf(x))
        np.testing.assert_array_equal(run("signbit", x, out_dtype=np.int32), np.signbit(x).astype(np.int32))
        finite_name = "finitef" if dtype == F32 else "isfinited"
        np.testing.assert_array_equal(run(finite_name, x, out_dtype=np.int32), np.isfinite(x).astype(np.int32))
        want = [INT32_MIN if (math.isnan(v) or v == 0) else INT32_MAX if math.isinf(v) else math.frexp(v)[1] - 1
                for v in x.astype(F64)]
        np.testing.assert_array_equal(run("ilogb", x, out_dtype=np.int32), np.array(want, np.int32))


@pytest.mark.parametrize("name, sig, result, stored", [
    ("isnan", "*fp32:16, *i1:16", "i32", "i1"), ("isinf", "*fp64:16, *i1:16", "i32", "i1"),
    ("signbit", "*fp64:16, *i32:16", "i32", "i32"), ("popc", "*i64:16, *i32:16", "i32", "i32"),
    ("clz", "*i64:16, *i32:16", "i32", "i32"), ("brev", "*i64:16, *i64:16", "i64", "i64"),
    ("llrint", "*fp32:16, *i64:16", "i64", "i64"), ("ilogb", "*fp64:16, *i32:16", "i32", "i32"),
    ("float2uint_rn", "*fp32:16, *i32:16", "i32", "i32"), ("double2float_rz", "*fp64:16, *fp32:16", "fp32", "fp32")])
def test_result_dtypes_in_the_ir(name, sig, result, stored):
    # Triton's result types: the call's, then isnan/isinf converted to int1 (.to(int1)).
    ir = make_kernel(name, 1).emit("ir", signature=sig + ", N=16")
    call = next(line for line in ir.splitlines() if "extern_elementwise" in line)
    assert call.endswith(f"block<16x{result}>"), call
    if stored != result:
        assert f"cast %{call.split()[0][1:]} : block<16x{stored}>" in ir, ir


def test_bit_moves():
    x = floats(F64)
    lo = run("double2loint", x, out_dtype=np.int32)
    hi = run("double2hiint", x, out_dtype=np.int32)
    bits = x.view(np.uint64)
    np.testing.assert_array_equal(lo.view(np.uint32), (bits & 0xffffffff).astype(np.uint32))
    np.testing.assert_array_equal(hi.view(np.uint32), (bits >> 32).astype(np.uint32))
    back = run("hiloint2double", hi, lo, out_dtype=F64)
    np.testing.assert_array_equal(back.view(np.uint64), bits)
    np.testing.assert_array_equal(run("double_as_longlong", x, out_dtype=np.int64), x.view(np.int64))
    np.testing.assert_array_equal(run("longlong_as_double", x.view(np.int64), out_dtype=F64).view(np.int64),
                                  x.view(np.int64))
    f = floats(F32)
    np.testing.assert_array_equal(run("float_as_int", f, out_dtype=np.int32), f.view(np.int32))
    np.testing.assert_array_equal(run("float_as_uint", f, out_dtype=np.int32), f.view(np.int32))
    i = ints(np.int32)
    np.testing.assert_array_equal(run("int_as_float", i, out_dtype=F32).view(np.int32)[~np.isnan(i.view(F32))],
                                  i[~np.isnan(i.view(F32))])
    np.testing.assert_array_equal(run("uint_as_float", i.view(np.uint32), out_dtype=F32).view(np.uint32)[
        ~np.isnan(i.view(F32))], i.view(np.uint32)[~np.isnan(i.view(F32))])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, src, dst", [("int2float", np.int32, F32), ("uint2float", np.uint32, F32),
                                            ("ll2float", np.int64, F32), ("ull2float", np.uint64, F32),
                                            ("ll2double", np.int64, F64), ("ull2double", np.uint64, F64)])
def test_int_to_float(mode, name, src, dst):
    x = ints(src)
    got = run(f"{name}_{mode}", x, out_dtype=dst)
    for i in range(N):
        assert got[i] == round_exact(Fraction(int(x[i])), dst, mode), (name, mode, x[i], got[i])


def test_int2double_rn():
    i = ints(np.int32)
    np.testing.assert_array_equal(run("int2double_rn", i, out_dtype=F64), i.astype(F64))
    u = ints(np.uint32)
    np.testing.assert_array_equal(run("uint2double_rn", u, out_dtype=F64), u.astype(F64))


@pytest.mark.parametrize("dtype", [F32, F64])
def test_ldexp_scalbn_pow_int(dtype):
    x = floats(dtype)
    n = np.array([0, 1, -1, 3, -3, 10, -10, 200, -200, 5, 1, -1, 2, 0, INT32_MAX, INT32_MIN], np.int32)
    with np.errstate(all="ignore"):
        want = np.ldexp(x, n)
        for name in ("ldexp", "scalbn"):
            np.testing.assert_array_equal(run(name, x, n, out_dtype=dtype), want, err_msg=name)
        got = run("pow", x, np.clip(n, -4, 4), out_dtype=dtype)  # (fp, int32): __nv_powi
        want = (x.astype(F64) ** np.clip(n, -4, 4).astype(F64)).astype(dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == F32 else 1e-15)


# ---- special functions ----

@pytest.mark.parametrize("dtype", [F32, F64])
def test_special_functions(dtype):
    mpmath = pytest.importorskip("mpmath")
    rtol = 1e-6 if dtype == F32 else 1e-13
    x = finite(dtype, -10, 10)
    i0 = run("cyl_bessel_i0", x, out_dtype=dtype)
    np.testing.assert_allclose(i0, np.i0(x.astype(F64)), rtol=rtol)
    i1 = run("cyl_bessel_i1", x, out_dtype=dtype)
    np.testing.assert_allclose(i1, [float(mpmath.besseli(1, float(v))) for v in x], rtol=rtol)
    e = np.array([-5, -1, -0.0, 0, 0.5, 1, 3, 10, 25, 26.5, 30, 100, 1e5, 1e300 if dtype == F64 else 1e30, np.inf,
                  np.nan], dtype=dtype)
    got = run("erfcx", e, out_dtype=dtype)
    def erfcx(v):
        if math.isnan(v) or math.isinf(v):
            return math.nan if math.isnan(v) else 0.0
        if v > 1e5:  # the asymptotic series' first terms
            return 1 / (v * math.sqrt(math.pi)) * (1 - 1 / (2 * v * v))
        return float(mpmath.exp(mpmath.mpf(v) ** 2) * mpmath.erfc(v))
    want = [erfcx(float(v)) for v in e]
    np.testing.assert_allclose(got, want, rtol=rtol)
    p = np.array([1e-300 if dtype == F64 else 1e-30, 1e-10, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-7, 1.0, 1.5, 1.99, 2.0,
                  0.0, -0.1, 2.1, np.nan], dtype=dtype)
    got = run("erfcinv", p, out_dtype=dtype)
    mpmath.mp.dps = 320  # 1 - 1e-300 must not round to 1
    want = [float(mpmath.erfinv(1 - mpmath.mpf(float(v)))) if 0 < v < 2 else
            (math.inf if v == 0 else -math.inf if v == 2 else math.nan) for v in p]
    np.testing.assert_allclose(got, want, rtol=rtol)
    q = np.array([1e-300 if dtype == F64 else 1e-30, 1e-10, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-7, 1.0, 0.0, -1.0, 2.0,
                  np.nan, 0.25, 0.75, 0.1], dtype=dtype)
    got = run("normcdfinv", q, out_dtype=dtype)
    want = [float(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(float(v)))) if 0 < v < 1 else
            (-math.inf if v == 0 else math.inf if v == 1 else math.nan) for v in q]
    mpmath.mp.dps = 15
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_jn_yn(dtype):
    mpmath = pytest.importorskip("mpmath")
    n = np.array([0, 1, 2, 3, 5, -1, -2, 4] * 2, np.int32)
    x = finite(dtype, 0.5, 12)
    got = run("jn", n, x, out_dtype=dtype)
    np.testing.assert_allclose(got, [float(mpmath.besselj(int(k), float(v))) for k, v in zip(n, x)],
                               rtol=2e-5 if dtype == F32 else 1e-10, atol=1e-6 if dtype == F32 else 1e-13)
    got = run("yn", n, x, out_dtype=dtype)
    np.testing.assert_allclose(got, [float(mpmath.bessely(int(k), float(v))) for k, v in zip(n, x)],
                               rtol=2e-5 if dtype == F32 else 1e-10, atol=1e-6 if dtype == F32 else 1e-13)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_norms(rng, dtype):
    xs = [rng.standard_normal(N).astype(dtype) * 10 for _ in range(4)]
    xs[0][0], xs[1][1], xs[2][2], xs[0][3], xs[1][3] = np.inf, np.nan, -np.inf, 1e300 if dtype == F64 else 1e30, 0
    xs[0][4] = xs[1][4] = xs[2][4] = xs[3][4] = 0
    rtol = 1e-6 if dtype == F32 else 1e-14
    with np.errstate(all="ignore"):
        for k in (3, 4):
            want = np.sqrt(sum(np.float64(x.astype(F64)) ** 2 for x in xs[:k]) if dtype == F32 else
                           sum((x / 1e150) ** 2 for x in xs[:k])) * (1 if dtype == F32 else 1e150)
            want[0] = want[2] = np.inf
            got = run(f"norm{k}d", *xs[:k], out_dtype=dtype)
            np.testing.assert_allclose(got, want, rtol=rtol)
            got = run(f"rnorm{k}d", *xs[:k], out_dtype=dtype)
            np.testing.assert_allclose(got, 1 / want, rtol=rtol)


def test_fast_and_rounding_variants(rng):
    x = (rng.random(N) * 4 + 0.1).astype(F32)
    np.testing.assert_allclose(run("fast_exp10f", x, out_dtype=F32), 10.0 ** x.astype(F64), rtol=1e-6)
    np.testing.assert_allclose(run("fast_log10f", x, out_dtype=F32), np.log10(x.astype(F64)), rtol=1e-6)
    np.testing.assert_allclose(run("fast_powf", x, x, out_dtype=F32), x.astype(F64) ** x, rtol=1e-6)
    np.testing.assert_allclose(run("rsqrt_rn", x, out_dtype=F32), 1 / np.sqrt(x.astype(F64)), rtol=6e-8)
    np.testing.assert_allclose(run("rcp64h", x.astype(F64), out_dtype=F64), 1 / x.astype(F64), rtol=1e-15)


# ---- Triton's type errors ----

@pytest.mark.parametrize("name, args, words", [
    ("popc", [np.zeros(N, np.uint32)], r"Expect one of \(int32,\) \(int64,\), got \(uint32,\) for popc"),
    ("sad", [np.zeros(N, np.int32)] * 3, r"Expect one of \(int32, int32, uint32\) \(uint32, uint32, uint32\), got \(int32, int32, int32\)"),
    ("ldexp", [np.zeros(N, F32), np.zeros(N, F32)], r"Expect one of \(fp32, int32\) \(fp64, int32\), got \(fp32, fp32\)"),
    ("double2float_rn", [np.zeros(N, F32)], r"Expect one of \(fp64,\), got \(fp32,\)"),
    ("add_rz", [np.zeros(N, np.float16)] * 2, r"Expect one of \(fp32, fp32\) \(fp64, fp64\), got \(fp16, fp16\) for add_rz"),
    ("jn", [np.zeros(N, F32), np.zeros(N, F32)], r"Expect one of \(int32, fp32\) \(int32, fp64\), got \(fp32, fp32\)"),
])
def test_type_errors_name_tritons_types(name, args, words):
    with pytest.raises(tritium.CompilationError, match="input arg type does not match. " + words) as info:
        make_kernel(name, len(args))[(1,)](*args, np.zeros(N, np.float64), N=N)
    assert f"libdevice_{name}.py:" in str(info.value) and f"{name}(a0" in str(info.value)  # located at the call


def test_promotion_then_match():
    # Not one overload exactly: promoted as arithmetic, then matched (fp32 + fp64 -> fp64).
    x = np.full(N, 1.0, F32)
    y = np.full(N, 2.0**-40, F64)
    got = run("add_ru", x, y, out_dtype=F64)
    np.testing.assert_array_equal(got, np.full(N, 1 + 2.0**-40))


# ---- the GPU code ----



PTX_CASES = [
    ("popc", "*i64:16, *i32:16"), ("clz", "*i32:16, *i32:16"), ("ffs", "*i64:16, *i32:16"), ("brev", "*i64:16, *i64:16"),
    ("byte_perm", "*i32:16, *i32:16, *i32:16, *i32:16"), ("hadd", "*u32:16, *u32:16, *u32:16"),
    ("rhadd", "*i32:16, *i32:16, *i32:16"), ("mul24", "*i32:16, *i32:16, *i32:16"),
    ("sad", "*i32:16, *i32:16, *u32:16, *i32:16"), ("mulhi", "*i64:16, *i64:16, *i64:16"),
    ("abs", "*i32:16, *i32:16"),
    ("add_rd", "*fp32:16, *fp32:16, *fp32:16"), ("add_ru", "*fp64:16, *fp64:16, *fp64:16"),
    ("sub_rz", "*fp32:16, *fp32:16, *fp32:16"), ("mul_rz", "*fp64:16, *fp64:16, *fp64:16"),
    ("div_rd", "*fp32:16, *fp32:16, *fp32:16"), ("div_ru", "*fp64:16, *fp64:16, *fp64:16"),
    ("fma_rn", "*fp32:16, *fp32:16, *fp32:16, *fp32:16"), ("fma_rz", "*fp64:16, *fp64:16, *fp64:16, *fp64:16"),
    ("rcp_rn", "*fp32:16, *fp32:16"), ("rcp_rd", "*fp64:16, *fp64:16"), ("sqrt_rz", "*fp32:16, *fp32:16"),
    ("sqrt_ru", "*fp64:16, *fp64:16"), ("rsqrt_rn", "*fp32:16, *fp32:16"), ("rcp64h", "*fp64:16, *fp64:16"),
    ("double2float_rd", "*fp64:16, *fp32:16"), ("double2int_rn", "*fp64:16, *i32:16"),
    ("float2int_rz", "*fp32:16, *i32:16"), ("float2uint_rn", "*fp32:16, *i32:16"),
    ("float2ll_rd", "*fp32:16, *i64:16"), ("double2ull_ru", "*fp64:16, *i64:16"),
    ("int2float_rz", "*i32:16, *fp32:16"), ("ull2double_rd", "*u64:16, *fp64:16"), ("ll2float_ru", "*i64:16, *fp32:16"),
    ("uint2double_rn", "*u32:16, *fp64:16"),
    ("hiloint2double", "*i32:16, *i32:16, *fp64:16"), ("double2hiint", "*fp64:16, *i32:16"),
    ("float_as_int", "*fp32:16, *i32:16"), ("longlong_as_double", "*i64:16, *fp64:16"),
    ("isnan", "*fp32:16, *i1:16"), ("isinf", "*fp64:16, *i1:16"), ("signbit", "*fp32:16, *i32:16"),
    ("finitef", "*fp32:16, *i32:16"), ("isfinited", "*fp64:16, *i32:16"), ("ilogb", "*fp32:16, *i32:16"),
    ("llrint", "*fp64:16, *i64:16"), ("llround", "*fp32:16, *i64:16"),
    ("ldexp", "*fp32:16, *i32:16, *fp32:16"), ("scalbn", "*fp64:16, *i32:16, *fp64:16"),
    ("jn", "*i32:16, *fp32:16, *fp32:16"), ("yn", "*i32:16, *fp64:16, *fp64:16"),
    ("pow", "*fp32:16, *i32:16, *fp32:16"),
    ("cyl_bessel_i0", "*fp32:16, *fp32:16"), ("cyl_bessel_i1", "*fp64:16, *fp64:16"), ("erfcx", "*fp32:16, *fp32:16"),
    ("erfcinv", "*fp64:16, *fp64:16"), ("normcdfinv", "*fp32:16, *fp32:16"),
    ("norm3d", "*fp32:16, *fp32:16, *fp32:16, *fp32:16"), ("rnorm4d", "*fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16"),
    ("fast_exp10f", "*fp32:16, *fp32:16"), ("fast_log10f", "*fp32:16, *fp32:16"), ("fast_powf", "*fp32:16, *fp32:16, *fp32:16"),
]


@pytest.mark.parametrize("name, signature", PTX_CASES, ids=[c[0] for c in PTX_CASES])
def test_ptx_calls_libdevice(tmp_path, name, signature):
    arity = signature.count("*") - 1
    kernel = make_kernel(name, arity)
    try:
        ptx = kernel.emit("ptx", signature=signature + ", N=16", arch=90)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e) or ("libdevice" in str(e) and "not found" in str(e)):
            pytest.skip(str(e))
        raise
    assert ".visible .entry" in ptx
    assert "__nv_" not in ptx  # linked and inlined
    tool = ptxas()
    if tool is None:
        return
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr

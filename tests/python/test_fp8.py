"""fp8 end to end in the interpreter (issue 10, item 6; issue 7, item 3): the five fp8 types
as arguments (reinterpret-wrapped uint8 arrays), loads and stores, casts to and from
fp16/bf16/fp32 with rtne (saturating, as Triton's cvt.rn.satfinite) and rtz, bitcast, and
arithmetic. The expected values come from a brute-force reference over all 256 codes."""

import math

import numpy as np
import pytest

import tritium
import tritium.language as tl

# (dtype, exponent bits, mantissa bits, bias, specials) -- written out here independently
# of the dtype table, so the test checks the table too.
FORMATS = {
    "float8e4nv": (4, 3, 7, "fn"),
    "float8e5": (5, 2, 15, "ieee"),
    "float8e4b15": (4, 3, 15, "finite"),
    "float8e4b8": (4, 3, 8, "fnuz"),
    "float8e5b16": (5, 2, 16, "fnuz"),
}


def decode(code, name):
    code = int(code)
    e, m, bias, special = FORMATS[name]
    sign = -1.0 if code & 0x80 else 1.0
    field = (code >> m) & ((1 << e) - 1)
    mant = code & ((1 << m) - 1)
    if special == "ieee" and field == (1 << e) - 1:
        return sign * math.inf if mant == 0 else math.nan
    if special == "fn" and code & 0x7F == 0x7F:
        return math.nan
    if special == "fnuz" and code == 0x80:
        return math.nan
    if field == 0:
        return sign * mant * 2.0 ** (1 - bias - m)
    return sign * (1 + mant / 2 ** m) * 2.0 ** (field - bias)


def finite_codes(name):
    return [c for c in range(256) if math.isfinite(decode(c, name))]


def encode_reference(v, name, rtz=False):
    """The code of float32 value v: nearest (ties to even code) or toward zero, saturating
    to the largest finite value (rtz keeps an IEEE infinity)."""
    e, m, bias, special = FORMATS[name]
    codes = finite_codes(name)
    top = max(decode(c, name) for c in codes)
    if math.isnan(v):
        return None
    negative = math.copysign(1.0, v) < 0
    a = abs(v)
    if math.isinf(a) and rtz and special == "ieee":
        return (0x80 if negative else 0) | (((1 << e) - 1) << m)
    a = min(a, top)
    positive = [c for c in codes if not c & 0x80]
    if rtz:
        best = max((c for c in positive if decode(c, name) <= a), key=lambda c: decode(c, name))
    else:
        best = min(positive, key=lambda c: (abs(decode(c, name) - a), c & 1))
    if best == 0 and special == "fnuz":
        return 0
    return best | (0x80 if negative else 0)


@tritium.jit
def to_fp8(x_ptr, out_ptr, n, DTYPE: tl.constexpr, RTZ: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if RTZ:
        y = x.to(DTYPE, fp_downcast_rounding="rtz")
    else:
        y = x.to(DTYPE)
    tl.store(out_ptr + offs, y, mask=mask)


@tritium.jit
def from_fp8(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


def interesting_float32(rng, name):
    e, m, bias, special = FORMATS[name]
    codes = finite_codes(name)
    values = [decode(c, name) for c in codes]
    mids = [(a + b) / 2 for a, b in zip(sorted(values), sorted(values)[1:])]
    top = max(values)
    extra = [top * 1.01, top * 4, -top * 4, math.inf, -math.inf, 0.0, -0.0,
             2.0 ** (-bias - m - 1), 2.0 ** (-bias - m - 2)]
    random = (rng.standard_normal(200) * top / 4).tolist()
    out = np.array(values + mids + extra + random, dtype=np.float32)
    return out[np.isfinite(out) | np.isinf(out)]


@pytest.mark.parametrize("name", list(FORMATS))
@pytest.mark.parametrize("rtz", [False, True])
def test_fp32_to_fp8_rounds_and_saturates_as_triton(rng, name, rtz):
    x = interesting_float32(rng, name)
    n = x.size
    out = np.zeros(n, dtype=np.uint8)
    dtype = getattr(tl, name)
    to_fp8[(1,)](x, tritium.reinterpret(out, dtype), n, DTYPE=dtype, RTZ=rtz,
                 BLOCK=tritium.next_power_of_2(n))
    expected = [encode_reference(float(v), name, rtz) for v in x]
    bad = [(float(v), int(o), e) for v, o, e in zip(x, out, expected) if o != e]
    assert not bad, f"{len(bad)} wrong, e.g. (value, got, expected) {bad[:5]}"


@pytest.mark.parametrize("name", list(FORMATS))
def test_fp8_to_fp32_is_exact(name):
    codes = np.arange(256, dtype=np.uint8)
    out = np.zeros(256, dtype=np.float32)
    from_fp8[(1,)](tritium.reinterpret(codes, getattr(tl, name)), out, 256, BLOCK=256)
    expected = np.array([decode(c, name) for c in range(256)], dtype=np.float32)
    np.testing.assert_array_equal(out, expected)  # NaNs in the same places (equal_nan)


def test_nan_becomes_nan():
    x = np.array([np.nan, -np.nan], dtype=np.float32)
    for name in ("float8e4nv", "float8e5", "float8e4b8", "float8e5b16"):
        out = np.zeros(2, dtype=np.uint8)
        to_fp8[(1,)](x, tritium.reinterpret(out, getattr(tl, name)), 2,
                     DTYPE=getattr(tl, name), RTZ=False, BLOCK=2)
        assert all(math.isnan(decode(int(c), name)) for c in out), (name, out)


@tritium.jit
def fp8_arith(a_ptr, b_ptr, out_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    s = a + b
    tl.static_assert(s.dtype == tl.float8e5)
    tl.store(out_ptr + offs, s, mask=mask)
    tl.store(bits_ptr + offs, a.to(tl.uint8, bitcast=True), mask=mask)


def test_fp8_arithmetic_stays_fp8_and_bitcast(rng):
    name = "float8e5"
    codes = [c for c in finite_codes(name)]
    a = np.array(rng.choice(codes, 300), dtype=np.uint8)
    b = np.array(rng.choice(codes, 300), dtype=np.uint8)
    out = np.zeros(300, dtype=np.uint8)
    bits = np.zeros(300, dtype=np.uint8)
    w = lambda arr: tritium.reinterpret(arr, tl.float8e5)  # noqa: E731
    fp8_arith[(1,)](w(a), w(b), w(out), bits, 300, BLOCK=512)
    expected = [encode_reference(float(np.float32(decode(x, name) + decode(y, name))), name)
                for x, y in zip(a, b)]
    assert list(out) == expected
    assert np.array_equal(bits, a)


def test_fp8_signature_and_dtype_objects():
    x = tritium.reinterpret(np.zeros(4, dtype=np.uint8), tl.float8e4nv)
    out = np.zeros(4, dtype=np.float32)
    assert from_fp8.signature(x, out, 4, BLOCK=4).startswith("*fp8e4nv")
    assert tl.float8e4nv.primitive_bitwidth == 8 and tl.float8e4nv.fp_mantissa_width == 3
    assert tl.float8e4nv.exponent_bias == 7 and tl.float8e5.exponent_bias == 15
    assert tl.float8e4b15.exponent_bias == 15 and tl.float8e5b16.exponent_bias == 16
    assert tl.float8e4nv.is_fp8() and tl.float8e4nv.is_fp8e4nv() and not tl.float8e5.is_fp8e4nv()
    assert tl.float8e5.is_floating() and not tl.float8e5.is_int()
    assert str(tl.float8e4b8) == "fp8e4b8" and repr(tl.float8e5b16) == "tritium.language.float8e5b16"
    assert tl.float32.fp_mantissa_width == 23 and tl.bfloat16.fp_mantissa_width == 7
    assert tl.float16.exponent_bias == 15 and tl.float64.exponent_bias == 1023
    assert tl.int8.is_int_signed() and not tl.uint8.is_int_signed() and tl.int1.is_bool()
    assert tl.pi32_t == tl.pointer_type(tl.int32) and tl.pi32_t.element_ty == tl.int32
    assert tl.int16.get_int_max_value() == 32767 and tl.uint16.get_int_min_value() == 0


def test_bad_rounding_mode_is_a_located_error():
    x = np.zeros(4, dtype=np.float32)

    @tritium.jit
    def bad(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr).to(tl.float16, fp_downcast_rounding="up"))  # LINE: bad

    with pytest.raises(tritium.CompilationError, match="Invalid rounding mode: up") as info:
        bad[(1,)](x)
    assert info.value.line > 0


@tritium.jit
def dtype_facts(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.static_assert(x_ptr.dtype.element_ty == tl.float16)
    tl.static_assert(x_ptr.dtype.is_ptr() and not x.dtype.is_ptr())
    tl.static_assert(x_ptr.dtype == tl.pointer_type(tl.float16))
    tl.static_assert(out_ptr.dtype.element_ty == tl.int32)
    tl.static_assert(out_ptr.dtype == tl.pi32_t)
    tl.static_assert(x.dtype.fp_mantissa_width == 10 and x.dtype.exponent_bias == 15)
    tl.static_assert(x.dtype.is_fp16() and x.dtype.is_floating() and not x.dtype.is_fp8())
    tl.static_assert(tl.float8e4nv.is_fp8e4nv() and tl.float8e4nv.fp_mantissa_width == 3)
    tl.static_assert(tl.int8.is_int_signed() and tl.uint8.is_int_unsigned())
    tl.static_assert(tl.float8e5.primitive_bitwidth == 8 and x_ptr.dtype.primitive_bitwidth == 64)
    z = tl.zeros([4], dtype=out_ptr.dtype.element_ty)
    tl.store(out_ptr + tl.arange(0, 4), z + x_ptr.dtype.element_ty.primitive_bitwidth)


def test_dtype_facts_inside_kernels():
    x = np.zeros(1, dtype=np.float16)
    out = np.zeros(4, dtype=np.int32)
    dtype_facts[(1,)](x, out)
    assert list(out) == [16] * 4


def test_pointer_dtype_is_not_a_scalar_dtype():
    @tritium.jit
    def bad(out_ptr):
        tl.store(out_ptr, tl.zeros([1], dtype=out_ptr.dtype)[0])

    with pytest.raises(tritium.CompilationError, match="must be a scalar dtype, got"):
        bad[(1,)](np.zeros(1, dtype=np.int32))

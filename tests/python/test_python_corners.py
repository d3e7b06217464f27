"""Python-value corners of the kernel language (issue 10, items 8, 10, 11): chained
comparisons and boolean chains, float("inf"/"-inf"/"nan"), shape tuples compared with lists,
`>>` by the left operand's own signedness, constexpr defaults from module constants,
tl.assume, helpers reached through another module, early returns, and newer language."""

import math

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def in_range(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = 0 <= offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    inside = lo <= x < hi
    tl.static_assert(1 < 2 < 3 and not (1 < 3 < 2))
    tl.static_assert(True and 1 and 2 == 2)
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=mask)


def test_chained_comparisons(rng):
    x = rng.integers(-10, 10, size=50).astype(np.int32)
    out = np.full(50, -1, dtype=np.int32)
    in_range[(1,)](x, out, -3, 4, 50, BLOCK=64)
    np.testing.assert_array_equal(out, ((-3 <= x) & (x < 4)).astype(np.int32))


@tritium.jit
def bool_chain(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    r = (x > 0) and (x < 10) and (x != 5)
    tl.store(out_ptr + offs, r.to(tl.int32))


def test_boolean_chains_on_tensors(rng):
    x = rng.integers(-5, 15, size=64).astype(np.int32)
    out = np.zeros(64, dtype=np.int32)
    bool_chain[(1,)](x, out, BLOCK=64)
    np.testing.assert_array_equal(out, ((x > 0) & (x < 10) & (x != 5)).astype(np.int32))


@tritium.jit
def masked_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
    tl.static_assert(x.shape == [BLOCK] and x.shape != [BLOCK, 1])
    big = tl.where(x > 1e30, float("inf"), x)
    nan = tl.where(x != x, float("nan"), 0.0)
    tl.store(out_ptr + offs, big + nan, mask=offs < n)


def test_float_specials_and_shape_equality(rng):
    x = rng.standard_normal(20).astype(np.float32)
    x[3] = np.float32(3e38)
    x[5] = np.nan
    out = np.zeros(32, dtype=np.float32)
    masked_max[(1,)](x, out, 20, BLOCK=32)
    expected = np.where(x > 1e30, np.inf, x) + np.where(np.isnan(x), np.nan, 0.0)
    np.testing.assert_array_equal(out[:20], expected.astype(np.float32))


@tritium.jit
def shifts(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)  # int32
    b = tl.load(b_ptr + offs)  # uint64
    r = a >> b
    tl.static_assert(r.dtype == tl.uint64)
    tl.store(out_ptr + offs, r)


def test_shift_right_decides_on_the_left_operands_signedness():
    a = np.array([-16, -1, 64, -(2**31)], dtype=np.int32)
    b = np.array([2, 5, 3, 31], dtype=np.uint64)
    out = np.zeros(4, dtype=np.uint64)
    shifts[(1,)](a, b, out, BLOCK=4)
    expected = (a.astype(np.int64) >> b.astype(np.int64)).astype(np.uint64)  # arithmetic
    np.testing.assert_array_equal(out, expected)


DEFAULT_BLOCK = 16


@tritium.jit
def with_default(out_ptr, BLOCK: tl.constexpr = DEFAULT_BLOCK):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full([BLOCK], BLOCK, tl.int32))


def test_constexpr_default_from_module_constant():
    out = np.zeros(32, dtype=np.int32)
    with_default[(1,)](out)
    assert list(out[:16]) == [16] * 16 and list(out[16:]) == [0] * 16


import corner_helpers as h  # noqa: E402  (a user module of @jit helpers)


@tritium.jit
def through_module(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = h.pid(0) * BLOCK + tl.arange(0, BLOCK)
    m = h.maximum(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(out_ptr + offs, h.scaled(m))


def test_jit_helpers_through_another_module(rng):
    x = rng.standard_normal(64).astype(np.float32)
    y = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, dtype=np.float32)
    through_module[(2,)](x, y, out, BLOCK=32)
    np.testing.assert_allclose(out, np.maximum(x, y) * 3, rtol=1e-6)


@tritium.jit
def early_return(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # x changes type after the early return
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


def test_early_return_in_dynamic_if_then_type_change(rng):
    x = rng.standard_normal(40).astype(np.float32)
    out = np.zeros(40, dtype=np.float32)
    early_return[(4,)](x, out, 40, BLOCK=16)
    np.testing.assert_allclose(out, x * 2)


def test_float_of_a_bad_string_is_a_located_error():
    @tritium.jit
    def bad(x_ptr):
        tl.store(x_ptr, float("infinite"))

    with pytest.raises(tritium.CompilationError, match="could not convert string to float: 'infinite'"):
        bad[(1,)](np.zeros(1, dtype=np.float32))


# Pointer casts (Triton's cast rules): pointer to pointer is a bitcast of the address, and a
# pointer goes to int64 and back. Noticed last session: `.to(tl.pointer_type(...))` was refused.
@tritium.jit
def read_as_bf16(bits_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    as_bf16 = bits_ptr.to(tl.pointer_type(tl.bfloat16))
    x = tl.load(as_bf16 + offs, mask=offs < n)
    tl.store(out_ptr + offs, x.to(tl.float32), mask=offs < n)


@tritium.jit
def through_int64(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    address = x_ptr.to(tl.int64)
    back = address.to(tl.pointer_type(tl.float32))
    tl.store(out_ptr + offs, tl.load(back + offs, mask=offs < n), mask=offs < n)


def test_pointer_casts(rng):
    values = rng.standard_normal(40).astype(np.float32)
    bf16_bits = (values.view(np.uint32) >> 16).astype(np.uint16).view(np.int16)
    out = np.zeros(40, np.float32)
    read_as_bf16[(1,)](bf16_bits, out, 40, BLOCK=64)
    want = (bf16_bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(out, want)
    out2 = np.zeros(40, np.float32)
    through_int64[(1,)](values, out2, 40, BLOCK=64)
    np.testing.assert_array_equal(out2, values)


def test_pointer_cast_to_a_float_is_an_error():
    @tritium.jit
    def bad(x_ptr):
        tl.store(x_ptr, x_ptr.to(tl.float32))

    with pytest.raises(tritium.CompilationError, match="cannot cast a pointer to fp32"):
        bad[(1,)](np.zeros(1, np.float32))

"""Numbers meeting tensors as Triton 3.6 has it (issue 11, differential testing): arithmetic,
bitwise operators, shifts and tl.where check a number operand (it does not take part in the
promotion, must fit the result type, cannot be negative with an unsigned one:
semantic.binary_op_type_checking_impl); comparisons, tl.minimum/maximum/clamp turn it into a
tensor first (core.tensor.__lt__ etc., core.minimum: to_tensor) and so accept any number.
The kernels run in the interpreter; the checks are the compiler's, shared by every backend."""

import numpy as np
import pytest

import tritium
import tritium.language as tl

CHECKED = ["+", "-", "*", "/", "//", "%", "^", "|", "&", "<<", ">>", "where"]
UNCHECKED = ["<", "<=", ">", ">=", "==", "!=", "minimum", "maximum"]


@tritium.jit
def negative_with_u8(x_ptr, out_ptr, OP: tl.constexpr, LEFT: tl.constexpr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    if OP == "+":
        r = -4 + x if LEFT else x + -4
    elif OP == "-":
        r = -4 - x if LEFT else x - -4
    elif OP == "*":
        r = -4 * x if LEFT else x * -4
    elif OP == "/":
        r = -4 / x if LEFT else x / -4
    elif OP == "//":
        r = -4 // x if LEFT else x // -4
    elif OP == "%":
        r = -4 % x if LEFT else x % -4
    elif OP == "^":
        r = -4 ^ x if LEFT else x ^ -4
    elif OP == "|":
        r = -4 | x if LEFT else x | -4
    elif OP == "&":
        r = -4 & x if LEFT else x & -4
    elif OP == "<<":
        r = -4 << x if LEFT else x << -4
    elif OP == ">>":
        r = -4 >> x if LEFT else x >> -4
    elif OP == "where":
        r = tl.where(x > 1, -4, x) if LEFT else tl.where(x > 1, x, -4)
    elif OP == "<":
        r = -4 < x if LEFT else x < -4
    elif OP == "<=":
        r = -4 <= x if LEFT else x <= -4
    elif OP == ">":
        r = -4 > x if LEFT else x > -4
    elif OP == ">=":
        r = -4 >= x if LEFT else x >= -4
    elif OP == "==":
        r = -4 == x if LEFT else x == -4
    elif OP == "!=":
        r = -4 != x if LEFT else x != -4
    elif OP == "minimum":
        r = tl.minimum(-4, x) if LEFT else tl.minimum(x, -4)
    else:
        r = tl.maximum(-4, x) if LEFT else tl.maximum(x, -4)
    tl.store(out_ptr + offs, r.to(tl.int32))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("op", CHECKED)
def test_negative_number_with_unsigned_is_an_error(op, left):
    x = np.array([1, 2, 3, 200], np.uint8)
    out = np.zeros(4, np.int32)
    with pytest.raises(tritium.CompilationError) as info:
        negative_with_u8[(1,)](x, out, OP=op, LEFT=left)
    assert "between an unsigned tensor and a negative scalar" in info.value.message
    assert "-4" in info.value.excerpt  # located at the operation
    assert np.all(out == 0)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("op", UNCHECKED)
def test_comparisons_and_min_max_take_the_number_as_int32(op, left):
    x = np.array([1, 2, 3, 200], np.uint8)
    out = np.full(4, 99, np.int32)
    negative_with_u8[(1,)](x, out, OP=op, LEFT=left)
    a, b = (np.int32(-4), x.astype(np.int32)) if left else (x.astype(np.int32), np.int32(-4))
    expected = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b,
                "minimum": np.minimum(a, b), "maximum": np.maximum(a, b)}[op]
    np.testing.assert_array_equal(out, np.asarray(expected).astype(np.int32))


@tritium.jit
def out_of_range_with_i8(x_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    if OP == "^":
        r = x ^ 300
    elif OP == "<<":
        r = x << 300
    elif OP == "+":
        r = x + 300
    elif OP == "<":
        r = (x < 300).to(tl.int8)
    else:
        r = tl.maximum(x, 300).to(tl.int8)
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("op", ["^", "<<", "+"])
def test_number_out_of_range_of_the_tensor_type_is_an_error(op):
    x = np.arange(4, dtype=np.int8)
    with pytest.raises(tritium.CompilationError, match="Scalar 300 is out of range for type int8"):
        out_of_range_with_i8[(1,)](x, np.zeros(4, np.int8), OP=op)


@pytest.mark.parametrize("op", ["<", "maximum"])
def test_comparisons_and_maximum_accept_a_number_out_of_range(op):
    x = np.arange(4, dtype=np.int8)
    out = np.zeros(4, np.int8)
    out_of_range_with_i8[(1,)](x, out, OP=op)
    np.testing.assert_array_equal(out, np.ones(4, np.int8) if op == "<" else np.full(4, 300 - 256, np.int8))


@tritium.jit
def bitwise_types(u_ptr, i_ptr, out_ptr):
    offs = tl.arange(0, 4)
    u = tl.load(u_ptr + offs)
    i = tl.load(i_ptr + offs)
    shifted = u << 1
    tl.static_assert(shifted.dtype == tl.uint8)
    tl.static_assert((7 | u).dtype == tl.uint8)
    tl.static_assert((i & 0x7F).dtype == tl.int8)
    logical = 200 >> u  # the number meets a uint8 tensor: a logical shift in uint8
    tl.static_assert(logical.dtype == tl.uint8)
    tl.store(out_ptr + offs, shifted.to(tl.int32))
    tl.store(out_ptr + 4 + offs, logical.to(tl.int32))
    tl.store(out_ptr + 8 + offs, (i >> 1).to(tl.int32))


def test_bitwise_results_keep_the_tensor_type():
    u = np.array([1, 100, 200, 255], np.uint8)
    i = np.array([-128, -3, 5, 127], np.int8)
    shift = np.array([1, 2, 3, 7], np.uint8)
    out = np.zeros(12, np.int32)
    bitwise_types[(1,)](u, i, out)
    np.testing.assert_array_equal(out[:4], (u.astype(np.int32) << 1) & 0xFF)  # wraps in uint8
    out2 = np.zeros(12, np.int32)
    bitwise_types[(1,)](shift, i, out2)
    np.testing.assert_array_equal(out2[4:8], 200 >> shift.astype(np.int32))
    np.testing.assert_array_equal(out[8:], i.astype(np.int32) >> 1)


@tritium.jit
def float_number_types(h_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 4)
    h = tl.load(h_ptr + offs)
    b = tl.load(b_ptr + offs).to(tl.bfloat16)
    tl.static_assert(tl.maximum(b, b).dtype == tl.float32)  # bf16 min/max compute in fp32
    tl.static_assert(tl.minimum(h, 2.0).dtype == tl.float32)  # the number is an fp32 tensor
    tl.static_assert(tl.minimum(h, 2).dtype == tl.float16)  # int32 meets fp16: fp16
    tl.static_assert(tl.clamp(b, 0.0, 1.0).dtype == tl.float32)
    tl.store(out_ptr + offs, (h < 0.1).to(tl.int32))


def test_float_comparison_with_a_number_is_in_fp32():
    # fp16(0.1) < 0.1 in fp32 (Triton); it would be False compared in fp16.
    h = np.full(4, 0.1, np.float16)
    out = np.zeros(4, np.int32)
    float_number_types[(1,)](h, np.zeros(4, np.float32), out)
    np.testing.assert_array_equal(out, np.ones(4, np.int32))


@tritium.jit
def maximum_of_numbers(out_ptr):
    # tl.maximum of two numbers is a tensor (fp32 here: 3 meets -2.5); builtin max folds.
    m = tl.maximum(3, -2.5)
    tl.static_assert(m.dtype == tl.float32)
    tl.static_assert(max(3, 5) == 5)
    tl.store(out_ptr, m.to(tl.float32) * 2)


def test_maximum_of_two_numbers_is_a_tensor():
    out = np.zeros(1, np.float32)
    maximum_of_numbers[(1,)](out)
    assert out[0] == 6.0


@tritium.jit
def negative_zero_literals(x_ptr, out_ptr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.full((4,), -0.0, tl.float32).to(tl.int32, bitcast=True))
    tl.store(out_ptr + 4 + offs, (x * -0.0).to(tl.int32, bitcast=True))
    tl.store(out_ptr + 8 + offs, tl.where(offs >= 0, -0.0, x).to(tl.int32, bitcast=True))
    tl.store(out_ptr + 12 + offs, (x - x + -0.0).to(tl.int32, bitcast=True))


def test_a_negative_zero_number_is_positive_zero_as_in_triton():
    """Triton's scalar_constant turns every number equal to 0 into the type's null value, so a
    -0.0 literal is +0.0 (differential seed 76382: tl.full((), -0.0, tl.float32) bitcast to
    int32 is 0 under Triton 3.6, -2^31 in tritium before). x * -0.0 is then x * +0.0."""
    x = np.array([-2.0, 3.0, -0.5, 7.0], np.float32)
    out = np.full(16, 123, np.int32)
    negative_zero_literals[(1,)](x, out)
    sign = np.int32(-2**31)
    assert list(out[:4]) == [0, 0, 0, 0]
    assert list(out[4:8]) == [sign, 0, sign, 0]  # -2 * +0.0 = -0.0; 3 * +0.0 = +0.0
    assert list(out[8:12]) == [0, 0, 0, 0]
    assert list(out[12:16]) == [0, 0, 0, 0]  # +0.0 + +0.0

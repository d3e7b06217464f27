"""Tuple kernel arguments (Triton 3.x): `k[grid]((a, b), n)` passes a tuple, nested tuples
too, of arrays, ints, floats and constexprs as one parameter. In the kernel it indexes,
unpacks, has a len() and iterates with tl.static_range; each element is specialized as a
parameter would be (pointer and int divisibility, ints equal to 1 folded, tl.constexpr
elements folded as constexprs). The GPU path compiles (PTX for sm_90)."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


def ptx(kernel, *args, **kwargs):
    text = kernel.emit("ptx", *args, arch=90, **kwargs)
    assert ".entry" in text
    return text


@tritium.jit
def add_pair(ptrs, n, BLOCK: tl.constexpr):
    x_ptr, y_ptr = ptrs[0], ptrs[1]
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(ptrs[2] + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_tuple_of_pointers(rng):
    x = rng.standard_normal(100).astype(np.float32)
    y = rng.standard_normal(100).astype(np.float32)
    out = np.zeros_like(x)
    add_pair[(2,)]((x, y, out), 100, BLOCK=64)
    np.testing.assert_array_equal(out, x + y)
    assert add_pair.signature((x, y, out), 100, BLOCK=64) == "(*fp32:16, *fp32:16, *fp32:16), i32, BLOCK=64"
    text = ptx(add_pair, (x, y, out), 100, BLOCK=64)
    assert text.count(".param .u64") >= 3


@tritium.jit
def weighted_sum(srcs, scales, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(srcs)):
        acc += tl.load(srcs[i] + offs) * scales[i]
    tl.store(out_ptr + offs, acc)


def test_static_range_over_len_and_scalar_elements(rng):
    a, b, c = (rng.standard_normal(32).astype(np.float32) for _ in range(3))
    out = np.zeros(32, np.float32)
    weighted_sum[(1,)]((a, b, c), (2.0, 3, 1), out, BLOCK=32)
    np.testing.assert_allclose(out, a * 2 + b * 3 + c, rtol=1e-6)
    # Elements specialize one by one: a float, an int divisible... (3 is not), 1 folded.
    assert weighted_sum.signature((a, b, c), (2.0, 3, 1), out, BLOCK=32) == \
        "(*fp32:16, *fp32:16, *fp32:16), (fp32, i32, 1), *fp32:16, BLOCK=32"
    weighted_sum[(1,)]((a, b), (0.5, 16), out, BLOCK=32)
    np.testing.assert_allclose(out, a * 0.5 + b * 16, rtol=1e-6)
    assert "(fp32, i32:16)" in weighted_sum.signature((a, b), (0.5, 16), out, BLOCK=32)
    ptx(weighted_sum, (a, b, c), (2.0, 3, 1), out, BLOCK=32)


@tritium.jit
def nested_and_constexpr(args, out_ptr):
    x_ptr, (n, K) = args[0]  # plain assignment makes constexprs tensors, as in Triton
    BLOCK: tl.constexpr = args[1]
    tl.static_assert(BLOCK == 64 and args[0][1][1] > 1 and len(args[0][1]) == 2)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x * K, mask=offs < n)


def test_nested_tuple_with_constexpr_element(rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros_like(x)
    args = ((x, (50, tl.constexpr(3))), tl.constexpr(64))
    nested_and_constexpr[(1,)](args, out)
    np.testing.assert_array_equal(out[:50], x[:50] * 3)
    assert not out[50:].any()
    assert nested_and_constexpr.signature(args, out) == \
        "((*fp32:16, (i32, constexpr(3))), constexpr(64)), *fp32:16"
    # A different constexpr element is a different specialization.
    nested_and_constexpr[(1,)](((x, (50, tl.constexpr(2))), tl.constexpr(64)), out)
    np.testing.assert_array_equal(out[:50], x[:50] * 2)
    ptx(nested_and_constexpr, args, out)


def test_signature_text_round_trips():
    x = np.zeros(64, np.float32)
    args = ((x, (50, tl.constexpr(3))), tl.constexpr(64))
    text = nested_and_constexpr.signature(args, x)
    assert nested_and_constexpr.emit("ir", signature=text) == nested_and_constexpr.emit("ir", args, x)
    ir = nested_and_constexpr.emit("ir", signature="((*fp32, (i32:16, constexpr(3))), constexpr(64)), *fp32")
    assert "i32" in ir
    with pytest.raises(tritium.CompilationError, match="constexpr"):
        nested_and_constexpr.emit("ir", signature="((*fp32, (i32, constexpr())), constexpr(64)), *fp32")


@tritium.jit
def iterate(vals, out_ptr):
    total = 0
    for v in vals:
        total += v
    tl.store(out_ptr, total)


@tritium.jit
def unrolled_sum(vals, out_ptr):
    total = 0
    for i in tl.static_range(len(vals)):
        total += vals[i]
    tl.store(out_ptr, total)


def test_iterating_a_tuple_argument():
    out = np.zeros(1, np.int32)
    unrolled_sum[(1,)]((5, 7, 30), out)
    assert out[0] == 42
    # Triton 3.6 iterates only over range/tl.range/tl.static_range calls: `for v in t` is a
    # located error there too.
    with pytest.raises(tritium.CompilationError,
                       match=r"test_tuple_args.py:\d+:\d+: error: only range, tl.range and tl.static_range"):
        iterate[(1,)]((5, 7, 30), out)


def test_tuple_element_errors_name_the_element():
    x = np.zeros(16, np.float32)
    with pytest.raises(tritium.ArgumentTypeError, match=r"argument 'ptrs\[1\]': unsupported type 'object'"):
        add_pair[(1,)]((x, object(), x), 16, BLOCK=16)

    # A tuple for a tl.constexpr parameter is folded element by element (as Triton does;
    # this used to be an error); an element that cannot be a constant is named.
    @tritium.jit
    def constexpr_tuple(out, T: tl.constexpr):
        tl.static_assert(len(T) == 2)
        tl.store(out, T[0] * 10 + T[1])

    out = np.zeros(1, np.int32)
    constexpr_tuple[(1,)](out, (1, 2))
    assert out[0] == 12
    with pytest.raises(Exception, match=r"argument 'T\[1\]': a pointer in a tuple passed to a tl.constexpr parameter"):
        constexpr_tuple[(1,)](out, (1, out))


def test_index_out_of_range_is_located():
    @tritium.jit
    def too_far(ptrs):
        tl.store(ptrs[2], 1.0)

    x = np.zeros(4, np.float32)
    with pytest.raises(tritium.CompilationError, match=r"test_tuple_args.py:\d+:\d+: error"):
        too_far[(1,)]((x, x))


@tritium.jit
def copy_first_to_second(t, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(t[1] + offs, tl.load(t[0] + offs))


def test_tuple_arrays_are_checked_as_arguments_are():
    src = np.arange(8, dtype=np.float32)
    frozen = np.zeros(8, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(tritium.LaunchError, match=r"argument 't': the array is read-only"):
        copy_first_to_second[(1,)]((src, frozen), BLOCK=8)
    src.flags.writeable = False  # read-only but only read: fine
    out = np.zeros(8, np.float32)
    copy_first_to_second[(1,)]((src, out), BLOCK=8)
    np.testing.assert_array_equal(out, src)
    # The interpreter knows each element's bounds.
    short = np.zeros(4, np.float32)
    with pytest.raises(tritium.CompilationError, match=r"out-of-bounds store .* argument 't', which is 16 bytes"):
        copy_first_to_second[(1,)]((src, short), BLOCK=8)

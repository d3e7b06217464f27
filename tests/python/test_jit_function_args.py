"""@jit functions as kernel arguments (Triton 3.x): a @jit function passed for a parameter
(usually a `tl.constexpr` one), or held in a tuple or NamedTuple argument, is a compile-time
value the kernel calls. Its identity (name and a digest of its source and globals) is part
of the specialization: two functions give two compilations, the same one reuses the
compiled kernel. NamedTuple arguments keep their field names (`t.ptr`), and a kernel can
build a NamedTuple of a global class. A plain Python function is an error naming the
argument. Kernels run in the interpreter on numpy arrays; the GPU path compiles (PTX for
sm_90) without a GPU."""

from typing import NamedTuple

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.errors import ArgumentTypeError, CompilationError


@tritium.jit
def double(x):
    return x * 2


@tritium.jit
def negate(x):
    return -x


@tritium.jit
def scale_by(x, s_ptr):
    return x * tl.load(s_ptr)


@tritium.jit
def apply(x_ptr, y_ptr, fn: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(y_ptr + i, fn(tl.load(x_ptr + i)))


def test_constexpr_function_argument_is_called(rng):
    x = rng.standard_normal(16).astype(np.float32)
    y = np.zeros(16, np.float32)
    apply[(1,)](x, y, double, N=16)
    np.testing.assert_array_equal(y, x * 2)
    apply[(1,)](x, y, fn=negate, N=16)
    np.testing.assert_array_equal(y, -x)


def test_each_function_compiles_once():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    first = apply[(1,)](x, y, double, 16)
    again = apply[(1,)](x, y, double, 16)
    other = apply[(1,)](x, y, negate, 16)
    # The launch handle belongs to one compiled specialization.
    assert first is again
    assert other is not first
    text_double = apply.signature(x, y, double, 16)
    text_negate = apply.signature(x, y, negate, 16)
    assert text_double != text_negate
    assert "fn=jit(double:" in text_double and "fn=jit(negate:" in text_negate


def test_same_name_different_source_is_a_different_specialization():
    def make(factor):
        src = {}
        exec(f"def twice(x):\n    return x * {factor}\n", src)
        return src["twice"]

    # Two functions both named `scaled`, with different bodies (defined in this file).
    @tritium.jit
    def scaled(x):
        return x * 3

    first = scaled

    @tritium.jit
    def scaled(x):  # noqa: F811 - a second function of the same name
        return x * 5

    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply[(1,)](x, y, first, 16)
    np.testing.assert_array_equal(y, x * 3)
    apply[(1,)](x, y, scaled, 16)
    np.testing.assert_array_equal(y, x * 5)
    assert apply.signature(x, y, first, 16) != apply.signature(x, y, scaled, 16)


@tritium.jit
def apply_nested(x_ptr, y_ptr, fn: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(y_ptr + i, call_it(fn, tl.load(x_ptr + i)))


@tritium.jit
def call_it(f, v):
    return f(v) + 1


def test_function_passed_on_to_a_nested_jit_function():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply_nested[(1,)](x, y, negate, 16)
    np.testing.assert_array_equal(y, -x + 1)


@tritium.jit
def apply_unannotated(x_ptr, y_ptr, fn, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(y_ptr + i, fn(tl.load(x_ptr + i)))


def test_function_for_a_parameter_without_constexpr():
    # Triton specializes a @jit function as a constant wherever it is passed.
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply_unannotated[(1,)](x, y, double, 16)
    np.testing.assert_array_equal(y, 2 * x)
    assert "jit(double:" in apply_unannotated.signature(x, y, double, 16)


@tritium.jit
def apply_pair(x_ptr, y_ptr, fns, N: tl.constexpr):
    i = tl.arange(0, N)
    v = tl.load(x_ptr + i)
    tl.store(y_ptr + i, fns[1](fns[0](v)))


def test_functions_in_a_tuple_argument():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply_pair[(1,)](x, y, (double, negate), 16)
    np.testing.assert_array_equal(y, -2 * x)


class Closure(NamedTuple):
    fn: tl.constexpr
    captured: tuple


class View(NamedTuple):
    ptr: object
    n: int


@tritium.jit
def make_view(ptr, n):
    return View(ptr=ptr, n=n)


@tritium.jit
def apply_closure(closure, src, dst, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    out = make_view(dst.ptr, dst.n)
    mask = i < src.n
    v = tl.load(src.ptr + i, mask=mask)
    tl.store(out.ptr + i, closure.fn(v, *closure.captured), mask=i < out.n)


def test_namedtuple_arguments_with_a_function_field(rng):
    x = rng.standard_normal(20).astype(np.float32)
    y = np.zeros(20, np.float32)
    s = np.array([2.5], np.float32)
    apply_closure[(1,)](Closure(scale_by, (s,)), View(x, 20), View(y, 20), 32)
    np.testing.assert_allclose(y, x * np.float32(2.5), rtol=0, atol=0)
    text = apply_closure.signature(Closure(scale_by, (s,)), View(x, 20), View(y, 20), 32)
    assert text.startswith("Closure(fn=jit(scale_by:")
    assert "View(ptr=*fp32" in text


@tritium.jit
def read_missing_field(v, out_ptr):
    tl.store(out_ptr, v.size)


def test_missing_namedtuple_field_is_a_located_error():
    out = np.zeros(1, np.int32)
    with pytest.raises(CompilationError, match=r"named tuple View has no field 'size' \(its fields: ptr, n\)"):
        read_missing_field[(1,)](View(out, 3), out)


class Pair(NamedTuple):
    a: int
    b: int = 7


@tritium.jit
def build_pair(out_ptr, x):
    p = Pair(x)
    q = Pair(b=3, a=p.b)
    tl.store(out_ptr, p.a + 10 * p.b + 100 * q.a + 1000 * q.b)


def test_namedtuple_made_in_a_kernel_uses_defaults():
    out = np.zeros(1, np.int32)
    build_pair[(1,)](out, 2)
    assert out[0] == 2 + 70 + 700 + 3000


@tritium.jit
def build_pair_badly(out_ptr):
    p = Pair(c=1)
    tl.store(out_ptr, p.a)


def test_namedtuple_unknown_keyword_is_a_located_error():
    out = np.zeros(1, np.int32)
    with pytest.raises(CompilationError, match="Pair\\(\\) got an unexpected keyword argument 'c'"):
        build_pair_badly[(1,)](out)


def plain_double(x):
    return x * 2


def test_plain_python_function_is_an_error_naming_the_argument():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    with pytest.raises(ArgumentTypeError, match=r"argument 'fn'.*'plain_double' is not a @triton.jit function"):
        apply[(1,)](x, y, plain_double, 16)
    with pytest.raises(TypeError, match=r"argument 'fns\[1\]'.*is not a @triton.jit function"):
        apply_pair[(1,)](x, y, (double, plain_double), 16)
    with pytest.raises(TypeError, match=r"argument 'closure.fn'.*'<lambda>' is not a @triton.jit"):
        apply_closure[(1,)](Closure(lambda v: v, ()), View(x, 16), View(y, 16), 16)


@tritium.constexpr_function
def pick_block(n):
    return 16 if n <= 16 else 32


@tritium.jit
def fill_block(out_ptr, block_of: tl.constexpr, N: tl.constexpr):
    B: tl.constexpr = block_of(N)
    i = tl.arange(0, B)
    tl.store(out_ptr + i, i)


def test_constexpr_function_as_argument():
    out = np.full(32, -1, np.int32)
    fill_block[(1,)](out, pick_block, 8)
    assert out[:16].tolist() == list(range(16)) and (out[16:] == -1).all()
    assert "block_of=jit(pick_block:" in fill_block.signature(out, pick_block, 8)


def test_source_change_recompiles():
    @tritium.jit
    def changing(x):
        return x + 1

    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply[(1,)](x, y, changing, 16)
    np.testing.assert_array_equal(y, x + 1)
    before = apply.signature(x, y, changing, 16)
    changing._unsafe_update_src(changing.src.replace("x + 1", "x + 2"))
    apply[(1,)](x, y, changing, 16)
    np.testing.assert_array_equal(y, x + 2)
    assert apply.signature(x, y, changing, 16) != before


def test_emit_with_function_arguments():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    ir = apply.emit("ir", x, y, negate, 16)
    assert "neg" in ir or "sub" in ir
    text = apply.signature(x, y, negate, 16)
    # Signature text naming a function this kernel has been given parses back.
    assert apply.emit("ir", signature=text) == ir
    with pytest.raises(CompilationError, match="not known to this kernel"):
        apply.emit("ir", signature="*fp32, *fp32, fn=jit(unknown:00), N=16")


def test_gpu_path_compiles_function_arguments():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    s = np.ones(1, np.float32)
    ptx = apply.emit("ptx", x, y, double, 16, arch=90)
    assert ".entry apply" in ptx
    ptx = apply_closure.emit("ptx", Closure(scale_by, (s,)), View(x, 16), View(y, 16), 16, arch=90)
    assert ".entry apply_closure" in ptx


@tritium.jit
def add_combine(a, b):
    return a + b


@tritium.jit
def max_combine(a, b):
    return tl.maximum(a, b)


@tritium.jit
def reduce_with(x_ptr, out_ptr, combine: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr, tl.reduce(x, 0, combine))


def test_function_argument_as_a_reduce_combine_function(rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(1, np.float32)
    reduce_with[(1,)](x, out, max_combine, 32)
    assert out[0] == x.max()
    reduce_with[(1,)](x, out, add_combine, 32)
    # fp32 sums in another order: the error scales with sum(|x|), not with a sum near 0
    np.testing.assert_allclose(out[0], x.sum(dtype=np.float64), rtol=1e-5, atol=1e-6 * np.abs(x).sum())


@tritium.jit
def square(v):
    return v * v


@tritium.jit
def square_plus_one(v):
    return square(v) + 1  # a global @jit function of the argument's own module


def test_function_argument_calls_its_own_globals():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply[(1,)](x, y, square_plus_one, 16)
    np.testing.assert_array_equal(y, x * x + 1)


@tritium.jit
def apply_default(x_ptr, y_ptr, N: tl.constexpr, fn: tl.constexpr = double):
    i = tl.arange(0, N)
    tl.store(y_ptr + i, fn(tl.load(x_ptr + i)))


def test_function_as_a_parameter_default():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    apply_default[(1,)](x, y, 16)
    np.testing.assert_array_equal(y, 2 * x)
    apply_default[(1,)](x, y, 16, fn=negate)
    np.testing.assert_array_equal(y, -x)
    assert "fn=jit(double:default)" in apply_default.signature(x, y, 16)

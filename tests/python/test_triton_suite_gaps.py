"""Gaps found by running Triton's own language tests (tests/triton_suite) under tritium,
each pinned here with tritium's own kernels and numpy references: what Triton's test
helpers import (`triton.knobs`, `tl.str_to_ty`, `type_canonicalisation_dict`,
`InterpreterError`), how they read errors (`e.__cause__`, `e.error_message`), how they
patch a kernel's text (`JITFunction._unsafe_update_src`), the `x.cast(...)` method, and
indexing with more `:` than the block has axes (Triton only counts the `None`s)."""

import importlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritium
import tritium.language as tl

tritium_jit = importlib.import_module("tritium.jit")  # the module (tritium.jit is the decorator)


# ---- x.cast(...) as a method, like x.to(...) ----

@tritium.jit
def cast_method(x_ptr, out_ptr, BITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if BITS:
        y = x.cast(tl.int32, bitcast=True)
    else:
        y = x.cast(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, y)


def test_cast_method(rng):
    x = (rng.standard_normal(64) * 100).astype(np.float32)
    out = np.zeros(64, np.int16)
    cast_method[(1,)](x, out, BITS=False, BLOCK=64)
    np.testing.assert_array_equal(out, x.astype(np.int16))
    bits = np.zeros(64, np.int32)
    cast_method[(1,)](x, bits, BITS=True, BLOCK=64)
    np.testing.assert_array_equal(bits, x.view(np.int32))


# ---- indexing: `:` beyond the rank, `None`s inserted in order ----

@tritium.jit
def index_scalar_pointer(x_ptr, out_ptr, N: tl.constexpr):
    # A scalar pointer indexed [None, None, :] is a 1x1 block of pointers (Triton counts only
    # the Nones); it broadcasts against an (N, N) block.
    p = x_ptr[None, None, :]
    tl.static_assert(p.shape == [1, 1])
    rows = tl.arange(0, N)[:, None]
    cols = tl.arange(0, N)[None, :]
    v = tl.load(p) + (rows * N + cols).to(tl.float32)
    tl.store(out_ptr + rows * N + cols, v)


def test_index_scalar_with_extra_colons(rng):
    x = rng.standard_normal(1).astype(np.float32)
    out = np.zeros((8, 8), np.float32)
    index_scalar_pointer[(1,)](x, out, N=8)
    np.testing.assert_allclose(out, x[0] + np.arange(64, dtype=np.float32).reshape(8, 8))


@tritium.jit
def index_bad_none(x_ptr):
    v = tl.arange(0, 8)
    w = v[:, :, None]  # the third position is past the block's rank (1) at that point
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(w, 1)[:, 0])


def test_index_none_past_rank_is_located_error():
    with pytest.raises(tritium.CompilationError, match=r"invalid axis 2"):
        index_bad_none[(1,)](np.zeros(8, np.int32))


# ---- what Triton's test helpers import ----

def test_str_to_ty_and_canonical_names():
    names = tritium_jit.type_canonicalisation_dict
    assert names["float32"] == "fp32" and names["bool"] == "i1" and names["uint16"] == "u16"
    assert names["float8_e4m3fn"] == "fp8e4nv" and names["bfloat16"] == "bf16"
    assert tl.str_to_ty(names["int64"]) == tl.int64
    assert tl.str_to_ty(names["uint8"]) == tl.uint8
    assert tl.str_to_ty("fp8e5") == tl.float8e5
    assert tl.str_to_ty("*fp16") == tl.pointer_type(tl.float16)
    with pytest.raises(ValueError):
        tl.str_to_ty("fp7")
    assert set(tl.dtype.STANDARD_FP_TYPES) == {"fp16", "bf16", "fp32", "fp64"}


def test_knobs_reflect_environment(monkeypatch):
    from tritium import knobs
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert knobs.runtime.interpret is True
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setenv("TRITIUM_INTERPRET", "0")
    assert knobs.runtime.interpret is False
    assert isinstance(knobs.nvidia.ptxas.version, str)
    assert isinstance(knobs.runtime, knobs.base_knobs)


@tritium.jit
def bad_axis(x_ptr):
    v = tl.arange(0, 8)
    w = tl.expand_dims(v, 3)
    tl.store(x_ptr + tl.arange(0, 8), w)


def test_compilation_error_cause_and_message():
    with pytest.raises(tritium.errors.InterpreterError) as info:
        bad_axis[(1,)](np.zeros(8, np.int32))
    err = info.value
    assert isinstance(err, tritium.CompilationError)
    # The bare message, without the location, as Triton's tests read it.
    assert "axis" in str(err.__cause__) and "bad_axis" not in str(err.__cause__)
    assert err.error_message == err.message and ":" not in err.error_message.split(" ")[0]


# ---- patching a template kernel's text ----

@tritium.jit
def template(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, EXPR)  # noqa: F821 (replaced before launch)


def test_unsafe_update_src(rng):
    x = rng.standard_normal(32).astype(np.float32)
    results = {}
    for expr, ref in [("x * 2.0", x * 2), ("x + 1.0", x + 1)]:
        kernel = tritium.JITFunction(template.fn)
        kernel._unsafe_update_src(kernel.src.replace("EXPR", expr))
        out = np.zeros_like(x)
        kernel[(1,)](x, out, BLOCK=32)
        np.testing.assert_allclose(out, ref, rtol=1e-6)
        results[expr] = out
    assert not np.array_equal(results["x * 2.0"], results["x + 1.0"])


def test_compile_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="not supported by tritium"):
        tritium.compile("kernel.ttgir")


def test_dtype_repr_names_triton_under_the_alias():
    # In a fresh process: the alias changes how dtypes print, and must not leak into others.
    code = textwrap.dedent("""
        import tritium
        import tritium.language as tl
        assert repr(tl.int8) == "tritium.language.int8", repr(tl.int8)
        tritium.use_as_triton()
        import triton
        import triton.language
        assert repr(triton.language.bfloat16) == "triton.language.bfloat16"
        assert eval(repr(triton.language.float32)) == triton.language.float32
        from triton import knobs
        from triton.runtime.jit import type_canonicalisation_dict
        from triton.runtime.errors import InterpreterError
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ---- getattr with a constant name ----

@tritium.jit
def pick_by_name(a_ptr, b_ptr, out_ptr, FN: tl.constexpr, NAN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    r = getattr(tl, FN)(a, b, propagate_nan=getattr(tl.PropagateNan, NAN))
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("fn, ref", [("minimum", np.minimum), ("maximum", np.maximum)])
def test_getattr_constant_name(rng, fn, ref):
    a = rng.standard_normal(32).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    a[3] = np.nan
    out = np.zeros_like(a)
    pick_by_name[(1,)](a, b, out, FN=fn, NAN="ALL", BLOCK=32)
    np.testing.assert_array_equal(out, ref(a, b))  # ALL: the NaN propagates, as numpy's
    assert np.isnan(out[3])
    pick_by_name[(1,)](a, b, out, FN=fn, NAN="NONE", BLOCK=32)
    assert not np.isnan(out[3]) and out[3] == b[3]


@tritium.jit
def getattr_default(out_ptr):
    v = getattr(tl, "no_such_builtin", 7)
    tl.store(out_ptr, v)


def test_getattr_default():
    out = np.zeros(1, np.int32)
    getattr_default[(1,)](out)
    assert out[0] == 7


# ---- a ternary of two calls that return nothing ----

@tritium.jit
def void_ternary(a_ptr, b_ptr, out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(a_ptr + pid)) if pid % 2 == 0 else tl.store(out_ptr + pid, tl.load(b_ptr + pid))


def test_void_ternary(rng):
    a = rng.standard_normal(6).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    out = np.zeros(6, np.float32)
    void_ternary[(6,)](a, b, out)
    np.testing.assert_array_equal(out, np.where(np.arange(6) % 2 == 0, a, b))


# ---- range bounds by name ----

@tritium.jit
def ranges_by_name(out_ptr, N: tl.constexpr, STEP: tl.constexpr, n):
    acc = 0
    for i in tl.static_range(0, N, step=STEP):
        acc += i
    tl.store(out_ptr, acc)
    acc2 = 0
    for j in tl.range(2, n, step=3):
        acc2 += j
    tl.store(out_ptr + 1, acc2)
    acc3 = 0
    for k in tl.range(n, step=2):
        acc3 += k
    tl.store(out_ptr + 2, acc3)


def test_range_step_keyword():
    out = np.zeros(3, np.int32)
    ranges_by_name[(1,)](out, N=50, STEP=7, n=20)
    assert list(out) == [sum(range(0, 50, 7)), sum(range(2, 20, 3)), sum(range(0, 20, 2))]


# ---- @jit(repr=...) names the compiled handle; JITFunction(fn) keeps the decorator's lists ----

def _name_of(spec):
    kinds = "_".join(f"{k}-{v}" for k, v in spec.signature.items())
    ones = "_".join(k for k, v in spec.constants.items() if v == 1)
    return f"k_{kinds}_{ones}"


@tritium.jit(repr=_name_of)
def named_kernel(value, is_one, x_ptr, B: tl.constexpr):
    tl.store(x_ptr, value + is_one + B)


def test_repr_names_the_handle():
    x = np.zeros(1, np.int64)
    h = named_kernel[(1,)](-5, 1, x, B=3)
    assert x[0] == -1
    assert h.name == h.metadata.name
    assert "value-i32" in h.name and "is_one-constexpr" in h.name and h.name.endswith("_is_one")
    assert "B-constexpr" in h.name
    h = named_kernel[(1,)](2**40, 1, x, B=3)
    assert "value-i64" in h.name and x[0] == 2**40 + 4


@tritium.jit(do_not_specialize=["n"])
def dns_template(x_ptr, n):
    tl.store(x_ptr, n * 2)


def test_jitfunction_of_decorated_function_keeps_source_lists():
    k = tritium.JITFunction(dns_template.fn)  # no lists given: the source's decorator holds
    x = np.zeros(1, np.int32)
    k[(1,)](x, 21)
    assert x[0] == 42


@tritium.jit
def const_annotated(in_ptr: tl.const, out_ptr, n: tl.int32, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask) + 1.0, mask=mask)


def test_const_annotation_accepted(rng):
    x = rng.standard_normal(20).astype(np.float32)
    out = np.zeros_like(x)
    const_annotated[(1,)](x, out, 20, BLOCK=32)
    np.testing.assert_allclose(out, x + 1.0)


@tritium.jit
def store_to_const(in_ptr: tl.const, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = in_ptr + 1  # still a pointer to constant data
    for i in range(2):  # and through a loop's carried value
        p = p + 1
    tl.store(p + offs, tl.load(out_ptr + offs))


@tritium.jit
def merge_const_if(in_ptr: tl.const, out_ptr, pick, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if pick:
        dst = in_ptr
    else:
        dst = out_ptr
    tl.store(out_ptr + offs, tl.load(dst + offs))


@tritium.jit
def merge_const_ternary(in_ptr: tl.const, out_ptr, pick, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dst = in_ptr if pick else out_ptr
    tl.store(out_ptr + offs, tl.load(dst + offs))


@tritium.jit
def choose(a, b, pick):
    if pick:
        return b
    else:
        return a


@tritium.jit
def merge_const_return(in_ptr: tl.const, out_ptr, pick, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dst = choose(out_ptr, in_ptr, pick)
    tl.store(out_ptr + offs, tl.load(dst + offs))


@pytest.mark.parametrize("kernel, message", [
    (store_to_const, "Cannot store to a constant pointer"),
    (merge_const_if, "Mismatched type for dst"),
    (merge_const_ternary, "Ternary expression with dynamic condition has inconsistent type"),
    (merge_const_return, "Inconsistent return types"),
])
def test_const_pointer_errors(kernel, message):
    x = np.zeros(16, np.float32)
    args = (x, np.zeros(16, np.float32)) + ((1,) if kernel is not store_to_const else ())
    with pytest.raises(tritium.CompilationError, match=message):
        kernel[(1,)](*args, BLOCK=8)


# ---- a tuple given to a tl.constexpr parameter ----

@tritium.jit
def reshape_to(z_ptr, x_ptr, shape: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    z = tl.reshape(x, shape)
    tl.static_assert(len(shape) == 2)
    rows = tl.arange(0, shape[0])[:, None]
    cols = tl.arange(0, shape[1])[None, :]
    tl.store(z_ptr + rows * shape[1] + cols, z)


@pytest.mark.parametrize("shape", [(8, 8), (4, 16), (16, 4)])
def test_tuple_constexpr_parameter(rng, shape):
    x = rng.integers(-100, 100, 64).astype(np.int32)
    z = np.zeros(shape, np.int32)
    h = reshape_to[(1,)](z, x, shape, 64)
    np.testing.assert_array_equal(z, x.reshape(shape))
    # The signature text of the specialization reads back (the handle's asm re-emits it).
    assert "constexpr(" in h.signature
    assert "reshape" in reshape_to.emit("ir", signature=h.signature)


def test_tuple_constexpr_parameter_rejects_pointers():
    x = np.zeros(64, np.int32)
    with pytest.raises(tritium.LaunchError, match="cannot be a compile-time constant"):
        reshape_to[(1,)](x, x, (x, 8), 64)


# ---- launch options out of range are AssertionErrors too (Triton asserts them) ----

@tritium.jit
def nothing(x_ptr):
    pass


@pytest.mark.parametrize("option, value, message", [
    ("num_warps", 3, "num_warps must be a power of 2"),
    ("num_ctas", 3, "num_ctas must be a power of 2"),
    ("num_stages", 0, "num_stages must be at least 1"),
])
def test_bad_launch_option_is_assertion_error(option, value, message):
    x = np.zeros(1, np.float32)
    with pytest.raises(AssertionError, match=message) as info:
        nothing[(1,)](x, **{option: value})
    assert isinstance(info.value, tritium.LaunchError)
    assert isinstance(info.value, tritium.errors.LaunchOptionError)
    nothing[(1,)](x, **{option: 1 if option != "num_stages" else 2})


# ---- int8/int16 division of the minimum by -1 (C promotes to int: defined) ----

@tritium.jit
def narrow_div_rem(x_ptr, q_ptr, r_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(q_ptr + offs, x // -1)
    tl.store(r_ptr + offs, x % -1)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_narrow_min_div_minus_one(rng, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, 16).astype(dtype)
    x[0] = info.min
    q = np.zeros_like(x)
    r = np.ones_like(x)
    narrow_div_rem[(1,)](x, q, r, BLOCK=16)
    # C: the quotient is computed in int and truncated back (the minimum wraps to itself),
    # the remainder is 0.
    np.testing.assert_array_equal(q, (-(x.astype(np.int32))).astype(dtype))
    np.testing.assert_array_equal(r, np.zeros_like(x))

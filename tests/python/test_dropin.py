"""Corners of Triton that kernels of popular projects use and that a drop-in must accept
unchanged (a survey of real kernels for the language features and host APIs they use;
docs/DESIGN.md, "Drop-in survey"): `x.type` (`Out.type.element_ty`, the dtype a result is
stored as), and Triton's submodules reached through `tl` from host code (`tl.math.exp2`,
`tl.extra.cuda.libdevice.tanh`, `tl.core.tensor`). Each kernel also compiles to PTX."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


def ptx(kernel, *args, **kwargs):
    text = kernel.emit("ptx", *args, arch=90, **kwargs)
    assert ".entry" in text
    return text


# ---- x.type: a scalar's dtype, a block's block_type ----

@tritium.jit
def store_as_out_type(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(x_ptr + offs, mask=mask).to(tl.float32) * 3.0
    # The pointer argument's type is a pointer_type; its element_ty is what it points to.
    tl.store(out_ptr + offs, acc.to(out_ptr.type.element_ty), mask=mask)


@pytest.mark.parametrize("out_dtype", [np.float16, np.float32, np.int32])
def test_pointer_type_element_ty(rng, out_dtype):
    x = (rng.standard_normal(100) * 10).astype(np.float32)
    out = np.zeros(100, out_dtype)
    store_as_out_type[(1,)](x, out, 100, BLOCK=128)
    np.testing.assert_array_equal(out, (x * 3.0).astype(out_dtype))
    text = ptx(store_as_out_type, x, out, 100, BLOCK=128)
    assert {np.float16: "st.global.b16", np.float32: "st.global.b32",
            np.int32: "st.global.b32"}[out_dtype] in text.replace(".v2", "").replace(".v4", "")


@tritium.jit
def block_type_kernel(x_ptr, y_ptr, out_ptr, info_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows[:, None] * BLOCK + rows[None, :])
    y = tl.load(y_ptr + rows[:, None] * BLOCK + rows[None, :])
    # A block's type: element_ty / scalar is the element dtype, shape its shape.
    p = (x * 2).to(y.type.element_ty)
    tl.static_assert(x.type.shape == (BLOCK, BLOCK))  # a tuple, as in Triton 3.6
    tl.static_assert(x.type.is_block() and not x.type.is_ptr())
    tl.static_assert(x.type.scalar == tl.float32 and y.type.element_ty == tl.float16)
    tl.static_assert(x.type.get_block_shapes() == (BLOCK, BLOCK))
    tl.store(out_ptr + rows[:, None] * BLOCK + rows[None, :], p + y)
    # A scalar's type is its dtype, with the dtype's methods.
    s = tl.load(x_ptr)
    tl.store(info_ptr, s.type.is_floating() + 2 * (x_ptr + rows).type.element_ty.is_ptr()
             + 4 * x.type.numel)


def test_block_type_attributes(rng):
    x = rng.standard_normal((16, 16)).astype(np.float32)
    y = rng.standard_normal((16, 16)).astype(np.float16)
    out = np.zeros((16, 16), np.float16)
    info = np.zeros(1, np.int32)
    block_type_kernel[(1,)](x, y, out, info, BLOCK=16)
    np.testing.assert_array_equal(out, (x * 2).astype(np.float16) + y)
    assert info[0] == 1 + 2 + 4 * 256
    ptx(block_type_kernel, x, y, out, info, BLOCK=16)


def test_block_type_unknown_attribute_is_a_located_error():
    @tritium.jit
    def bad(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        tl.store(x_ptr, x.type.ndim)

    with pytest.raises(tritium.CompilationError, match=r"test_dropin.py:\d+:\d+: error: a block type has "
                       r"no attribute 'ndim'"):
        bad[(1,)](np.zeros(16, np.float32), BLOCK=16)


@tritium.jit
def block_ptr_type_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    dst = tl.make_block_ptr(out_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    # A block pointer's type is its dtype: pointer_type(block_type); element_ty converts.
    tl.store(dst, (tl.load(src) * 2).to(dst.type.element_ty))


def test_block_pointer_type_element_ty(rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float16)
    block_ptr_type_kernel[(1,)](x, out, BLOCK=32)
    np.testing.assert_array_equal(out, (x * 2).astype(np.float16))
    ptx(block_ptr_type_kernel, x, out, BLOCK=32)


# ---- isinstance() on constexprs: Triton unwraps them first ----

@tritium.jit
def isinstance_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, SCALE: tl.constexpr, FLAG: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    code = (isinstance(BLOCK, int) + 2 * isinstance(BLOCK, float) + 4 * isinstance(SCALE, float)
            + 8 * isinstance(SCALE, int) + 16 * isinstance(BLOCK, tl.constexpr)
            + 32 * isinstance(x, tl.tensor) + 64 * isinstance(x, int) + 128 * isinstance(FLAG, int))
    if isinstance(SCALE, float):
        x = x * SCALE
    tl.store(out_ptr + tl.arange(0, BLOCK), x)
    tl.store(out_ptr + BLOCK, code)


def test_isinstance_of_python_types(rng):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.zeros(9, np.float32)
    isinstance_kernel[(1,)](x, out, BLOCK=8, SCALE=0.5, FLAG=True)
    np.testing.assert_array_equal(out[:8], x * np.float32(0.5))
    assert out[8] == 1 + 4 + 32 + 128  # Triton 3.6 prints the same for these tests
    isinstance_kernel[(1,)](x, out, BLOCK=8, SCALE=3, FLAG=True)
    np.testing.assert_array_equal(out[:8], x)
    assert out[8] == 1 + 8 + 32 + 128


# ---- Triton's submodules through `tl` in host code ----

exp2_alias = tl.math.exp2
tanh_alias = tl.extra.cuda.libdevice.tanh


@tritium.jit
def submodule_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x: tl.core.tensor = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, exp2_alias(x) + tanh_alias(x) + tl.extra.cuda.libdevice.tanh(x))


def test_language_submodules_from_host_code(rng):
    assert tl.math.exp2 is tl.extra.libdevice.exp2
    assert tl.core.tensor is tl.tensor and tl.standard.sum is tl.sum and tl.random.rand is tl.rand
    assert "math" in tl.__all__ and "extra" in tl.__all__
    x = rng.random(32).astype(np.float32)
    out = np.zeros_like(x)
    submodule_kernel[(1,)](x, out, BLOCK=32)
    np.testing.assert_allclose(out, np.exp2(x) + 2 * np.tanh(x), rtol=1e-5)
    ptx(submodule_kernel, x, out, BLOCK=32)


# ---- shapes compared with tuples and lists ----

@tritium.jit
def shape_compare_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    # In a Triton 3.6 kernel a list literal is a tuple: both spellings compare by items.
    tl.static_assert(x.shape == (M, N) and x.shape == [M, N] and [M, N] == (M, N))
    tl.store(out_ptr, (x.shape == (M, N + 1)) + 2 * (x.shape != [M, N]) + 4 * (x.shape == (M,))
             + 8 * (x.type.shape == [M, N]))


def test_shape_equals_tuple_and_list():
    out = np.full(1, -1, np.int32)
    shape_compare_kernel[(1,)](np.zeros(32, np.float32), out, M=4, N=8)
    assert out[0] == 8


# ---- triton.runtime.driver.active: what benchmarking and launch helpers call ----

def test_driver_stream_and_benchmarker_in_the_interpreter():
    active = tritium.runtime.driver.active
    assert active.get_current_stream() == 0  # the default stream: no GPU in the interpreter
    assert active.get_current_stream(0) == 0
    assert active.get_benchmarker() is tritium.testing.do_bench

    class Cache:
        zeroed = False

        def zero_(self):
            self.zeroed = True

    cache = Cache()
    active.clear_cache(cache)
    assert cache.zeroed


# ---- tl.constexpr_function: Python run at compile time on constexprs ----

@tritium.constexpr_function
def log2_of(n):
    return n.bit_length() - 1


@tl.constexpr_function
def compute_dtype(kind, bits=32):
    return tl.float16 if kind == "half" else (tl.float32 if bits == 32 else tl.float64)


@tritium.constexpr_function
def refuses(n):
    raise ValueError(f"no plan for {n}")


@tritium.jit
def constexpr_function_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, KIND: tl.constexpr):
    LOG: tl.constexpr = log2_of(BLOCK)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(compute_dtype(KIND, bits=32))
    tl.store(out_ptr + offs, x.to(tl.float32) * LOG)


def test_constexpr_function(rng):
    assert log2_of(tl.constexpr(64)) == 6  # from host code: the plain function
    x = rng.random(16).astype(np.float32)
    out = np.zeros_like(x)
    constexpr_function_kernel[(1,)](x, out, BLOCK=16, KIND="full")
    np.testing.assert_array_equal(out, x * 4)
    constexpr_function_kernel[(1,)](x, out, BLOCK=16, KIND="half")
    np.testing.assert_array_equal(out, x.astype(np.float16).astype(np.float32) * 4)
    text = ptx(constexpr_function_kernel, x, out, BLOCK=16, KIND="half")
    assert "cvt.rn.f16.f32" in text


def test_constexpr_function_errors_are_located():
    @tritium.jit
    def raises(x_ptr, BLOCK: tl.constexpr):
        N: tl.constexpr = refuses(BLOCK)
        tl.store(x_ptr, N)

    @tritium.jit
    def tensor_argument(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        N: tl.constexpr = log2_of(x)
        tl.store(x_ptr, N)

    x = np.zeros(16, np.float32)
    with pytest.raises(tritium.CompilationError,
                       match=r"test_dropin.py:\d+:\d+: error: refuses\(\): raised ValueError: no plan for 16"):
        raises[(1,)](x, BLOCK=16)
    with pytest.raises(tritium.CompilationError,
                       match=r"test_dropin.py:\d+:\d+: error: the constexpr_function log2_of\(\) takes "
                             r"compile-time constants; its argument 1 is a tensor"):
        tensor_argument[(1,)](x, BLOCK=16)


# ---- a constexpr_function returning a @jit function (an activation looked up by name) ----

@tritium.jit
def _relu_act(x):
    return tl.maximum(x, 0.0)


@tritium.jit
def _square_act(x):
    return x * x


_ACTIVATIONS = {"relu": _relu_act, "square": _square_act}


@tritium.constexpr_function
def activation_named(name):
    return _ACTIVATIONS[name]


@tritium.jit
def _never_named_act(x):
    return x + 1.0


_HIDDEN = [None]


@tritium.constexpr_function
def hidden_activation():
    return globals()["_HIDDEN"][0]


@tritium.jit
def activation_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, ACT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    act = activation_named(ACT)
    tl.store(out_ptr + offs, act(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("name", ["relu", "square"])
def test_constexpr_function_returns_jit_function(rng, name):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros_like(x)
    activation_kernel[(1,)](x, out, BLOCK=32, ACT=name)
    np.testing.assert_array_equal(out, np.maximum(x, 0) if name == "relu" else x * x)
    text = ptx(activation_kernel, x, out, BLOCK=32, ACT=name)
    assert ("max.f32" in text) == (name == "relu")


def test_constexpr_function_returning_unnamed_jit_function_is_a_located_error():
    @tritium.jit
    def uses_hidden(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        act = hidden_activation()
        tl.store(x_ptr + offs, act(tl.load(x_ptr + offs)))

    _HIDDEN[0] = _never_named_act
    with pytest.raises(tritium.CompilationError,
                       match=r"test_dropin.py:\d+:\d+: error: hidden_activation\(\): returned the @jit "
                             r"function _never_named_act, which its body does not name"):
        uses_hidden[(1,)](np.zeros(16, np.float32), BLOCK=16)


# ---- host-side attributes of a JITFunction that libraries read ----

@tritium.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[0])
def attributes_kernel(x_ptr, n, scale: tl.float32, BLOCK: tl.constexpr = 64, ODD: tl.constexpr = None):
    """Scales x in place."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)


def test_jit_function_host_attributes():
    import inspect
    import hashlib  # noqa: F401  (the key is a sha256 hex digest)

    k = attributes_kernel
    assert k.arg_names == ["x_ptr", "n", "scale", "BLOCK", "ODD"]
    assert [p.name for p in k.params] == k.arg_names
    assert [p.num for p in k.params] == [0, 1, 2, 3, 4]
    assert [p.is_constexpr for p in k.params] == [False, False, False, True, True]
    assert k.constexprs == [3, 4]
    assert [p.do_not_specialize for p in k.params] == [False, True, False, False, False]
    assert [p.do_not_specialize_on_alignment for p in k.params] == [True, False, False, False, False]
    assert k.params[2].annotation == "fp32" and k.params[3].annotation == "constexpr"
    assert k.params[0].annotation == "" and not k.params[0].has_default
    assert k.params[3].has_default and k.params[3].default == 64
    assert k.params[4].has_default and k.params[4].default is None
    assert isinstance(k.signature, inspect.Signature)
    assert list(k.signature.parameters) == k.arg_names
    assert k.signature.parameters["BLOCK"].default == 64
    # The specialization text stays reachable by calling it with example arguments.
    assert k.signature(np.zeros(64, np.float32), 64, 2.0) == "*fp32, i32, fp32, BLOCK=64, ODD=None"
    assert k.__name__ == "attributes_kernel" and k.__module__ == __name__
    assert k.__doc__ == "Scales x in place."
    assert k.__globals__ is globals()
    assert k.fn.__name__ == "attributes_kernel" and callable(k.fn)
    assert "def attributes_kernel(" in k.src
    assert k.starting_line_number == inspect.getsourcelines(k.fn)[1]
    assert k.repr(None) == "attributes_kernel"
    key = k.cache_key
    assert isinstance(key, str) and len(key) == 64 and int(key, 16) >= 0
    assert key == attributes_kernel.cache_key
    assert key != activation_kernel.cache_key


def test_cache_key_follows_callee_sources():
    # Two kernels with the same text calling different helpers have different keys.
    def make(helper):
        @tritium.jit
        def caller(x_ptr):
            tl.store(x_ptr, helper(tl.load(x_ptr)))
        return caller

    assert make(_relu_act).cache_key != make(_square_act).cache_key
    assert make(_relu_act).cache_key == make(_relu_act).cache_key


def test_jit_repr_option():
    @tritium.jit(repr=lambda spec: "named_by_repr")
    def k(x_ptr):
        tl.store(x_ptr, 1.0)

    assert k.repr(None) == "named_by_repr"


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

"""The launch interface: grid callables and META, keyword arguments and defaults,
do_not_specialize, warmup and emit, globals and @jit callees, and the interpreter notice."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritium
import tritium.language as tl

SCALE = tl.constexpr(3)
OFFSET = 5
OUT_DTYPE = tl.float16


@tritium.jit
def axpy(x_ptr, out_ptr, n, alpha=2.0, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask), mask=mask)


def test_grid_callable_gets_meta(rng):
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (tritium.cdiv(meta["n"], meta["BLOCK"]),)

    axpy[grid](x, out, n, BLOCK=256)
    np.testing.assert_array_equal(out, np.float32(2.0) * x)
    (meta,) = seen
    assert list(meta) == ["x_ptr", "out_ptr", "n", "alpha", "BLOCK"]
    assert meta["x_ptr"] is x and meta["out_ptr"] is out
    assert meta["n"] == n and meta["alpha"] == 2.0 and meta["BLOCK"] == 256


def test_kwargs_and_defaults(rng):
    n = 300
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    axpy[(3,)](x, out, n)  # alpha = 2.0, BLOCK = 128 by default
    np.testing.assert_array_equal(out, np.float32(2.0) * x)
    out.fill(np.nan)
    axpy[(5,)](out_ptr=out, x_ptr=x, BLOCK=64, n=n, alpha=-0.5)
    np.testing.assert_array_equal(out, np.float32(-0.5) * x)
    assert axpy.bind(x, out, n) == {"x_ptr": x, "out_ptr": out, "n": n, "alpha": 2.0,
                                    "BLOCK": 128}


def test_python_floats_reach_the_kernel_as_fp32(rng):
    n = 64
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    alpha = 0.1  # not exact in fp32: the kernel multiplies by float32(0.1)
    axpy[(1,)](x, out, n, alpha, BLOCK=64)
    np.testing.assert_array_equal(out, np.float32(alpha) * x)
    assert axpy.signature(x, out, n, alpha, BLOCK=64).split(", ")[3] == "fp32"


@tritium.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@tritium.jit(do_not_specialize=["n"])
def copy_no_specialize(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@tritium.jit(do_not_specialize_on_alignment=["x_ptr", "n"])
def copy_no_alignment(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def aligned(n, dtype=np.float32):
    """An array whose data address is a multiple of 64."""
    raw = np.zeros(n * np.dtype(dtype).itemsize + 64, np.uint8)
    start = -raw.__array_interface__["data"][0] % 64
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


def test_do_not_specialize(rng):
    x, out = aligned(64), aligned(64)
    assert copy_kernel.signature(x, out, 32, 64) == "*fp32:16, *fp32:16, i32:16, BLOCK=64"
    assert copy_kernel.signature(x, out, 1, 64) == "*fp32:16, *fp32:16, 1, BLOCK=64"
    assert copy_no_specialize.signature(x, out, 32, 64) == "*fp32:16, *fp32:16, i32, BLOCK=64"
    assert copy_no_specialize.signature(x, out, 1, 64) == "*fp32:16, *fp32:16, i32, BLOCK=64"
    assert copy_no_alignment.signature(x, out, 32, 64) == "*fp32, *fp32:16, i32, BLOCK=64"
    assert copy_no_alignment.signature(x, out, 1, 64) == "*fp32, *fp32:16, 1, BLOCK=64"
    for kernel in (copy_kernel, copy_no_specialize, copy_no_alignment):
        for n in (1, 32, 50):
            x[:] = rng.standard_normal(64)
            out.fill(np.nan)
            kernel[(1,)](x, out, n, BLOCK=64)
            np.testing.assert_array_equal(out[:n], x[:n])
            assert np.isnan(out[n:]).all()


def test_warmup_compiles_without_launching(rng):
    x = rng.standard_normal(100).astype(np.float32)
    out = np.full(100, np.nan, np.float32)
    copy_kernel.warmup(x, out, 100, BLOCK=128, grid=(1,))
    assert np.isnan(out).all()


def test_emit_stages():
    x, out = aligned(16), aligned(16)
    signature = copy_kernel.signature(x, out, 16, BLOCK=16)
    for stage in ("ast", "ir", "ir-opt"):
        by_args = copy_kernel.emit(stage, x, out, 16, BLOCK=16)
        assert by_args and by_args == copy_kernel.emit(stage, signature=signature)
    for arch in (80, 90):
        ptx = copy_kernel.emit("ptx", signature=signature, arch=arch)
        assert ".visible .entry copy_kernel" in ptx and f".target sm_{arch}" in ptx
    assert "define" in copy_kernel.emit("llvm", signature=signature, arch=90)
    with pytest.raises(ValueError, match="unknown stage"):
        copy_kernel.emit("sass", signature=signature)


@tritium.jit
def scaled(x, y):
    return x * SCALE + y


@tritium.jit
def kernel_with_globals(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, scaled(x, OFFSET).to(OUT_DTYPE), mask=mask)


def test_globals_and_callees(rng):
    n = 200
    x = rng.integers(-100, 100, n).astype(np.float32)
    out = np.full(n, np.nan, np.float16)
    kernel_with_globals[(2,)](x, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, (x * 3 + 5).astype(np.float16))


@tritium.jit
def typed_fill(out_ptr, value, n, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full([BLOCK], value, DTYPE), mask=offs < n)


@pytest.mark.parametrize("value", [True, False, -7, 3, 1])
def test_scalar_kinds_and_dtype_arguments(value):
    out = np.full(16, -1, np.int32)
    typed_fill[(1,)](out, value, 10, tl.int32, BLOCK=16)
    np.testing.assert_array_equal(out, [int(value)] * 10 + [-1] * 6)
    if isinstance(value, bool):
        expected = "i1"  # bools before ints: never folded, never divisible
    else:
        expected = "1" if value == 1 else "i32"
    assert typed_fill.signature(out, value, 10, tl.int32, 16).split(", ")[1] == expected
    assert "DTYPE=" in typed_fill.signature(out, value, 10, tl.constexpr(tl.int32), 16)


def test_numpy_scalars_as_arguments():
    out = np.full(16, -1, np.int32)
    typed_fill[(1,)](out, np.int64(9), np.int32(4), tl.int32, BLOCK=16)
    np.testing.assert_array_equal(out, [9] * 4 + [-1] * 12)


def test_interpreter_notice_printed_once():
    root = pathlib.Path(__file__).resolve().parent
    program = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(root)!r})
        import numpy as np
        import test_launch as t
        x = np.arange(64, dtype=np.float32)
        out = np.zeros(64, np.float32)
        for n in (64, 32, 64):
            t.copy_kernel[(1,)](x, out, n, BLOCK=64)
        assert (out == x).all()
    """)
    env = dict(os.environ)
    env.pop("TRITIUM_INTERPRET", None)  # the notice is for the automatic choice
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    result = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if "interpreter" in line]
    assert len(notices) == 1, result.stderr
    assert notices[0].startswith("tritium:")

"""The Triton-language prelude (src/lower/prelude/standard.py, issue 7): tl.cdiv, tl.sigmoid,
tl.softmax, tl.zeros_like, tl.ravel and tl.swizzle2d are @jit functions that tritium's
frontend parses and inlines. They keep Triton's results, keyword arguments and tensor
methods, and everything the user sees (compile errors raised inside the prelude, the
locations of the ops it makes) points at the user's call, never into the prelude. The GPU
runs the same kernels in tests/gpu/test_gpu_prelude.py."""

import importlib.util
import os
import re
import tempfile

import numpy as np
import pytest

import tritium
import tritium.language as tl

C = pytest.importorskip("tritium._C")

# The builtins written in the prelude: those moved there from C++, and Triton 3.6 names added
# there (test_triton36_names.py).
MOVED = {"cdiv", "sigmoid", "softmax", "zeros_like", "ravel", "swizzle2d", "add", "sub", "mul", "reduce_or",
         "condition"}


def load_kernel(src, name="kernel"):
    path = os.path.join(tempfile.mkdtemp(), "k_user.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_user", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def located_error(src, match, *args, **kwargs):
    """Runs the kernel in `src`, expects a CompilationError matching `match`; returns the
    (line, col) it names in the kernel's file (line 1 of `src` is line 3 of the file)."""
    with pytest.raises(tritium.CompilationError, match=match) as info:
        load_kernel(src)[(1,)](*args, **kwargs)
    text = str(info.value)
    assert "<tritium prelude>" not in text and "standard.py" not in text
    found = re.search(r"k_user\.py:(\d+):(\d+)", text)
    assert found, text
    return int(found.group(1)) - 2, int(found.group(2))


def test_the_prelude_builtins_are_registered_as_prelude():
    prelude = set(C.prelude_builtins())
    assert prelude == MOVED
    builtins = C.builtins()
    assert all(builtins[name][0] for name in prelude)
    assert {name for name in prelude if builtins[name][1]} == {"sigmoid", "softmax", "ravel", "reduce_or", "cdiv"}
    assert not any(name.startswith("_") for name in builtins)  # helpers stay private


@tritium.jit
def cdiv_kernel(x_ptr, d_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    d = tl.load(d_ptr + offs)
    tl.store(out_ptr + offs, tl.cdiv(x, d))
    tl.static_assert(tl.cdiv(10, 4) == 3)
    tl.static_assert(tl.cdiv(x=9, div=3) == 3)
    tl.store(out_ptr + N + offs, tl.cdiv(x, div=4) + tl.zeros_like(x))


def test_cdiv():
    x = np.arange(1, 17, dtype=np.int32) * 7
    d = np.arange(1, 17, dtype=np.int32)
    out = np.zeros(32, np.int32)
    cdiv_kernel[(1,)](x, d, out, N=16)
    np.testing.assert_array_equal(out[:16], -(-x // d))
    np.testing.assert_array_equal(out[16:], -(-x // 4))


@tritium.jit
def sigmoid_softmax_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(out_ptr + rows * N + cols, tl.sigmoid(x))
    tl.store(out_ptr + M * N + rows * N + cols, x.sigmoid())
    tl.store(out_ptr + 2 * M * N + rows * N + cols, tl.softmax(x, dim=1, keep_dims=True))
    tl.store(out_ptr + 3 * M * N + rows * N + cols, x.softmax(0))
    tl.store(out_ptr + 4 * M * N + rows * N + cols, tl.softmax(x, 1, True, ieee_rounding=True))


def test_sigmoid_and_softmax(rng):
    m, n = 4, 16
    x = (rng.standard_normal((m, n)) * 3).astype(np.float32)
    out = np.zeros((5, m, n), np.float32)
    sigmoid_softmax_kernel[(1,)](x, out, M=m, N=n)
    ref = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(out[0], ref, rtol=1e-6)
    np.testing.assert_array_equal(out[1], out[0])
    e1 = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[2], e1 / e1.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(out[4], out[2])
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    np.testing.assert_allclose(out[3], e0 / e0.sum(axis=0, keepdims=True), rtol=1e-5)


@tritium.jit
def zeros_ravel_swizzle_kernel(x_ptr, out_ptr, n_rows, g, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    flat = tl.ravel(x) + x.ravel(can_reorder=False)
    z = tl.zeros_like(flat, dtype=tl.int64) + 3
    tl.store(out_ptr + tl.arange(0, M * N), flat + z.to(tl.float32) + tl.zeros_like(flat))
    r = tl.arange(0, M * N) // N
    c = tl.arange(0, M * N) % N
    i, j = tl.swizzle2d(r, c, n_rows, N, size_g=g)
    tl.store(out_ptr + M * N + tl.arange(0, M * N), (i * N + j).to(tl.float32))


def zeros_ravel_swizzle_ref(x, m, n, rows, g):
    want = []
    for k in range(m * n):
        r, c = divmod(k, n)  # Triton's standard.py swizzle2d, in Python
        ij = r * n + c
        group_id = ij // (g * n)
        off_i = group_id * g
        size_g = min(rows - off_i, g)
        ij %= g * n
        want.append((off_i + ij % size_g) * n + ij // size_g)
    return np.concatenate([2 * x.reshape(-1) + 3, np.array(want, np.float32)])


def test_zeros_like_ravel_swizzle2d(rng):
    m, n, rows, g = 8, 4, 7, 3
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = np.zeros(2 * m * n, np.float32)
    zeros_ravel_swizzle_kernel[(1,)](x, out, rows, g, M=m, N=n)
    np.testing.assert_array_equal(out, zeros_ravel_swizzle_ref(x, m, n, rows, g))


# ---- errors point at the user's call, not into the prelude ----

def test_an_error_inside_the_prelude_is_located_at_the_call():
    # tl.exp in sigmoid's body refuses fp16, as the C++ handler did.
    src = """
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.sigmoid(x))
"""
    assert located_error(src, r"tl\.exp expects fp32 or fp64, got fp16", np.zeros(16, np.float16)) == (5, 40)


def test_a_method_error_inside_the_prelude_is_located_at_the_call():
    src = """
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = x + 1
    tl.store(x_ptr + tl.arange(0, 16), y.softmax(dim=3))
"""
    line, col = located_error(src, r"axis 3 is out of range|invalid axis|out of range", np.zeros(16, np.float32))
    assert (line, col) == (6, 40)


@pytest.mark.parametrize("call, match", [
    ("tl.cdiv(x)", r"cdiv\(\) missing required argument 'div'"),
    ("tl.cdiv(x, 2, 3)", r"cdiv\(\) takes 2 arguments but 3 were given"),
    ("tl.softmax(x, axis=0)", r"softmax\(\) got an unexpected keyword argument 'axis'"),
    ("tl.ravel(x, can_reorder=True, x=x)", r"ravel\(\) got multiple values for argument 'x'"),
    ("tl.zeros_like(x_ptr + tl.arange(0, 16))", r"zeros_like of a pointer tensor is not supported"),
])
def test_argument_errors_are_located_at_the_call(call, match):
    src = f"""
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = {call}
    tl.store(x_ptr + tl.arange(0, 16), x)
"""
    assert located_error(src, match, np.zeros(16, np.float32)) == (5, 9)


def test_ops_made_by_the_prelude_are_located_at_the_call():
    # A division by zero inside cdiv is reported where the interpreter observes it, naming
    # the division's location: the user's tl.cdiv, not the prelude's `//`.
    src = """
@tritium.jit
def kernel(x_ptr, d_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    d = tl.load(d_ptr + tl.arange(0, 16))
    q = tl.cdiv(x, d)
    tl.store(x_ptr + tl.arange(0, 16), q)
"""
    line, col = located_error(src, r"integer division by zero", np.ones(16, np.int32), np.zeros(16, np.int32))
    assert (line, col) == (6, 9)

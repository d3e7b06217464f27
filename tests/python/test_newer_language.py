"""The newer Triton language (issue 10, item 11) and standard-library corners: keyword-only
parameters of kernels and helpers, tl.squeeze / tl.unsqueeze, constexpr values returned
from @jit helpers (a constexpr when every path returns the same one, else a runtime value),
tl.swizzle2d as Triton's standard.py computes it, and tl.gather with Triton's checks. The
GPU runs the same kernels in tests/gpu/test_gpu_newer_language.py."""

import importlib.util
import os
import tempfile

import numpy as np
import pytest

import tritium
import tritium.language as tl


def load_kernel(src, name="kernel"):
    path = os.path.join(tempfile.mkdtemp(), "k_newer.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_newer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def compile_error(src, match, *args, **kwargs):
    with pytest.raises(tritium.CompilationError, match=match) as info:
        load_kernel(src)[(1,)](*args, **kwargs)
    assert "k_newer.py:" in str(info.value)
    return str(info.value)


# ---- keyword-only parameters ----

@tritium.jit
def scaled(x, *, SCALE: tl.constexpr, shift=1.0):
    return x * SCALE + shift


@tritium.jit
def kw_only_kernel(x_ptr, out_ptr, *, BLOCK: tl.constexpr, SCALE: tl.constexpr = 3):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, scaled(tl.load(x_ptr + offs), SCALE=SCALE))


def test_keyword_only_parameters(rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros_like(x)
    kw_only_kernel[(1,)](x, out, BLOCK=64)
    np.testing.assert_allclose(out, x * 3 + 1, rtol=1e-6)
    kw_only_kernel[(1,)](x, out, BLOCK=64, SCALE=5)
    np.testing.assert_allclose(out, x * 5 + 1, rtol=1e-6)
    with pytest.raises(Exception, match="takes 2 positional arguments but 3 were given"):
        kw_only_kernel[(1,)](x, out, 64)
    with pytest.raises(Exception, match="BLOCK"):
        kw_only_kernel[(1,)](x, out)


def test_keyword_only_parameters_of_helpers_are_checked():
    out = np.zeros(4, dtype=np.float32)
    compile_error('''
@tritium.jit
def helper(x, *, k):
    return x * k

@tritium.jit
def kernel(out_ptr):
    tl.store(out_ptr + tl.arange(0, 4), helper(tl.arange(0, 4).to(tl.float32), 2.0))
''', r"helper\(\) takes 1 positional argument but 2 were given", out)
    compile_error('''
@tritium.jit
def helper(x, *, k):
    return x * k

@tritium.jit
def kernel(out_ptr):
    tl.store(out_ptr + tl.arange(0, 4), helper(tl.arange(0, 4).to(tl.float32)))
''', r"helper\(\) missing required argument 'k'", out)


# ---- squeeze / unsqueeze ----

@tritium.jit
def squeeze_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    row = tl.unsqueeze(x, 0)                  # [1, N]
    col = x.unsqueeze(-1)                     # [N, 1]: a negative dim counts from the end
    tl.static_assert(row.shape == [1, N] and col.shape == [N, 1])
    outer = row * col                         # [N, N]
    cube = tl.unsqueeze(outer, 1)             # [N, 1, N]
    back = tl.squeeze(cube, -2)               # [N, N]
    tl.static_assert(back.shape == [N, N])
    tl.store(out_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :], back)


def test_squeeze_unsqueeze(rng):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.zeros((8, 8), dtype=np.float32)
    squeeze_kernel[(1,)](x, out, N=8)
    np.testing.assert_allclose(out, np.outer(x, x), rtol=1e-6)


def test_squeeze_errors():
    x = np.zeros(8, dtype=np.float32)
    compile_error('''
@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 8)[None, :] + tl.arange(0, 2)[:, None])
    tl.store(x_ptr + tl.arange(0, 8), tl.squeeze(v, 0))
''', r"tl.squeeze: dimension 0 of block<2x8xfp32> has size 2, not 1", x)
    compile_error('''
@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.squeeze(v[None, :], 2))
''', r"invalid axis 2", x)


# ---- constexpr values returned from @jit helpers ----

@tritium.jit
def block_of(n: tl.constexpr):
    B: tl.constexpr = n * 2
    return B


@tritium.jit
def eight():
    return 8


@tritium.jit
def same_on_both_paths(x):
    if x > 0:
        return 8
    return 8


@tritium.jit
def differs_by_path(x):
    if x > 0:
        return 3
    return 5


@tritium.jit
def returns_kernel(out_ptr, v, N: tl.constexpr):
    a = tl.arange(0, block_of(N))             # a constexpr used as a shape
    b = tl.arange(0, eight())
    c = tl.arange(0, same_on_both_paths(v))   # equal on every path: still a constexpr
    tl.static_assert(eight() == 8 and a.shape == [2 * N])
    tl.store(out_ptr + a, a + differs_by_path(v))  # differs: a runtime value
    tl.store(out_ptr + 2 * N + b, b + c * 0)


def test_constexpr_returned_from_helpers():
    out = np.zeros(16, dtype=np.int32)
    returns_kernel[(1,)](out, 1, N=4)
    np.testing.assert_array_equal(out, np.concatenate([np.arange(8) + 3, np.arange(8)]))
    returns_kernel[(1,)](out, -1, N=4)
    np.testing.assert_array_equal(out[:8], np.arange(8) + 5)


def test_returns_of_different_types_are_an_error():
    compile_error('''
@tritium.jit
def helper(x):
    if x > 0:
        return 3
    return 2**40

@tritium.jit
def kernel(out_ptr, v):
    tl.store(out_ptr, helper(v))
''', "inconsistent return types: i32 and i64", np.zeros(1, dtype=np.int64), 1)


# ---- swizzle2d ----

def swizzle2d_ref(i, j, size_i, size_j, size_g):
    """Triton's standard.py swizzle2d on numpy ints."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = np.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    return off_i + ij % size_g, ij // size_g


@tritium.jit
def swizzle_kernel(out_ptr, size_i, size_j, SI: tl.constexpr, SJ: tl.constexpr, SG: tl.constexpr):
    # Indices past the grid are clamped into it (outside, Triton's arithmetic divides by 0).
    i = tl.minimum(tl.arange(0, SI)[:, None], size_i - 1)
    j = tl.minimum(tl.arange(0, SJ)[None, :], size_j - 1)
    ni, nj = tl.swizzle2d(i, j, size_i, size_j, SG)
    tl.store(out_ptr + tl.arange(0, SI)[:, None] * SJ + tl.arange(0, SJ)[None, :], ni * 1000 + nj)
    # All constants are not folded: tl.minimum in swizzle2d makes a tensor of numbers, as in
    # Triton 3.6 (its static_assert of this condition fails: not known at compile time).


@pytest.mark.parametrize("size_i,size_j,size_g", [(4, 4, 2), (8, 8, 3), (7, 5, 4), (16, 4, 1)])
def test_swizzle2d(size_i, size_j, size_g):
    out = np.zeros((16, 8), dtype=np.int32)
    swizzle_kernel[(1,)](out, size_i, size_j, SI=16, SJ=8, SG=size_g)
    i, j = np.meshgrid(np.arange(size_i), np.arange(size_j), indexing="ij")
    ni, nj = swizzle2d_ref(i, j, size_i, size_j, size_g)
    np.testing.assert_array_equal(out[:size_i, :size_j], ni * 1000 + nj)
    # Every grid position is reached exactly once: a permutation.
    assert sorted((out[:size_i, :size_j]).ravel().tolist()) == sorted((i * 1000 + j).ravel().tolist())
    if (size_i, size_j, size_g) == (4, 4, 2):
        # Triton's docstring example: [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, ...]]
        where = np.zeros((4, 4), dtype=int)
        for a in range(4):
            for b in range(4):
                where[out[a, b] // 1000, out[a, b] % 1000] = a * 4 + b
        np.testing.assert_array_equal(where, [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]])


# ---- gather ----

@tritium.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if AXIS == 0:
        idx = tl.load(idx_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
        tl.store(out_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :], tl.gather(src, idx, 0))
    else:
        idx = tl.load(idx_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
        tl.store(out_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], src.gather(idx, axis=-1))


def random_src(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        src = rng.standard_normal(shape).astype(dtype)
        src.flat[:3] = [-0.0, np.inf, np.nan]  # bits travel unchanged
        return src
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.int64, np.uint32, np.bool_])
@pytest.mark.parametrize("axis", [0, 1])
def test_gather(rng, dtype, axis):
    m, n, k = 8, 16, 32
    src = random_src(rng, (m, n), dtype)
    if axis == 0:
        idx = rng.integers(0, m, (k, n)).astype(np.int32)
    else:
        idx = rng.integers(0, n, (m, k)).astype(np.int64)
    out = np.zeros(idx.shape, dtype=dtype)
    gather_kernel[(1,)](src, idx, out, M=m, N=n, K=k, AXIS=axis)
    want = np.take_along_axis(src, idx, axis)
    assert out.tobytes() == want.tobytes()


@tritium.jit
def gather_2d(src_ptr, idx_ptr, out_ptr, AXIS: tl.constexpr, SM: tl.constexpr, SN: tl.constexpr,
              IM: tl.constexpr, IN: tl.constexpr):
    # Triton's test_gather shapes: the whole source and index blocks, row-major.
    src = tl.load(src_ptr + tl.arange(0, SM)[:, None] * SN + tl.arange(0, SN)[None, :])
    at = tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :]
    tl.store(out_ptr + at, tl.gather(src, tl.load(idx_ptr + at), AXIS))


@pytest.mark.parametrize("src_shape,idx_shape,axis", [((4, 4), (8, 4), 0), ((128, 64), (256, 64), 0),
                                                      ((128, 64), (128, 128), 1), ((2, 64), (2, 1024), 1),
                                                      ((1024, 2), (4, 2), 0)])
def test_gather_triton_shapes(rng, src_shape, idx_shape, axis):
    # The second and third are past the one-hot compose's limit of before (1M compares).
    src = rng.standard_normal(src_shape).astype(np.float32)
    idx = rng.integers(0, src_shape[axis], idx_shape).astype(np.int32)
    out = np.zeros(idx_shape, dtype=np.float32)
    gather_2d[(1,)](src, idx, out, AXIS=axis, SM=src_shape[0], SN=src_shape[1], IM=idx_shape[0], IN=idx_shape[1])
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, axis))


@tritium.jit
def gather_3d(src_ptr, idx_ptr, out_ptr, AXIS: tl.constexpr, A: tl.constexpr, B: tl.constexpr,
              C: tl.constexpr, IA: tl.constexpr, IB: tl.constexpr, IC: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
                  + tl.arange(0, C)[None, None, :])
    at = (tl.arange(0, IA)[:, None, None] * (IB * IC) + tl.arange(0, IB)[None, :, None] * IC
          + tl.arange(0, IC)[None, None, :])
    tl.store(out_ptr + at, tl.gather(src, tl.load(idx_ptr + at), AXIS))


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.int64, np.bool_])
@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("along", [2, 16])
def test_gather_three_dimensional_with_indices_out_of_range(rng, dtype, axis, along):
    shape = [4, 8, 2]
    shape[axis] = along
    idx_shape = list(shape)
    idx_shape[axis] = 8
    src = random_src(rng, shape, dtype)
    # Some indices outside [0, along): tritium gives zero there (Triton leaves them undefined).
    idx = rng.integers(-3, along + 3, idx_shape).astype(np.int16)
    out = np.ones(idx_shape, dtype=dtype)
    gather_3d[(1,)](src, idx, out, AXIS=axis, A=shape[0], B=shape[1], C=shape[2], IA=idx_shape[0], IB=idx_shape[1],
                    IC=idx_shape[2])
    inside = (idx >= 0) & (idx < along)
    want = np.take_along_axis(src, np.where(inside, idx, 0), axis)
    want = np.where(inside, want, np.zeros((), dtype=dtype))
    assert out.tobytes() == want.astype(dtype).tobytes()


def test_gather_errors():
    x = np.zeros(64, dtype=np.float32)
    head = '''
@tritium.jit
def kernel(x_ptr):
    src = tl.load(x_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
'''
    compile_error(head + '''
    tl.store(x_ptr + tl.arange(0, 8), tl.gather(src, tl.arange(0, 8), 0))
''', "source and index tensors must have the same rank", x)
    compile_error(head + '''
    idx = tl.zeros((4, 4), tl.int32)
    tl.gather(src, idx, 0)
''', "index dim 1 must match the corresponding source dim", x)
    compile_error(head + '''
    tl.gather(src, src, 0)
''', "index must be an integer tensor", x)
    compile_error(head + '''
    tl.gather(src, tl.zeros((8, 8), tl.int32), 2)
''', r"gather axis 2 must be < source rank \(2\)", x)

"""tl.gather on the GPU (the op `gather`: the source staged through shared memory, each
element read where its index points), against torch.gather: Triton's test_gather shapes,
1-D to 3-D blocks along every axis, every element width (fp16, bf16, int8, int64, bool,
fp64, ...) and index type, 1-8 warps, a gather inside a loop (its buffer rewritten every
iteration, a barrier before each write), and indices outside the source (zero in tritium;
Triton leaves them undefined). Where Triton 3.6 is importable, the same kernel through
Triton must agree on in-range indices."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import test_newer_language as ref  # noqa: E402  (tests/python: gather_2d, gather_3d)


@tritium.jit
def gather_1d(src_ptr, idx_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, K), tl.gather(src, tl.load(idx_ptr + tl.arange(0, K)), 0))


@tritium.jit
def gather_in_loop(src_ptr, idx_ptr, out_ptr, ITERS: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr):
    # Each iteration gathers from its own M x N slice with the same K indices per row.
    at = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    out_at = tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :]
    idx = tl.load(idx_ptr + out_at)
    acc = tl.zeros((M, K), tl.float32)
    for i in range(ITERS):
        acc = acc * 3 + tl.gather(tl.load(src_ptr + i * M * N + at), idx, 1)
    tl.store(out_ptr + out_at, acc)


def torch_gather(src, idx, axis):
    """torch.gather where the index is inside the source, zero elsewhere (tritium's rule)."""
    inside = (idx >= 0) & (idx < src.shape[axis])
    got = torch.gather(src, axis, torch.where(inside, idx, torch.zeros_like(idx)).long())
    return torch.where(inside, got, torch.zeros_like(got))


def random_src(shape, dtype, gen):
    if dtype == torch.bool:
        return torch.rand(shape, generator=gen) < 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, generator=gen).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -2 ** 31), min(info.max, 2 ** 31 - 1), shape, generator=gen, dtype=torch.int64).to(dtype)


@pytest.fixture
def gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("src_shape,idx_shape,axis", [((4, 4), (8, 4), 0), ((128, 64), (256, 64), 0),
                                                      ((128, 64), (128, 128), 1), ((32, 16), (32, 16), 0)])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_triton_gather_shapes(gen, src_shape, idx_shape, axis, num_warps):
    src = torch.randn(src_shape, generator=gen).cuda()
    idx = torch.randint(0, src_shape[axis], idx_shape, generator=gen, dtype=torch.int32).cuda()
    out = torch.empty(idx_shape, device="cuda")
    ref.gather_2d[(1,)](src, idx, out, AXIS=axis, SM=src_shape[0], SN=src_shape[1], IM=idx_shape[0],
                        IN=idx_shape[1], num_warps=num_warps)
    torch.testing.assert_close(out, torch.gather(src, axis, idx.long()), rtol=0, atol=0)


DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int16, torch.int32,
          torch.int64, torch.uint8, torch.bool]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64, torch.int16])
@pytest.mark.parametrize("axis", [0, 1])
def test_every_dtype_with_indices_out_of_range(gen, dtype, index_dtype, axis):
    src_shape = (32, 64)
    idx_shape = (64, 64) if axis == 0 else (32, 128)
    src = random_src(src_shape, dtype, gen).cuda()
    idx = torch.randint(-4, src_shape[axis] + 4, idx_shape, generator=gen).to(index_dtype).cuda()
    out = torch.ones(idx_shape, dtype=dtype, device="cuda")
    ref.gather_2d[(1,)](src, idx, out, AXIS=axis, SM=src_shape[0], SN=src_shape[1], IM=idx_shape[0],
                        IN=idx_shape[1])
    assert torch.equal(out, torch_gather(src, idx, axis))


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("shape,num_warps", [((4, 8, 16), 4), ((16, 2, 32), 2), ((2, 64, 8), 8), ((8, 8, 8), 1)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.int64])
def test_three_dimensional_blocks(gen, axis, shape, num_warps, dtype):
    idx_shape = list(shape)
    idx_shape[axis] *= 2
    src = random_src(shape, dtype, gen).cuda()
    idx = torch.randint(0, shape[axis], idx_shape, generator=gen, dtype=torch.int32).cuda()
    out = torch.empty(idx_shape, dtype=dtype, device="cuda")
    ref.gather_3d[(1,)](src, idx, out, AXIS=axis, A=shape[0], B=shape[1], C=shape[2], IA=idx_shape[0],
                        IB=idx_shape[1], IC=idx_shape[2], num_warps=num_warps)
    assert torch.equal(out, torch.gather(src, axis, idx.long()))


@pytest.mark.parametrize("n,k,num_warps", [(8, 8, 1), (1024, 256, 4), (64, 4096, 8), (4096, 64, 2)])
def test_one_dimensional(gen, n, k, num_warps):
    src = torch.randn(n, generator=gen).cuda()
    idx = torch.randint(0, n, (k,), generator=gen, dtype=torch.int32).cuda()
    out = torch.empty(k, device="cuda")
    gather_1d[(1,)](src, idx, out, N=n, K=k, num_warps=num_warps)
    assert torch.equal(out, torch.gather(src, 0, idx.long()))


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_gather_in_a_loop(gen, num_warps):
    iters, m, n, k = 5, 32, 64, 128
    src = torch.randint(-8, 8, (iters, m, n), generator=gen).float().cuda()
    idx = torch.randint(0, n, (m, k), generator=gen, dtype=torch.int32).cuda()
    out = torch.empty((m, k), device="cuda")
    gather_in_loop[(1,)](src, idx, out, ITERS=iters, M=m, N=n, K=k, num_warps=num_warps)
    want = torch.zeros((m, k), device="cuda")
    for i in range(iters):
        want = want * 3 + torch.gather(src[i], 1, idx.long())
    assert torch.equal(out, want)


def test_same_as_triton(gen, tmp_path):
    triton = pytest.importorskip("triton")
    import importlib.util
    import inspect
    # Triton compiles a kernel defined in a file: gather_2d's source, under @triton.jit.
    source = inspect.getsource(ref.gather_2d.fn).replace("@tritium.jit", "@triton.jit")
    path = tmp_path / "triton_gather_2d.py"
    path.write_text("import triton\nimport triton.language as tl\n\n\n" + source)
    spec = importlib.util.spec_from_file_location("triton_gather_2d", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for src_shape, idx_shape, axis in [((128, 64), (256, 64), 0), ((128, 64), (128, 128), 1)]:
        src = torch.randn(src_shape, generator=gen).cuda()
        idx = torch.randint(0, src_shape[axis], idx_shape, generator=gen, dtype=torch.int32).cuda()
        ours = torch.empty(idx_shape, device="cuda")
        theirs = torch.empty(idx_shape, device="cuda")
        args = dict(AXIS=axis, SM=src_shape[0], SN=src_shape[1], IM=idx_shape[0], IN=idx_shape[1])
        ref.gather_2d[(1,)](src, idx, ours, **args)
        module.gather_2d[(1,)](src, idx, theirs, **args)
        assert torch.equal(ours, theirs)

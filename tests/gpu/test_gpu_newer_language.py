"""The newer Triton language on the GPU (issue 10, item 11): the kernels of
tests/python/test_newer_language.py (keyword-only parameters, squeeze/unsqueeze, constexpr
returns, swizzle2d, gather) with torch CUDA tensors, against the same references."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_newer_language as ref  # noqa: E402  (tests/python)

TORCH = {np.float32: torch.float32, np.float16: torch.float16, np.float64: torch.float64, np.int8: torch.int8,
         np.int64: torch.int64, np.bool_: torch.bool}


def cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def test_keyword_only_parameters_on_gpu(rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = torch.zeros(64, device="cuda")
    ref.kw_only_kernel[(1,)](cuda(x), out, BLOCK=64, SCALE=5)
    # x * 5 + 1 is one fma on the GPU (enable_fp_fusion), two roundings in numpy.
    np.testing.assert_allclose(out.cpu().numpy(), x * 5 + 1, rtol=1e-6, atol=1e-6)


def test_squeeze_unsqueeze_on_gpu(rng):
    x = rng.standard_normal(16).astype(np.float32)
    out = torch.zeros((16, 16), device="cuda")
    ref.squeeze_kernel[(1,)](cuda(x), out, N=16)
    np.testing.assert_allclose(out.cpu().numpy(), np.outer(x, x), rtol=1e-6)


def test_constexpr_returned_from_helpers_on_gpu():
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    ref.returns_kernel[(1,)](out, 1, N=4)
    np.testing.assert_array_equal(out.cpu().numpy(), np.concatenate([np.arange(8) + 3, np.arange(8)]))
    ref.returns_kernel[(1,)](out, -1, N=4)
    np.testing.assert_array_equal(out.cpu().numpy()[:8], np.arange(8) + 5)


@pytest.mark.parametrize("size_i,size_j,size_g", [(4, 4, 2), (8, 8, 3), (7, 5, 4), (16, 4, 1)])
def test_swizzle2d_on_gpu(size_i, size_j, size_g):
    out = torch.zeros((16, 8), dtype=torch.int32, device="cuda")
    ref.swizzle_kernel[(1,)](out, size_i, size_j, SI=16, SJ=8, SG=size_g)
    i, j = np.meshgrid(np.arange(size_i), np.arange(size_j), indexing="ij")
    ni, nj = ref.swizzle2d_ref(i, j, size_i, size_j, size_g)
    np.testing.assert_array_equal(out.cpu().numpy()[:size_i, :size_j], ni * 1000 + nj)


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("axis", [0, 1])
def test_gather_on_gpu(rng, dtype, axis):
    m, n, k = 8, 16, 32
    src = ref.random_src(rng, (m, n), dtype)
    idx = rng.integers(0, m if axis == 0 else n, (k, n) if axis == 0 else (m, k)).astype(np.int32)
    out = torch.zeros(idx.shape, dtype=TORCH[dtype], device="cuda")
    ref.gather_kernel[(1,)](cuda(src), cuda(idx), out, M=m, N=n, K=k, AXIS=axis)
    assert out.cpu().numpy().tobytes() == np.take_along_axis(src, idx, axis).tobytes()


def test_pointer_casts_on_gpu(rng):
    import test_python_corners as corners  # tests/python
    values = rng.standard_normal(40).astype(np.float32)
    bf16_bits = (values.view(np.uint32) >> 16).astype(np.uint16).view(np.int16)
    out = torch.zeros(40, device="cuda")
    corners.read_as_bf16[(1,)](torch.from_numpy(bf16_bits.copy()).cuda(), out, 40, BLOCK=64)
    want = (bf16_bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    out2 = torch.zeros(40, device="cuda")
    corners.through_int64[(1,)](cuda(values), out2, 40, BLOCK=64)
    np.testing.assert_array_equal(out2.cpu().numpy(), values)

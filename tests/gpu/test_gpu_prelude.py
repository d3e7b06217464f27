"""The builtins of the Triton-language prelude on the GPU (issue 7): the kernels of
tests/python/test_prelude.py (cdiv, sigmoid, softmax, zeros_like, ravel, swizzle2d, inlined
from src/lower/prelude/standard.py) with torch CUDA tensors, against the same references."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_prelude as ref  # noqa: E402  (tests/python)


def cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def test_cdiv_on_gpu():
    x = np.arange(1, 17, dtype=np.int32) * 7
    d = np.arange(1, 17, dtype=np.int32)
    out = torch.zeros(32, dtype=torch.int32, device="cuda")
    ref.cdiv_kernel[(1,)](cuda(x), cuda(d), out, N=16)
    got = out.cpu().numpy()
    np.testing.assert_array_equal(got[:16], -(-x // d))
    np.testing.assert_array_equal(got[16:], -(-x // 4))


def test_sigmoid_and_softmax_on_gpu(rng):
    m, n = 4, 16
    x = (rng.standard_normal((m, n)) * 3).astype(np.float32)
    out = torch.zeros((5, m, n), device="cuda")
    ref.sigmoid_softmax_kernel[(1,)](cuda(x), out, M=m, N=n)
    got = out.cpu().numpy()
    # ex2.approx (Triton's exp): a few ulp of fp32.
    np.testing.assert_allclose(got[0], 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-5)
    np.testing.assert_array_equal(got[1], got[0])
    e1 = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got[2], e1 / e1.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    # The default divides with div.full.f32 (Triton's fdiv without ieee_rounding, within 2 ulp);
    # ieee_rounding=True divides exactly (div.rn.f32): the two may differ in the last bits only.
    np.testing.assert_array_max_ulp(got[4], got[2], maxulp=2)
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    np.testing.assert_allclose(got[3], e0 / e0.sum(axis=0, keepdims=True), rtol=1e-5, atol=1e-7)


def test_zeros_like_ravel_swizzle2d_on_gpu(rng):
    m, n, rows, g = 8, 4, 7, 3
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = torch.zeros(2 * m * n, device="cuda")
    ref.zeros_ravel_swizzle_kernel[(1,)](cuda(x), out, rows, g, M=m, N=n)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.zeros_ravel_swizzle_ref(x, m, n, rows, g))

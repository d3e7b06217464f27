"""desc.gather / desc.scatter (tensor descriptors made in the kernel) on the GPU: the kernels
of tests/python/test_tensor_descriptor.py with torch CUDA tensors, against the same numpy
reference as the interpreter's tests (rows and columns out of bounds read the padding and
are not written)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_tensor_descriptor as td  # noqa: E402  (tests/python, on sys.path through conftest.py)


def cuda(x):
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def host(x):
    torch.cuda.synchronize()
    return x.cpu().numpy()


@pytest.mark.parametrize("dtype, bn", [(np.float32, 8), (np.float16, 16), (np.int8, 32), (np.float32, 64)])
@pytest.mark.parametrize("y", [0, 24, -8])
@pytest.mark.parametrize("nan", [False, True])
def test_gather_on_gpu(rng, dtype, bn, y, nan):
    if nan and not np.issubdtype(dtype, np.floating):
        pytest.skip("NaN padding is for floats (an error otherwise, tested in the interpreter)")
    M, N = 40, 72
    x = td._random(rng, (M, N), dtype)
    idx = np.array([3, 39, 0, 40, -1, 17, 17, 100, 5, 38, 2, 1, 0, 9, 12, 31], np.int32)
    out = cuda(np.full((idx.size, bn), 7, dtype))
    td.gather_rows[(1,)](out, cuda(x), cuda(idx), M, N, y, ROWS=idx.size, BN=bn, NAN=nan)
    np.testing.assert_array_equal(host(out), td._gather_reference(x, idx, y, bn, np.nan if nan else 0))


def test_scatter_on_gpu(rng):
    M, N, bn = 24, 40, 16
    idx = np.array([2, 23, 24, -1, 7, 11, 0, 19], np.int32)
    v = rng.standard_normal((idx.size, bn)).astype(np.float32)
    x = cuda(np.zeros((M, N), np.float32))
    td.scatter_rows[(1,)](x, cuda(v), cuda(idx), M, N, 30, ROWS=idx.size, BN=bn)
    want = np.zeros((M, N), np.float32)
    for i, r in enumerate(idx):
        if 0 <= r < M:
            want[r, 30:N] = v[i, :N - 30]
    np.testing.assert_array_equal(host(x), want)

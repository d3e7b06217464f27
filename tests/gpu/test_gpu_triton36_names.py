"""The Triton 3.6 names of tests/python/test_triton36_names.py on the GPU, with torch CUDA
tensors against the same references: tl.map_elementwise (a region per register, each
thread's loops and branches its own; with pack > 1 per P registers), tl.bitonic_merge, tl.reduce_or, the tensor methods
(atomics through ptrs.atomic_add, item, cdiv) and convert_custom_float8."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_triton36_names as ref  # noqa: E402  (tests/python)


def cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def test_map_elementwise_on_gpu(rng):
    kernel = ref.load(ref.MAP_SOURCE)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    n = np.array([0, 7, 12345, 999999], np.int32)
    o = torch.zeros((4, 8), device="cuda")
    d = torch.zeros((4, 8), dtype=torch.int32, device="cuda")
    kernel[(1,)](cuda(x), cuda(n), o, d, M=4, N=8)
    np.testing.assert_allclose(o.cpu().numpy(), np.where(x > 0, x, 1.5 * (np.exp(x) - 1)), rtol=1e-5, atol=1e-6)
    counts = np.array([len(str(v)) if v else 0 for v in n])
    np.testing.assert_array_equal(d.cpu().numpy(), counts[:, None] * 100 + np.arange(8)[None, :])


@pytest.mark.parametrize("shape,warps", [((4, 8), 1), ((4, 8), 4), ((64, 64), 4), ((128, 2), 2)])
def test_map_elementwise_pack_on_gpu(rng, shape, warps):
    """tl.map_elementwise(pack=P) against the interpreter's grouping (aligned runs of P in
    row-major order): small blocks (threads holding copies, V raised to P), wide and narrow
    rows."""
    kernel = ref.load(ref.PACK_SOURCE)
    M, N = shape
    a = rng.integers(0, 1000, shape).astype(np.int32)
    b = rng.integers(1, 20, shape).astype(np.int32)
    x = rng.standard_normal(shape).astype(np.float32)
    q, r, s = (torch.zeros(shape, dtype=torch.int32, device="cuda") for _ in range(3))
    y = torch.zeros(shape, device="cuda")
    kernel[(1,)](cuda(a), cuda(b), q, r, cuda(x), y, s, M=M, N=N, num_warps=warps)
    np.testing.assert_array_equal(q.cpu().numpy(), a // b)
    np.testing.assert_array_equal(r.cpu().numpy(), a % b)
    np.testing.assert_array_equal(y.cpu().numpy(), x.reshape(-1, 4)[:, ::-1].reshape(shape))
    np.testing.assert_array_equal(s.cpu().numpy(), np.array([int(v).bit_length() for v in a.ravel()]).reshape(shape))


@pytest.mark.parametrize("warps", [1, 4])
def test_map_elementwise_divergent_loops_on_gpu(warps):
    kernel = ref.load('''
@tritium.jit
def steps(n):
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


@tritium.jit
def kernel(x_ptr, o_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(o_ptr + i, tl.map_elementwise(steps, tl.load(x_ptr + i)))
''')
    n = np.arange(1, 1025, dtype=np.int32)
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    kernel[(1,)](cuda(n), out, N=1024, num_warps=warps)

    def reference(v):
        count = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        return count
    np.testing.assert_array_equal(out.cpu().numpy(), [reference(int(v)) for v in n])


@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_merge_on_gpu(rng, descending):
    kernel = ref.load('''
@tritium.jit
def kernel(x_ptr, o_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, 4)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(o_ptr + offs, tl.bitonic_merge(tl.load(x_ptr + offs), descending=DESCENDING))
''')
    a = np.sort(rng.standard_normal((4, 32)).astype(np.float32), 1)
    b = -np.sort(-rng.standard_normal((4, 32)).astype(np.float32), 1)
    x = np.concatenate([a, b], axis=1)
    out = torch.zeros((4, 64), device="cuda")
    kernel[(1,)](cuda(x), out, N=64, DESCENDING=descending)
    expected = np.sort(x, axis=1)
    np.testing.assert_array_equal(out.cpu().numpy(), expected[:, ::-1] if descending else expected)


def test_tensor_methods_on_gpu():
    kernel = ref.load('''
@tritium.jit
def kernel(x_ptr, o_ptr):
    i = tl.arange(0, 128)
    x = tl.load(x_ptr + i)
    (o_ptr + i % 4).atomic_add(x)
    (o_ptr + 4 + i).store(x.cdiv(3))
    tl.store(o_ptr + 132, tl.sum(x, 0).item() + tl.reduce_or(x, 0))
''')
    x = np.arange(128, dtype=np.int32)
    out = torch.zeros(133, dtype=torch.int32, device="cuda")
    kernel[(1,)](cuda(x), out)
    o = out.cpu().numpy()
    np.testing.assert_array_equal(o[:4], [x[k::4].sum() for k in range(4)])
    np.testing.assert_array_equal(o[4:132], (x + 2) // 3)
    assert o[132] == x.sum() + np.bitwise_or.reduce(x)

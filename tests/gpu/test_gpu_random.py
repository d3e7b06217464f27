"""tl.randint4x / rand / rand4x / randn / randn4x / philox on the GPU (issue 10, item 10):
the kernels of tests/python/test_random.py with torch CUDA tensors, against the same numpy
Philox reference. Integers and uniforms are bit-exact; normals to fp32 precision (the GPU's
log/sqrt/cos/sin differ from numpy's in the last bits)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_random as ref  # noqa: E402  (tests/python)


def cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


@pytest.mark.parametrize("philox_seed", ref.SEEDS)
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_randint4x_is_philox_on_gpu(rng, philox_seed, dtype):
    if dtype == np.uint32 and not hasattr(torch, "uint32"):
        pytest.skip("this torch has no uint32 tensors")
    n = 1024
    offsets = ref.offsets_of(rng, n, dtype)
    offsets[:4] = [0, 1, 2, 3]
    out_dtype = np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64
    # torch has no uint64 arithmetic on CUDA everywhere: store into the signed view.
    out = torch.zeros(4 * n, dtype=torch.int32 if out_dtype == np.uint32 else torch.int64, device="cuda")
    ref.randint4x_kernel[(1,)](philox_seed, cuda(offsets), out, N=n)
    got = out.cpu().numpy().view(out_dtype)
    for j, want in enumerate(ref.randint4x_ref(philox_seed, offsets)):
        np.testing.assert_array_equal(got[j * n:(j + 1) * n], want, err_msg=f"stream {j}")


@pytest.mark.parametrize("philox_seed", [0, 12345, 2**33 + 1, -1])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("rounds", [10, 7])
def test_rand_randn_and_4x_streams_on_gpu(rng, philox_seed, dtype, rounds):
    n = 512
    offsets = ref.offsets_of(rng, n, dtype)
    wide = np.dtype(dtype).itemsize == 8
    ints = torch.zeros(n, dtype=torch.int64 if wide else torch.int32, device="cuda")
    floats = torch.full((10 * n,), float("nan"), device="cuda")
    ref.streams_kernel[(1,)](philox_seed, cuda(offsets), ints, floats, N=n, ROUNDS=rounds)
    r = ref.randint4x_ref(philox_seed, offsets, rounds)
    np.testing.assert_array_equal(ints.cpu().numpy().view(np.uint64 if wide else np.uint32), r[0])
    f = floats.cpu().numpy()
    u = [ref.uniform_ref(x) for x in r]
    np.testing.assert_array_equal(f[:n], u[0])
    for j in range(4):
        np.testing.assert_array_equal(f[(1 + j) * n:(2 + j) * n], u[j])
    n0, n1 = ref.normal_ref(u[0], u[1])
    n2, n3 = ref.normal_ref(u[2], u[3])
    np.testing.assert_allclose(f[5 * n:6 * n], n0, rtol=1e-4, atol=1e-4)
    for j, want in enumerate([n0, n1, n2, n3]):
        np.testing.assert_allclose(f[(6 + j) * n:(7 + j) * n], want, rtol=1e-4, atol=1e-4)


def test_rand_matches_the_values_triton_printed_on_gpu():
    printed = {999: [0.2196, 0.5715, 0.2051, 0.0709, 0.8743, 0.2240, 0.3336, 0.5628, 0.2430, 0.9592],
               777: [0.7059, 0.8081, 0.5869, 0.8980, 0.0776, 0.3504, 0.3932, 0.3695, 0.5784, 0.5037]}
    for seed, values in printed.items():
        out = torch.zeros(10, device="cuda")
        ref.rand_init[(5,)](out, 10, seed=seed, BLOCK_SIZE=2)
        np.testing.assert_array_equal(np.round(out.cpu().numpy(), 4), np.array(values, dtype=np.float32).round(4))


def test_philox_known_answers_on_gpu(rng):
    seed = 0x299F31D0A4093822
    counters = rng.integers(0, 2**32, size=(4, 4), dtype=np.uint64).astype(np.uint32)
    counters[0] = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344]
    out = torch.zeros((4, 4), dtype=torch.int32, device="cuda")
    ref.philox_kernel[(1,)](seed, cuda(counters.view(np.int32)), out, ROUNDS=10)
    got = out.cpu().numpy().view(np.uint32)
    assert [int(x) for x in got[0]] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def test_scalar_and_2d_offsets_on_gpu():
    out = torch.zeros((4, 8), device="cuda")
    ints = torch.zeros(2, dtype=torch.int32, device="cuda")
    ref.scalar_and_2d_kernel[(1,)](77, out, ints, M=4, N=8)
    offs = np.arange(32, dtype=np.int32).reshape(4, 8)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.uniform_ref(ref.randint4x_ref(77, offs)[0]))
    np.testing.assert_array_equal(ints.cpu().numpy().view(np.uint32),
                                  ref.randint4x_ref(77, np.array([5, 6], dtype=np.int32))[0])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_umulhi_is_unsigned_and_mulhi_signed_on_gpu(rng, dtype):
    n = 256
    x, y = ref.offsets_of(rng, n, dtype), ref.offsets_of(rng, n, dtype)
    x[0], y[0] = -1, 2
    tdtype = torch.int32 if dtype == np.int32 else torch.int64
    u = torch.zeros(n, dtype=tdtype, device="cuda")
    s = torch.zeros(n, dtype=tdtype, device="cuda")
    ref.umulhi_kernel[(1,)](cuda(x), cuda(y), u, s, N=n)
    bits = 8 * np.dtype(dtype).itemsize
    mask = (1 << bits) - 1
    udtype = np.uint32 if bits == 32 else np.uint64
    want_u = np.array([((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x, y)], dtype=udtype)
    want_s = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype=dtype)
    np.testing.assert_array_equal(u.cpu().numpy().view(udtype), want_u)
    np.testing.assert_array_equal(s.cpu().numpy(), want_s)

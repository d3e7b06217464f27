"""tl.inline_asm_elementwise on the GPU: the kernels of tests/python/test_inline_asm.py with
torch CUDA tensors, against numpy."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_inline_asm as ref  # noqa: E402  (tests/python)


def test_funnel_shift_on_gpu(rng):
    n = 1024
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    y = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    z = torch.zeros(n, dtype=torch.int32, device="cuda")
    ref.funnel_shift[(1,)](torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda(), z, 5, BLOCK=n)
    # shf.l.wrap: the high word of (y:x) << 5.
    wide = (y.view(np.uint32).astype(np.uint64) << 32) | x.view(np.uint32).astype(np.uint64)
    want = ((wide << np.uint64(5)) >> np.uint64(32)).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(z.cpu().numpy(), want)


def test_two_outputs_on_gpu(rng):
    n = 256
    x = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda")
    y = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda")
    s = torch.zeros_like(x)
    d = torch.zeros_like(x)
    ref.two_outputs[(1,)](x, y, s, d, BLOCK=n)
    assert torch.equal(s, x + y) and torch.equal(d, x - y)


def test_mixed_argument_types_on_gpu():
    n = 128
    x = torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    ref.mixed_types[(1,)](x, out, BLOCK=n)
    torch.testing.assert_close(out, x + torch.arange(n, device="cuda", dtype=torch.float32))


def test_pointer_arguments_on_gpu():
    n = 512
    src = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
    dst = torch.zeros_like(src)
    ref.through_pointers[(1,)](src, dst, BLOCK=n)
    assert torch.equal(dst, src)


def test_impure_asm_with_unused_result_runs_on_gpu():
    # effect_only: two equal impure asm, each adding 1 at the address every element holds.
    n = 256
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    addresses = torch.full((n,), counter.data_ptr(), dtype=torch.int64, device="cuda")
    ref.effect_only[(1,)](addresses, BLOCK=n)
    assert counter.item() == 2 * n


def test_several_outputs_one_effect_on_gpu():
    # Every element increments one counter once and gets the old value and the old value + 1.
    n = 256
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    addresses = torch.full((n,), counter.data_ptr(), dtype=torch.int64, device="cuda")
    c = torch.zeros(n, dtype=torch.int32, device="cuda")
    d = torch.zeros_like(c)
    ref.two_outputs_one_effect[(1,)](addresses, c, d, BLOCK=n)
    assert counter.item() == n
    assert torch.equal(torch.sort(c).values, torch.arange(n, dtype=torch.int32, device="cuda"))
    assert torch.equal(d, c + 1)


@pytest.mark.parametrize("n, warps", [(512, 4), (64, 2)])
def test_packed_bytes_on_gpu(rng, n, warps):
    """pack=4 on int8 (Triton's test_inline_asm_packed): four bytes per b32; with 64 elements
    over 64 threads each call holds one byte and three of zero padding."""
    x = rng.integers(0, 256, n).astype(np.uint8)
    y = torch.zeros(n, dtype=torch.int8, device="cuda")
    ref.packed_bytes[(1,)](torch.from_numpy(x.view(np.int8)).cuda(), y, BLOCK=n, num_warps=warps)
    np.testing.assert_array_equal(y.cpu().numpy().view(np.uint8), ((x & 0x1F) << 3).astype(np.uint8))


def test_packed_two_outputs_on_gpu(rng):
    n = 512
    a = rng.integers(0, 256, n).astype(np.uint8)
    b = rng.standard_normal(n).astype(np.float32) * 200
    c = torch.zeros(n, dtype=torch.int32, device="cuda")
    d = torch.zeros(n, dtype=torch.float32, device="cuda")
    ref.packed_two_outputs[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), c, d, BLOCK=n)
    np.testing.assert_array_equal(c.cpu().numpy(), a.astype(np.int32))
    np.testing.assert_array_equal(d.cpu().numpy(), np.maximum(a.astype(np.float32), b))


def test_packed_halves_on_gpu():
    n = 256
    x = torch.randn(n, device="cuda").to(torch.float16)
    y = torch.zeros_like(x)
    ref.packed_halves[(1,)](x, y, BLOCK=n, num_warps=1)
    assert torch.equal(y, x + x)

"""Block pointers, tensor descriptors and tuples carried through loops, on the GPU: the
interpreter suite's kernels (tests/python/test_block_ptr.py, test_tensor_descriptor.py,
test_carried_aggregates.py) launched on torch CUDA tensors and compared exactly with torch.
Descriptors lower to plain pointer code on every target (no TMA yet, DESIGN.md)."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402

import test_block_ptr as bp  # noqa: E402  (tests/python: the interpreter suite)
import test_carried_aggregates as carried  # noqa: E402
import test_tensor_descriptor as td  # noqa: E402


def sync():
    torch.cuda.synchronize()


def random(gen, shape, dtype):
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device="cuda", generator=gen).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda", generator=gen).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -100), min(info.max, 100), shape, device="cuda", generator=gen, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int16, torch.int32, torch.float16, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("n", [64, 128, 256, 512, 1024])
@pytest.mark.parametrize("padding", [None, "zero", "nan"])
@pytest.mark.parametrize("bound", [None, "lower", "upper"])
def test_block_copy(gen, dtype, n, padding, bound):
    if padding == "nan" and not dtype.is_floating_point:
        pytest.skip("NaN padding is an error for integers (tests/python)")
    a = random(gen, (n,), dtype)
    b = torch.zeros(n, device="cuda", dtype=dtype)
    bp.block_copy_kernel[(tritium.cdiv(n, 64),)](a, b, n, BLOCK_SIZE=64, PADDING_OPTION=padding,
                                                  TEST_LOWER_BOUND=bound == "lower", TEST_UPPER_BOUND=bound == "upper")
    sync()
    if bound is not None:
        assert torch.all(b == 0)
        return
    assert torch.equal(a[:n // 2], b[:n // 2])
    if padding == "zero":
        assert torch.all(b[n // 2:] == 0)
    elif padding == "nan":
        assert torch.all(torch.isnan(b[n // 2:]))


def test_block_ptr_rank_3():
    src = torch.arange(3 * 4 * 5, device="cuda", dtype=torch.float32).reshape(3, 4, 5)
    dst = torch.zeros_like(src)
    bp.block_copy_3d_kernel[(1,)](src, dst, *src.shape, *src.stride(), BLOCK0=2, BLOCK1=4, BLOCK2=4)
    sync()
    expected = torch.zeros_like(src)
    expected[2:3, 0:4, 3:5] = src[2:3, 0:4, 3:5]
    assert torch.equal(dst, expected)


def test_block_ptr_dtype_element_ty():
    src = torch.arange(16, device="cuda", dtype=torch.float16)
    dst = torch.zeros_like(src)
    bp.block_ptr_dtype_kernel[(1,)](src, dst, 16, BLOCK_SIZE=16)
    sync()
    assert torch.equal(dst, src)


@pytest.mark.parametrize("m, n, k", [(16, 16, 16), (20, 12, 10), (33, 17, 9), (128, 96, 64)])
def test_tiled_matmul_with_advance_in_loops(gen, m, n, k):
    a = torch.randn((m, k), device="cuda", generator=gen)
    b = torch.randn((k, n), device="cuda", generator=gen)
    c = torch.full((m, n), 7.0, device="cuda")
    grid = (tritium.cdiv(m, 8), tritium.cdiv(n, 8))
    bp.tiled_matmul[grid](a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=8, BLOCK_N=8, BLOCK_K=4)
    sync()
    # One fma per k in k order on both sides: equal within fp32 rounding of a different order.
    torch.testing.assert_close(c, (a.double() @ b.double()).float(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m, n", [(16, 16), (13, 29), (256, 1000)])
def test_advance_in_while_and_for(gen, m, n):
    src = torch.randn((m, n), device="cuda", generator=gen)
    dst = torch.zeros_like(src)
    bp.tile_copy_advance[(1,)](src, dst, m, n, BLOCK_M=4, BLOCK_N=8)
    sync()
    assert torch.equal(dst, src * 2)


def test_column_major_block(gen):
    m, n = 6, 7
    src = torch.randn((n, m), device="cuda", generator=gen).t()  # column-major view of (m, n)
    dst = torch.zeros((m, n), device="cuda")
    bp.column_major_tile[(1,)](src.t().contiguous(), dst, m, n, BLOCK=8)
    sync()
    assert torch.equal(dst, src)


@pytest.mark.parametrize("flag", [0, 1])
def test_block_ptr_through_dynamic_if(gen, flag):
    src = torch.randn(24, device="cuda", generator=gen)
    dst = torch.zeros(16, device="cuda")
    bp.select_block_ptr[(1,)](src, dst, flag, 24, BLOCK=16)
    sync()
    expected = src[:16] if flag == 0 else torch.cat([src[16:], torch.zeros(8, device="cuda")])
    assert torch.equal(dst, expected)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32])
@pytest.mark.parametrize("M_BLOCK, N_BLOCK", [(2, 16), (8, 16), (8, 32), (8, 128), (512, 32), (1, 1024)])
def test_tensor_descriptor_load(gen, dtype, M_BLOCK, N_BLOCK):
    M, N = M_BLOCK * 3, N_BLOCK * 4
    inp = random(gen, (M, N), dtype)
    out = torch.empty((M_BLOCK, N_BLOCK), device="cuda", dtype=dtype)
    td.descriptor_load_kernel[(1,)](out, inp, M, N, M_BLOCK=M_BLOCK, N_BLOCK=N_BLOCK)
    sync()
    assert torch.equal(out, inp[M_BLOCK:2 * M_BLOCK, 2 * N_BLOCK:3 * N_BLOCK])


@pytest.mark.parametrize("dtype", [torch.int8, torch.float16, torch.float32])
@pytest.mark.parametrize("M_BLOCK, N_BLOCK", [(2, 16), (8, 32), (512, 32), (1, 1024)])
def test_tensor_descriptor_store(gen, dtype, M_BLOCK, N_BLOCK):
    M, N = M_BLOCK * 2, N_BLOCK * 2
    inp = random(gen, (M, N), dtype)
    out = torch.zeros_like(inp)
    td.descriptor_store_kernel[(M // M_BLOCK, N // N_BLOCK)](out, inp, M, N, M_BLOCK=M_BLOCK, N_BLOCK=N_BLOCK)
    sync()
    assert torch.equal(out, inp)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_tensor_descriptor_padding(padding):
    IM, IN, OM, ON = 48, 48, 64, 64
    inp = torch.arange(IM * IN, device="cuda", dtype=torch.float32).reshape(IM, IN)
    out = torch.zeros((OM, ON), device="cuda")
    td.padding_kernel[(2, 2)](inp, out, IM, IN, ON, M_BLOCK=32, N_BLOCK=32, padding=padding)
    sync()
    assert torch.equal(out[:IM, :IN], inp)
    outside = torch.ones((OM, ON), dtype=torch.bool, device="cuda")
    outside[:IM, :IN] = False
    assert torch.all(torch.isnan(out[outside]) if padding == "nan" else out[outside] == 0)


def test_tensor_descriptor_load3d_of_a_strided_view(gen):
    full = torch.randn((10, 64, 128), device="cuda", generator=gen)
    inp = full[:, :50, :119]
    out = torch.zeros(inp.shape, device="cuda")
    grid = tuple(tritium.cdiv(size, block) for size, block in zip(inp.shape, (2, 8, 32)))
    td.load3d_kernel[grid](out, full, *inp.shape, *full.stride(), M_BLOCK=2, N_BLOCK=8, K_BLOCK=32)
    sync()
    assert torch.equal(out, inp)


def test_carried_tuples():
    out = torch.zeros(8, device="cuda", dtype=torch.int32)
    carried.fib_pair[(1,)](out, 10)
    sync()
    assert out.tolist() == [55] * 4 + [89] * 4
    x = torch.randn((7, 16), device="cuda")
    stats = torch.zeros(48, device="cuda")
    carried.running_min_max[(1,)](x, stats, 7, BLOCK=16)
    sync()
    assert torch.equal(stats[:16], x.min(dim=0).values)
    assert torch.equal(stats[16:32], x.max(dim=0).values)
    assert torch.all(stats[32:] == 7)


def test_descriptor_atomics_accumulate_within_bounds(gen):
    programs, M, N, BM, BN = 64, 6, 12, 8, 16
    x = torch.randint(-50, 50, (programs, BM, BN), device="cuda", generator=gen, dtype=torch.int32)
    y = torch.randint(0, 1 << 20, (programs, BM, BN), device="cuda", generator=gen, dtype=torch.int32)
    acc = torch.full(((M + 2) * N,), 3, device="cuda", dtype=torch.int32)
    bits = torch.zeros((M + 2) * N, device="cuda", dtype=torch.int32)
    td.descriptor_atomics[(programs,)](acc, bits, x, y, M, N, BLOCK_M=BM, BLOCK_N=BN)
    sync()
    acc2 = acc.reshape(M + 2, N)
    assert torch.equal(acc2[:M], 3 + x[:, :M, :N].sum(dim=0))
    assert torch.all(acc2[M:] == 3)
    bits2 = bits.reshape(M + 2, N)
    ored = y[:, :M, :N][0].clone()
    for i in range(1, programs):
        ored |= y[i, :M, :N]
    assert torch.equal(bits2[:M], torch.maximum(ored, y[:, :M, :N].max(dim=0).values))
    assert torch.all(bits2[M:] == 0)


def test_split_result_carried_through_loop(gen):
    x = torch.randint(-5, 5, (16,), device="cuda", generator=gen, dtype=torch.int32)
    out = torch.zeros(16, device="cuda", dtype=torch.int32)
    carried.split_pair_in_loop[(1,)](x, out, 6, BLOCK=8)
    sync()
    a, b = x[:8].clone(), x[8:].clone()
    for _ in range(6):
        a, b = b, a + b
    assert torch.equal(out, torch.cat([a, b]))

"""Accesses contiguous along a non-last axis (gpu/coalesce.h): transposes, column-major
reads and writes of fp32, fp16 and int8 tiles with masks (edge tiles), strides that are
multiples of 16 but not powers of two, 1-4 warps and tile shapes 64x64, 128x32, 16x256,
against torch; the coalesced ones are checked to load / store 16-byte vectors."""

import re

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

DTYPES = [torch.float32, torch.float16, torch.int8]
TILES = [(64, 64), (128, 32), (16, 256)]
WARPS = [1, 2, 4]


@tritium.jit
def transpose(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # out[n, m] = x[m, n], both row-major: the store runs down the columns of out's tile.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] * stride_x + n[None, :], mask=mask)
    tl.store(out_ptr + n[None, :] * stride_out + m[:, None], x, mask=mask)


@tritium.jit
def column_read(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # x column-major (x[m, n] at m + n * stride_x) into row-major out, times 2.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride_x, mask=mask, other=0)
    tl.store(out_ptr + m[:, None] * stride_out + n[None, :], x + x, mask=mask)


@tritium.jit
def column_copy(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # Column-major to column-major: both accesses along dim 0.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride_x, mask=mask)
    tl.store(out_ptr + m[:, None] + n[None, :] * stride_out, x, mask=mask)


@tritium.jit
def loop_cols(x_ptr, out_ptr, M, K, stride, BM: tl.constexpr, BK: tl.constexpr):
    # Column-major tiles summed over k inside a loop; `other` computed from a range.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros([BM, BK], dtype=tl.float32)
    for k0 in range(0, K, BK):
        k = k0 + tl.arange(0, BK)
        mask = (m[:, None] < M) & (k[None, :] < K)
        x = tl.load(x_ptr + m[:, None] + k[None, :] * stride, mask=mask, other=(k[None, :] * 0).to(tl.float32))
        acc += x
    tl.store(out_ptr + m[:, None] * BK + tl.arange(0, BK)[None, :], acc)


@tritium.jit
def branchy(x_ptr, out_ptr, flag, stride, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    if flag > 0:
        x = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
        tl.store(out_ptr + m[:, None] + n[None, :] * stride, x * 2)
    else:
        y = tl.load(x_ptr + m[:, None] * BN + n[None, :])
        tl.store(out_ptr + n[None, :] * stride + m[:, None], tl.sum(y, 1)[:, None] + y)


@tritium.jit
def cube(x_ptr, out_ptr, s1, s2, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * s1 + b[None, :, None] + c[None, None, :] * s2)
    tl.store(out_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :], x)


@tritium.jit
def bools(x_ptr, out_ptr, out2_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
    tl.store(out_ptr + m[:, None] * BN + n[None, :], x)
    tl.store(out2_ptr + m[:, None] + n[None, :] * stride, x, mask=n[None, :] < 3)


def random(dtype, shape, gen):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda", generator=gen).to(dtype)
    return torch.randint(-100, 100, shape, device="cuda", generator=gen).to(dtype)


def grid(M, N, tile):
    return ((M + tile[0] - 1) // tile[0], (N + tile[1] - 1) // tile[1])


VECTOR = re.compile(r"\b(ld|st)\.global(\.[a-z0-9_:]+)*\.v[24]\.")


def vector_accesses(handle, kind):
    return [line for line in handle.asm["ptx"].splitlines() if VECTOR.search(line) and f"{kind}.global" in line]


# (M, N): full tiles, edge tiles whose sizes are multiples of 16 (masks stay uniform per
# vector: still coalesced), and ragged sizes (one element per access, still correct).
SIZES = [(256, 256), (272, 80), (97, 61)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("tile", TILES, ids=str)
@pytest.mark.parametrize("warps", WARPS)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_transpose(dtype, tile, warps, size, gen):
    M, N = size
    x = random(dtype, (M, N), gen)
    out = torch.full((N, M), 7, dtype=dtype, device="cuda")
    h = transpose[grid(M, N, tile)](x, out, M, N, x.stride(0), out.stride(0), BM=tile[0], BN=tile[1],
                                    num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())
    if size == (256, 256) and tile[0] * tile[1] >= 32 * warps * 16 // x.element_size():
        assert vector_accesses(h, "st"), "the transposed store should be vectorized"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("tile", TILES, ids=str)
@pytest.mark.parametrize("warps", WARPS)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_column_read(dtype, tile, warps, size, gen):
    M, N = size
    # Columns of a padded buffer: stride M rounded up to a multiple of 16 (96 for 80 rows,
    # not a power of two).
    stride = (M + 15) // 16 * 16 + (16 if M % 16 == 0 else 0)
    storage = random(dtype, (N, stride), gen)
    x = storage[:, :M].t()  # M x N, column-major with stride `stride`
    out = torch.full((M, N), 7, dtype=dtype, device="cuda")
    h = column_read[grid(M, N, tile)](x, out, M, N, stride, out.stride(0), BM=tile[0], BN=tile[1],
                                      num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(out, x + x)
    if size == (256, 256) and tile[0] * tile[1] >= 32 * warps * 16 // x.element_size():
        assert vector_accesses(h, "ld"), "the column-major load should be vectorized"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("tile", TILES, ids=str)
@pytest.mark.parametrize("warps", [1, 4])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_column_copy(dtype, tile, warps, size, gen):
    M, N = size
    stride = (M + 15) // 16 * 16 + 16
    storage = random(dtype, (N, stride), gen)
    x = storage[:, :M].t()
    out_storage = torch.full((N, stride), 7, dtype=dtype, device="cuda")
    out = out_storage[:, :M].t()
    column_copy[grid(M, N, tile)](x, out, M, N, stride, stride, BM=tile[0], BN=tile[1], num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(out, x)
    # The padding between columns is never written.
    assert bool((out_storage[:, M:] == 7).all())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_large_transpose_matches(dtype, gen):
    M = N = 4096
    x = random(dtype, (M, N), gen)
    out = torch.empty((N, M), dtype=dtype, device="cuda")
    transpose[grid(M, N, (64, 64))](x, out, M, N, M, N, BM=64, BN=64, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("warps", [1, 4, 8])
@pytest.mark.parametrize("M,K", [(256, 512), (200, 96)])
def test_column_tiles_summed_in_a_loop(dtype, warps, M, K, gen):
    BM, BK = 64, 32
    stride = K // 16 * 16 + 32  # columns of M rows, padded
    stride = max(stride, M + 16 - M % 16)
    storage = random(dtype, (K, stride), gen)
    x = storage[:, :M].t()  # M x K column-major
    rows = (M + BM - 1) // BM * BM
    out = torch.full((rows, BK), float("nan"), device="cuda")
    loop_cols[(rows // BM,)](x, out, M, K, stride, BM=BM, BK=BK, num_warps=warps)
    torch.cuda.synchronize()
    padded = torch.zeros(rows, (K + BK - 1) // BK * BK, device="cuda")
    padded[:M, :K] = x.float()
    expected = padded.reshape(rows, -1, BK).sum(1)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("flag", [1, 0])
@pytest.mark.parametrize("warps", [1, 4])
def test_coalesced_accesses_under_a_branch(flag, warps, gen):
    BM, BN, stride = 64, 64, 80
    x = random(torch.float32, (BN * stride,), gen)
    out = torch.zeros(BN * stride + BM * BN, device="cuda")
    branchy[(1,)](x, out, flag, stride, BM=BM, BN=BN, num_warps=warps)
    torch.cuda.synchronize()
    expected = torch.zeros_like(out)
    if flag:
        cols = x[: BN * stride].reshape(BN, stride)[:, :BM]  # cols[n, m] = x[m + n * stride]
        expected.reshape(-1)[: BN * stride].reshape(BN, stride)[:, :BM] = 2 * cols
    else:
        y = x[: BM * BN].reshape(BM, BN)
        value = y.sum(1, keepdim=True) + y  # value[m, n] lands at n * stride + m
        expected[: BN * stride].reshape(BN, stride)[:, :BM] = value.t()
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("shape", [(4, 16, 32), (8, 64, 8)], ids=str)
@pytest.mark.parametrize("warps", [1, 4])
def test_three_dimensional_column_read(dtype, shape, warps, gen):
    A, B, C = shape
    s2, s1 = B + 16, (B + 16) * C  # x[a, b, c] at a * s1 + b + c * s2
    storage = random(dtype, (A, C, s2), gen)
    x = storage[:, :, :B].permute(0, 2, 1)  # A x B x C
    out = torch.zeros(A, B, C, dtype=dtype, device="cuda")
    cube[(1,)](storage, out, s1, s2, A=A, B=B, C=C, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(out, x)


@pytest.mark.parametrize("warps", [1, 4])
def test_bool_column_read_and_masked_column_store(warps, gen):
    BM, BN, stride = 64, 64, 96
    x = torch.randint(0, 2, (BN * stride,), device="cuda", generator=gen).bool()
    out = torch.zeros(BM * BN, dtype=torch.bool, device="cuda")
    out2 = torch.zeros(BN * stride, dtype=torch.bool, device="cuda")
    bools[(1,)](x, out, out2, stride, BM=BM, BN=BN, num_warps=warps)
    torch.cuda.synchronize()
    cols = x.reshape(BN, stride)[:, :BM]  # cols[n, m]
    assert torch.equal(out.reshape(BM, BN), cols.t())
    expected2 = torch.zeros_like(out2).reshape(BN, stride)
    expected2[:3, :BM] = cols[:3]
    assert torch.equal(out2, expected2.reshape(-1))

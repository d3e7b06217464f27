"""Masked loads and stores as predicated PTX (issue 8: `@p ld.global.v4.b32` with `other`
moved in first, `@p st.global...`, no branch per vector group) on the GPU against numpy:
every element type and access width (ragged sizes, sizes whose masks are uniform per vector
group, unaligned pointers taking the run-time checked path, scalar pointers), `other`
values, masked-off memory left untouched, 2-D ragged tiles, cache modifiers, eviction
policies and volatile loads."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

DTYPES = [torch.bool, torch.int8, torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.int32,
          torch.float32, torch.int64, torch.float64]
# Ragged (1-element, odd) sizes take one access per element; multiples of 16 keep the mask
# uniform per vector group, so 2-, 4-, 8- and 16-byte groups are predicated whole.
SIZES = [1, 3, 17, 100, 1000, 1023, 16, 48, 1008, 4096 + 16]


@tritium.jit
def masked_copy(src, dst, n, m, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    # dst[i] = src[i] for i < n, OTHER for n <= i < m; dst beyond m untouched.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n, other=OTHER)
    tl.store(dst + offs, x, mask=offs < m)


def random_values(dtype, n, gen):
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), device="cuda", generator=gen).bool()
    if dtype.is_floating_point:
        return (torch.randn(n, device="cuda", generator=gen) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -(1 << 30)), min(info.max, 1 << 30), (n,), device="cuda",
                         generator=gen).to(dtype)


def other_value(dtype):
    if dtype == torch.bool:
        return True
    if dtype.is_floating_point:
        return -1.5
    return 7 if dtype == torch.uint8 else -7


def sentinel(dtype, n):
    # A pattern the kernels never write: every byte 0x5A.
    size = torch.empty(0, dtype=dtype).element_size()
    return torch.full((n * size,), 0x5A, dtype=torch.uint8, device="cuda").view(dtype)


def same_bytes(a, b):
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("block,warps", [(16, 1), (128, 4), (1024, 4), (4096, 8)])
def test_masked_copy_every_dtype_and_width(dtype, n, block, warps, gen):
    m = n + 5  # `other` lands in the first masked-off elements of the load
    total = ((m + 9 + block - 1) // block) * block
    src = random_values(dtype, n, gen)
    dst = sentinel(dtype, total)
    masked_copy[((m + block - 1) // block,)](src, dst, n, m, OTHER=other_value(dtype), BLOCK=block,
                                              num_warps=warps)
    torch.cuda.synchronize()
    expected = sentinel(dtype, total)
    expected[:n] = src
    expected[n:m] = other_value(dtype)
    assert same_bytes(dst, expected)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int64, torch.int8], ids=str)
@pytest.mark.parametrize("shift", [1, 3])
def test_unaligned_pointers_take_the_checked_path(dtype, shift, gen):
    # Pointers not 16-byte aligned: vector groups are tested at run time (load_checked_group).
    n, block = 1000, 256
    src = random_values(dtype, n + shift, gen)[shift:]
    total = ((n + 4 + block - 1) // block) * block
    dst = sentinel(dtype, total + shift)[shift:]
    masked_copy[(total // block,)](src, dst, n, n + 4, OTHER=other_value(dtype), BLOCK=block)
    torch.cuda.synchronize()
    expected = sentinel(dtype, total)
    expected[:n] = src
    expected[n:n + 4] = other_value(dtype)
    assert same_bytes(dst, expected)


@tritium.jit
def masked_tile(src, dst, rows, cols, stride, OTHER: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    x = tl.load(src + r * stride + c, mask=(r < rows) & (c < cols), other=OTHER)
    tl.store(dst + r * BN + c, x, mask=r < rows)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int32, torch.float64], ids=str)
@pytest.mark.parametrize("rows,cols,bn", [(7, 5, 8), (33, 64, 64), (100, 1000, 1024), (3, 48, 64)])
def test_ragged_2d_tiles(dtype, rows, cols, bn, gen):
    bm = 4
    src = random_values(dtype, rows * cols, gen).reshape(rows, cols)
    dst = torch.zeros(((rows + bm - 1) // bm) * bm, bn, dtype=dtype, device="cuda")
    masked_tile[((rows + bm - 1) // bm,)](src, dst, rows, cols, cols, OTHER=other_value(dtype), BM=bm, BN=bn)
    torch.cuda.synchronize()
    expected = np.full((rows, bn), float(other_value(dtype)))
    expected[:, :cols] = src.cpu().double().numpy()
    np.testing.assert_array_equal(dst[:rows].cpu().double().numpy(), expected)


@tritium.jit
def hinted_copy(src, dst, n, LOAD_CACHE: tl.constexpr, EVICT: tl.constexpr, STORE_CACHE: tl.constexpr,
                VOLATILE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n, other=0, cache_modifier=LOAD_CACHE, eviction_policy=EVICT,
                volatile=VOLATILE)
    tl.store(dst + offs, x, mask=offs < n, cache_modifier=STORE_CACHE, eviction_policy=EVICT)


@pytest.mark.parametrize("load_cache", ["", ".ca", ".cg", ".cv"])
@pytest.mark.parametrize("evict", ["", "evict_first", "evict_last"])
@pytest.mark.parametrize("store_cache", ["", ".wb", ".cg", ".cs", ".wt"])
@pytest.mark.parametrize("volatile", [False, True])
@pytest.mark.parametrize("n", [1000, 1024])
def test_cache_modifiers_eviction_and_volatile(load_cache, evict, store_cache, volatile, n, gen):
    src = torch.randn(n, device="cuda", generator=gen)
    dst = torch.full((1024,), 3.0, device="cuda")
    hinted_copy[(4,)](src, dst, n, LOAD_CACHE=load_cache, EVICT=evict, STORE_CACHE=store_cache,
                      VOLATILE=volatile, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(dst[:n], src)
    assert torch.all(dst[n:] == 3.0)


@tritium.jit
def scalar_masked(src, dst, flags, OTHER: tl.constexpr):
    i = tl.program_id(0)
    take = tl.load(flags + i) != 0
    x = tl.load(src + i, mask=take, other=OTHER)
    tl.store(dst + i, x)
    tl.store(dst + tl.num_programs(0) + i, x + x, mask=take)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int64, torch.int8], ids=str)
def test_scalar_pointers_under_a_mask(dtype, gen):
    n = 77
    src = random_values(dtype, n, gen)
    flags = torch.randint(0, 2, (n,), device="cuda", generator=gen).to(torch.int32)
    dst = torch.zeros(2 * n, dtype=dtype, device="cuda")
    scalar_masked[(n,)](src, dst, flags, OTHER=other_value(dtype))
    torch.cuda.synchronize()
    take = flags.bool()
    other = torch.full_like(src, other_value(dtype))
    expected = torch.where(take, src, other)
    assert torch.equal(dst[:n], expected)
    assert torch.equal(dst[n:][take], (src + src)[take])
    assert torch.all(dst[n:][~take] == 0)

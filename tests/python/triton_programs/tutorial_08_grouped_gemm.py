"""Tutorial 08 (grouped GEMM): one launch of NUM_SM programs computes a group of
independent fp16 matrix products of different shapes. The host stores each matrix's
address in int64 arrays; the kernel loads an address and casts it with
.to(tl.pointer_type(tl.float16)), and walks the tiles of every problem in turn with a
while loop, each program taking every NUM_SM-th tile. Autotuned over the tile sizes and
NUM_SM, keyed on the group size."""

import triton
import triton.language as tl

import tutorial_host as host


def _configs():
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": 32, "NUM_SM": sms})
            for m, n in ((32, 32), (64, 32)) for sms in (3, 8)]


@triton.autotune(configs=_configs(), key=["group_size"])
@triton.jit
def grouped_matmul_kernel(a_addresses, b_addresses, c_addresses, sizes_ptr, leading_ptr, group_size,
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr):
    tile = tl.program_id(0)
    tiles_before = 0
    for problem in range(group_size):
        m = tl.load(sizes_ptr + problem * 3)
        n = tl.load(sizes_ptr + problem * 3 + 1)
        k = tl.load(sizes_ptr + problem * 3 + 2)
        tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
        tiles = tl.cdiv(m, BLOCK_SIZE_M) * tiles_n
        while tile >= tiles_before and tile < tiles_before + tiles:
            lda = tl.load(leading_ptr + problem * 3)
            ldb = tl.load(leading_ptr + problem * 3 + 1)
            ldc = tl.load(leading_ptr + problem * 3 + 2)
            a_ptr = tl.load(a_addresses + problem).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(b_addresses + problem).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(c_addresses + problem).to(tl.pointer_type(tl.float16))
            local = tile - tiles_before
            rows = (local // tiles_n) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            cols = (local % tiles_n) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            ks = tl.arange(0, BLOCK_SIZE_K)
            a_tile = a_ptr + rows[:, None] * lda + ks[None, :]
            b_tile = b_ptr + ks[:, None] * ldb + cols[None, :]
            acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for _ in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_tile, [16, 16])
                tl.multiple_of(b_tile, [16, 16])
                # Every problem's sizes are multiples of the tiles: no masks.
                acc += tl.dot(tl.load(a_tile), tl.load(b_tile))
                a_tile += BLOCK_SIZE_K
                b_tile += BLOCK_SIZE_K * ldb
            tl.store(c_ptr + ldc * rows[:, None] + cols[None, :], acc.to(tl.float16))
            tile += NUM_SM
        tiles_before = tiles_before + tiles


def grouped_matmul(group_a, group_b):
    assert len(group_a) == len(group_b)
    like = group_a[0]
    outputs, a_addr, b_addr, c_addr, sizes, leading = [], [], [], [], [], []
    for a, b in zip(group_a, group_b):
        (m, k), (k2, n) = a.shape, b.shape
        assert k == k2, "inner dimensions differ"
        c = host.empty((m, n), "float16", like)
        outputs.append(c)
        a_addr.append(host.address(a))
        b_addr.append(host.address(b))
        c_addr.append(host.address(c))
        sizes += [m, n, k]
        leading += [host.stride(a, 0), host.stride(b, 0), host.stride(c, 0)]
    grid = lambda meta: (meta["NUM_SM"],)
    grouped_matmul_kernel[grid](host.array(a_addr, "int64", like), host.array(b_addr, "int64", like),
                                host.array(c_addr, "int64", like), host.array(sizes, "int32", like),
                                host.array(leading, "int32", like), len(group_a))
    return outputs

"""Tutorial 03 (matrix multiplication): blocked C = A @ B with grouped program ordering for
L2 reuse, autotuned over triton.Config launch options keyed on the shape, a K loop with
masked edge blocks, tl.dot accumulating in fp32, an optional activation chosen by a string
constexpr in a helper jit function, and tl.assume / tl.multiple_of / tl.max_contiguous
hints."""

import triton
import triton.language as tl

import tutorial_host as host


def _configs():
    shapes = [(32, 32, 32, 4), (64, 32, 32, 8), (32, 64, 16, 2)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": g},
                          num_stages=s, num_warps=w)
            for (m, n, k, g), s, w in zip(shapes, (3, 4, 2), (4, 4, 2))]


@triton.jit
def leaky_relu(v):
    return tl.where(v >= 0, v, 0.01 * v)


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
    # GROUP_SIZE_M rows of tiles are walked column by column.
    per_group = GROUP_SIZE_M * tiles_n
    group_first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = min(tiles_m - group_first_m, GROUP_SIZE_M)
    tile_m = group_first_m + ((pid % per_group) % group_rows)
    tile_n = (pid % per_group) // group_rows
    tl.assume(tile_m >= 0)
    tl.assume(tile_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)

    rows = (tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    cols = (tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    rows = tl.max_contiguous(tl.multiple_of(rows, BLOCK_SIZE_M), BLOCK_SIZE_M)
    cols = tl.max_contiguous(tl.multiple_of(cols, BLOCK_SIZE_N), BLOCK_SIZE_N)
    ks = tl.arange(0, BLOCK_SIZE_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        left = K - step * BLOCK_SIZE_K
        a = tl.load(a_tile, mask=ks[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=ks[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_SIZE_K * stride_ak
        b_tile += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = acc.to(tl.float16)
    out_rows = tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    out_cols = tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_tile = c_ptr + stride_cm * out_rows[:, None] + stride_cn * out_cols[None, :]
    tl.store(c_tile, c, mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def matmul(a, b, activation=""):
    assert a.shape[1] == b.shape[0], "inner dimensions differ"
    M, K = a.shape
    _, N = b.shape
    c = host.empty((M, N), "float16", a)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K,
                        host.stride(a, 0), host.stride(a, 1), host.stride(b, 0), host.stride(b, 1),
                        host.stride(c, 0), host.stride(c, 1), ACTIVATION=activation)
    return c

"""Tutorial 09 (persistent matmul): NUM_SMS programs (the device's SM count from
get_device_properties) each walk every NUM_SMS-th output tile in grouped order, with
tl.range(..., flatten=..., warp_specialize=...). Three forms: plain pointers; host tensor
descriptors (block shapes set per autotune config by a pre_hook); descriptors made in the
kernel with tl.make_tensor_descriptor (scratch from triton.set_allocator). The descriptor
forms can store the tile in two halves (EPILOGUE_SUBTILE: tl.reshape, tl.permute,
tl.split)."""

import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tutorial_host as host


def num_sms():
    return triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]


@triton.jit
def _tile_coords(tile, tiles_per_group, tiles_m, GROUP_SIZE_M: tl.constexpr):
    group = tile // tiles_per_group
    first_m = group * GROUP_SIZE_M
    rows_here = min(tiles_m - first_m, GROUP_SIZE_M)
    tile_m = first_m + (tile % rows_here)
    tile_n = (tile % tiles_per_group) // rows_here
    return tile_m, tile_n


def _configs(pre_hook=None):
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 4},
                          num_stages=s, num_warps=w, pre_hook=pre_hook)
            for (m, n, k) in ((32, 32, 32), (64, 64, 32)) for s, w in ((3, 4), (4, 8))]


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr,
                      WARP_SPECIALIZE: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_steps = tl.cdiv(K, BLOCK_SIZE_K)
    tiles = tiles_m * tiles_n
    per_group = GROUP_SIZE_M * tiles_n
    out_dtype = c_ptr.dtype.element_ty
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=WARP_SPECIALIZE):
        tile_m, tile_n = _tile_coords(tile, per_group, tiles_m, GROUP_SIZE_M)
        rows = tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        cols = tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        safe_rows = tl.max_contiguous(tl.multiple_of(tl.where(rows < M, rows, 0), BLOCK_SIZE_M), BLOCK_SIZE_M)
        safe_cols = tl.max_contiguous(tl.multiple_of(tl.where(cols < N, cols, 0), BLOCK_SIZE_N), BLOCK_SIZE_N)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for step in range(k_steps):
            ks = step * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a = tl.load(a_ptr + safe_rows[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + safe_cols[None, :] * stride_bn,
                        mask=ks[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        where = (rows[:, None] < M) & (cols[None, :] < N)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(out_dtype), mask=where)


def _set_block_shapes(nargs):
    bm, bn, bk = nargs["BLOCK_SIZE_M"], nargs["BLOCK_SIZE_N"], nargs["BLOCK_SIZE_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk]
    nargs["c_desc"].block_shape = [bm, bn // 2] if nargs["EPILOGUE_SUBTILE"] else [bm, bn]


@triton.jit
def _store_tile(c_desc, acc, row, col, out_dtype: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                BLOCK_SIZE_N: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr):
    if EPILOGUE_SUBTILE:
        halves = tl.permute(tl.reshape(acc, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2)), (0, 2, 1))
        left, right = tl.split(halves)
        c_desc.store([row, col], left.to(out_dtype))
        c_desc.store([row, col + BLOCK_SIZE_N // 2], right.to(out_dtype))
    else:
        c_desc.store([row, col], acc.to(out_dtype))


@triton.autotune(configs=_configs(_set_block_shapes), key=["M", "N", "K", "EPILOGUE_SUBTILE"])
@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr,
                          NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    """a_desc over A [M, K], b_desc over B^T [N, K], c_desc over C [M, N]."""
    out_dtype = c_desc.dtype
    tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=FLATTEN,
                         warp_specialize=WARP_SPECIALIZE):
        tile_m, tile_n = _tile_coords(tile, per_group, tiles_m, GROUP_SIZE_M)
        row = tile_m * BLOCK_SIZE_M
        col = tile_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for step in range(tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([row, step * BLOCK_SIZE_K])
            bt = b_desc.load([col, step * BLOCK_SIZE_K])
            acc = tl.dot(a, bt.T, acc)
        _store_tile(c_desc, acc, row, col, out_dtype, BLOCK_SIZE_M, BLOCK_SIZE_N, EPILOGUE_SUBTILE)


@triton.autotune(configs=_configs(), key=["M", "N", "K", "EPILOGUE_SUBTILE"])
@triton.jit
def matmul_descriptor_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                                 BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                                 EPILOGUE_SUBTILE: tl.constexpr, NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr,
                                 WARP_SPECIALIZE: tl.constexpr):
    """The same with descriptors made here: A [M, K], B^T [N, K], C [M, N], row-major."""
    out_dtype = c_ptr.dtype.element_ty
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_block: tl.constexpr = BLOCK_SIZE_N // 2 if EPILOGUE_SUBTILE else BLOCK_SIZE_N
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, c_block])
    tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=FLATTEN,
                         warp_specialize=WARP_SPECIALIZE):
        tile_m, tile_n = _tile_coords(tile, per_group, tiles_m, GROUP_SIZE_M)
        row = tile_m * BLOCK_SIZE_M
        col = tile_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for step in range(tl.cdiv(K, BLOCK_SIZE_K)):
            acc = tl.dot(a_desc.load([row, step * BLOCK_SIZE_K]), b_desc.load([col, step * BLOCK_SIZE_K]).T, acc)
        _store_tile(c_desc, acc, row, col, out_dtype, BLOCK_SIZE_M, BLOCK_SIZE_N, EPILOGUE_SUBTILE)


def _persistent_grid(M, N, sms):
    return lambda meta: (min(sms, triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"])),)


def matmul(a, b, flatten=False, warp_specialize=False):
    M, K = a.shape
    N = b.shape[1]
    c = host.empty((M, N), "float16", a)
    sms = num_sms()
    matmul_persistent[_persistent_grid(M, N, sms)](
        a, b, c, M, N, K, host.stride(a, 0), host.stride(a, 1), host.stride(b, 0), host.stride(b, 1),
        host.stride(c, 0), host.stride(c, 1), NUM_SMS=sms, FLATTEN=flatten, WARP_SPECIALIZE=warp_specialize)
    return c


def matmul_tma(a, bt, epilogue_subtile=False, flatten=False, warp_specialize=False):
    """bt: B transposed, [N, K] row-major."""
    M, K = a.shape
    N = bt.shape[0]
    c = host.empty((M, N), "float16", a)
    dummy = [1, 1]
    a_desc = TensorDescriptor(a, [M, K], [K, 1], dummy)
    b_desc = TensorDescriptor(bt, [N, K], [K, 1], dummy)
    c_desc = TensorDescriptor(c, [M, N], [N, 1], dummy)
    sms = num_sms()
    matmul_tma_persistent[_persistent_grid(M, N, sms)](
        a_desc, b_desc, c_desc, M, N, K, EPILOGUE_SUBTILE=epilogue_subtile, NUM_SMS=sms, FLATTEN=flatten,
        WARP_SPECIALIZE=warp_specialize)
    return c


def matmul_descriptor(a, bt, epilogue_subtile=False, flatten=False, warp_specialize=False):
    M, K = a.shape
    N = bt.shape[0]
    c = host.empty((M, N), "float16", a)
    triton.set_allocator(lambda size, alignment, stream: host.empty((size,), "int8", a))
    sms = num_sms()
    matmul_descriptor_persistent[_persistent_grid(M, N, sms)](
        a, bt, c, M, N, K, EPILOGUE_SUBTILE=epilogue_subtile, NUM_SMS=sms, FLATTEN=flatten,
        WARP_SPECIALIZE=warp_specialize)
    return c

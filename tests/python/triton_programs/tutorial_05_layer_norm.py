"""Tutorial 05 (layer normalization), forward and backward. Forward: one program per row,
mean and variance over BLOCK_SIZE columns at a time, the row's mean and 1/std kept for the
backward pass. Backward: dx per row, and the row's share of dw and db added to one of
GROUP_SIZE_M partial buffers under a spin lock (tl.atomic_cas / tl.atomic_xchg, with a
first-writer flag next to the locks); a second kernel sums the partial buffers."""

import triton
import triton.language as tl

import tutorial_host as host


@triton.jit
def layer_norm_forward(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, cols, eps,
                       BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * row_stride
    y_ptr += row * row_stride
    total = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        col = start + tl.arange(0, BLOCK_SIZE)
        total += tl.load(x_ptr + col, mask=col < cols, other=0.0).to(tl.float32)
    mean = tl.sum(total, axis=0) / cols
    squares = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        col = start + tl.arange(0, BLOCK_SIZE)
        v = tl.load(x_ptr + col, mask=col < cols, other=0.0).to(tl.float32)
        v = tl.where(col < cols, v - mean, 0.0)
        squares += v * v
    rstd = 1 / tl.sqrt(tl.sum(squares, axis=0) / cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, cols, BLOCK_SIZE):
        col = start + tl.arange(0, BLOCK_SIZE)
        inside = col < cols
        w = tl.load(w_ptr + col, mask=inside)
        b = tl.load(b_ptr + col, mask=inside)
        x = tl.load(x_ptr + col, mask=inside, other=0.0).to(tl.float32)
        tl.store(y_ptr + col, (x - mean) * rstd * w + b, mask=inside)


@triton.jit
def layer_norm_backward_dx(dx_ptr, dy_ptr, partial_dw_ptr, partial_db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                           locks_ptr, row_stride, cols, GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    col = tl.arange(0, BLOCK_SIZE_N)
    inside = col < cols
    x = tl.load(x_ptr + row * row_stride + col, mask=inside, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * row_stride + col, mask=inside, other=0).to(tl.float32)
    w = tl.load(w_ptr + col, mask=inside).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(inside, (x - mean) * rstd, 0.0)
    wdy = tl.where(inside, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / cols
    c2 = tl.sum(wdy, axis=0) / cols
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * row_stride + col, dx, mask=inside)
    # This row's dw and db go to partial buffer row % GROUP_SIZE_M.
    slot = row % GROUP_SIZE_M
    lock = locks_ptr + slot
    written = locks_ptr + GROUP_SIZE_M + slot
    partial_dw_ptr += slot * cols + col
    partial_db_ptr += slot * cols + col
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    dw = (dy * xhat).to(w.dtype)
    db = dy.to(w.dtype)
    if tl.load(written) == 0:
        tl.atomic_xchg(written, 1)
    else:
        dw += tl.load(partial_dw_ptr, mask=inside)
        db += tl.load(partial_db_ptr, mask=inside)
    tl.store(partial_dw_ptr, dw, mask=inside)
    tl.store(partial_db_ptr, db, mask=inside)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def layer_norm_backward_dwdb(partial_dw_ptr, partial_db_ptr, dw_ptr, db_ptr, groups, cols,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    col = tl.program_id(0) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for first in range(0, groups, BLOCK_SIZE_M):
        g = first + tl.arange(0, BLOCK_SIZE_M)
        where = (g[:, None] < groups) & (col[None, :] < cols)
        at = g[:, None] * cols + col[None, :]
        dw += tl.load(partial_dw_ptr + at, mask=where, other=0.0)
        db += tl.load(partial_db_ptr + at, mask=where, other=0.0)
    tl.store(dw_ptr + col, tl.sum(dw, axis=0), mask=col < cols)
    tl.store(db_ptr + col, tl.sum(db, axis=0), mask=col < cols)


def forward(x, w, b, eps=1e-5):
    rows, cols = x.shape
    y = host.empty_like(x)
    mean = host.empty((rows,), "float32", x)
    rstd = host.empty((rows,), "float32", x)
    largest = 65536 // host.element_size(x)
    block = min(largest, triton.next_power_of_2(cols))
    if cols > block:
        raise RuntimeError("this layer norm supports rows of at most 64 KB")
    num_warps = min(max(block // 256, 1), 8)
    layer_norm_forward[(rows,)](x, y, w, b, mean, rstd, host.stride(x, 0), cols, eps,
                                BLOCK_SIZE=block, num_warps=num_warps, num_ctas=1)
    return y, mean, rstd, block, num_warps


def backward(dy, x, w, mean, rstd, block, num_warps):
    rows, cols = x.shape
    groups = 64 if cols <= 8192 else 32 if cols <= 4096 else 16
    groups = min(groups, rows)
    locks = host.zeros((2 * groups,), "int32", x)
    partial_dw = host.zeros((groups, cols), "float32", x)
    partial_db = host.zeros((groups, cols), "float32", x)
    dx = host.empty_like(dy)
    dw = host.empty((cols,), "float32", x)
    db = host.empty((cols,), "float32", x)
    layer_norm_backward_dx[(rows,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd, locks,
                                    host.stride(x, 0), cols, BLOCK_SIZE_N=block,
                                    GROUP_SIZE_M=groups, num_warps=num_warps)
    grid = lambda meta: (triton.cdiv(cols, meta["BLOCK_SIZE_N"]),)
    layer_norm_backward_dwdb[grid](partial_dw, partial_db, dw, db, min(groups, rows), cols,
                                   BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_ctas=1)
    return dx, dw, db

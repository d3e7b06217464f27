"""Kernels of bench_transpose.py, written once for both JITs (no decorator here)."""
import triton.language as tl


def transpose(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # out[n, m] = x[m, n], both row-major: the load runs along x's rows, the store down out's
    # columns (contiguous along dim 0 of the tile).
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] * stride_x + n[None, :], mask=mask)
    tl.store(out_ptr + n[None, :] * stride_out + m[:, None], x, mask=mask)


def column_read(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # x column-major (x[m, n] at m + n * stride_x) into row-major out.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride_x, mask=mask)
    tl.store(out_ptr + m[:, None] * stride_out + n[None, :], x, mask=mask)

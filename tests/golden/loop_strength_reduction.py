# LLVM's LoopStrengthReduce is skipped in kernels whose loops reload lines at their fragments
# (FragmentPlan::reloads_in_loop; codegen.cpp's pass gate). mamba's
# _chunk_scan_bwd_dcb_kernel in miniature: per head a wgmma 64 x 32 of two tiles copied
# ahead (cp.async), scaled by the row line dt_n and by exp(min(dA_m[:, None] - dA_n[None, :],
# 0)), all three lines loaded again in every iteration at the rows and columns each thread
# holds, every pointer advanced by a run-time stride per head. Each of those addresses is
# a per-thread part plus the loop's scalar advance: the loop carries one 64-bit offset per
# advanced pointer (dout, x, dt, dA: 4). LoopStrengthReduce made one 64-bit induction
# variable per address instead (7 here, 8 in mamba's kernel, each live through the loop):
# this miniature 90 registers -> 80 (ptxas -arch=sm_90a), mamba's at 64 x 32 126 -> 94 and
# at 32 x 32 80 -> 64 (Triton 3.6: 96 and 64). TRITIUM_REDUCE_EXPERIMENT=lsr runs the pass
# anyway (then this test fails: a fifth self-increment).
#
# RUN: --kernel heads_sum --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, BM=64, BN=32, BK=64" --emit ptx --arch sm_90 --num-warps 4 --num-stages 3
#
# CHECK-LABEL: .entry heads_sum(
# CHECK: add.s64 [[A:%rd[0-9]+]], [[A]], %rd
# CHECK: add.s64 [[B:%rd[0-9]+]], [[B]], %rd
# CHECK: add.s64 [[C:%rd[0-9]+]], [[C]], %rd
# CHECK: add.s64 [[D:%rd[0-9]+]], [[D]], %rd
# CHECK-NOT: add.s64 {{(%rd[0-9]+), \1,}}
# CHECK: ret;
import triton
import triton.language as tl


@triton.jit
def heads_sum(dout_ptr, x_ptr, dt_ptr, dA_ptr, out_ptr, nheads, stride_dout_m, stride_dout_h, stride_x_n, stride_x_h,
              stride_dt_h, chunk_size, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    dout_ptrs = dout_ptr + offs_m[:, None] * stride_dout_m + offs_k[None, :]
    x_ptrs = x_ptr + offs_n[None, :] * stride_x_n + offs_k[:, None]
    dt_ptrs = dt_ptr + offs_n
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for h in range(nheads):
        dout = tl.load(dout_ptrs, mask=offs_m[:, None] < chunk_size, other=0.0)
        x = tl.load(x_ptrs, mask=offs_n[None, :] < chunk_size, other=0.0)
        d = tl.dot(dout, x)
        dt_n = tl.load(dt_ptrs, mask=offs_n < chunk_size, other=0.0)
        d *= dt_n[None, :]
        dA_m = tl.load(dA_ptr + offs_m, mask=offs_m < chunk_size, other=0.0)
        dA_n = tl.load(dA_ptr + offs_n, mask=offs_n < chunk_size, other=0.0)
        d *= tl.exp(tl.minimum(dA_m[:, None] - dA_n[None, :], 0.0))
        acc += d
        dout_ptrs += stride_dout_h
        x_ptrs += stride_x_h
        dt_ptrs += stride_dt_h
        dA_ptr += stride_dt_h
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)

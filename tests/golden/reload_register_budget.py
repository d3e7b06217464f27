# Lines of loads broadcast into a dot's fragments are loaded again at the rows or columns each
# thread holds (fragment_layout.h's line_reloaded) only while the fragments and reloaded
# values a thread holds there stay within kReloadRegisterBudget (150). mamba's
# _chunk_scan_bwd_dcb_kernel in miniature: per head a wgmma 64 x BN, scaled by a row line
# dt_n and by exp(min(dA_m[:, None] - dA_n[None, :], 0)), summed into a carried accumulator.
# At BN = 128 the accumulator and the dot hold 64 + 64 registers a thread and each row line
# 32 more (its columns 2 (lane % 4) + 8 j): dt_n and dA_n take the round trip through shared
# memory, the column line dA_m (2 rows a thread) is reloaded. Reloading all three (session
# 31) made mamba's kernel spill 328 bytes at 64 x 128 (ptxas, sm_90a); now it spills none.
# At BN = 64 (32 + 32 registers, 16 a row line) all three are reloaded.
# dA_m's 2 registers are loaded early, before the head's dot (FragmentPlan::reloaded_early).
#
# RUN: --kernel scaled_sum --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, *fp32:16, i32, BM=64, BN=128, BK=64" --emit gpu-ir --arch sm_90
# RUN: --kernel scaled_sum --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, *fp32:16, i32, BM=64, BN=64, BK=64" --emit gpu-ir --arch sm_90 --check-prefix=SMALL
#
# CHECK-LABEL: func @scaled_sum(
# CHECK: = for
# CHECK: = dot {{.*}}  // wgmma m64n128k16 bf16
# CHECK: = broadcast {{.*}} : block<64x128xfp32, blocked<{{[^>]*}}>>  // fragments: 4x1 warps, 1x16 tiles of 16x8 each{{$}}
# CHECK: = broadcast {{.*}} : block<64x128xfp32, blocked<{{[^>]*}}>>  // the line computed again at the rows each thread holds, its loads with it, early (right after the ops its chain needs); fragments: 4x1 warps, 1x16 tiles of 16x8 each{{$}}
# CHECK: = broadcast {{.*}} : block<64x128xfp32, blocked<{{[^>]*}}>>  // fragments: 4x1 warps, 1x16 tiles of 16x8 each{{$}}
# CHECK: return
#
# SMALL-LABEL: func @scaled_sum(
# SMALL: = for
# SMALL: = dot {{.*}}  // wgmma m64n64k16 bf16
# SMALL: = broadcast {{.*}}  // the line computed again at the columns each thread holds, its loads with it
# SMALL: = broadcast {{.*}}  // the line computed again at the rows each thread holds, its loads with it
# SMALL: = broadcast {{.*}}  // the line computed again at the columns each thread holds, its loads with it
# SMALL: return
import triton
import triton.language as tl


@triton.jit
def scaled_sum(dout_ptr, x_ptr, dt_ptr, dA_ptr, out_ptr, nheads, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for h in range(nheads):
        dout = tl.load(dout_ptr + h * BM * BK + offs_m[:, None] * BK + offs_k[None, :])
        x = tl.load(x_ptr + h * BK * BN + offs_k[:, None] * BN + offs_n[None, :])
        d = tl.dot(dout, x)
        dt_n = tl.load(dt_ptr + h * BN + offs_n)
        d *= dt_n[None, :]
        dA_m = tl.load(dA_ptr + h * BN + offs_m)
        dA_n = tl.load(dA_ptr + h * BN + offs_n)
        d *= tl.exp(tl.minimum(dA_m[:, None] - dA_n[None, :], 0.0))
        acc += d
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)

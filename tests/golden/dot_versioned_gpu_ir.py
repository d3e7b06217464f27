# `--emit gpu-ir` of Triton's tutorial matmul, whose columns are `(pid_n * BN + arange) % N`:
# runs of 16 consecutive columns only when pid_n * BN >= 0, and pid_n comes from a division
# by a value of unknown sign (the grouped ordering). version_on_signs tests pid_n * BN >= 0
# after it is computed and compiles the rest twice: first with the columns proved in runs
# (B's loads become 16-byte cp.async copies), then as written. The two loops never run
# together, so their stage buffers share the same bytes: the kernel reserves them once.
# The second copy is cold (launches of the tutorial's grid never take it): its loads are
# marked so, and B's, whose runs the facts cannot prove there, are copied one element at a
# time from addresses computed where they are copied, not held per element across the loop.
#
# RUN: --kernel matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, BM=64, BN=64, BK=32, GROUP_M=8, PROMISE=False" --emit gpu-ir --arch sm_90
#
# CHECK: // gpu-ir: sm_90, 4 warps, num_stages 3; stage buffers: 32768 bytes of shared memory
# CHECK-LABEL: func @matmul(
# CHECK: = rem {{.*}} : block<64xi32, {{.*}}
# CHECK-NEXT: [[COLS:%[0-9]+]] = mul {{%[0-9]+}}, {{%[0-9]+}} : i32
# CHECK-NEXT: [[ZERO:%[0-9]+]] = constant {value = 0} : i32
# CHECK-NEXT: [[TEST:%[0-9]+]] = cmp [[COLS]], [[ZERO]] {predicate = "ge"} : i1
# CHECK-NEXT: if [[TEST]] {
# CHECK-NEXT: = maximum [[COLS]], [[ZERO]] : i32
# CHECK-NOT: cold
# CHECK: = load {{.*}} : block<32x64xfp16, {{.*}}  // cp.async into stage buffers at bytes 16384, 20480, 24576 and 28672 (128-byte swizzle), stage 0, 16-byte copies
# CHECK-NOT: cold
# CHECK: = dot {{.*}}  // wgmma m64n64k16 f16
# CHECK-NOT: cold
# CHECK: } else {
# CHECK: = load {{.*}} {cold = 1} : block<64x32xfp16, {{.*}}, stage 0, 16-byte copies
# CHECK: = load {{.*}} {cold = 1} : block<32x64xfp16, {{.*}}  // cp.async into stage buffers at bytes 16384, 20480, 24576 and 28672 (128-byte swizzle), stage 0, 2-byte copies, addresses computed where copied (cold)
# CHECK: = load {{.*}} {cold = 1} : block<32x64xfp16, {{.*}}, the stage read last, after the dot's barrier, 2-byte copies, addresses computed where copied (cold)
# CHECK: = dot {{.*}}  // wgmma m64n64k16 f16
# CHECK: return
#
# With `tl.assume(pid_n >= 0)` at the top of the kernel (Triton's newer tutorial has it) the
# axis facts take pid_n as non-negative (analysis/axis_info.cpp: a promise on every path),
# so the columns are proved in runs without a copy: one loop, no test, nothing cold.
#
# RUN: --kernel matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, BM=64, BN=64, BK=32, GROUP_M=8, PROMISE=True" --emit gpu-ir --arch sm_90 --check-prefix=PROMISED
#
# PROMISED-LABEL: func @matmul(
# PROMISED: assume
# PROMISED-NOT: maximum
# PROMISED: = load {{.*}} : block<32x64xfp16, {{.*}}  // cp.async into stage buffers at bytes {{.*}}, stage 0, 16-byte copies
# PROMISED-NOT: cold
# PROMISED: = dot {{.*}}  // wgmma m64n64k16 f16
# PROMISED-NOT: cold
# PROMISED-NOT: = dot
# PROMISED: return
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
           PROMISE: tl.constexpr = False):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    if PROMISE:  # Triton's newer tutorial says so: the facts then need no second copy
        tl.assume(pid_m >= 0)
        tl.assume(pid_n >= 0)
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :])
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))

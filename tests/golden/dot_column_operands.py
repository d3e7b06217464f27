# Dot operands stored column-major. Outside a pipelined loop (one dot, as Triton's test_dot
# with COL_A/COL_B) gpu/coalesce.h gives each such load a blocked layout along its
# contiguous axis, so it is one 16-byte vector per 8 fp16; the dot stages it into its
# swizzled tile straight from that layout (emit_convert.cpp's stage_slot), and the
# convert_layout back to the flat rule emits nothing. The row-major operand and the rest of
# the kernel keep their IR. In a pipelined loop (second kernel, `x.T @ w`: A stored K x M)
# an f16 A whose runs lie along M is copied by cp.async along M into a tile held transposed,
# and wgmma reads it with imm-trans-a 1 (async_copy.h's AsyncOperand::transposed).
#
# RUN: --kernel one_dot --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit gpu-ir --arch sm_90 --check-prefix=IR
# RUN: --kernel one_dot --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit ptx --arch sm_90 --check-prefix=PTX
# RUN: --kernel a_transposed --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, BM=128, BN=128, BK=64" --emit gpu-ir --arch sm_90 --num-warps 8 --check-prefix=LOOP
# RUN: --kernel a_transposed --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, BM=128, BN=128, BK=64" --emit ptx --arch sm_90 --num-warps 8 --check-prefix=LOOPPTX
# RUN: --kernel grouped --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, BM=128, BN=128, BK=64" --emit gpu-ir --arch sm_90 --num-warps 8 --check-prefix=GROUPED
#
# IR-LABEL: func @one_dot(
# IR: load {{%[0-9]+}} : block<64x32xfp16, blocked<spt = [8, 1], {{[^>]*}}order = [0, 1]>>
# IR-NEXT: convert_layout {{%[0-9]+}} {{.*}}: block<64x32xfp16, blocked<{{[^>]*}}order = [1, 0]>>
# IR: load {{%[0-9]+}} : block<32x64xfp16, blocked<spt = [1, 8], {{[^>]*}}order = [1, 0]>>
# IR: dot
#
# PTX-LABEL: .entry one_dot(
# PTX: ld.global.v4.b32
# PTX-NOT: ld.global.b16
# PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
#
# LOOP-LABEL: func @a_transposed(
# LOOP: = load {{.*}}  // cp.async into stage buffers at bytes 0, 16384 and 32768 (128-byte swizzle), stage 0, 16-byte copies along M, held transposed (M-major), dealt out evenly
#
# The tutorial's grouped ordering: pid_m's sign is unknown, so `% M` proves nothing along M
# until version_on_signs tests it; the rows (`offs_am`, computed before pid_n's scalar is)
# are moved below the test so both versions compute them, and the tested one copies A along M.
# GROUPED-LABEL: func @grouped(
# GROUPED: if
# GROUPED: = load {{.*}}  // cp.async into stage buffers at bytes 0, 16384 and 32768 (128-byte swizzle), stage 0, 16-byte copies along M, held transposed (M-major)
#
# LOOPPTX-LABEL: .entry a_transposed(
# LOOPPTX-NOT: ld.global
# LOOPPTX: cp.async.cg.shared.global
# LOOPPTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 1;
import triton
import triton.language as tl


@triton.jit
def one_dot(a_ptr, b_ptr, c_ptr, M, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] + rk[None, :] * M)  # column-major A
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))


@triton.jit
def a_transposed(a_ptr, b_ptr, c_ptr, M, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] + (k + rk)[None, :] * M)
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def grouped(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    per_group = 8 * tl.cdiv(N, BN)
    first_m = (pid // per_group) * 8
    rows = min(tl.cdiv(M, BM) - first_m, 8)
    pid_m = first_m + (pid % per_group) % rows
    pid_n = (pid % per_group) // rows
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + offs_am[:, None] + (k + rk)[None, :] * M)  # A stored K x M
        b = tl.load(b_ptr + (k + rk)[:, None] * N + offs_bn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + offs_am[:, None] * N + offs_bn[None, :], acc)

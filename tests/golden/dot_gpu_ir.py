# `--emit gpu-ir`: the kernel after the GPU passes with what code generation decided noted
# on each op. A tutorial-style matmul: both operand loads become cp.async copies into three
# stage buffers, two iterations ahead (num_stages 3; the loop carries their offsets), the
# accumulator stays in mma fragments through the loop, the dot is mma.sync m16n8k16 on sm_80, `acc * 0.5` stays in fragments (a
# uniform operand), the add of a broadcast bias row too (each register reads the row at its
# column: a line broadcast; the row a load, each thread loads its columns itself, since
# session 31) and the cast to fp16, which the store reads flat once. (Until
# session 22 the add was flat and `acc * 0.5` was read flat, in fp32.) On
# sm_90 (the second RUN) the dot is wgmma, the fragments are the warpgroup layout (4 x 1 warps),
# the stage buffers hold swizzled tiles on 1024-byte boundaries, and the dot stays in flight
# into the next iteration, which keeps one more buffer (four for three stages). Types carry the blocked
# layouts of assign_layouts (the fragment plan is not in the type yet).
#
# RUN: --kernel matmul --signature "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit gpu-ir --arch sm_80
# RUN: --kernel matmul --signature "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit gpu-ir --arch sm_90 --check-prefix=SM90
#
# SM90: // gpu-ir: sm_90, 4 warps, num_stages 3; stage buffers: 32768 bytes of shared memory
# SM90-LABEL: func @matmul(
# SM90: = load {{.*}} : block<64x32xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 0, 4096, 8192 and 12288 (64-byte swizzle), stage 0
# SM90: = load {{.*}} : block<32x64xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 16384, 20480, 24576 and 28672 (128-byte swizzle), stage 0
# SM90: = load {{.*}} : block<64x32xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 0, 4096, 8192 and 12288 (64-byte swizzle), stage 1
# SM90: = for {{.*}}  // #0 fragments: 4x1 warps, 1x8 tiles of 16x8 each
# SM90: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; fragments: 4x1 warps, 1x8 tiles of 16x8 each; in flight until the next iteration's dot is issued
# SM90: return
#
# CHECK: // gpu-ir: sm_80, 4 warps, num_stages 3; stage buffers: 29184 bytes of shared memory
# CHECK-LABEL: func @matmul(
# CHECK: = load {{.*}} : block<64x32xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 0, 5120 and 10240 (rows of 40 elements), stage 0
# CHECK: = load {{.*}} : block<32x64xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 15360, 19968 and 24576 (rows of 72 elements), stage 0
# CHECK: = load {{.*}} : block<64x32xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 0, 5120 and 10240 (rows of 40 elements), stage 1
# CHECK: = load {{.*}} : block<32x64xfp16, blocked<{{[^>]*}}>>  // cp.async into stage buffers at bytes 15360, 19968 and 24576 (rows of 72 elements), stage 1
# CHECK: = for {{.*}}  // #0 fragments: 2x2 warps, 2x4 tiles of 16x8 each; carried #1: a stage buffer's offset; carried #2: a stage buffer's offset; carried #3: a stage buffer's offset; carried #4: a stage buffer's offset
# CHECK: = load {{.*}}  // cp.async into stage buffers at bytes 0, 5120 and 10240 (rows of 40 elements), the stage read last, after the dot's barrier
# CHECK: = dot {{.*}}  // mma.sync m16n8k16 f16; fragments: 2x2 warps, 2x4 tiles of 16x8 each
# CHECK: = mul {{.*}} : block<64x64xfp32, blocked<{{[^>]*}}>>  // fragments: 2x2 warps, 2x4 tiles of 16x8 each{{$}}
# CHECK: = broadcast {{.*}} : block<64x64xfp32, blocked<{{[^>]*}}>>  // the line computed again at the columns each thread holds, its loads with it; fragments: 2x2 warps, 2x4 tiles of 16x8 each{{$}}
# CHECK: = add {{.*}} : block<64x64xfp32, blocked<{{[^>]*}}>>  // fragments: 2x2 warps, 2x4 tiles of 16x8 each{{$}}
# CHECK: = cast {{.*}} : block<64x64xfp16, blocked<{{[^>]*}}>>  // fragments: 2x2 warps, 2x4 tiles of 16x8 each, also read flat
# CHECK-NOT: fragments
# CHECK: return
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, bias_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    c = acc * 0.5 + tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c.to(tl.float16))


# Two pipelined loops in sequence (as attention's off-diagonal and diagonal loops): the
# second loop's copies start after the first loop's exit has drained its own, so both use
# the same stage buffers (bytes 8192 ...), and the total is one loop's. Q-like `a`, loaded
# before the loops and read by both, is written once, before the first loop, into one buffer
# ahead of the stage buffers (byte 0) that both loops read, so its registers die there
# (instead of staging it on every iteration, or once per loop); B is read through Kᵀ-style
# pointers (runs of 8 along K), copied along K into a transposed tile.
# RUN: --kernel two_loops --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=64" --emit gpu-ir --arch sm_90 --check-prefix=TWO
# TWO: // gpu-ir: sm_90, 4 warps, num_stages 3; stage buffers: 32768 bytes of shared memory
# TWO: = load {{.*}}  // cp.async into stage buffers at bytes 8192, 16384 and 24576 (128-byte swizzle), stage 0, 16-byte copies along K, held transposed (K-major)
# TWO: = for
# TWO: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A written once before the loop, at byte 0; fragments
# TWO: = load {{.*}}  // cp.async into stage buffers at bytes 8192, 16384 and 24576 (128-byte swizzle), stage 0, 16-byte copies along K, held transposed (K-major)
# TWO: = for
# TWO: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A written once before an earlier loop, at byte 0; fragments
@triton.jit
def two_loops(a_ptr, kt_ptr, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for n in range(0, N, BN):
        kt = tl.load(kt_ptr + (n + rn)[None, :] * BK + rk[:, None])
        acc += tl.dot(a, kt)
    for n in range(N, 2 * N, BN):
        kt = tl.load(kt_ptr + (n + rn)[None, :] * BK + rk[:, None])
        acc = acc * 0.5 + tl.dot(a, kt)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


# fp8 with B K-major (Triton's fp8 tutorial passes b.T): on sm_90 both operands are copied
# as bytes, A as it is (16-byte copies of 16 elements), B along K into a transposed tile, and
# wgmma runs on its own 8-bit inputs (k32, any e4m3/e5m2 pair, both K-major). With B
# N-major (the `matmul` kernel above in fp8) wgmma cannot read it: the operands are widened
# to f16 by the dot's own staging instead (FP8N).
# RUN: --kernel fp8_matmul --signature "*fp8e4nv:16, *fp8e5:16, *fp32:16, i32:16, 1, BM=64, BN=64, BK=64" --emit gpu-ir --arch sm_90 --check-prefix=FP8
# FP8: = load {{.*}} : block<64x64xfp8e4nv, {{.*}}  // cp.async into stage buffers at bytes 0, 4096, 8192 and 12288 (64-byte swizzle), stage 0, 16-byte copies
# FP8: = load {{.*}} : block<64x64xfp8e5, {{.*}}  // cp.async into stage buffers at bytes 16384, 20480, 24576 and 28672 (64-byte swizzle), stage 0, 16-byte copies along K, held transposed (K-major)
# FP8: = dot {{.*}}  // wgmma m64n64k32 e4m3.e5m2, operands in swizzled shared memory (B K-major); fragments
# RUN: --kernel fp8_matmul --signature "*fp8e4nv:16, *fp8e5:16, *fp32:16, i32:16, i32:16, BM=64, BN=64, BK=64" --emit gpu-ir --arch sm_90 --check-prefix=FP8N
# FP8N-NOT: cp.async
# FP8N: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; fragments
# Triton's tutorial style, the pointer blocks carried (`a_ptrs += BK`): rebase_pointers
# makes each the block before the loop plus a carried i64 offset, so every element's address
# follows from its index again and B's K-major copies are dealt out evenly over the threads
# (not issued by the few threads that hold each run's first element).
# RUN: --kernel fp8_carried --signature "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, i32:16, BM=64, BN=64, BK=64" --emit gpu-ir --arch sm_90 --check-prefix=CARRIED
# CARRIED: = load {{.*}} : block<64x64xfp8e4nv, {{.*}}  // cp.async {{.*}}, stage 0, 16-byte copies along K, held transposed (K-major), dealt out evenly
# CARRIED: = for {{.*}} -> {{.*}}, i64, i64, block<64x64xfp8e4nv
# CARRIED: = addptr {{.*}} : block<64x64xptr<fp8e4nv>
# CARRIED: = load {{.*}}  // cp.async {{.*}}, the stage read last, after the dot's barrier, 16-byte copies along K, held transposed (K-major), dealt out evenly
# CARRIED: = dot {{.*}}  // wgmma m64n64k32 e4m3.e4m3, operands in swizzled shared memory (B K-major)
# A carried index block as well (FlagGems' int8 scaled_mm: `offsets_k += TILE_K`, masks
# `offsets_k < K`): rebase_pointers makes it too its initial block plus a carried scalar, so
# the masks follow from the index and B's K-major copies are still dealt out evenly (before,
# the mask vector went through shared memory every iteration and the few threads holding
# each run's first element issued every copy: 255 registers, 12 bytes spilled; now 92).
# RUN: --kernel int8_carried_mask --signature "*i8:16, *i8:16, *i32:16, i32:16, BM=64, BN=64, BK=256" --emit gpu-ir --arch sm_90 --check-prefix=MASKED
# MASKED: = for {{.*}} -> {{.*}}, i64, i64, i64, block<64x256xi8
# MASKED-NOT: shared_offsets
# MASKED: = load {{.*}}  // cp.async {{.*}}, the stage the previous dot read, after the dot's wait for it and a barrier, 16-byte copies along K, held transposed (K-major), dealt out evenly
# MASKED: = dot {{.*}}  // wgmma m64n64k32 s8
@triton.jit
def int8_carried_mask(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK).to(tl.int64)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] + rn[None, :] * K
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BK)):
        mask_k = rk < K
        a = tl.load(a_ptrs, mask=mask_k[None, :])
        b = tl.load(b_ptrs, mask=mask_k[:, None])
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        rk += BK
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def fp8_carried(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] + rn[None, :] * K
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def fp8_matmul(a_ptr, b_ptr, c_ptr, K, stride_bk, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * K)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

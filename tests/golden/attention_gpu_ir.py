# `--emit gpu-ir` of a flash-attention forward step (Triton's fused-attention tutorial style):
# what stays in the dot's fragments (fragment_layout.h). The causal mask is computed from
# ranges where each fragment register is, so `where` stays in fragments; tl.max and tl.sum
# along axis 1 reduce in registers and quad shuffles into fragment rows; the running max and
# sum stay rows through the loop; `m_ij[:, None]`, `alpha[:, None]` and `l_i[:, None]`
# broadcast back into fragments, so `qk - m_ij[:, None]`, exp2, `acc * alpha[:, None]` and
# `acc / l_i[:, None]` never leave registers; only the output is read flat (by its store).
# A kernel that reduces rows splits m between warps first: at 128 x 64 in 4 warps each warp
# holds whole rows (4 x 1), so the reductions never cross warps and P (cast to fp16) is the
# second dot's A in registers, for mma.sync (sm_80) and wgmma (sm_90) alike. At 32 x 64 the
# warps form 2 x 2: the reductions combine the 2 warps along n through shared memory, and P
# is written into the second dot's shared tile straight from its fragments (SMALL).
#
# RUN: --kernel attention_fwd --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=True" --emit gpu-ir --arch sm_80 --num-warps 4
# RUN: --kernel attention_fwd --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=True" --emit gpu-ir --arch sm_90 --num-warps 4 --check-prefix=SM90
# RUN: --kernel attention_fwd --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=True" --emit gpu-ir --arch sm_90 --num-warps 4 --num-stages 3 --check-prefix=STAGED
# RUN: --kernel attention_fwd --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=False" --emit ptx --arch sm_90 --num-warps 4 --check-prefix=ZERO
# RUN: --kernel attention_fwd --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=64, BLOCK_M=32, BLOCK_N=64, CAUSAL=True" --emit gpu-ir --arch sm_80 --num-warps 4 --check-prefix=SMALL
#
# CHECK-LABEL: func @attention_fwd(
# CHECK: = for {{.*}}  // #0 fragments: 4x1 warps, 2x8 tiles of 16x8 each; #1 fragment rows: 4 warps along m, 4 rows per thread; #2 fragment rows: 4 warps along m, 4 rows per thread;
# CHECK: = dot {{.*}}  // mma.sync m16n8k16 f16; fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK: = select {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK-NEXT: = reduce {{.*}}  // in registers, then shfl.bfly within quads; fragment rows: 4 warps along m, 4 rows per thread
# CHECK: = maximum {{.*}}  // fragment rows: 4 warps along m, 4 rows per thread
# CHECK-NEXT: = expand_dims {{.*}}  // fragment rows: 4 warps along m, 4 rows per thread
# CHECK-NEXT: = broadcast {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK-NEXT: = sub {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK-NEXT: = exp2 {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK: = reduce {{.*}}  // in registers, then shfl.bfly within quads; fragment rows
# CHECK: = mul {{.*}} : block<128x64xfp32, {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK-NEXT: = cast {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each{{$}}
# CHECK-NEXT: = dot {{.*}}  // mma.sync m16n8k16 f16; A read from its fragments' registers; fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK: = div {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# CHECK-NOT: also read flat
# CHECK: = cast {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each, also read flat
# CHECK-NEXT: store
#
# Pipelined (num_stages 3) on sm_90, K and V two iterations ahead (stages 0 and 1 before the
# loop, three buffers each): Kᵀ is read with runs of 8 along HEAD (axis 0), so its
# copies run along K and the tile holds it transposed for a K-major wgmma B; V's rows are
# contiguous, copied as they are (N-major B). Neither is copied one element at a time. Q,
# loaded before the loop, is written into its own buffer once, not staged on every step.
# STAGED-LABEL: func @attention_fwd(
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async into stage buffers {{.*}}, stage 0, 16-byte copies along K, held transposed (K-major)
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async into stage buffers {{.*}}, stage 0, 16-byte copies{{$}}
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async into stage buffers at bytes {{[0-9]+}}, {{[0-9]+}} and {{[0-9]+}} {{.*}}, stage 1, 16-byte copies along K
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async into stage buffers {{.*}}, stage 1, 16-byte copies{{$}}
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async {{.*}}, 16-byte copies along K, held transposed (K-major)
# STAGED: = load {{.*}} : block<64x64xfp16, {{.*}}  // cp.async {{.*}}, 16-byte copies{{$}}
# STAGED: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A written once before the loop, at byte 49152; fragments
# STAGED: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A read from its fragments' registers; fragments

# The PTX of the loop (ZERO): `qk = tl.dot(q, k)` starts from a zero accumulator, which its
# first K step's wgmmas scale by 0 (the predicate register holds 0), so no zeros are moved
# into the 32 accumulator registers before them; the later steps accumulate.
# ZERO: mov.b32 %r[[OFF:[0-9]+]], 0;
# ZERO: wgmma.fence.sync.aligned;
# ZERO-NOT: mov.b32
# ZERO: setp.ne.b32 p, %r[[OFF]], 0;
# ZERO-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# ZERO: setp.ne.b32 p, %r[[OFF]], 0;
# ZERO-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# ZERO: setp.ne.b32 p, %r[[ON:[0-9]+]], 0;
# ZERO-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16

# SM90-LABEL: func @attention_fwd(
# SM90: = for {{.*}}  // #0 fragments: 4x1 warps, 2x8 tiles of 16x8 each; #1 fragment rows: 4 warps along m, 4 rows per thread; #2 fragment rows: 4 warps along m, 4 rows per thread;
# SM90: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A written once before the loop, at byte {{[0-9]+}}; fragments: 4x1 warps, 2x8 tiles of 16x8 each
# SM90: = reduce {{.*}}  // in registers, then shfl.bfly within quads; fragment rows: 4 warps along m, 4 rows per thread
# SM90: = broadcast {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# SM90: = reduce {{.*}}  // in registers, then shfl.bfly within quads; fragment rows: 4 warps along m, 4 rows per thread
# SM90: = mul {{.*}} : block<128x64xfp32, {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# SM90: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; A read from its fragments' registers; fragments: 4x1 warps, 2x8 tiles of 16x8 each
# SM90: = div {{.*}}  // fragments: 4x1 warps, 2x8 tiles of 16x8 each
# SM90: store
#
# SMALL-LABEL: func @attention_fwd(
# SMALL: = for {{.*}}  // #0 fragments: 2x2 warps, 1x4 tiles of 16x8 each; #1 fragment rows: 2 warps along m, 2 rows per thread;
# SMALL: = reduce {{.*}}  // in registers, then shfl.bfly within quads, then across 2 warps through shared memory; fragment rows: 2 warps along m, 2 rows per thread
# SMALL: = broadcast {{.*}}  // fragments: 2x2 warps, 1x4 tiles of 16x8 each
# SMALL: = reduce {{.*}}  // in registers, then shfl.bfly within quads, then across 2 warps through shared memory; fragment rows
# SMALL: = cast {{.*}}  // fragments: 2x2 warps, 1x4 tiles of 16x8 each{{$}}
# SMALL-NEXT: = dot {{.*}}  // mma.sync m16n8k16 f16; A staged from its fragments; fragments: 2x2 warps, 1x4 tiles of 16x8 each
# SMALL: = div {{.*}}  // fragments: 2x2 warps, 1x4 tiles of 16x8 each
import triton
import triton.language as tl


@triton.jit
def attention_fwd(Q, K, V, Out, sm_scale, seq_len, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1) * seq_len * HEAD
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + base + offs_m[:, None] * HEAD + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD + offs_d[:, None], mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + cols[:, None] * HEAD + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD + offs_d[None, :], acc.to(tl.float16), mask=offs_m[:, None] < seq_len)

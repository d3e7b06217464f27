# `--emit gpu-ir` of fp32 attention (tf32 dots, as sglang's extend attention with fp32
# inputs): P, the first dot's fragments after the softmax, is the second dot's A in
# registers, on mma.sync m16n8k8 (sm_80) and wgmma (sm_90, A from registers) alike. tf32's k8
# A fragment reads k = t and t + 4 where the accumulators hold columns 2t and 2t + 1, so the
# second dot reads its K in another order within each 8 (SharedTile::evens_first: the even
# columns, then the odd ones), B's as well: mma.sync's B fragment reads rows 2t and 2t + 1,
# wgmma's B tile is held so (its 4-byte copies, or its staging, put each element there).
#
# RUN: --kernel attention_fp32 --signature "*fp32:16, *fp32:16, *fp32:16, *fp32:16, fp32, i32:16, HEAD=64, BLOCK_M=64, BLOCK_N=64" --emit gpu-ir --arch sm_80 --num-warps 4 --num-stages 3
# RUN: --kernel attention_fp32 --signature "*fp32:16, *fp32:16, *fp32:16, *fp32:16, fp32, i32:16, HEAD=64, BLOCK_M=64, BLOCK_N=64" --emit gpu-ir --arch sm_90 --num-warps 4 --num-stages 3 --check-prefix=SM90
# RUN: --kernel attention_fp32 --signature "*fp32:16, *fp32:16, *fp32:16, *fp32:16, fp32, i32:16, HEAD=64, BLOCK_M=64, BLOCK_N=64" --emit ptx --arch sm_90 --num-warps 4 --num-stages 1 --check-prefix=PTX
#
# CHECK-LABEL: func @attention_fp32(
# CHECK: = dot {{.*}}  // mma.sync m16n8k8 tf32; fragments: 4x1 warps, 1x8 tiles of 16x8 each
# CHECK: = dot {{.*}}  // mma.sync m16n8k8 tf32; A read from its fragments' registers, K in evens_first order; fragments: 4x1 warps, 1x8 tiles of 16x8 each
#
# Pipelined on sm_90: Kᵀ copied in 16-byte runs along K as ever; V (N-major in memory) one
# element at a time into its K-major tile, in evens_first order.
# SM90-LABEL: func @attention_fp32(
# SM90: = load {{.*}} : block<64x64xfp32, {{.*}}  // cp.async {{.*}}, stage 0, 16-byte copies along K, held transposed (K-major), dealt out evenly
# SM90: = load {{.*}} : block<64x64xfp32, {{.*}}  // cp.async {{.*}}, stage 0, 4-byte copies of each element, held transposed (K-major), K in evens_first order
# SM90: = dot {{.*}}  // wgmma m64n64k8 tf32, {{.*}}; A written once before the loop, at byte {{[0-9]+}}; fragments
# SM90: = dot {{.*}}  // wgmma m64n64k8 tf32, {{.*}}; A read from its fragments' registers, K in evens_first order; fragments
#
# The loop's PTX (num_stages 1): Q·Kᵀ's wgmmas read A through a descriptor, P·V's from four
# registers each (one k8 step of n-tile j: c0, c2, c1, c3), nothing of P stored in between.
# PTX: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{[{][^}]*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
# PTX: wgmma.wait_group.sync.aligned 0;
# PTX-NOT: st.shared.v2
# PTX: wgmma.fence.sync.aligned;
# PTX: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{[{][^}]*[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
import triton
import triton.language as tl


@triton.jit
def attention_fp32(Q, K, V, Out, sm_scale, seq_len, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1) * seq_len * HEAD
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + base + offs_m[:, None] * HEAD + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD + offs_d[:, None], mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.where(cols[None, :] < seq_len, tl.dot(q, k) * sm_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * HEAD + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p, v, acc * alpha[:, None])
        m_i = m_ij
    tl.store(Out + base + offs_m[:, None] * HEAD + offs_d[None, :], acc / l_i[:, None], mask=offs_m[:, None] < seq_len)

"""Flash-attention forward in the style of Triton's fused-attention tutorial (one program per
(query block, batch x head); the off-band key blocks without a mask, then the diagonal band
with the causal mask; running max and sum in base 2; K read transposed through its
pointers; P cast to the input type for P.V). Plain Triton source with no tritium names:
`load("triton")` / `load("tritium")` give this file's kernels under either JIT, so one source
runs through both (the helper is itself a jit function, as in the tutorial)."""

import importlib
import importlib.util

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")


def load(jit_module):
    """This file as a module whose kernels are decorated by `jit_module` ("tritium"/"triton")."""
    spec = importlib.util.spec_from_file_location(f"kernels_attention_{jit_module}", __file__)
    module = importlib.util.module_from_spec(spec)
    module.JIT = jit_module
    spec.loader.exec_module(module)
    return module


@jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_n, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m, offs_n, offs_d, N_CTX):
    # STAGE 1: the key blocks left of the diagonal band (causal); 2: the band, masked;
    # 3: every key block (non-causal).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_base + (start_n + offs_n)[None, :] * stride_n + offs_d[:, None])
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_n + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    return acc, l_i, m_i


@jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_z, stride_h, stride_n, H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    """q, k, v, out: [Z, H, N_CTX, HEAD_DIM] with unit stride on the last axis and equal
    strides; N_CTX a multiple of BLOCK_M and BLOCK_N. STAGE = 3 causal, 1 not (the
    tutorial's encoding). Grid: (N_CTX // BLOCK_M, Z * H)."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1 / ln(2)
    q = tl.load(Q + base + offs_m[:, None] * stride_n + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_n, start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, offs_d, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_n, start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, offs_d, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_n + offs_d[None, :], acc.to(Out.dtype.element_ty))

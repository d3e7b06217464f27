"""Tutorial 06 (fused attention, flash-attention 2), forward and backward.

Forward: one program per (query block, batch x head). Q, K, V and O are read and written
through tensor descriptors over the [Z * H * N_CTX, HEAD_DIM] view: host-made ones
(triton.tools.tensor_descriptor.TensorDescriptor, whose block shapes the autotuner's
pre_hook sets per config) or, given plain arrays, made in the kernel with
tl.make_tensor_descriptor (global scratch from triton.set_allocator). The key loop is a
helper jit function taking tensors in tl.constexpr parameters, as the tutorial's does,
with tl.range(..., warp_specialize=...); causal attention runs it twice: the blocks left
of the diagonal unmasked, then the diagonal band masked. Softmax in base 2 (tl.math.exp2),
the row's log-sum-exp kept for the backward pass.

Backward: a preprocessing kernel for delta = rowsum(O * dO), then one kernel whose
programs each compute dK and dV of a key block (loop over query blocks) and dQ of a query
block (loop over key blocks), with K pre-scaled by sm_scale / ln 2 so that P = exp2(QK^T - M).
"""

import math

import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tutorial_host as host

LN2 = math.log(2.0)


@triton.jit
def _as_descriptor(desc_or_ptr, shape, strides, block_shape):
    # (`else`, not a fall-through: Triton compiles the statements after an `if` that
    # returns, and make_tensor_descriptor of a descriptor fails there.)
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def _key_band(acc, l_i, m_i, q, desc_k, desc_v, row0, dtype: tl.constexpr, start_m, qk_scale,
              BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
              offs_m: tl.constexpr, offs_n: tl.constexpr, N_CTX: tl.constexpr, warp_specialize: tl.constexpr):
    # STAGE 1: keys left of the diagonal band; 2: the band (masked); 3: all keys.
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    row = row0 + lo
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=warp_specialize):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        kt = desc_k.load([row, 0]).T
        s = tl.dot(q, kt)
        if STAGE == 2:
            visible = offs_m[:, None] >= (start_n + offs_n[None, :])
            s = s * qk_scale + tl.where(visible, 0, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(s, 1))
            s -= m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            s = s * qk_scale - m_new[:, None]
        p = tl.math.exp2(s)
        rescale = tl.math.exp2(m_i - m_new)
        l_i = l_i * rescale + tl.sum(p, 1)
        acc = acc * rescale[:, None]
        v = desc_v.load([row, 0])
        acc = tl.dot(p.to(dtype), v, acc)
        m_i = m_new
        row += BLOCK_N
    return acc, l_i, m_i


def _set_block_shapes(nargs):
    # The host descriptors' block shapes follow the config being tried.
    bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    for name, rows in (("desc_q", bm), ("desc_o", bm), ("desc_k", bn), ("desc_v", bn)):
        if isinstance(nargs[name], TensorDescriptor):
            nargs[name].block_shape = [rows, d]


def _forward_configs():
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w, pre_hook=_set_block_shapes)
            for bm in (16, 32, 64, 128) for bn in (16, 32, 64) for s, w in ((2, 4), (3, 8))]


def _prune(configs, named_args, **kwargs):
    n_ctx, head_dim = kwargs["N_CTX"], kwargs["HEAD_DIM"]
    kept = [c for c in configs
            if c.kwargs["BLOCK_M"] <= n_ctx and c.kwargs["BLOCK_N"] <= head_dim
            and c.kwargs["BLOCK_M"] % c.kwargs["BLOCK_N"] == 0
            and not (c.kwargs["BLOCK_M"] * c.kwargs["BLOCK_N"] < 64 * 64 and c.num_warps == 8)]
    return kept


@triton.autotune(configs=_forward_configs(), key=["N_CTX", "HEAD_DIM", "FP8_OUTPUT", "warp_specialize"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit
def attention_forward(sm_scale, M, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX,
                      HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      FP8_OUTPUT: tl.constexpr, STAGE: tl.constexpr, warp_specialize: tl.constexpr):
    dtype = tl.float8e5 if FP8_OUTPUT else tl.float16
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    rows = Z * H * N_CTX
    desc_q = _as_descriptor(desc_q, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    desc_k = _as_descriptor(desc_k, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    desc_v = _as_descriptor(desc_v, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    desc_o = _as_descriptor(desc_o, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    row0 = off_hz * N_CTX
    q_row = row0 + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e)
    q = desc_q.load([q_row, 0])
    if STAGE & 1:
        acc, l_i, m_i = _key_band(acc, l_i, m_i, q, desc_k, desc_v, row0, dtype, start_m, qk_scale,
                                  BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX, warp_specialize)
    if STAGE & 2:
        acc, l_i, m_i = _key_band(acc, l_i, m_i, q, desc_k, desc_v, row0, dtype, start_m, qk_scale,
                                  BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX, warp_specialize)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([q_row, 0], acc.to(dtype))


@triton.jit
def attention_backward_delta(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    cols = tl.arange(0, HEAD_DIM)
    at = off_hz * HEAD_DIM * N_CTX + rows[:, None] * HEAD_DIM + cols[None, :]
    o = tl.load(O + at)
    do = tl.load(DO + at).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + rows, tl.sum(o * do, axis=1))


@triton.jit
def _dk_dv_steps(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n, start_m, num_steps,
                 BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, HEAD_DIM: tl.constexpr, MASK: tl.constexpr):
    # dK and dV of keys [start_n, start_n + BLOCK_N1) over num_steps query blocks from start_m.
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    keys = start_n + tl.arange(0, BLOCK_N1)
    dims = tl.arange(0, HEAD_DIM)
    first = start_m
    for _ in range(num_steps):
        queries = first + tl.arange(0, BLOCK_M1)
        qt = tl.load(Q + queries[None, :] * stride_tok + dims[:, None] * stride_d)
        lse = tl.load(M + queries)
        pt = tl.math.exp2(tl.dot(k, qt) - lse[None, :])
        if MASK:
            pt = tl.where(queries[None, :] >= keys[:, None], pt, 0.0)
        do = tl.load(DO + queries[:, None] * stride_tok + dims[None, :] * stride_d)
        dv += tl.dot(pt.to(tl.float16), do)
        delta = tl.load(D + queries)
        dpt = tl.dot(v, tl.trans(do)).to(tl.float32)
        dst = (pt * (dpt - delta[None, :])).to(tl.float16)
        dk += tl.dot(dst, tl.trans(qt))
        first += BLOCK_M1
    return dk, dv


@triton.jit
def _dq_steps(dq, q, K, V, do, lse, D, stride_tok, stride_d, start_m, start_n, num_steps,
              BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr, HEAD_DIM: tl.constexpr, MASK: tl.constexpr):
    # dQ of queries [start_m, start_m + BLOCK_M2) over num_steps key blocks from start_n.
    tl.static_assert(BLOCK_M2 % BLOCK_N2 == 0)
    queries = start_m + tl.arange(0, BLOCK_M2)
    dims = tl.arange(0, HEAD_DIM)
    delta = tl.load(D + queries)
    first = start_n
    for _ in range(num_steps):
        keys = first + tl.arange(0, BLOCK_N2)
        kt = tl.load(K + keys[None, :] * stride_tok + dims[:, None] * stride_d)
        vt = tl.load(V + keys[None, :] * stride_tok + dims[:, None] * stride_d)
        p = tl.math.exp2(tl.dot(q, kt) - lse)
        if MASK:
            p = tl.where(queries[:, None] >= keys[None, :], p, 0.0)
        dp = tl.dot(do, vt).to(tl.float32)
        ds = (p * (dp - delta[:, None])).to(tl.float16)
        dq += tl.dot(ds, tl.trans(kt))
        first += BLOCK_N2
    return dq


@triton.jit
def attention_backward(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D, stride_z, stride_h, stride_tok, stride_d,
                       H, N_CTX, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr,
                       BLOCK_N2: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    LN2_: tl.constexpr = 0.6931471824645996
    pid = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    Q += base
    K += base
    V += base
    DO += base
    DQ += base
    DK += base
    DV += base
    M += off_hz * N_CTX
    D += off_hz * N_CTX
    dims = tl.arange(0, HEAD_DIM)

    # dK, dV of one key block.
    start_n = pid * BLOCK_N1
    keys = start_n + tl.arange(0, BLOCK_N1)
    k = tl.load(K + keys[:, None] * stride_tok + dims[None, :] * stride_d)
    v = tl.load(V + keys[:, None] * stride_tok + dims[None, :] * stride_d)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        dk, dv = _dk_dv_steps(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n, start_n,
                              BLOCK_N1 // BLOCK_M1, BLOCK_M1, BLOCK_N1, HEAD_DIM, MASK=True)
        after = start_n + BLOCK_N1
        dk, dv = _dk_dv_steps(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n, after,
                              (N_CTX - after) // BLOCK_M1, BLOCK_M1, BLOCK_N1, HEAD_DIM, MASK=False)
    else:
        dk, dv = _dk_dv_steps(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n, 0,
                              N_CTX // BLOCK_M1, BLOCK_M1, BLOCK_N1, HEAD_DIM, MASK=False)
    tl.store(DV + keys[:, None] * stride_tok + dims[None, :] * stride_d, dv)
    tl.store(DK + keys[:, None] * stride_tok + dims[None, :] * stride_d, dk * sm_scale)

    # dQ of one query block.
    start_m = pid * BLOCK_M2
    queries = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + queries[:, None] * stride_tok + dims[None, :] * stride_d)
    do = tl.load(DO + queries[:, None] * stride_tok + dims[None, :] * stride_d)
    lse = tl.load(M + queries)[:, None]
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        dq = _dq_steps(dq, q, K, V, do, lse, D, stride_tok, stride_d, start_m, start_m,
                       BLOCK_M2 // BLOCK_N2, BLOCK_M2, BLOCK_N2, HEAD_DIM, MASK=True)
        dq = _dq_steps(dq, q, K, V, do, lse, D, stride_tok, stride_d, start_m, 0,
                       start_m // BLOCK_N2, BLOCK_M2, BLOCK_N2, HEAD_DIM, MASK=False)
    else:
        dq = _dq_steps(dq, q, K, V, do, lse, D, stride_tok, stride_d, start_m, 0,
                       N_CTX // BLOCK_N2, BLOCK_M2, BLOCK_N2, HEAD_DIM, MASK=False)
    tl.store(DQ + queries[:, None] * stride_tok + dims[None, :] * stride_d, dq * LN2_)


def _scratch(size, alignment, stream):
    return host.empty((size,), "int8", _scratch.like)


_scratch.like = None


def forward(q, k, v, causal, sm_scale, host_descriptors=True, warp_specialize=False):
    """q, k, v: [Z, H, N_CTX, HEAD_DIM] fp16, contiguous; N_CTX a multiple of 128."""
    Z, H, n_ctx, head_dim = q.shape
    o = host.empty_like(q)
    lse = host.empty((Z, H, n_ctx), "float32", q)
    stage = 3 if causal else 1
    if host_descriptors:
        views = [t.reshape(Z * H * n_ctx, head_dim) for t in (q, k, v, o)]
        descs = [TensorDescriptor(t, [Z * H * n_ctx, head_dim], [head_dim, 1], [1, head_dim]) for t in views]
    else:
        _scratch.like = q
        triton.set_allocator(_scratch)
        descs = [q, k, v, o]
    grid = lambda meta: (triton.cdiv(n_ctx, meta["BLOCK_M"]), Z * H, 1)
    attention_forward[grid](sm_scale, lse, Z, H, *descs, N_CTX=n_ctx, HEAD_DIM=head_dim,
                            FP8_OUTPUT=False, STAGE=stage, warp_specialize=warp_specialize)
    return o, lse


def backward(q, k, v, o, lse, do, causal, sm_scale):
    Z, H, n_ctx, head_dim = q.shape
    block_m1, block_n1, block_m2, block_n2 = 16, 32, 32, 16
    dq, dk, dv = host.empty_like(q), host.empty_like(k), host.empty_like(v)
    delta = host.empty(lse.shape, "float32", q)
    attention_backward_delta[(n_ctx // 32, Z * H)](o, do, delta, n_ctx, BLOCK_M=32, HEAD_DIM=head_dim)
    scaled_k = k * (sm_scale / LN2)
    attention_backward[(n_ctx // block_n1, Z * H)](
        q, scaled_k, v, sm_scale, do, dq, dk, dv, lse, delta,
        host.stride(q, 0), host.stride(q, 1), host.stride(q, 2), host.stride(q, 3), H, n_ctx,
        BLOCK_M1=block_m1, BLOCK_N1=block_n1, BLOCK_M2=block_m2, BLOCK_N2=block_n2,
        HEAD_DIM=head_dim, CAUSAL=causal, num_warps=4, num_stages=3)
    return dq, dk, dv

"""tests/emulate/emulated_gpu.py against numpy: kernels compiled by tritium for sm_90 / sm_80
(LLVM IR of the NVPTX emitter) run on the CPU, every CTA of the grid, on the arrays in place.
Elementwise over a 2-D grid with masks, tl.dot on wgmma (sm_90) and mma.sync (sm_80) with a
pipelined K loop, float and integer atomics across CTAs; host tensor descriptors on sm_90's
TMA (block copies across the tensor's edges, matmuls on wgmma, Triton's attention and
persistent-matmul tutorials); a miscompiled kernel (an fadd made fsub in its IR, a wrong
mbarrier parity, a missing arrive) or a mis-emulating runtime (a wrong swizzle, a wrong
parity rule) must give a different result or fail the launch, and an asm statement the
emulator does not know is NotEmulated. Skipped visibly without llc (LLVM) or a C compiler."""

import os
import re
import sys
import textwrap

import numpy as np
import pytest

os.environ.setdefault("TRITIUM_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import emulated_gpu as eg  # noqa: E402

pytestmark = pytest.mark.skipif(not eg.available(), reason="needs llc (LLVM) and a C compiler")

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl
    from tritium import libdevice


    @tritium.jit
    def axpy_2d(x_ptr, y_ptr, out_ptr, n, m, alpha, BM: tl.constexpr, BN: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        mask = (rm[:, None] < n) & (rn[None, :] < m)
        at = rm[:, None] * m + rn[None, :]
        x = tl.load(x_ptr + at, mask=mask)
        y = tl.load(y_ptr + at, mask=mask)
        tl.store(out_ptr + at, tl.exp(x) * alpha + y, mask=mask)


    @tritium.jit
    def row_max(x_ptr, out_ptr, n, fill, BLOCK: tl.constexpr):
        # Masked loads whose `other` is a constant (-inf) and a run-time value.
        i = tl.arange(0, BLOCK)
        row = tl.program_id(0)
        x = tl.load(x_ptr + row * n + i, mask=i < n, other=float("-inf"))
        y = tl.load(x_ptr + row * n + i, mask=i < n, other=fill)
        tl.store(out_ptr + row, tl.max(x, 0) + tl.sum(y, 0) * 0.0 + tl.min(y, 0))


    @tritium.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


    @tritium.jit
    def matmul_unrolled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                        U: tl.constexpr):
        # matmul's K loop with tl.range(loop_unroll_factor=U): U dots an iteration, then the
        # K / BK % U remaining ones in a loop of their own.
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in tl.range(0, K, BK, loop_unroll_factor=U):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


    @tritium.jit
    def histogram(x_ptr, sum_ptr, max_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n, other=0)
        tl.atomic_add(sum_ptr + x % BINS, x.to(tl.float32) * 0.5, mask=i < n)
        tl.atomic_max(max_ptr + x % BINS, x, mask=i < n)


    @tritium.jit
    def dot_of_dot(a_ptr, x_ptr, out_ptr, BT: tl.constexpr):
        # out = A @ (X @ X) in fp32 (tf32 wgmma on sm_90): the second dot's B is the first
        # dot's result, staged from its fragments (fla's chunk_kda_bwd_kernel_wy_dqkg_fused).
        o = tl.arange(0, BT)
        a = tl.load(a_ptr + o[:, None] * BT + o[None, :])
        x = tl.load(x_ptr + o[:, None] * BT + o[None, :])
        y = tl.dot(x, x)
        tl.store(out_ptr + o[:, None] * BT + o[None, :], tl.dot(a, y))


    @tritium.jit
    def dot_then_two_loops(a_ptr, b_ptr, out1_ptr, out2_ptr, D, BM: tl.constexpr, BD: tl.constexpr):
        # cut-cross-entropy's backward: a dot's result d, in fragments, is the first loop's A
        # (read from its fragments) and, transposed, the second loop's (staged from d's flat
        # copy, which only the trans reads). Each loop reads its B from the buffer it writes,
        # in place (cce's add under a lock), so neither loop is pipelined (prefetch_loads).
        r = tl.arange(0, BM)
        sq = r[:, None] * BM + r[None, :]
        d = tl.dot(tl.load(a_ptr + sq), tl.load(b_ptr + sq)).to(tl.float16)
        cols = tl.arange(0, BD)
        for k in range(0, D, BD):
            at = r[:, None] * D + k + cols[None, :]
            tl.store(out1_ptr + at, tl.dot(d, tl.load(out1_ptr + at).to(tl.float16)))
        dt = tl.trans(d)
        for k in range(0, D, BD):
            at = r[:, None] * D + k + cols[None, :]
            tl.store(out2_ptr + at, tl.dot(dt, tl.load(out2_ptr + at).to(tl.float16)))


    @tritium.jit
    def attention_tf32(q_ptr, k_ptr, v_ptr, out_ptr, N_CTX, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr,
                       PRECISION: tl.constexpr):
        # fp32 attention's two dots with a row reduction for a softmax (exact: no exp): O = sum
        # over key blocks of (S - rowmax(S) + 2^-11) V, S = Q Kᵀ. P's fragments are the second
        # dot's A, read from registers (the reduction splits the warps along M on sm_80 too);
        # 2^-11 puts bits below tf32's in P (rounded by cvt.rna on mma.sync, ignored by wgmma).
        offs_m = tl.arange(0, BM)
        offs_n = tl.arange(0, BN)
        offs_d = tl.arange(0, D)
        q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
        acc = tl.zeros([BM, D], dtype=tl.float32)
        for start_n in range(0, N_CTX, BN):
            k = tl.load(k_ptr + (start_n + offs_n)[None, :] * D + offs_d[:, None])
            v = tl.load(v_ptr + (start_n + offs_n)[:, None] * D + offs_d[None, :])
            s = tl.dot(q, k, input_precision=PRECISION)
            p = s - tl.max(s, 1)[:, None] + 0.00048828125
            acc = tl.dot(p, v, acc, input_precision=PRECISION)
        tl.store(out_ptr + offs_m[:, None] * D + offs_d[None, :], acc)


    @tritium.jit
    def softmax_loop(q_ptr, k_ptr, v_ptr, m_ptr, out_ptr, N_CTX, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
        # DeepSpeed's _flash_packed_kernel with a key mask, reduced: scores an fp16 zero block
        # plus an fp32 row (so fp32), plus an fp16 dot; attention's online softmax.
        offs_m = tl.arange(0, BM)
        offs_n = tl.arange(0, BN)
        offs_d = tl.arange(0, D)
        q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
        m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BM], dtype=tl.float32)
        acc = tl.zeros([BM, D], dtype=tl.float32)
        for start_n in range(0, N_CTX, BN):
            k = tl.load(k_ptr + (start_n + offs_n)[:, None] * D + offs_d[None, :])
            v = tl.load(v_ptr + (start_n + offs_n)[:, None] * D + offs_d[None, :])
            qk = tl.zeros([BM, BN], dtype=tl.float16)
            qk = qk + tl.load(m_ptr + start_n + offs_n[None, :]).to(tl.float32)
            qk += tl.dot(q, tl.trans(k), out_dtype=tl.float16)
            m_i_new = tl.maximum(m_i, tl.max(qk, 1))
            alpha = tl.math.exp2(m_i - m_i_new)
            p = tl.math.exp2(qk - m_i_new[:, None])
            acc *= alpha[:, None]
            acc += tl.dot(p.to(tl.float16), v)
            l_i = l_i * alpha + tl.sum(p, 1)
            m_i = m_i_new
        tl.store(out_ptr + offs_m[:, None] * D + offs_d[None, :], acc / l_i[:, None])


    @tritium.jit
    def scaled_down_columns(a_ptr, b_ptr, s_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                            SIDE: tl.constexpr):
        # lightning attention's `tl.dot(k_trans * k_decay[None, :], v)`: one operand stored
        # contiguous down its columns (A along M, SIDE 0; B along K, SIDE 1), scaled per k in
        # the loop: loaded in 16-byte runs down the columns, scaled there, and staged by the
        # dot from that layout.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            kk = k0 + k
            s = tl.load(s_ptr + kk)
            if SIDE == 0:
                a = tl.load(a_ptr + m[:, None] + kk[None, :] * BM) * s[None, :]
                b = tl.load(b_ptr + kk[:, None] * BN + n[None, :])
            else:
                a = tl.load(a_ptr + m[:, None] * K + kk[None, :])
                b = tl.load(b_ptr + kk[:, None] + n[None, :] * K) * s[:, None]
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + m[:, None] * BN + n[None, :], acc)


    @tritium.jit
    def scaled_by_lines(x_ptr, b_ptr, dA_ptr, dt_ptr, c_ptr, L, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, SIDE: tl.constexpr):
        # mamba's chunk kernels in small: a dot over the chunk whose operand is scaled by lines
        # loaded in the loop, x stored M-contiguous. SIDE 0: _chunk_scan_bwd_dstates_kernel's
        # A scaled along K, `(dout * tl.exp(dA_cs_k)[None, :])`; SIDE 1: _chunk_state_fwd_kernel's
        # B scaled along its rows, `b * (tl.exp(tl.minimum(dA_last - dA_cs_k, 0.0)) * dt_k)[:, None]`.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        dA_last = tl.load(dA_ptr + L - 1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, L, BK):
            kk = k0 + k
            dA = tl.load(dA_ptr + kk, mask=kk < L, other=0.0)
            a = tl.load(x_ptr + m[:, None] + kk[None, :] * BM, mask=kk[None, :] < L, other=0.0)
            b = tl.load(b_ptr + kk[:, None] * BN + n[None, :], mask=kk[:, None] < L, other=0.0)
            if SIDE == 0:
                a = (a.to(tl.float32) * tl.exp(dA)[None, :]).to(x_ptr.dtype.element_ty)
            else:
                dt = tl.load(dt_ptr + kk, mask=kk < L, other=0.0)
                scale = tl.exp(tl.minimum(dA_last - dA, 0.0)) * dt
                b = (b.to(tl.float32) * scale[:, None]).to(x_ptr.dtype.element_ty)
            acc += tl.dot(a, b)
        tl.store(c_ptr + m[:, None] * BN + n[None, :], acc)


    @tritium.jit
    def awq_unpack(q_ptr, z_ptr, out_ptr, n_rows, n_cols, BY: tl.constexpr, BX: tl.constexpr):
        # vLLM's AWQ dequantization in small: three interleaves of the packed words (joins
        # whose results stay in their threads), a reshaped shift pattern, a replicated row of
        # zeros interleaved the same way and broadcast down the rows.
        ry = tl.program_id(1) * BY + tl.arange(0, BY)
        rx = tl.program_id(0) * BX + tl.arange(0, BX)
        q = tl.load(q_ptr + ry[:, None] * n_cols + rx[None, :],
                    mask=(ry[:, None] < n_rows) & (rx[None, :] < n_cols), other=0)
        q = tl.interleave(q, q)
        q = tl.interleave(q, q)
        q = tl.interleave(q, q)
        order = ((tl.arange(0, 2) * 4)[None, :] + tl.arange(0, 4)[:, None]).reshape(8)
        shifts = tl.reshape(tl.broadcast_to((order * 4)[None, :], (BY * BX, 8)), (BY, BX * 8))
        z = tl.load(z_ptr + rx[None, :] + tl.arange(0, 1)[:, None], mask=rx[None, :] < n_cols, other=0)
        z = tl.interleave(z, z)
        z = tl.interleave(z, z)
        z = tl.interleave(z, z)
        w = ((q >> shifts) & 0xF) - ((tl.broadcast_to(z, (BY, BX * 8)) >> shifts) & 0xF)
        ox = tl.program_id(0) * BX * 8 + tl.arange(0, BX * 8)
        tl.store(out_ptr + ry[:, None] * (8 * n_cols) + ox[None, :], w.to(tl.float16),
                 mask=(ry[:, None] < n_rows) & (ox[None, :] < 8 * n_cols))


    @tritium.jit
    def w8a16(a_ptr, b_ptr, s_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # benchmarks/kernels_dequant.py's weight-only int8 matmul, one tile, K a multiple of BK
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        scale = tl.load(s_ptr + rn)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
            acc += tl.dot(a, b.to(tl.float16) * scale[None, :])
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def trans_operands(x_ptr, y_ptr, z_ptr, w_ptr, p_ptr, q_ptr, BT: tl.constexpr, BK: tl.constexpr,
                       PRECISION: tl.constexpr):
        # fla's chunk_bwd_kernel_dqkwg: a dot's B the trans of a block that is also another
        # dot's A, and A the trans of a dot's result (masked, cast).
        rt = tl.arange(0, BT)
        rk = tl.arange(0, BK)
        at = rt[:, None] * BK + rk[None, :]
        x = tl.load(x_ptr + at)
        y = tl.load(y_ptr + at)
        z = tl.load(z_ptr + at)
        w = tl.load(w_ptr + rk[:, None] * BK + rk[None, :])
        s = tl.dot(x, tl.trans(y), input_precision=PRECISION)
        s = tl.where(rt[:, None] >= rt[None, :], s, 0).to(x.dtype)
        p = tl.dot(s, z, input_precision=PRECISION)
        q = tl.dot(tl.trans(s), z, input_precision=PRECISION) + tl.dot(y, w, input_precision=PRECISION)
        tl.store(p_ptr + at, p)
        tl.store(q_ptr + at, q)


    @tritium.jit
    def branch_dots(a_ptr, b_ptr, c_ptr, d_ptr, n, BM: tl.constexpr):
        r = tl.arange(0, BM)
        at = r[:, None] * BM + r[None, :]
        a = tl.load(a_ptr + at)
        b = tl.load(b_ptr + at)
        x = tl.zeros((BM, BM), tl.float32)
        y = tl.zeros((BM, BM), tl.float32)
        if n > 0:
            x = tl.dot(a, b)
            y = tl.dot(b, a)
        tl.store(c_ptr + at, x)
        tl.store(d_ptr + at, y)


    @tritium.jit
    def paged_attention(q_ptr, k_cache, v_cache, block_table, out_ptr, ctx_len, stride_kb, stride_kd, stride_vb,
                        stride_vd, BM: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, PBS: tl.constexpr,
                        X: tl.constexpr):
        # vLLM's prefix prefill: K cache [blocks, D // X, PBS, X] and V cache [blocks, D, PBS]
        # read through a block table, the last tile masked in a branch of its own.
        rm = tl.arange(0, BM)
        rd = tl.arange(0, D)
        rn = tl.arange(0, BN)
        q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
        acc = tl.zeros((BM, D), tl.float32)
        for start in range(0, ctx_len, BN):
            token = start + rn
            block = tl.load(block_table + token // PBS).to(tl.int64)
            slot = token % PBS
            off_k = (block[None, :] * stride_kb + (rd[:, None] // X) * stride_kd + slot[None, :] * X
                     + rd[:, None] % X)
            off_v = block[:, None] * stride_vb + rd[None, :] * stride_vd + slot[:, None]
            if start + BN > ctx_len:
                k = tl.load(k_cache + off_k, mask=token[None, :] < ctx_len, other=0.0)
            else:
                k = tl.load(k_cache + off_k)
            s = tl.dot(q, k).to(tl.float16)
            if start + BN > ctx_len:
                v = tl.load(v_cache + off_v, mask=token[:, None] < ctx_len, other=0.0)
            else:
                v = tl.load(v_cache + off_v)
            acc = tl.dot(s, v, acc)
        tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)


    @tritium.jit
    def paged_unified(q_ptr, k_cache, v_cache, block_table, out_ptr, ctx_len, stride_kb, stride_kt, stride_vb,
                      stride_vt, BM: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, PBS: tl.constexpr):
        # vLLM's unified attention: each tile's pages are block-table entries loaded in the
        # loop body; K [D, BN] through them is contiguous along D (K-major), V [BN, D].
        rm = tl.arange(0, BM)
        rd = tl.arange(0, D)
        rn = tl.arange(0, BN)
        q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
        acc = tl.zeros((BM, D), tl.float32)
        for j in range(0, tl.cdiv(ctx_len, BN)):
            token = j * BN + rn
            block = tl.load(block_table + token // PBS).to(tl.int64)
            live = token < ctx_len
            k = tl.load(k_cache + block[None, :] * stride_kb + (token % PBS)[None, :] * stride_kt + rd[:, None],
                        mask=live[None, :], other=0.0)
            v = tl.load(v_cache + block[:, None] * stride_vb + (token % PBS)[:, None] * stride_vt + rd[None, :],
                        mask=live[:, None], other=0.0)
            s = tl.dot(q, k).to(tl.float16)
            acc = tl.dot(s, v, acc)
        tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)


    @tritium.jit
    def query_masked_attention(q_ptr, k_ptr, v_ptr, out_ptr, n, qlen, qstart, hoff, BM: tl.constexpr, D: tl.constexpr,
                               BN: tl.constexpr, P_SCALE: tl.constexpr):
        # vLLM's unified attention at BLOCK_M 16: rows are (query, head) pairs, masked by both
        # (`query_mask_1[:, None] & query_mask_0[:, None] & seq_mask`), and `tl.dot(p, v) /
        # p_scale` added to the accumulator.
        rm = tl.arange(0, BM)
        rd = tl.arange(0, D)
        rn = tl.arange(0, BN)
        qpos = qstart + rm // 4
        qm_a = tl.where(qpos < qlen, 1, 0).to(tl.int1)
        qm_b = tl.where(hoff + rm % 4 < 7, 1, 0).to(tl.int1)
        q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
        acc = tl.zeros((BM, D), tl.float32)
        M = tl.full([BM], float("-inf"), tl.float32)
        L = tl.full([BM], 1.0, tl.float32)
        for j in range(0, tl.cdiv(n, BN)):
            tok = j * BN + rn
            k = tl.load(k_ptr + tok[None, :] * D + rd[:, None])
            v = tl.load(v_ptr + tok[:, None] * D + rd[None, :])
            S = tl.zeros((BM, BN), tl.float32)
            S += 0.5 * tl.dot(q, k)
            seq_mask = tok[None, :] < n - qlen + qpos[:, None] + 1
            S = tl.where(qm_a[:, None] & qm_b[:, None] & seq_mask, S, float("-inf"))
            m_j = tl.maximum(M, tl.max(S, axis=1))
            m_j = tl.where(m_j > float("-inf"), m_j, 0.0)
            P = tl.exp(S - m_j[:, None])
            alpha = tl.exp(M - m_j)
            acc = acc * alpha[:, None]
            L = L * alpha + tl.sum(P, axis=1)
            M = m_j
            acc += tl.dot((P * P_SCALE).to(v.dtype), v) / P_SCALE
        tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc / L[:, None])


    @tritium.jit
    def paged_sum(k_cache, block_table, out_ptr, ctx_len, stride_kb, stride_kd, D: tl.constexpr,
                  BN: tl.constexpr, PBS: tl.constexpr, X: tl.constexpr):
        # The same paged K read without a dot: its layout converted back for the sum.
        rd = tl.arange(0, D)
        rn = tl.arange(0, BN)
        acc = tl.zeros((D, BN), tl.float32)
        for start in range(0, ctx_len, BN):
            token = start + rn
            block = tl.load(block_table + token // PBS).to(tl.int64)
            off_k = (block[None, :] * stride_kb + (rd[:, None] // X) * stride_kd + (token % PBS)[None, :] * X
                     + rd[:, None] % X)
            acc += tl.load(k_cache + off_k, mask=token[None, :] < ctx_len, other=0.0).to(tl.float32)
        tl.store(out_ptr + rd[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def sort_and_flip(x_ptr, sorted_ptr, top_ptr, rows_ptr, cols_ptr, N: tl.constexpr, R: tl.constexpr,
                      C: tl.constexpr, K: tl.constexpr):
        # tl.sort's bitonic exchanges and tl.flip: flip ops along register, lane and warp bits.
        i = tl.arange(0, N)
        x = tl.load(x_ptr + i)
        tl.store(sorted_ptr + i, tl.sort(x))
        tl.store(top_ptr + tl.arange(0, K), tl.topk(x, K))
        at = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
        y = tl.load(x_ptr + at)
        tl.store(rows_ptr + at, tl.flip(y, 0))
        tl.store(cols_ptr + at, tl.flip(y, 1))


    @tritium.jit
    def known_asm(x_ptr, y_ptr, mag_ptr, lo_ptr, hi_ptr, rounded_ptr, BLOCK: tl.constexpr):
        # Inline PTX the emulator runs (libraries' and libdevice's): a signed larger magnitude,
        # a 32 x 32 + 32 product in two halves, and float2int_rn (llvm.nvvm.f2i.rn).
        i = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i)
        y = tl.load(y_ptr + i)
        tl.store(mag_ptr + i, tl.inline_asm_elementwise("max.NaN.xorsign.abs.f32 $0, $1, $2;", "=r,r,r", [x, y],
                                                        dtype=tl.float32, is_pure=True, pack=1))
        a = x.to(tl.uint32, bitcast=True)
        b = y.to(tl.uint32, bitcast=True)
        lo, hi = tl.inline_asm_elementwise(
            "{\\n\\tmad.lo.cc.u32 $0, $2, $3, $4;\\n\\tmadc.hi.u32 $1, $2, $3, 0;\\n\\t}", "=r,=r,r,r,r",
            [a, b, b ^ a], dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
        tl.store(lo_ptr + i, lo)
        tl.store(hi_ptr + i, hi)
        tl.store(rounded_ptr + i, libdevice.float2int_rn(x * 1000.0))


    @tritium.jit
    def tma_copy(in_desc, big_desc, clip_desc, flat_ptr, SHIFT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        # The program's block of in_desc SHIFT rows and columns up and left (the first
        # programs' cross the tensor's top and left edges, the last ones' its bottom and
        # right), doubled plus one: stored at the program's block of big_desc, which holds
        # every block whole (what the load read outside in_desc shows as 1), and back where it
        # was read in clip_desc (in_desc's shape: the store is clipped to it). TMA block
        # loads and stores on sm_90; flat gets big's elements through plain pointers (a tile
        # the load lays out wrongly is not put right by the store's reading it back alike).
        m = tl.program_id(0) * BM
        n = tl.program_id(1) * BN
        x = in_desc.load([m - SHIFT, n - SHIFT]) * 2 + 1
        big_desc.store([m, n], x)
        clip_desc.store([m - SHIFT, n - SHIFT], x)
        rows = m + tl.arange(0, BM)
        cols = n + tl.arange(0, BN)
        tl.store(flat_ptr + rows[:, None] * (tl.num_programs(1) * BN) + cols[None, :], x)


    @tritium.jit
    def tma_matmul(a_desc, b_desc, c_desc, K, B_T: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
        # C = A @ B through host descriptors: A [M, K], B [K, N] or (B_T) Bᵀ [N, K] read
        # transposed; on sm_90 the K loop's operands are TMA copies into swizzled stage
        # buffers (the last block past K zero-filled) read by wgmma, C a TMA store clipped to
        # [M, N].
        m = tl.program_id(0) * BM
        n = tl.program_id(1) * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([m, k])
            if B_T:
                b = b_desc.load([n, k]).T
            else:
                b = b_desc.load([k, n])
            acc = tl.dot(a, b, acc)
        c_desc.store([m, n], acc.to(c_desc.dtype))


    @tritium.jit
    def tma_load_then_transpose(x_desc, y_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
        # A TMA block load (its tile at shared byte 0, the mbarrier right after it), then a
        # 64 x 64 fp32 transpose whose round trip through shared memory covers that mbarrier.
        x = x_desc.load([0, 0])
        r = tl.arange(0, 64)
        y = tl.load(y_ptr + r[:, None] * 64 + r[None, :])
        tl.store(out_ptr + r[:, None] * 64 + r[None, :], tl.trans(y) + tl.sum(x.to(tl.float32)))


    @tritium.jit
    def heads_scaled_dots(x_ptr, w_ptr, b_ptr, s_ptr, t_ptr, out_ptr, sums_ptr, H, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr):
        # mamba's dB / dC / dCB kernels in small: a loop over heads, each a dot scaled by a
        # column of t, then by exp(min(s[:, None] - t[None, :], 0)) (rows of s against columns
        # of t), multiplied by a block loaded once before the loop and summed along its rows into
        # sums (tl.atomic_add, its old value unread), the scaled dots accumulated. Programs past
        # the first store zeros and return early (dCB's upper triangle), so the loop is in an if.
        pid = tl.program_id(0)
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        out = out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :]
        if pid > 0:
            tl.store(out, tl.zeros((BM, BN), dtype=tl.float32))
            return
        b = tl.load(b_ptr + rm[:, None] * BN + rn[None, :]).to(tl.float32)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(H):
            x = tl.load(x_ptr + h * BM * BK + rm[:, None] * BK + rk[None, :])
            w = tl.load(w_ptr + h * BK * BN + rk[:, None] * BN + rn[None, :])
            d = tl.dot(x, w)
            s = tl.load(s_ptr + h * BM + rm)
            t = tl.load(t_ptr + h * BN + rn)
            d *= t[None, :]
            d *= tl.exp(tl.minimum(s[:, None] - t[None, :], 0.0))
            tl.atomic_add(sums_ptr + h * BM + rm, tl.sum(d * b, axis=1))
            acc += d
        tl.store(out, acc)


    @tritium.jit
    def lines_at_fragments(x_ptr, w_ptr, s_ptr, t_ptr, out_ptr, n, H, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, CLOBBER: tl.constexpr):
        # mamba's dCB loop in small: each head's dot scaled by lines loaded beside it, a row of
        # t (masked, `other` 2) and a column of s, through elementwise ops (t * 0.5,
        # exp(min(s[:, None] - t[None, :], 0))), plus a column c loaded before the loop. With
        # CLOBBER each iteration overwrites the t it loaded before its broadcasts (and so the
        # loop writes memory): the lines must keep the values loaded first.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        c = tl.load(s_ptr + rm, mask=rm < n, other=-1.0)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(H):
            x = tl.load(x_ptr + h * BM * BK + rm[:, None] * BK + rk[None, :])
            w = tl.load(w_ptr + h * BK * BN + rk[:, None] * BN + rn[None, :])
            d = tl.dot(x, w)
            t = tl.load(t_ptr + h * BN + rn, mask=rn < n, other=2.0)
            s = tl.load(s_ptr + (h + 1) * BM + rm, mask=rm < n, other=0.5)
            if CLOBBER:
                tl.store(t_ptr + h * BN + rn, t * 3.0, mask=rn < n)
            d = d * (t * 0.5)[None, :] * tl.exp(tl.minimum(s[:, None] - t[None, :], 0.0)) + c[:, None]
            acc += d
        tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)

    @tritium.jit
    def carried_line_pointers(x_ptr, w_ptr, t_ptr, s_ptr, out_ptr, M, N, n, H, stride_xh, stride_wh, stride_th,
                              stride_sh, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # mamba's dCB loop as its source writes it: pointer blocks the loop carries and moves
        # by a head's stride (x, w, t), a scalar pointer moved the same way (s), and lines of
        # t and s broadcast into the dot's fragments at `pid * B + arange` offsets.
        npn = tl.cdiv(N, BN)
        pid_m = tl.program_id(0) // npn
        pid_n = tl.program_id(0) % npn
        offs_m = pid_m * BM + tl.arange(0, BM)
        offs_n = pid_n * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        x_ptrs = x_ptr + (offs_m[:, None] * BK + offs_k[None, :])
        w_ptrs = w_ptr + (offs_k[:, None] * N + offs_n[None, :])
        t_ptrs = t_ptr + offs_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(H):
            x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
            w = tl.load(w_ptrs, mask=offs_n[None, :] < N, other=0.0)
            d = tl.dot(x, w)
            t = tl.load(t_ptrs, mask=offs_n < n, other=2.0)
            s = tl.load(s_ptr + offs_m, mask=offs_m < n, other=0.5)
            acc += d * t[None, :] * s[:, None]
            x_ptrs += stride_xh
            w_ptrs += stride_wh
            t_ptrs += stride_th
            s_ptr += stride_sh
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=mask)

    @tritium.jit
    def state_recurrence(k_ptr, v_ptr, w_ptr, vn_ptr, h_ptr, T, K: tl.constexpr, V: tl.constexpr,
                         BT: tl.constexpr):
        # fla's chunk_gated_delta_rule_fwd_kernel_h at one K block: a state carried over the
        # chunks of T, stored every chunk with the new values, its operands loaded through the
        # other arguments (prefetched past those stores); kT runs along M.
        o_k = tl.arange(0, K)
        o_v = tl.arange(0, V)
        b_h = tl.zeros([K, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            tl.store(h_ptr + i_t * K * V + o_k[:, None] * V + o_v[None, :], b_h.to(tl.float16))
            b_w = tl.load(w_ptr + o_t[:, None] * K + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_v = tl.dot(b_w, b_h.to(tl.float16))
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0) - b_v
            tl.store(vn_ptr + o_t[:, None] * V + o_v[None, :], b_v.to(tl.float16), mask=m_t[:, None])
            b_k = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * K, mask=m_t[None, :], other=0.0)
            b_h = tl.dot(b_k, b_v.to(tl.float16), b_h)


    @tritium.jit
    def dqkwg_one_chunk(q, k, v, h, do, dh, dq, dk, dw, dv, scale, T, K: tl.constexpr, V: tl.constexpr,
                        BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
        # fla's chunk_bwd_kernel_dqkwg (delta rule, no gate) for one chunk: its loop over V
        # runs once at V == BV (gpu/inline_one_trip_loops.h); h and dh run along K (K-major B).
        o_t = tl.arange(0, BT)
        m_t = o_t < T
        o_k = tl.arange(0, BK)
        m_qk = m_t[:, None] & (o_k < K)[None, :]
        b_dq = tl.zeros([BT, BK], dtype=tl.float32)
        b_dk = tl.zeros([BT, BK], dtype=tl.float32)
        b_ds = tl.zeros([BT, BT], dtype=tl.float32)
        b_dw = tl.zeros([BT, BK], dtype=tl.float32)
        for i_v in range(tl.cdiv(V, BV)):
            o_v = i_v * BV + tl.arange(0, BV)
            m_hv = m_t[:, None] & (o_v < V)[None, :]
            m_h = (o_v < V)[:, None] & (o_k < K)[None, :]
            b_v = tl.load(v + o_t[:, None] * V + o_v[None, :], mask=m_hv, other=0.0)
            b_do = tl.load(do + o_t[:, None] * V + o_v[None, :], mask=m_hv, other=0.0)
            b_h = tl.load(h + o_v[:, None] + o_k[None, :] * V, mask=m_h, other=0.0)
            b_dh = tl.load(dh + o_v[:, None] + o_k[None, :] * V, mask=m_h, other=0.0)
            b_ds = tl.dot(b_do, tl.trans(b_v), b_ds)
            b_dq = tl.dot(b_do, b_h.to(b_do.dtype), b_dq)
            b_dk = tl.dot(b_v, b_dh.to(b_v.dtype), b_dk)
            b_dv = tl.load(dv + o_t[:, None] * V + o_v[None, :], mask=m_hv, other=0.0)
            b_dw = tl.dot(b_dv.to(b_v.dtype), b_h.to(b_v.dtype), b_dw)
        tl.store(dw + o_t[:, None] * K + o_k[None, :], -b_dw.to(dw.dtype.element_ty), mask=m_qk)
        tl.debug_barrier()
        b_q = tl.load(q + o_t[:, None] * K + o_k[None, :], mask=m_qk, other=0.0)
        b_k = tl.load(k + o_t[:, None] * K + o_k[None, :], mask=m_qk, other=0.0)
        m_A = (o_t[:, None] >= o_t[None, :]) & (m_t[:, None] & m_t)
        b_ds = tl.where(m_A, b_ds, 0)
        b_ds = b_ds.to(b_k.dtype)
        b_dq = tl.dot(b_ds, b_k, b_dq)
        b_dk += tl.dot(tl.trans(b_ds), b_q) * scale
        b_dq *= scale
        tl.store(dq + o_t[:, None] * K + o_k[None, :], b_dq.to(dq.dtype.element_ty), mask=m_qk)
        tl.store(dk + o_t[:, None] * K + o_k[None, :], b_dk.to(dk.dtype.element_ty), mask=m_qk)


    @tritium.jit
    def state_gradient_two_blocks(q_ptr, k_ptr, w_ptr, do_ptr, dv_ptr, dv2_ptr, dh_ptr, T, V: tl.constexpr,
                                  BT: tl.constexpr):
        # fla's chunk_gated_delta_rule_bwd_kernel_dhu_blockdim64 at K = 128 (no gates): the
        # state gradient in two blocks of 64 rows carried backwards over the chunks, each stored
        # and the B of a dot; dv = k dh + dv_in stored and the B of the two dots of the update.
        o_k = tl.arange(0, 64)
        o_v = tl.arange(0, V)
        b_dh1 = tl.zeros([64, V], dtype=tl.float32)
        b_dh2 = tl.zeros([64, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT) - 1, -1, -1):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            p_dh = dh_ptr + i_t * 128 * V + o_k[:, None] * V + o_v[None, :]
            tl.store(p_dh, b_dh1.to(tl.float16))
            tl.store(p_dh + 64 * V, b_dh2.to(tl.float16))
            b_do = tl.load(do_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0)
            b_k = tl.load(k_ptr + o_t[:, None] * 128 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_dv = tl.dot(b_k, b_dh1.to(tl.float16))
            b_k = tl.load(k_ptr + o_t[:, None] * 128 + 64 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_dv = tl.dot(b_k, b_dh2.to(tl.float16), b_dv)
            b_dv += tl.load(dv_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0)
            tl.store(dv2_ptr + o_t[:, None] * V + o_v[None, :], b_dv.to(tl.float16), mask=m_t[:, None])
            b_w = tl.load(w_ptr + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_q = tl.load(q_ptr + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_dh1 += tl.dot(b_q, b_do) * 0.5 - tl.dot(b_w, b_dv.to(tl.float16))
            b_w = tl.load(w_ptr + 64 + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_q = tl.load(q_ptr + 64 + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_dh2 += tl.dot(b_q, b_do) * 0.5 - tl.dot(b_w, b_dv.to(tl.float16))


    @tritium.jit
    def state_recurrence_two_blocks(k_ptr, v_ptr, w_ptr, vn_ptr, h_ptr, T, V: tl.constexpr, BT: tl.constexpr):
        # fla's chunk_gated_delta_rule_fwd_kernel_h_blockdim64 at K = 128: the state in two
        # blocks of 64 rows, each stored every chunk and then the B of a dot (b_v = w1 h1 +
        # w2 h2); the new values b_v stored and the B of the two dots that update the blocks.
        o_k = tl.arange(0, 64)
        o_v = tl.arange(0, V)
        b_h1 = tl.zeros([64, V], dtype=tl.float32)
        b_h2 = tl.zeros([64, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            p_h = h_ptr + i_t * 128 * V + o_k[:, None] * V + o_v[None, :]
            tl.store(p_h, b_h1.to(tl.float16))
            tl.store(p_h + 64 * V, b_h2.to(tl.float16))
            b_w = tl.load(w_ptr + o_t[:, None] * 128 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_v = tl.dot(b_w, b_h1.to(tl.float16))
            b_w = tl.load(w_ptr + o_t[:, None] * 128 + 64 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_v = tl.dot(b_w, b_h2.to(tl.float16), b_v)
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0) - b_v
            b_v = b_v.to(tl.float16)
            tl.store(vn_ptr + o_t[:, None] * V + o_v[None, :], b_v, mask=m_t[:, None])
            b_k1 = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_k2 = tl.load(k_ptr + 64 + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_h1 = tl.dot(b_k1, b_v, b_h1)
            b_h2 = tl.dot(b_k2, b_v, b_h2)


    @tritium.jit
    def gated_state_recurrence(k_ptr, v_ptr, g_ptr, h_ptr, T, K: tl.constexpr, V: tl.constexpr, BT: tl.constexpr):
        # fla's chunk_fwd_kernel_h with a gate along K (gla's gk, exp2 left out): the state
        # stored first thing every chunk (a round trip of the dot's accumulator), kT scaled by
        # the gate's last row minus its own in the loads' K-contiguous layout (the last row
        # broadcast through shared memory there), the state by that row in fragments.
        o_k = tl.arange(0, K)
        o_v = tl.arange(0, V)
        b_h = tl.zeros([K, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            tl.store(h_ptr + i_t * K * V + o_k[:, None] * V + o_v[None, :], b_h.to(tl.float16))
            b_k = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * K, mask=m_t[None, :], other=0.0)
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0)
            last = tl.minimum((i_t + 1) * BT, T) - 1
            b_g_last = tl.load(g_ptr + last * K + o_k)
            b_g = tl.load(g_ptr + o_k[:, None] + o_t[None, :] * K, mask=m_t[None, :], other=0.0)
            b_h *= b_g_last[:, None]
            b_k = (b_k * (b_g_last[:, None] - b_g)).to(b_k.dtype)
            b_h = tl.dot(b_k, b_v, b_h)


    @tritium.jit
    def gated_keys_state(k_ptr, v_ptr, g_ptr, h_ptr, T, K: tl.constexpr, V: tl.constexpr, BT: tl.constexpr,
                         BK: tl.constexpr):
        # fla's chunk_fwd_kernel_h for gla (USE_GK) at K = 2 BK, one program per K block: k and
        # gk read K-contiguous ([BK, BT] blocks, 16-byte runs down the columns), the keys
        # gated by exp2 of the gate's last row minus its own before the state's dot.
        i_k = tl.program_id(0)
        o_k = i_k * BK + tl.arange(0, BK)
        o_v = tl.arange(0, V)
        b_h = tl.zeros([BK, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            tl.store(h_ptr + i_t * K * V + o_k[:, None] * V + o_v[None, :], b_h.to(tl.float16), mask=o_k[:, None] < K)
            b_k = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * K, mask=(o_k[:, None] < K) & m_t[None, :], other=0.0)
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0)
            last = tl.minimum((i_t + 1) * BT, T) - 1
            b_g_last = tl.load(g_ptr + last * K + o_k, mask=o_k < K, other=0.0)
            b_g = tl.load(g_ptr + o_k[:, None] + o_t[None, :] * K, mask=(o_k[:, None] < K) & m_t[None, :], other=0.0)
            b_h *= tl.math.exp2(b_g_last)[:, None]
            b_k = (b_k * tl.math.exp2(b_g_last[:, None] - b_g)).to(b_k.dtype)
            b_h = tl.dot(b_k, b_v, b_h)


    @tritium.jit
    def gated_keys_state_wide(k_ptr, v_ptr, g_ptr, h_ptr, ht_ptr, T, K: tl.constexpr, V: tl.constexpr,
                              BT: tl.constexpr, BK: tl.constexpr):
        # gated_keys_state with fla's 64-bit chunk offsets (`i_t.to(tl.int64)`): the rows'
        # addresses and their mask `o_t < T` in 64 bits, as fla's chunk_fwd_kernel_h has them.
        i_k = tl.program_id(0)
        o_k = i_k * BK + tl.arange(0, BK)
        o_v = tl.arange(0, V)
        b_h = tl.zeros([BK, V], dtype=tl.float32)
        for i_t in range(tl.cdiv(T, BT)):
            i_t64 = i_t.to(tl.int64)
            o_t = i_t64 * BT + tl.arange(0, BT)
            m_t = o_t < T
            tl.store(h_ptr + i_t64 * K * V + o_k[:, None] * V + o_v[None, :], b_h.to(tl.float16), mask=o_k[:, None] < K)
            b_k = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * K, mask=(o_k[:, None] < K) & m_t[None, :], other=0.0)
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None] & (o_v < V)[None, :], other=0.0)
            last = tl.minimum((i_t64 + 1) * BT, T) - 1
            b_g_last = tl.load(g_ptr + last * K + o_k, mask=o_k < K, other=0.0)
            b_g = tl.load(g_ptr + o_k[:, None] + o_t[None, :] * K, mask=(o_k[:, None] < K) & m_t[None, :], other=0.0)
            b_h *= tl.math.exp2(b_g_last)[:, None]
            b_k = (b_k * tl.math.exp2(b_g_last[:, None] - b_g)).to(b_k.dtype)
            b_h = tl.dot(b_k, b_v, b_h)
        tl.store(ht_ptr + o_k[:, None] * V + o_v[None, :], b_h, mask=o_k[:, None] < K)


    @tritium.jit
    def converted_a_down_columns(dout_ptr, a_ptr, res_ptr, db_ptr, CS, K, BM: tl.constexpr, BN: tl.constexpr,
                                 BCS: tl.constexpr):
        # mamba's _bmm_chunk_bwd_kernel (HAS_RESIDUAL): db = dout^T a + res, dout an fp32 [CS, CS]
        # block read transposed ([BM, BCS] blocks contiguous along M: 16-byte runs down the
        # columns) and converted to bf16 for the dot.
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BM + tl.arange(0, BM)
        offs_n = pid_n * BN + tl.arange(0, BN)
        offs_cs = tl.arange(0, BCS)
        dout_ptrs = dout_ptr + offs_m[:, None] + offs_cs[None, :] * CS
        a_ptrs = a_ptr + offs_cs[:, None] * K + offs_n[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for cs in range(0, tl.cdiv(CS, BCS)):
            dout = tl.load(dout_ptrs, mask=(offs_m[:, None] < CS) & (offs_cs[None, :] < CS - cs * BCS), other=0.0)
            a = tl.load(a_ptrs, mask=(offs_cs[:, None] < CS - cs * BCS) & (offs_n[None, :] < K), other=0.0)
            acc += tl.dot(dout.to(tl.bfloat16), a)
            dout_ptrs += BCS * CS
            a_ptrs += BCS * K
        at = offs_m[:, None] * K + offs_n[None, :]
        mask = (offs_m[:, None] < CS) & (offs_n[None, :] < K)
        acc += tl.load(res_ptr + at, mask=mask)
        tl.store(db_ptr + at, acc, mask=mask)


    @tritium.jit
    def matmul_then_column_sums(a_ptr, b_ptr, c_ptr, x_ptr, s_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                                BK: tl.constexpr, SUMS: tl.constexpr):
        # The matmul kernel's epilogue store, then (SUMS) a column sum of another block (a
        # cross-warp reduction through shared memory) written after it.
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
        if SUMS:
            x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
            tl.store(s_ptr + tl.program_id(0) * N + rn, tl.sum(x, axis=0))


    @tritium.jit
    def dots_scaled_by_widened_block(x_ptr, y_ptr, b_ptr, out_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                                     BK: tl.constexpr):
        # mamba's _chunk_state_bwd_db_kernel: a bf16 block widened to f32 before the loop and
        # multiplied into each iteration's dot result (held in fragments: an invariant copy).
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        b = tl.load(b_ptr + rm[:, None] * BN + rn[None, :]).to(tl.float32)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(n):
            x = tl.load(x_ptr + h * BM * BK + rm[:, None] * BK + rk[None, :])
            y = tl.load(y_ptr + h * BK * BN + rk[:, None] * BN + rn[None, :])
            acc += tl.dot(x, y) * b
        tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def read_back_before_dot(x_ptr, b_ptr, out_ptr, n, BM: tl.constexpr, BN: tl.constexpr):
        # A copied block read back (it reaches the dot's A through ops of the body) whose first
        # use, added to the carried dot result, comes before the loop's dot: read at the
        # fragment positions, after a wait and a barrier of its own (no dot has met one yet).
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for i in range(n):
            x = tl.load(x_ptr + i * BM * BN + rm[:, None] * BN + rn[None, :])
            b = tl.load(b_ptr + i * BN * BN + rn[:, None] * BN + rn[None, :])
            acc = tl.dot((acc + x.to(tl.float32)).to(tl.float16), b)
        tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def one_operand_two_dots(a_ptr, c_ptr, b_ptr, out_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                             BK: tl.constexpr):
        # fla's dhu: one loaded block (dO) is the B of two dots of the loop, one copied tile.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc1 = tl.zeros((BM, BN), dtype=tl.float32)
        acc2 = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(K // BK - 1, -1, -1):
            b = tl.load(b_ptr + (k0 * BK + rk)[:, None] * BN + rn[None, :])
            a = tl.load(a_ptr + rm[:, None] * K + (k0 * BK + rk)[None, :])
            c = tl.load(c_ptr + rm[:, None] * K + (k0 * BK + rk)[None, :])
            acc1 = tl.dot(a, b, acc1)
            acc2 = tl.dot(c, b, acc2)
        tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc1)
        tl.store(out_ptr + BM * BN + rm[:, None] * BN + rn[None, :], acc2)


    @tritium.jit
    def fed_back_operand(buf_ptr, b_ptr, n, BM: tl.constexpr, BN: tl.constexpr):
        # Each iteration's A is what the one before stored through the same argument: that
        # load may not move ahead of the store.
        r = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        b = tl.load(b_ptr + tl.arange(0, BN)[:, None] * BN + tl.arange(0, BN)[None, :])
        for i in range(n):
            a = tl.load(buf_ptr + i * BM * BN + r)
            acc = tl.dot(a, b)
            tl.store(buf_ptr + (i + 1) * BM * BN + r, acc.to(tl.float16))


    @tritium.jit
    def paged_attention_rows(q_ptr, k_ptr, v_ptr, table_ptr, o_ptr, n_tiles, q_len, seq_len, scale,
                             BLOCK_M: tl.constexpr, TILE: tl.constexpr, D: tl.constexpr):
        # vLLM's unified attention at BLOCK_M 16 (one 16-row tile: the warps split the columns):
        # query rows masked by a chain of comparisons, each K/V tile found through a table, the
        # causal mask, the online softmax, and `acc += tl.dot(P * p_scale, V) / p_scale` with
        # p_scale 1.0 (the scale folds away: the dot accumulates into acc).
        rm = tl.arange(0, BLOCK_M)
        rd = tl.arange(0, D)
        rt = tl.arange(0, TILE)
        query_pos = rm // 4
        query_mask_0 = tl.where(query_pos < q_len, 1, 0).to(tl.int1)
        query_mask_1 = tl.where(rm % 4 < 4, 1, 0).to(tl.int1)
        q = tl.load(q_ptr + rm[:, None] * D + rd[None, :], mask=query_mask_0[:, None], other=0.0)
        M = tl.full([BLOCK_M], float("-inf"), tl.float32)
        L = tl.full([BLOCK_M], 1.0, tl.float32)
        acc = tl.zeros([BLOCK_M, D], tl.float32)
        for j in range(n_tiles):
            page = tl.load(table_ptr + j)
            seq_offset = j * TILE + rt
            k = tl.load(k_ptr + page * TILE * D + rt[None, :] * D + rd[:, None])
            v = tl.load(v_ptr + page * TILE * D + rt[:, None] * D + rd[None, :])
            seq_mask = seq_offset[None, :] <= seq_len - q_len + query_pos[:, None]
            S = tl.zeros([BLOCK_M, TILE], tl.float32)
            S += scale * tl.dot(q, k)
            S = tl.where(query_mask_1[:, None] & query_mask_0[:, None] & seq_mask, S, float("-inf"))
            m_j = tl.maximum(M, tl.max(S, axis=1))
            m_j = tl.where(m_j > float("-inf"), m_j, 0.0)
            P = tl.exp(S - m_j[:, None])
            l_j = tl.sum(P, axis=1)
            alpha = tl.exp(M - m_j)
            acc = acc * alpha[:, None]
            L = L * alpha + l_j
            M = m_j
            p_scale = 1.0
            acc += tl.dot((P * p_scale).to(v.dtype), v) / p_scale
        acc = acc / L[:, None]
        tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc, mask=query_mask_0[:, None])


    @tritium.jit
    def layer_norm_affine(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps, BLOCK: tl.constexpr):
        # liger's layer-norm forward: the weight and bias converted to fp32 where loaded, at
        # the top, and used only after both reductions (gpu/sink_casts.h).
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / n
        xc = x - mean
        var = tl.sum(tl.where(mask, xc * xc, 0.0), axis=0) / n
        rstd = 1.0 / tl.sqrt(var + eps)
        tl.store(mean_ptr + row, mean)
        tl.store(rstd_ptr + row, rstd)
        tl.store(y_ptr + row * n + cols, (xc * rstd * w + b).to(tl.float16), mask=mask)


    @tritium.jit
    def unknown_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        y = tl.inline_asm_elementwise("brev.b32 $0, $1;", "=r,r", [tl.load(x_ptr + i)], dtype=tl.int32,
                                      is_pure=True, pack=1)
        tl.store(out_ptr + i, y)

    @tritium.jit
    def gathered_rows_matmul(e_ptr, c_ptr, order_ptr, out_ptr, D, V, BB: tl.constexpr, BV: tl.constexpr,
                             BD: tl.constexpr):
        # cut-cross-entropy's backward logits in small: the classifier's rows gathered through
        # a loaded vocabulary ordering, read K-major (down D), the pointer block carried
        # through the loop and moved by BD each step.
        rb = tl.arange(0, BB)
        rv = tl.load(order_ptr + tl.program_id(0) * BV + tl.arange(0, BV))
        rd = tl.arange(0, BD)
        e_ptrs = e_ptr + rb[:, None] * D + rd[None, :]
        c_ptrs = c_ptr + rv[None, :] * D + rd[:, None]
        acc = tl.zeros((BB, BV), dtype=tl.float32)
        for d in range(0, tl.cdiv(D, BD)):
            e = tl.load(e_ptrs)
            c = tl.load(c_ptrs)
            acc = tl.dot(e, c, acc)
            e_ptrs += BD
            c_ptrs += BD
        tl.store(out_ptr + rb[:, None] * V + (tl.program_id(0) * BV + tl.arange(0, BV))[None, :], acc)

    @tritium.jit
    def scaled_gram(k_ptr, beta_ptr, a_ptr, T, K: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
        # fla's chunk_scaled_dot_kkt_fwd_kernel in small: beta (a column loaded before the K
        # loop, masked) scales k kᵀ's rows, the strict lower triangle kept, rows masked.
        o_t = tl.program_id(0) * BT + tl.arange(0, BT)
        m_t = o_t < T
        b_b = tl.load(beta_ptr + o_t, mask=m_t, other=0.0)
        b_A = tl.zeros([BT, BT], dtype=tl.float32)
        for i_k in range(tl.cdiv(K, BK)):
            o_k = i_k * BK + tl.arange(0, BK)
            b_k = tl.load(k_ptr + o_t[:, None] * K + o_k[None, :], mask=m_t[:, None] & (o_k < K)[None, :], other=0.0)
            b_A = tl.dot(b_k, tl.trans(b_k), b_A)
        b_A *= b_b[:, None]
        m_A = (o_t[:, None] > o_t[None, :]) & (m_t[:, None] & m_t)
        b_A = tl.where(m_A, b_A, 0)
        tl.store(a_ptr + o_t[:, None] * BT + tl.arange(0, BT)[None, :], b_A, mask=m_t[:, None])

    @tritium.jit
    def _all_true(a, b):
        return a & b


    @tritium.jit
    def filtered_block(x_ptr, w_ptr, out_ptr, flags_ptr, eps, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
        # cut-cross-entropy's `_block_is_filtered`: a block whose every |x w| < eps returns
        # before its store; else the block, and the largest (integer) element, stored.
        pid = tl.program_id(0)
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        x = tl.load(x_ptr + pid * BM * BK + rm[:, None] * BK + rk[None, :])
        w = tl.load(w_ptr + rk[:, None] * BN + rn[None, :])
        acc = tl.dot(x, w)
        if tl.reduce(tl.abs(acc) < eps, None, _all_true):
            return
        tl.store(flags_ptr + pid, tl.max(tl.reshape(acc.to(tl.int32), [BM * BN]), 0))
        tl.store(out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)

    @tritium.jit
    def trans_of_dot_as_a(x_ptr, w_ptr, v_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          BD: tl.constexpr):
        # cut-cross-entropy's dC: a dot's result, cast to f16, read transposed as the next
        # dot's A (tl.trans(d_accum) @ e).
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        rd = tl.arange(0, BD)
        x = tl.load(x_ptr + rm[:, None] * BK + rk[None, :])
        w = tl.load(w_ptr + rk[:, None] * BN + rn[None, :])
        d = (tl.dot(x, w) * 0.5).to(tl.float16)
        v = tl.load(v_ptr + rm[:, None] * BD + rd[None, :])
        tl.store(out_ptr + rn[:, None] * BD + rd[None, :], tl.dot(tl.trans(d), v))

    @tritium.jit
    def trans_of_dot_as_hoisted_a(x_ptr, w_ptr, v_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr,
                                  BK: tl.constexpr, BD: tl.constexpr, ND: tl.constexpr):
        # cut-cross-entropy's dC loop in small: trans(d_accum) is the A of every dot of a loop
        # over D (hoisted: written once before the loop), v's chunks copied.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        rd = tl.arange(0, BD)
        x = tl.load(x_ptr + rm[:, None] * BK + rk[None, :])
        w = tl.load(w_ptr + rk[:, None] * BN + rn[None, :])
        d = (tl.dot(x, w) * 0.5).to(tl.float16)
        dt = tl.trans(d)
        for j in range(ND):
            v = tl.load(v_ptr + rm[:, None] * (BD * ND) + j * BD + rd[None, :])
            tl.store(out_ptr + rn[:, None] * (BD * ND) + j * BD + rd[None, :], tl.dot(dt, v))

    @tritium.jit
    def row_sum_atomic_loop(x_ptr, s_ptr, sc_ptr, b_ptr, acc_ptr, dd_ptr, H, BM: tl.constexpr, BN: tl.constexpr,
                            BK: tl.constexpr):
        # mamba's _chunk_state_bwd_db_kernel in small: per head, db = (x @ s) * scale[:, None];
        # the row sums of db * b go out by atomics (rows 1..BM-1), and acc += db.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        b = tl.load(b_ptr + rm[:, None] * BN + rn[None, :]).to(tl.float32)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(H):
            x = tl.load(x_ptr + h * BM * BK + rm[:, None] * BK + rk[None, :])
            s = tl.load(s_ptr + h * BK * BN + rk[:, None] * BN + rn[None, :])
            db = tl.dot(x, s)
            scale = tl.load(sc_ptr + h * BM + rm)
            db *= scale[:, None]
            dd = tl.sum(db * b, axis=1)
            tl.atomic_add(dd_ptr + h * BM + rm + 1, dd, mask=rm < BM - 1)
            acc += db
        tl.store(acc_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def negated_products(a_ptr, b_ptr, c_ptr, d_ptr, T, scale, N: tl.constexpr, BT: tl.constexpr):
        # fla's chunk_bwd_kernel_dqkwg epilogue: a dot's f32 result stored negated in 16 bits
        # (`-b_dw.to(dw.dtype)`: the cast, then an op on the 16-bit values), another scaled and cast.
        o_t = tl.program_id(0) * BT + tl.arange(0, BT)
        m_t = o_t < T
        o_k = tl.arange(0, 64)
        o_n = tl.arange(0, N)
        b_a = tl.load(a_ptr + o_t[:, None] * 64 + o_k[None, :], mask=m_t[:, None], other=0.0)
        b_b = tl.load(b_ptr + o_k[:, None] * N + o_n[None, :])
        acc = tl.dot(b_a, b_b)
        tl.store(c_ptr + o_t[:, None] * N + o_n[None, :], -acc.to(c_ptr.dtype.element_ty), mask=m_t[:, None])
        tl.store(d_ptr + o_t[:, None] * N + o_n[None, :], (acc * scale).to(d_ptr.dtype.element_ty), mask=m_t[:, None])


    @tritium.jit
    def rows_from_one_base(x_ptr, y_ptr, z_ptr, T, stride, S: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr,
                           WIDE: tl.constexpr):
        # fla dqkwg's loads and stores: rows o_t = i_t * BT + arange (i_t an i64 there) at a
        # constant row stride, masked at T; then a run-time stride (no constant between rows).
        i_t = tl.program_id(0)
        if WIDE:
            i_t = i_t.to(tl.int64)
        o_t = i_t * BT + tl.arange(0, BT)
        m_t = o_t < T
        o_k = tl.arange(0, BK)
        b_x = tl.load(x_ptr + o_t[:, None] * S + o_k[None, :], mask=m_t[:, None], other=0.0)
        tl.store(y_ptr + o_t[:, None] * S + o_k[None, :], b_x * 2.0 + 1.0, mask=m_t[:, None])
        tl.store(z_ptr + o_t[:, None] * stride + o_k[None, :], b_x - 1.0, mask=m_t[:, None])
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("emulated_kernels")
    (folder / "emu_kernels.py").write_text(KERNELS)
    sys.path.insert(0, str(folder))
    import emu_kernels
    yield emu_kernels
    sys.path.remove(str(folder))


@pytest.mark.parametrize("sm", [90, 80])
@pytest.mark.parametrize("warps", [1, 4])
def test_elementwise_on_a_2d_grid(kernels, sm, warps):
    rng = np.random.default_rng(1)
    n, m = 70, 50  # neither a multiple of the block: masked edges
    x = rng.standard_normal((n, m)).astype(np.float32)
    y = rng.standard_normal((n, m)).astype(np.float32)
    out = np.full((n + 1, m), 7.0, dtype=np.float32)  # the row past the end stays untouched
    eg.run(kernels.axpy_2d, (3, 2), x, y, out, n, m, 1.5, BM=32, BN=32, sm=sm, num_warps=warps)
    np.testing.assert_allclose(out[:n], np.exp(x) * 1.5 + y, rtol=2e-6, atol=1e-6)
    assert (out[n] == 7.0).all()


@pytest.mark.parametrize("sm", [90, 80])
def test_masked_loads_with_other(kernels, sm):
    rng = np.random.default_rng(6)
    rows, n = 3, 100
    x = (rng.standard_normal((rows, n)) - 5).astype(np.float32)  # all below 0
    out = np.zeros(rows, dtype=np.float32)
    eg.run(kernels.row_max, (rows,), x, out, n, -100.0, BLOCK=128, sm=sm)
    np.testing.assert_array_equal(out, x.max(1) + np.minimum(x.min(1), -100.0))


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 8, 1), (80, 4, 3), (80, 2, 2)])
def test_dot_on_tensor_cores(kernels, sm, warps, stages):
    """fp16 small integers: exact in the fp32 sums, so the result must equal numpy's."""
    rng = np.random.default_rng(2)
    M, N, K = 128, 64, 96
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float32)
    handle = eg.run(kernels.matmul, (M // 64, N // 32), a, b, c, M, N, K, BM=64, BN=32, BK=32, sm=sm,
                    num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
    ll = eg.emit_llvm(handle, sm)
    assert ("wgmma.mma_async" in ll) == (sm == 90) and ("mma.sync" in ll) == (sm == 80)


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 1), (80, 4, 3), (80, 2, 2)])
@pytest.mark.parametrize("sums", [False, True])
def test_epilogue_round_trip_ends_lazily(kernels, monkeypatch, sm, warps, stages, sums):
    """The accumulator's round trip to the flat layout for the kernel's last store (fragments
    to shared memory, a barrier, flat registers back) leaves its ending barrier pending
    (Emitter::end_round_trip, experiment "lazybar"): nothing after it but global stores, so
    the kernel has one bar.sync fewer than with TRITIUM_REDUCE_EXPERIMENT=nolazybar, as
    Triton's epilogue. An op after the store that may write shared memory (here a column sum
    across warps, SUMS) gets that barrier first: as many as with nolazybar. Compared under
    noelidebar: since session 35 late_passes.h's elide_barriers also drops nolazybar's ending
    barrier where only global stores follow it (the same count as lazybar's). Exact results."""
    rng = np.random.default_rng(43)
    # BN = 64: the accumulator's fragments go to the store's own layout (no convert_layout
    # planned by allocate_shared between them: an unplanned round trip, fragment_to_flat).
    M, N, K, BM, BN, BK = 128, 128, 96, 64, 64, 32
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    x = rng.integers(-4, 5, (M, N)).astype(np.float32)
    bars = {}
    for experiment in ("noelidebar", "nolazybar,noelidebar", "nolazybar"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        c = np.full((M, N), np.nan, dtype=np.float32)
        sums_out = np.full((M // BM, N), np.nan, dtype=np.float32)
        handle = eg.run(kernels.matmul_then_column_sums, (M // BM, N // BN), a, b, c, x, sums_out, M, N, K, BM=BM,
                        BN=BN, BK=BK, SUMS=sums, sm=sm, num_warps=warps, num_stages=stages)
        np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
        if sums:
            np.testing.assert_array_equal(sums_out, x.reshape(M // BM, BM, N).sum(1))
        bars[experiment] = eg.emit_llvm(handle, sm, "ptx").count("bar.sync")
    assert bars["noelidebar"] == bars["nolazybar,noelidebar"] - (0 if sums else 1), bars
    assert bars["nolazybar"] == bars["noelidebar"], bars


def bits_to_f32(bits, dtype):
    """16-bit results (bf16 as uint16 bits, or float16) as float32 values."""
    if dtype == "bf16":
        return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)
    return np.asarray(bits).astype(np.float32)


@pytest.mark.parametrize("sm,warps", [(90, 4), (90, 8), (80, 4), (80, 2)])
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("experiment", ["", "nopaircvt", "stmatrix", "nopaircvt,stmatrix"])
def test_fragments_cast_in_pairs(kernels, monkeypatch, sm, warps, dtype, experiment):
    """A dot's f32 fragments cast to 16 bits a register pair a cvt.rn.{bf16,f16}x2.f32
    (Emitter::f32_to_half_in_pairs; register r the low half), also where a 16-bit op follows
    the cast (fla dqkwg's `-b_dw.to(bf16)`), which left each conversion alone before (one
    F2FP a value and a PRMT to pair them). With the opt-in "stmatrix" the flat copies for the
    stores go to shared memory by stmatrix.x4 on sm_90 (else a register pair a store).
    Results rounded to nearest even as numpy rounds them, compared bit for bit; rows past T
    masked (T = 100 over two blocks of 64). An exchanged pair (columns c and c + 1) fails."""
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(37)
    T, N, BT = 100, 64, 64
    a = rng.integers(-3, 4, (T, 64)).astype(np.float32) * 1.25
    b = rng.integers(-3, 4, (64, N)).astype(np.float32) * 0.75
    acc = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)  # exact in f32
    if dtype == "bf16":
        args = (typed(bf16_bits(a), "bf16"), typed(bf16_bits(b), "bf16"))
        c = np.full((T + 1, N), 0x7fc0, dtype=np.uint16)
        d = np.full((T + 1, N), 0x7fc0, dtype=np.uint16)
        outs = (typed(c, "bf16"), typed(d, "bf16"))
        want_c, want_d = bits_to_f32(bf16_bits(-acc), "bf16"), bits_to_f32(bf16_bits(acc * np.float32(0.5)), "bf16")
    else:
        args = (a.astype(np.float16), b.astype(np.float16))
        c = np.full((T + 1, N), np.nan, dtype=np.float16)
        d = np.full((T + 1, N), np.nan, dtype=np.float16)
        outs = (c, d)
        want_c, want_d = (-acc).astype(np.float16).astype(np.float32), (acc * np.float32(0.5)).astype(np.float16).astype(np.float32)
    assert not np.array_equal(want_c[:, 0::2], want_c[:, 1::2])
    handle = eg.run(kernels.negated_products, (2,), *args, *outs, T, 0.5, N=N, BT=BT, sm=sm, num_warps=warps,
                    num_stages=1)
    np.testing.assert_array_equal(bits_to_f32(c[:T], dtype), want_c)
    np.testing.assert_array_equal(bits_to_f32(d[:T], dtype), want_d)
    assert np.isnan(bits_to_f32(c[T], dtype)).all() and np.isnan(bits_to_f32(d[T], dtype)).all()
    ptx = eg.emit_llvm(handle, sm, "ptx")
    kind = "bf16" if dtype == "bf16" else "f16"
    single = len(re.findall(rf"cvt\.rn\.{kind}\.f32", ptx))
    paired = len(re.findall(rf"cvt\.rn\.{kind}x2\.f32", ptx))
    if "nopaircvt" in experiment:
        assert single > 0, (single, paired)
    else:
        assert single == 0 and paired > 0, (single, paired)
    stmatrix = len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx))
    assert (stmatrix > 0) == (sm == 90 and "stmatrix" in experiment), stmatrix


def _address_bases(ptx, access):
    """The base registers of the PTX's `access` instructions (`[%rdN]` or `[%rdN+imm]`), in order."""
    return re.findall(access + r"[.\w]* [^\[]*\[(%rd\d+)(?:\+-?\d+)?\]", ptx)


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 2)])
@pytest.mark.parametrize("BT,BK", [(64, 32), (4, 1024)])
@pytest.mark.parametrize("wide", [True, False])
@pytest.mark.parametrize("experiment", ["", "noflatbase"])
def test_flat_groups_addressed_from_one_base(kernels, monkeypatch, sm, warps, BT, BK, wide, experiment):
    """A flat-layout load or store addresses each of a thread's register groups as its first
    group's pointer plus the constant shift_delta proves (Emitter::flat_address, experiment
    "flatbase", the default): `[%rd + imm]` from one base register an access (fla dqkwg's 24
    epilogue addresses held across its dots). Groups BT x BK: 64 x 32 f32 at 4 warps are
    4-element groups 16 rows apart; 4 x 1024 are 512 columns (or a row) apart. With a
    run-time row stride (z) no constant is proven: a base a group, as with noflatbase. Rows
    past T masked (T = 100), padded rows (S = BK + 16) so that a wrong offset lands in
    the padding or a wrong row; the values compared exactly. An i32 row index (WIDE off)
    moves by a constant only where value ranges prove its offset cannot wrap: here only
    within a row."""
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(39)
    T = 100 if BT == 64 else 10
    S = BK + 16
    grid = (T + BT - 1) // BT
    x = rng.integers(-8, 9, (grid * BT, S)).astype(np.float32)
    y = np.full((grid * BT, S), np.nan, dtype=np.float32)
    z = np.full((grid * BT, BK + 8), np.nan, dtype=np.float32)
    handle = eg.run(kernels.rows_from_one_base, (grid,), x, y, z, T, BK + 8, S=S, BT=BT, BK=BK, WIDE=wide, sm=sm,
                    num_warps=warps, num_stages=1)
    np.testing.assert_array_equal(y[:T, :BK], x[:T, :BK] * 2 + 1)
    np.testing.assert_array_equal(z[:T, :BK], x[:T, :BK] - 1)
    assert np.isnan(y[T:]).all() and np.isnan(y[:, BK:]).all()
    assert np.isnan(z[T:]).all() and np.isnan(z[:, BK:]).all()
    ptx = eg.emit_llvm(handle, sm, "ptx")
    loads, stores = _address_bases(ptx, "ld.global"), _address_bases(ptx, "st.global")
    groups = len(loads)  # y is stored as x is loaded, z (run-time stride) after it
    assert groups > 1 and len(stores) > groups, (loads, stores)
    if experiment == "noflatbase":
        assert len(set(loads)) == groups and len(set(stores)) == len(stores), (loads, stores)
    elif wide:
        assert len(set(loads)) == 1 and len(set(stores[:groups])) == 1, (loads, stores)
        assert len(set(stores[groups:])) > 1, stores


def test_flat_group_offsets_are_checked(kernels, monkeypatch):
    """The emulation can fail: with flatbase's constant offsets halved in the LLVM IR (each
    predicated access's `[$base+C]`), the loads and stores miss their rows."""
    original = eg.emit_llvm

    def mutated(handle, sm, stage="llvm"):
        text = original(handle, sm, stage)
        text, count = re.subn(r"(global\.v4\.b32 [^\[]*\[\$\d+\+)(\d+)\]", lambda m: f"{m.group(1)}{int(m.group(2)) // 2}]", text)
        assert count > 0
        return text
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        test_flat_groups_addressed_from_one_base(kernels, monkeypatch, 90, 4, 64, 32, True, "")


def test_pair_cvt_with_its_halves_swapped_is_caught(kernels, monkeypatch):
    """The emulation can fail: with the two sources of each cvt.rn.bf16x2.f32 exchanged
    (columns c and c + 1 of the negated product swapped), the stored values come out wrong."""
    original = eg.emit_llvm

    def mutated(handle, sm, stage="llvm"):
        ll = original(handle, sm, stage)
        ll, count = re.subn(r'(asm "cvt\.rn\.bf16x2\.f32[^"]*", "[^"]*"\()(float [^,]+), (float [^,)]+)', r"\1\3, \2", ll)
        assert count > 0
        return ll
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        test_fragments_cast_in_pairs(kernels, monkeypatch, 90, 4, "bf16", "")


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2), (80, 2, 3)])
def test_widened_invariant_block_copied_narrow(kernels, monkeypatch, sm, warps, stages):
    """A bf16 block widened to f32 outside a loop whose dot results it scales gets one
    fragment copy (FragmentPlan::invariant_copy). TRITIUM_REDUCE_EXPERIMENT=narrowcopy
    (opt-in): the 16-bit block takes that round trip and each thread widens its registers
    there, half the bytes through shared memory (fewer st.shared). Small integers: exact."""
    rng = np.random.default_rng(47)
    BM, BN, BK, n = 64, 64, 32, 3
    x = rng.integers(-3, 4, (n, BM, BK)).astype(np.float16)
    y = rng.integers(-3, 4, (n, BK, BN)).astype(np.float16)
    b = rng.integers(-3, 4, (BM, BN)).astype(np.float32)
    want = sum(x[h].astype(np.float64) @ y[h].astype(np.float64) for h in range(n)) * b
    stores = {}
    for experiment in ("", "narrowcopy"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((BM, BN), np.nan, dtype=np.float32)
        handle = eg.run(kernels.dots_scaled_by_widened_block, (1,), x, y, typed(bf16_bits(b), "bf16"), out, n, BM=BM,
                        BN=BN, BK=BK, sm=sm, num_warps=warps, num_stages=stages)
        np.testing.assert_array_equal(out.astype(np.float64), want)
        gpu_ir = kernels.dots_scaled_by_widened_block.emit("gpu-ir", x, y, typed(bf16_bits(b), "bf16"), out, n, BM=BM,
                                                           BN=BN, BK=BK, num_warps=warps, num_stages=stages, arch=sm)
        assert "also copied into fragments here, once" in gpu_ir
        ptx = eg.emit_llvm(handle, sm, "ptx")
        stores[experiment] = sum(ptx.count(f"st.shared.{w}") * nb for w, nb in (("b16", 2), ("b32", 4), ("v2.b32", 8),
                                                                                  ("v4.b32", 16), ("v2.b16", 4),
                                                                                  ("v4.b16", 8)))
    assert stores["narrowcopy"] < stores[""], stores


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 3), (80, 2, 1)])
@pytest.mark.parametrize("ksteps,unroll", [(7, 3), (2, 4), (6, 2), (5, 1), (5, -2)])
def test_dot_loop_unrolled(kernels, sm, warps, stages, ksteps, unroll):
    """tl.range(loop_unroll_factor=U) over a trip count that U need not divide (the rest in a
    loop of its own), the unrolled loop's dots pipelined; U <= 1 is no unrolling (Triton)."""
    rng = np.random.default_rng(12)
    M, N, BK = 64, 32, 32
    K = ksteps * BK
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float32)
    handle = eg.run(kernels.matmul_unrolled, (1, 1), a, b, c, M, N, K, BM=64, BN=32, BK=BK, U=unroll, sm=sm,
                    num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
    ll = eg.emit_llvm(handle, sm)
    mma = "wgmma.mma_async" if sm == 90 else "mma.sync"
    single = eg.emit_llvm(eg.run(kernels.matmul_unrolled, (1, 1), a, b, c, M, N, K, BM=64, BN=32, BK=BK, U=1,
                                 sm=sm, num_warps=warps, num_stages=stages), sm)
    # U copies of the dot in the unrolled loop plus the one of the remainder loop.
    assert ll.count(mma) == single.count(mma) * (unroll + 1 if unroll > 1 else 1)


def state_inputs(seed, K, V, T):
    """Inputs of the state-recurrence kernels: w and k signed one-hot rows of K columns, v
    small integers, so every sum the kernels make is exact in fp16 and fp32."""
    rng = np.random.default_rng(seed)

    def one_hot_rows(rows, cols):
        m = np.zeros((rows, cols))
        m[np.arange(rows), rng.integers(0, cols, rows)] = rng.choice([-1.0, 1.0], rows)
        return m.astype(np.float16)

    w, k = one_hot_rows(T, K), one_hot_rows(T, K)
    v = rng.integers(-3, 4, (T, V)).astype(np.float16)
    return w, k, v


def check_state_recurrence(k, v, w, h, vn, BT):
    """The kernels state_recurrence and state_recurrence_two_blocks against numpy, exactly:
    h holds each chunk's state before the chunk, vn the new values (float64 reference; the
    inputs keep every value an fp16 integer below 2048)."""
    T, K, V = k.shape[0], k.shape[1], v.shape[1]
    nt = -(-T // BT)
    state = np.zeros((K, V))
    want_h, want_vn = np.zeros((nt, K, V)), np.zeros((T, V))
    for i in range(nt):
        t = slice(i * BT, min(T, (i + 1) * BT))
        want_h[i] = state
        want_vn[t] = v[t].astype(np.float64) - w[t].astype(np.float64) @ state
        state = state + k[t].astype(np.float64).T @ want_vn[t]
    assert np.abs(want_h).max() < 2048 and np.abs(want_vn).max() < 2048
    np.testing.assert_array_equal(h.astype(np.float64), want_h)
    np.testing.assert_array_equal(vn.astype(np.float64), want_vn)


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 1), (80, 4, 2), (80, 2, 3)])
@pytest.mark.parametrize("late", [True, False])
def test_state_recurrence_stores_past_prefetched_operands(kernels, monkeypatch, sm, warps, stages, late):
    """fla's delta-rule state recurrence: the loop stores the state and the new values every
    chunk, and its operands (w, v, kT) come through other arguments, so they are copied an
    iteration ahead past those stores (transforms/prefetch_loads.h). Small integers, signed
    one-hot rows of w and k: every sum exact, the state within fp16's integers, so the result
    must equal numpy's; the last chunk is masked (T not a multiple of BT). Copies land at
    their wait or at issue (emulated_gpu.DEFER_COPIES)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    K, V, BT, T = 64, 32, 64, 3 * 64 + 20
    w, k, v = state_inputs(31, K, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, K, V), np.nan, dtype=np.float16)
    eg.run(kernels.state_recurrence, (1,), k, v, w, vn, h, T, K=K, V=V, BT=BT, sm=sm, num_warps=warps,
           num_stages=stages)
    check_state_recurrence(k, v, w, h, vn, BT)
    if stages > 1:
        gpu_ir = kernels.state_recurrence.emit("gpu-ir", k, v, w, vn, h, T, K=K, V=V, BT=BT, num_warps=warps,
                                               num_stages=stages, arch=sm)
        assert gpu_ir.count("cp.async into stage buffers") >= 6  # w, v and kT: before the loop and in it


@pytest.mark.parametrize("sm,warps,stages,barriers", [(90, 4, 3, 5), (90, 4, 1, None), (80, 4, 2, 5), (80, 2, 3, 5)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("fragread", [True, False])
def test_operands_staged_once_for_their_dots(kernels, monkeypatch, sm, warps, stages, barriers, late, fragread):
    """fla's state recurrence at K = 128 (emitter.h, operand tiles): each state block is
    stored and then the B of a dot, staged once into that dot's tile (its flat copy for the
    store read back from there, no round trip of its own); the new values are the B of two
    dots, staged once for both. Small integers and signed one-hot rows as in
    test_state_recurrence_stores_past_prefetched_operands: exact. Pipelined, the kernel has 6
    barriers, 5 of them in the loop (5 in all since session 35: late_passes.h's
    elide_barriers drops one the next barrier covers): v, copied and read back, is read at the fragment
    positions of `v - w @ h` from its stage buffer (FragmentPlan::reads_back), so the
    subtraction and the new values stay in fragments, staged once into the dots' tile from
    there. TRITIUM_REDUCE_EXPERIMENT=nofragread: 8, 7 now (v read flat, the dot's result through a
    round trip to meet it; 15 before the operand tiles of session 31)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if not fragread:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "nofragread")
        barriers = None if barriers is None else barriers + 2
    V, BT, T = 32, 64, 3 * 64 + 20
    w, k, v = state_inputs(34, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=sm,
                    num_warps=warps, num_stages=stages)
    check_state_recurrence(k, v, w, h, vn, BT)
    if barriers is not None:
        ptx = eg.emit_llvm(handle, sm, "ptx")
        assert ptx.count("bar.sync") == barriers, ptx.count("bar.sync")


def run_state_gradient(kernels, monkeypatch, late, experiment, V, stages, chunks, seed, small):
    """fla's dhu shape (state_gradient_two_blocks) run backwards over `chunks` chunks of 64 (the
    last one 20 rows), exact against numpy (signed one-hot rows of q, k and w; small integers
    in do and dv, narrower where `small`): the handle and the inputs."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    BT, T = 64, (chunks - 1) * 64 + 20
    rng = np.random.default_rng(seed)

    def one_hot_rows(rows, cols):
        m = np.zeros((rows, cols))
        m[np.arange(rows), rng.integers(0, cols, rows)] = rng.choice([-1.0, 1.0], rows)
        return m.astype(np.float16)

    q, k, w = one_hot_rows(T, 128), one_hot_rows(T, 128), one_hot_rows(T, 128)
    d = 1 if small else 2
    do = (2 * rng.integers(-d, d + 1, (T, V))).astype(np.float16)
    dv = rng.integers(-d - 1, d + 2, (T, V)).astype(np.float16)
    nt = -(-T // BT)
    dv2 = np.full((T, V), np.nan, dtype=np.float16)
    dh = np.full((nt, 128, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.state_gradient_two_blocks, (1,), q, k, w, do, dv, dv2, dh, T, V=V, BT=BT, sm=90,
                    num_warps=4, num_stages=stages)
    state = np.zeros((128, V))
    want_dh, want_dv2 = np.zeros((nt, 128, V)), np.zeros((T, V))
    for i in reversed(range(nt)):
        t = slice(i * BT, min(T, (i + 1) * BT))
        want_dh[i] = state
        want_dv2[t] = k[t].astype(np.float64) @ state + dv[t]
        state = state + 0.5 * q[t].astype(np.float64).T @ do[t] - w[t].astype(np.float64).T @ want_dv2[t]
    assert np.abs(want_dh).max() < 2048 and np.abs(want_dv2).max() < 2048
    np.testing.assert_array_equal(dh.astype(np.float64), want_dh)
    np.testing.assert_array_equal(dv2.astype(np.float64), want_dv2)
    return handle, (q, k, w, do, dv, dv2, dh, T)


@pytest.mark.parametrize("stages,V", [(3, 32), (2, 32), (4, 32), (3, 64)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["", "norbfit"])
def test_state_gradient_reads_dv_back(kernels, monkeypatch, stages, V, late, experiment):
    """fla's dhu (state gradient, two blocks of K = 128, backwards over the chunks) at 4
    warps: k, w, q (six 64 x 64 blocks) and do are copied into stage buffers; dv, added to the
    dots' result, is read back at its fragments where the read-back budget allows
    (gpu/prefetch_operands.h): with "rbfit" (the default) it counts num_stages buffers a block
    in a loop of several dots (no dot kept in flight with an extra one), so at V = 32 and 3
    stages dv is copied too (norbfit: num_stages + 1, 208 KiB of blocks, over the 192 KiB:
    loaded in place, the dots' result taken flat through shared memory to meet it). Exact
    against numpy (small integers, signed one-hot rows of k, w and q)."""
    handle, (q, k, w, do, dv, dv2, dh, T) = run_state_gradient(kernels, monkeypatch, late, experiment, V, stages, 4,
                                                               36, False)
    gpu_ir = kernels.state_gradient_two_blocks.emit("gpu-ir", q, k, w, do, dv, dv2, dh, T, V=V, BT=64, num_warps=4,
                                                    num_stages=stages, arch=90)
    copied = gpu_ir.count("cp.async into stage buffers")
    # q, k, w (two blocks each) and do, in the loop and before it for each chunk copied ahead
    # (recurstages: as many as the stage budget holds, read from the loop's wait_group depth,
    # one chunk's groups a chunk left in flight); dv too where read back.
    read_back = V == 32 and stages <= (3 if not experiment else 2)
    groups = 7 + read_back
    (depth,) = recurrence_copy_waits(eg.emit_llvm(handle, 90, "ptx"))
    assert depth % groups == 0 and depth // groups <= stages - 2, depth
    assert copied == (2 + depth // groups) * groups, copied


@pytest.mark.parametrize("warps,stages,V", [(4, 3, 64), (4, 3, 32), (4, 1, 64), (2, 3, 32), (8, 2, 64)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["", "nostsmstage", "noldmread"])
def test_state_staged_by_stmatrix(kernels, monkeypatch, warps, stages, V, late, experiment):
    """fla's state recurrence at K = 128 on sm_90: the state blocks h1, h2 (fp32
    accumulators) and the new values, each the B of the next dots, go from their fragments to
    the dots' operand tiles by stmatrix.x4 (Emitter::stmatrix_stage: wgmma's swizzled tiles at
    4 and 8 warps, 128-byte rows at V = 64, 64-byte at V = 32; mma.sync's padded tiles at 2
    warps), two 16 x 8 tiles of a warp an instruction: V / 8 tiles of each block a thread at 4
    warps, so 3 V / 16 stmatrix in the loop. Exact against numpy (small integers, one-hot w and
    k). TRITIUM_REDUCE_EXPERIMENT=nostsmstage: pair stores, no stmatrix. Pipelined, v (copied,
    read back at the fragments of `v - w @ h`) is read by ldmatrix.x4 from its padded stage
    buffer, two tiles an instruction (Emitter::read_back_fragment; noldmread: a load per
    register pair; at 2 warps mma.sync's operands are read by ldmatrix too: not counted)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    BT, T = 64, 3 * 64 + 20
    w, k, v = state_inputs(35, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90,
                    num_warps=warps, num_stages=stages)
    check_state_recurrence(k, v, w, h, vn, BT)
    ptx = eg.emit_llvm(handle, 90, "ptx")
    count = len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx))
    # A warp holds 64 V / (16 * 8 * warps) tiles of each block, at least two (x4: a pair);
    # unpipelined, the new values are flat (v is not read back) and staged by stores.
    per_block = max(1, 64 * V // (16 * 8 * warps) // 2)
    if experiment == "nostsmstage":
        assert "stmatrix" not in ptx
    else:
        assert count == (3 if stages > 1 else 2) * per_block, count
    if warps >= 4:
        reads = len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx))
        assert reads == (per_block if stages > 1 and experiment != "noldmread" else 0), reads


@pytest.mark.parametrize("mutation", ["stmatrix", "ldmatrix"])
def test_stmatrix_stage_with_its_matrices_swapped_is_caught(kernels, monkeypatch, mutation):
    """The emulation can fail: with the first two registers of each staging stmatrix swapped
    (rows 0-7 and 8-15 of a tile exchanged), or the first two results of v's read-back
    ldmatrix, the recurrence comes out wrong."""
    original = eg.emit_llvm

    def mutated(handle, sm, stage="llvm"):
        ll = original(handle, sm, stage)
        if mutation == "stmatrix":
            ll, count = re.subn(r'(stmatrix\.sync[^"]*", "[^"]*"\(i32 [^,]+, )(i32 [^,]+), (i32 [^,)]+)',
                                r"\1\3, \2", ll)
        else:
            ll, count = re.subn(r"(%\S+) = (tail )?(call \{ i32, i32, i32, i32 \} asm sideeffect \"ldmatrix\.sync\.aligned"
                                r"\.m8n8\.x4\.shared[^\n]*\n\s*%\S+ = extractvalue \{ i32, i32, i32, i32 \} %\S+), 0\n"
                                r"(\s*%\S+ = extractvalue \{ i32, i32, i32, i32 \} %\S+), 1\n",
                                lambda m: f"{m.group(1)} = {m.group(2) or ''}{m.group(3)}, 1\n{m.group(4)}, 0\n", ll)
        assert count >= (3 if mutation == "stmatrix" else 1)
        return ll
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    V, BT, T = 64, 64, 3 * 64 + 20
    w, k, v = state_inputs(35, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90, num_warps=4,
           num_stages=3)
    with pytest.raises(AssertionError):
        check_state_recurrence(k, v, w, h, vn, BT)


def recurrence_copy_waits(ptx):
    """The depths of the loop's cp.async.wait_group in the PTX (the exit's drain, 0, left out)."""
    loop = ptx[ptx.index("$L__BB0_2:"):]
    loop = loop[:loop.index("$L__BB0_3:")] if "$L__BB0_3:" in loop else loop
    return sorted(int(n) for n in re.findall(r"cp\.async\.wait_group (\d+);", loop))


@pytest.mark.parametrize("V,stages", [(64, 3), (64, 4), (32, 3), (64, 2)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["norecurstages", "recurstages"])
def test_recurrence_copies_run_stages_ahead(kernels, monkeypatch, V, stages, late, experiment):
    """fla's delta-rule state recurrence at K = 128 on sm_90, 4 warps: a loop of four dots
    that stores the state every chunk, its operands w1, w2, v, k1, k2 (36-40 KiB a chunk)
    copied by cp.async, five groups a chunk. Under norecurstages a loop of several dots keeps
    its stage buffers within 64 KiB (attention's two CTAs an SM), so the copies run one chunk
    ahead at any num_stages: the dots wait for everything (wait_group 0). By default
    (recurstages, since session 39) a loop of several dots that writes memory goes
    num_stages - 1 chunks ahead within 160 KiB (transforms/prefetch_loads.h), as Triton's
    pipeliner: wait_group 5 (one chunk left in flight) at 3 stages, 10 at 4. Exact against
    numpy over 6 chunks (the last masked), copies landing at their wait or at issue."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    BT, T = 64, 5 * 64 + 20
    w, k, v = state_inputs(37, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90, num_warps=4,
                    num_stages=stages)
    check_state_recurrence(k, v, w, h, vn, BT)
    ahead = stages - 1 if experiment == "recurstages" else 1
    assert recurrence_copy_waits(eg.emit_llvm(handle, 90, "ptx")) == [5 * (ahead - 1)]


@pytest.mark.parametrize("V,stages", [(32, 4), (32, 3), (64, 4)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["norecurstages", "recurstages"])
def test_state_gradient_copies_run_stages_ahead(kernels, monkeypatch, V, stages, late, experiment):
    """fla's dhu (test_state_gradient_reads_dv_back's kernel: six 64 x 64 blocks of k, w, q
    and do copied, dv read back where its budget allows, 52-64 KiB a chunk) under
    recurstages (the default): it goes as many chunks ahead as 160 KiB of stage buffers hold (two at V = 32
    and 4 stages, where norecurstages stays at one; at 3 stages, or V = 64, one either way).
    Exact against numpy over 6 chunks backwards, copies landing at their wait or at issue;
    the loop's wait_group depth is one chunk's groups per chunk left in flight."""
    handle, _ = run_state_gradient(kernels, monkeypatch, late, experiment, V, stages, 6, 38, True)
    # Seven groups a chunk (dv is not read back at 4 stages: its budget, rbfit).
    ahead = 2 if experiment == "recurstages" and V == 32 and stages == 4 else 1
    assert recurrence_copy_waits(eg.emit_llvm(handle, 90, "ptx")) == [7 * (ahead - 1)]


@pytest.mark.parametrize("mutation", ["shallow_wait", "current_buffer"])
@pytest.mark.parametrize("late", [True, False])
def test_recurrence_copies_misplaced_are_caught(kernels, monkeypatch, mutation, late):
    """The emulation can fail for test_recurrence_copies_run_stages_ahead's schedule (3
    stages, two chunks ahead): with the loop's wait_group 5 made 10 (chunk i's copies not
    waited for: copies landing at their wait leave chunk i - 3's data in the buffer), or with
    chunk i + 2's copies sent into the buffer chunk i's dots read instead of the one chunk
    i - 1's dots read (copies landing at once overwrite the dots' operands before the
    wgmma reads them; landing at their wait, chunk i + 2 finds chunk i + 3's... the wrong
    data), the recurrence comes out wrong."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "recurstages")
    original = eg.emit_llvm

    def mutated(handle, sm, stage="llvm"):
        ll = original(handle, sm, stage)
        if mutation == "shallow_wait":
            ll, count = re.subn(r"cp\.async\.wait_group 5;", "cp.async.wait_group 10;", ll)
        else:
            # The rotation of the first operands' buffers: next = current + step (mod 3
            # buffers); the copies' base then takes the current one.
            m = re.search(r"\n  (%\d+) = add i32 %\.v\d*, (%\d+)\n", ll)
            assert m is not None
            ll, count = re.subn(rf"= add i32 {m.group(1)}, ", rf"= add i32 {m.group(2)}, ", ll)
        assert count >= 1
        return ll
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    V, BT, T = 64, 64, 5 * 64 + 20
    w, k, v = state_inputs(37, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    if mutation == "shallow_wait" and not late:
        pytest.skip("copies landing at issue need no wait")
    try:
        eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90, num_warps=4,
               num_stages=3)
    except eg.EmulationFailed as failure:  # an emulator check (an operand overwritten in flight)
        assert "overwritten" in str(failure) or "wgmma" in str(failure), failure
        return
    with pytest.raises(AssertionError):
        check_state_recurrence(k, v, w, h, vn, BT)


@pytest.mark.parametrize("warps,stages", [(4, 3), (4, 2), (8, 3)])
@pytest.mark.parametrize("late", [True, False])
def test_dots_leave_their_waits_to_the_next(kernels, monkeypatch, warps, stages, late):
    """fla's state recurrence at K = 128 on wgmma (emitter.h, leaves_wait_to_next_dot): b_v =
    w1 h1 + w2 h2 is a dot accumulating onto another, both operands of the second already
    in shared memory (w2 copied, h2 in its operand tile), so the first leaves its wait to
    the second, whose wgmmas take the accumulators in flight; h1 += k1 v and h2 += k2 v are
    independent, the first read only after the second, so the second issues while the first
    is in flight and one wait ends both. Two wgmma.wait_group fewer in the loop than with
    TRITIUM_REDUCE_EXPERIMENT=nodotchain, where each dot waits for itself. h1's operand
    tile, read last by the first dot, is given back only after the wait that ends it (8
    warps: two warpgroups). The emulated wgmma hands out NaN tags until the wait that
    retires a group and checks that nothing its operands were read from changes before
    then; small integers, exact against numpy either way."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    V, BT, T = 32, 64, 3 * 64 + 20
    w, k, v = state_inputs(35, 128, V, T)
    nt = -(-T // BT)
    waits = {}
    for experiment in ("nodotchain", "dotchain"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        vn = np.full((T, V), np.nan, dtype=np.float16)
        h = np.full((nt, 128, V), np.nan, dtype=np.float16)
        handle = eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90,
                        num_warps=warps, num_stages=stages)
        check_state_recurrence(k, v, w, h, vn, BT)
        ptx = eg.emit_llvm(handle, 90, "ptx")
        waits[experiment] = ptx.count("wgmma.wait_group")
    assert waits["dotchain"] == waits["nodotchain"] - 2, waits


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2)])
@pytest.mark.parametrize("onetrip,keepb", [(True, True), (True, False), (False, True)])
def test_one_trip_loop_inlined(kernels, monkeypatch, sm, warps, stages, onetrip, keepb):
    """fla's chunk_bwd_kernel_dqkwg at V == BV: its loop over V runs once, and is its body
    (gpu/inline_one_trip_loops.h), as under Triton, whose canonicalization folds it: no
    cp.async copies for a second iteration that never comes, no stage buffers (at K = V = 128
    they took 192 KiB, one block an SM where Triton's 96 KiB fit two). Kept as a loop
    (TRITIUM_REDUCE_EXPERIMENT=noonetrip), it is pipelined as before. Small integers, the
    last rows masked (T < BT): every sum exact in fp16 and fp32, so the results must equal
    numpy's either way. Inlined, h is the K-major B of two dots (b_dq's and b_dw's) whose A
    each stages: on wgmma it is staged once, into an operand tile the second dot reads too
    (emitter.h, keepb), where it was staged by each (TRITIUM_REDUCE_EXPERIMENT=nokeepb)."""
    # (Operands staged where they are loaded, test_operands_staged_where_loaded, off here.)
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", ("onetrip" if onetrip else "noonetrip") +
                       ("" if keepb else ",nokeepb") + ",nodeftile,norefold")
    rng = np.random.default_rng(33)
    K = V = BT = 64
    T = 50
    small = lambda *shape: rng.integers(-2, 3, shape).astype(np.float16)
    q, k, v, do, dv = (small(BT, 64) for _ in range(5))
    h, dh = small(V, K), small(V, K)  # stored [K, V] row-major: h[k, v] at k * V + v
    out = [np.full((BT, K), np.nan, dtype=np.float16) for _ in range(3)]
    handle = eg.run(kernels.dqkwg_one_chunk, (1,), q, k, v, h, do, dh, *out, dv, 0.5, T, K=K, V=V, BT=BT, BK=K, BV=V,
                    sm=sm, num_warps=warps, num_stages=stages)
    f = lambda x: x[:T].astype(np.float64)
    hv, dhv = h.astype(np.float64).T, dh.astype(np.float64).T  # [V, K], as the kernel loads them
    ds = np.tril(f(do) @ f(v).T)
    want_dq = (f(do) @ hv + ds @ f(k)) * 0.5
    want_dk = f(v) @ dhv + ds.T @ f(q) * 0.5
    want_dw = -(f(dv) @ hv)
    dq, dk, dw = out
    for got, want in ((dq, want_dq), (dk, want_dk), (dw, want_dw)):
        assert np.abs(want).max() < 2048
        np.testing.assert_array_equal(got[:T].astype(np.float64), want)
        assert np.isnan(got[T:].astype(np.float32)).all()  # masked rows not written
    gpu_ir = eg.emit_llvm(handle, sm, "gpu-ir")
    assert ("= for " in gpu_ir) == (not onetrip)
    assert ("cp.async" in gpu_ir) == (not onetrip)
    assert ("stage buffers: 0 bytes" in gpu_ir.splitlines()[0]) == onetrip, gpu_ir.splitlines()[0]
    if sm == 90 and onetrip:
        # 16-byte stores into shared memory: h (64 x 64 bf16) takes 4 a thread each time
        ptx = eg.emit_llvm(handle, sm, "ptx")
        assert ptx.count("st.shared.v4") == (36 if keepb else 40), ptx.count("st.shared.v4")


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2)])
@pytest.mark.parametrize("deftile,refold", [(True, True), (True, False), (False, True), (False, False)])
def test_operands_staged_where_loaded(kernels, monkeypatch, sm, warps, stages, deftile, refold):
    """fla's chunk_bwd_kernel_dqkwg, its loop inlined (test_one_trip_loop_inlined): each
    loaded dot operand is staged into shared memory once, right where it is loaded
    (emitter.h, stage_at_definition; Triton's local_alloc after each load): do (the A of two
    dots), v (the A of one and, through its trans, the B of another), h, dh, dv, q and k,
    4 16-byte stores a thread each (28), their registers dead from there; staged by each dot
    (TRITIUM_REDUCE_EXPERIMENT=nodeftile), do and v twice (36, with h kept once for its two
    dots). And `b_dk += tl.dot(tl.trans(b_ds), b_q) * scale` folds into the dk dot once the
    loop is inlined (its accumulator a zero then: inline_one_trip_loops' combine_dot_add, as
    Triton's Combine after its canonicalization), which then comes after the ds dots: its
    accumulator is not live across the dw dot and the epilogue (off: norefold). Small
    integers, the last rows masked: exact against numpy in every variant."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", ("deftile" if deftile else "nodeftile") + "," +
                       ("refold" if refold else "norefold"))
    rng = np.random.default_rng(35)
    K = V = BT = 64
    T = 53
    small = lambda *shape: rng.integers(-2, 3, shape).astype(np.float16)
    q, k, v, do, dv = (small(BT, 64) for _ in range(5))
    h, dh = small(V, K), small(V, K)
    out = [np.full((BT, K), np.nan, dtype=np.float16) for _ in range(3)]
    handle = eg.run(kernels.dqkwg_one_chunk, (1,), q, k, v, h, do, dh, *out, dv, 0.5, T, K=K, V=V, BT=BT, BK=K, BV=V,
                    sm=sm, num_warps=warps, num_stages=stages)
    f = lambda x: x[:T].astype(np.float64)
    hv, dhv = h.astype(np.float64).T, dh.astype(np.float64).T
    ds = np.tril(f(do) @ f(v).T)
    want_dq = (f(do) @ hv + ds @ f(k)) * 0.5
    want_dk = f(v) @ dhv + ds.T @ f(q) * 0.5
    want_dw = -(f(dv) @ hv)
    dq, dk, dw = out
    for got, want in ((dq, want_dq), (dk, want_dk), (dw, want_dw)):
        assert np.abs(want).max() < 2048
        np.testing.assert_array_equal(got[:T].astype(np.float64), want)
        assert np.isnan(got[T:].astype(np.float32)).all()
    gpu_ir = eg.emit_llvm(handle, sm, "gpu-ir")
    dots = [line for line in gpu_ir.splitlines() if " = dot " in line]
    assert len(dots) == 6
    # Folded, the dk dot (A: v, loaded first) is the last, its accumulator the scaled dsᵀ·q.
    v_load = next(line for line in gpu_ir.splitlines() if " = load " in line).split(" = ")[0].strip()
    assert (dots[-1].split(" = dot ")[1].startswith(v_load + ",")) == refold, (v_load, dots)
    if sm == 90:
        ptx = eg.emit_llvm(handle, sm, "ptx")
        assert ptx.count("st.shared.v4") == (28 if deftile else 36), ptx.count("st.shared.v4")


@pytest.mark.parametrize("sm,warps,stages,barriers", [(90, 4, 3, 8), (90, 4, 1, 7), (80, 4, 2, 8), (80, 2, 3, 8)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("axis0", [True, False])
@pytest.mark.parametrize("linecopy", [True, False])
def test_gated_state_loop_body_starts_clean(kernels, monkeypatch, sm, warps, stages, barriers, late, axis0, linecopy):
    """fla's chunk_fwd_kernel_h (gla): a loop body that holds planned shared-memory ops (the
    gate's last row broadcast in the loads' layout) starts with the state's round trip for its
    store and ends at its dot's barrier: the emitter meets what is pending before the loop once
    and at the body's end when the body leaves some, so the round trip needs no barrier of its
    own before its writes. Small integers, signed one-hot rows of k, gates of +-1 and 0: exact
    against numpy; copies landing at issue and at their wait. That is the kernel under
    TRITIUM_REDUCE_EXPERIMENT=noaxis0copy (k and the gate loaded every chunk); by default they
    are copied down their columns and read back (test_gated_keys_copied_down_columns): on sm_90
    the gated keys are computed in A's fragments, the line reloaded there, 4 barriers (on sm_80
    too since session 34: TRITIUM_REDUCE_EXPERIMENT=achainmma, 8 -> 4). Since
    session 33 the last row, a line, is copied too where the keys are (AsyncOperand::line),
    read from their stage buffers; where they are not (here) it stays a load either way
    (linecopy and nolinecopy alike)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    names = ([] if axis0 else ["noaxis0copy"]) + ([] if linecopy else ["nolinecopy"])
    if names:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", ",".join(names))
    # Copied down the columns, the keys in A's fragments: on sm_90 (wgmma) and, since session
    # 34 (achainmma: the warps split M first), on sm_80 (mma.sync) too.
    if axis0 and ((sm, stages) == (90, 3) or sm == 80):
        barriers = 4
    if stages > 1:
        barriers -= 2  # since session 35: the state round trip's ending barrier and the exit drain's (elidebar)
    rng = np.random.default_rng(36)
    K, V, BT, T = 64, 32, 64, 3 * 64 + 20
    k = np.zeros((T, K))
    k[np.arange(T), rng.integers(0, K, T)] = rng.choice([-1.0, 1.0], T)
    k = k.astype(np.float16)
    v = rng.integers(-3, 4, (T, V)).astype(np.float16)
    g = rng.choice([-1.0, 0.0, 1.0], (T, K)).astype(np.float32)
    nt = -(-T // BT)
    h = np.full((nt, K, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.gated_state_recurrence, (1,), k, v, g, h, T, K=K, V=V, BT=BT, sm=sm, num_warps=warps,
                    num_stages=stages)
    state = np.zeros((K, V))
    for i in range(nt):
        t = slice(i * BT, min(T, (i + 1) * BT))
        np.testing.assert_array_equal(h[i].astype(np.float64), state)
        last = g[t][-1].astype(np.float64)
        kg = k[t].astype(np.float64).T * (last[:, None] - g[t].astype(np.float64).T)
        state = state * last[:, None] + kg @ v[t].astype(np.float64)
        assert np.abs(state).max() < 2048
    if barriers is not None:
        ptx = eg.emit_llvm(handle, sm, "ptx")
        assert ptx.count("bar.sync") == barriers, ptx.count("bar.sync")


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 2), (90, 8, 3), (80, 4, 2), (80, 2, 3), (80, 1, 2)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["", "noldmtrans", "norbmerge", "noachain", "noaxis0copy", "axis0flat",
                                        "noachainmma"])
def test_gated_keys_copied_down_columns(kernels, monkeypatch, sm, warps, stages, late, experiment):
    """fla's gla state recurrence (chunk_fwd_kernel_h, USE_GK): k and the gate gk are [BK, BT]
    blocks contiguous along K (axis 0) that reach the dot's A through elementwise ops. They
    are prefetched (where the keys' chain goes to A's fragments: on wgmma, and since session 34
    on mma.sync, its warps then splitting M first; anywhere with TRITIUM_REDUCE_EXPERIMENT=
    axis0flat; noachainmma: on wgmma only, as before) and copied by cp.async in 16-byte runs down their
    columns into stage buffers held transposed, the runs dealt out over the threads, and read back after the
    iteration's wait and a barrier (gpu/prefetch_operands.h, async_copy.h). Where a warp
    holds whole rows of A (wgmma at 4 warps, mma.sync at 1, 2 and 4 warps along M's 64 rows;
    noachainmma: at 1 only) the gated keys are computed in A's
    fragments, each thread reading its
    fragment positions of both buffers, the gate's last row loaded again at its rows, and
    the dot reads A from registers (FragmentPlan's A chains); k's 16-bit fragments by
    ldmatrix.trans (noldmtrans: a load each); the read-backs' wait and barrier serve the dot
    too (its B, v, copied: AsyncOperand::readies_loop; norbmerge: the dot waits and meets a
    barrier of its own, and the copies go into the buffers just read); elsewhere, and with
    TRITIUM_REDUCE_EXPERIMENT=noachain, read back flat. noaxis0copy: loaded every chunk, as
    before. Signed one-hot rows of k, small-integer values, gates of 0 and 1 (exp2 exact):
    against numpy within fp16's rounding of the stored states; the last chunk masked."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(37)
    K, BK, V, BT, T = 128, 64, 32, 64, 3 * 64 + 20
    k = np.zeros((T, K))
    k[np.arange(T), rng.integers(0, K, T)] = rng.choice([-1.0, 1.0], T)
    k = k.astype(np.float16)
    v = rng.integers(-3, 4, (T, V)).astype(np.float16)
    g = rng.choice([0.0, 1.0], (T, K)).astype(np.float32)
    nt = -(-T // BT)
    h = np.full((nt, K, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.gated_keys_state, (K // BK,), k, v, g, h, T, K=K, V=V, BT=BT, BK=BK, sm=sm, num_warps=warps,
                    num_stages=stages)
    state = np.zeros((K, V))
    for i in range(nt):
        t = slice(i * BT, min(T, (i + 1) * BT))
        np.testing.assert_allclose(h[i].astype(np.float64), state, rtol=2e-3, atol=1e-3)
        last = g[t][-1].astype(np.float64)
        kg = k[t].astype(np.float64).T * np.exp2(last[:, None] - g[t].astype(np.float64).T)
        state = state * np.exp2(last)[:, None] + kg @ v[t].astype(np.float64)
    gpu_ir = kernels.gated_keys_state.emit("gpu-ir", k, v, g, h, T, K=K, V=V, BT=BT, BK=BK, num_warps=warps,
                                           num_stages=stages, arch=sm)
    # Copied where the gated keys go to A's fragments on wgmma (4 warps along M's 64 rows;
    # gpu/prefetch_operands.cpp's a_chain_candidate) or on mma.sync (sm_80: M's 64 rows give
    # each of 1, 2 or 4 warps 16 or more; not with noachainmma), anywhere with axis0flat.
    mma_rows = sm == 80 and experiment != "noachainmma"
    copies = experiment != "noaxis0copy" and ((sm, warps) == (90, 4) or mma_rows or experiment == "axis0flat")
    assert ("copies down the columns" in gpu_ir) == copies
    # A's fragments need whole rows a warp: wgmma's 4 warps along M, or mma.sync's warps split
    # along M first (noachainmma: its one warp only).
    in_fragments = copies and ((sm, warps) in ((90, 4), (80, 1)) or mma_rows) and experiment != "noachain"
    assert ("read back at the fragment positions" in gpu_ir) == in_fragments
    assert ("A read from its fragments' registers" in gpu_ir) == in_fragments
    if (sm, warps, stages) == (90, 4, 3):
        ptx = eg.emit_llvm(handle, sm, "ptx")
        # the iteration's wait for the read-backs (the dot's too), the state's round trip for
        # its store (2), the loop's exit
        # (copied but read back flat, noachain: the gate's last row is a copied line since
        # session 33, its broadcast read from the stage buffer, 2 barriers fewer than its
        # round trip; not copied, noaxis0copy: the line stays a load, as before)
        want = (6 if copies else 8) if not in_fragments else 5 if experiment == "norbmerge" else 4
        # Since session 35 late_passes.h's elide_barriers drops 2: the state round trip's ending
        # barrier (the next chunk's wait barrier covers it) and the exit drain's before the return.
        want -= 2
        assert ptx.count("bar.sync") == want, ptx.count("bar.sync")
        assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans") == (0 if experiment == "noldmtrans" or not in_fragments else 4)


@pytest.mark.parametrize("sm,warps,stages,T", [(90, 4, 3, 3 * 64 + 20), (90, 4, 3, 2 * 64), (90, 4, 2, 64 + 1),
                                               (90, 8, 3, 3 * 64 + 63), (80, 4, 2, 3 * 64 + 20), (80, 2, 3, 100)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["", "norowboundrc", "nocopybase", "norowbound", "nodealsplit,norowboundrc",
                                        "nodealsplit,rowboundew", "nodealsplit,nocopybase,norowbound"])
def test_gated_keys_rows_share_bounds(kernels, monkeypatch, sm, warps, stages, T, late, experiment):
    """fla's gla chunk_fwd_kernel_h with its 64-bit chunk offsets: the copies of k and gk
    dealt out over the threads in rounds (async_copy.h's AsyncPlan::recomputed) take their
    rows as the thread's plus a constant (Emitter::dealt_coords; nodealsplit: each round
    divides its own index), their addresses as the first round's plus that row's constant
    offset (Emitter::shift_delta; without copybase: each computed at its own row), and their
    mask `o_t < T` as the thread's row in 32 bits against T - i_t * BT clamped once an
    iteration, minus the round's constant (Emitter::row_bound_compare: value ranges prove
    i_t * BT + row and T - i_t * BT never wrap; without rowbound: each row's 64-bit sum
    compared with T); rowboundrc (the default) / rowboundew (opt-in): the same comparison where
    recompute_at or emit_elementwise makes it (each knob no<name> turns it off). Rows past T hold data and the final state is stored: the rows at the block's edge
    (T not a multiple of BT, the prefetches past the last chunk) masked, exact against numpy
    (one-hot k rows, small integers, gates of 0 and 1); a bound one row too large fails here
    (checked by hand). In the PTX: with rowbound and dealsplit no 64-bit comparison of a row
    with T left in the copies of k and gk (v's, its mask recomputed past a broadcast, with
    rowboundrc too), none with rowboundrc, one a copy without."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(43)
    K, BK, V, BT = 128, 64, 32, 64
    # Rows past T hold data too (a larger tensor's): a mask letting one of them in shows.
    rows = T + 2 * BT
    k = np.zeros((rows, K))
    k[np.arange(rows), rng.integers(0, K, rows)] = rng.choice([-1.0, 1.0], rows)
    k = k.astype(np.float16)
    v = rng.integers(1, 4, (rows, V)).astype(np.float16)
    g = rng.choice([0.0, 1.0], (rows, K)).astype(np.float32)
    nt = -(-T // BT)
    h = np.full((nt, K, V), np.nan, dtype=np.float16)
    ht = np.full((K, V), np.nan, dtype=np.float32)
    handle = eg.run(kernels.gated_keys_state_wide, (K // BK,), k, v, g, h, ht, T, K=K, V=V, BT=BT, BK=BK, sm=sm,
                    num_warps=warps, num_stages=stages)
    state = np.zeros((K, V))
    for i in range(nt):
        t = slice(i * BT, min(T, (i + 1) * BT))
        np.testing.assert_array_equal(h[i].astype(np.float64), state)
        last = g[t][-1].astype(np.float64)
        kg = k[t].astype(np.float64).T * np.exp2(last[:, None] - g[t].astype(np.float64).T)
        state = state * np.exp2(last)[:, None] + kg @ v[t].astype(np.float64)
    np.testing.assert_array_equal(ht.astype(np.float64), state)
    assert np.abs(state).max() < 2048
    if (sm, warps, stages) == (90, 4, 3) and T % BT != 0:
        ptx = eg.emit_llvm(handle, sm, "ptx")
        loop = ptx[ptx.index("bra.uni"):]  # the loop and the exit
        wide = len(re.findall(r"setp\.(lt|ge)\.s64", ptx))
        copies = len(re.findall(r"cp\.async\.cg", loop))
        assert copies == 14, copies  # k 4, v 2, gk 8 a thread an iteration
        names = {"dealsplit", "copybase", "rowbound", "rowboundrc"}
        for name in filter(None, experiment.split(",")):
            names = names - {name[2:]} if name.startswith("no") else names | {name}
        in_loop = len(re.findall(r"setp\.(lt|ge)\.s64", loop))
        if "rowbound" in names and "rowboundrc" in names:
            assert wide == 0, wide
        elif "rowbound" in names and "dealsplit" in names:
            assert in_loop <= 2, in_loop  # v's two rows (its mask recomputed past a broadcast)
        else:
            assert in_loop >= 8, in_loop


@pytest.mark.parametrize("sm,warps,stages,bm,bn", [(90, 2, 4, 64, 64), (80, 2, 4, 64, 64), (80, 4, 3, 64, 32),
                                                   (90, 4, 4, 64, 128), (90, 2, 3, 32, 64)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("experiment", ["", "noachainmma"])
def test_converted_a_down_columns_on_mma_sync(kernels, monkeypatch, sm, warps, stages, bm, bn, late, experiment):
    """mamba's _bmm_chunk_bwd_kernel: the dot's A an fp32 block contiguous along M converted to
    bf16. On mma.sync (sm_80; sm_90 at 2 warps), where the fragments would put the 2 warps side
    by side along N (64 x 64), the plan splits M first (as Triton's mma layout) so that each
    warp holds whole rows of A: the block is then copied by cp.async down its columns into
    the stage buffers and converted at A's fragment positions, the dot reading A from
    registers (plan_fragments' a_chains_rows, prefetch_operands' a_chain_candidate), as on
    wgmma (64 x 128 at 4 warps). TRITIUM_REDUCE_EXPERIMENT=noachainmma: loaded into registers
    every iteration and staged by the dot, as before session 34; also where M gives a warp
    fewer than 16 rows (32 x 64 at 2 warps: not copied either way). Small integers: exact."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(41)
    CS, K, BCS = 80, bn * 2, 32  # the last CS block masked
    dout = rng.integers(-3, 4, (CS, CS)).astype(np.float32)
    a = rng.integers(-3, 4, (CS, K)).astype(np.float32)
    res = rng.integers(-3, 4, (CS, K)).astype(np.float32)
    db = np.full((CS, K), np.nan, dtype=np.float32)
    args = (dout, typed(bf16_bits(a), "bf16"), res, db)
    grid = (-(-CS // bm), K // bn)
    gpu_ir = kernels.converted_a_down_columns.emit("gpu-ir", *args, CS, K, BM=bm, BN=bn, BCS=BCS, num_warps=warps,
                                                    num_stages=stages, arch=sm)
    in_fragments = experiment == "" and bm % (16 * warps) == 0
    assert ("copies down the columns" in gpu_ir) == (in_fragments or (sm, warps) == (90, 4))
    assert ("read back at the fragment positions" in gpu_ir) == (in_fragments or (sm, warps) == (90, 4))
    assert ("A read from its fragments' registers" in gpu_ir) == (in_fragments or (sm, warps) == (90, 4))
    if (sm, warps) != (90, 4):
        assert ("mma.sync" in gpu_ir) and "wgmma" not in gpu_ir
    eg.run(kernels.converted_a_down_columns, grid, *args, CS, K, BM=bm, BN=bn, BCS=BCS, sm=sm, num_warps=warps,
           num_stages=stages)
    np.testing.assert_array_equal(db.astype(np.float64), dout.T.astype(np.float64) @ a.astype(np.float64) + res)


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 2), (80, 4, 2), (80, 2, 3)])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("fragread", [True, False])
def test_read_back_at_fragments_before_dot(kernels, monkeypatch, sm, warps, stages, late, fragread):
    """A read-back operand (async_copy.h) whose first use comes before the loop's dot, with
    the carried dot result (FragmentPlan::reads_back): each thread reads its fragment
    positions of the stage buffer after waiting for the iteration's copies and a barrier of
    its own, the next copies going into that buffer only after the dot's barrier. x holds small
    integers, each b a signed permutation: exact. With TRITIUM_REDUCE_EXPERIMENT=nofragread x
    is read flat and goes to the fragments through shared memory (a round trip, one barrier
    more)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if not fragread:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "nofragread")
    rng = np.random.default_rng(35)
    BM, BN, n = 64, 32, 5
    x = rng.integers(-3, 4, (n, BM, BN)).astype(np.float16)
    b = np.zeros((n, BN, BN), dtype=np.float16)
    for i in range(n):
        b[i, np.arange(BN), rng.permutation(BN)] = rng.choice([-1.0, 1.0], BN)
    out = np.full((BM, BN), np.nan, dtype=np.float32)
    handle = eg.run(kernels.read_back_before_dot, (1,), x, b, out, n, BM=BM, BN=BN, sm=sm, num_warps=warps,
                    num_stages=stages)
    want = np.zeros((BM, BN))
    for i in range(n):
        want = (want + x[i]) @ b[i].astype(np.float64)
    np.testing.assert_array_equal(out.astype(np.float64), want)
    gpu_ir = kernels.read_back_before_dot.emit("gpu-ir", x, b, out, n, BM=BM, BN=BN, num_warps=warps,
                                               num_stages=stages, arch=sm)
    assert "read back" in gpu_ir
    assert ("read at the fragment positions" in gpu_ir) == fragread


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2), (80, 2, 3)])
@pytest.mark.parametrize("late", [True, False])
def test_one_copied_operand_of_two_dots(kernels, monkeypatch, sm, warps, stages, late):
    """A load that is the B of two dots is copied ahead once and read by both (a loop over
    K last to first, a negative step, as fla's backward recurrences run); exact."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    rng = np.random.default_rng(33)
    BM, BN, BK, K = 64, 32, 32, 4 * 32
    a, c = (rng.integers(-4, 5, (BM, K)).astype(np.float16) for _ in range(2))
    b = rng.integers(-4, 5, (K, BN)).astype(np.float16)
    out = np.full((2, BM, BN), np.nan, dtype=np.float32)
    handle = eg.run(kernels.one_operand_two_dots, (1,), a, c, b, out, K, BM=BM, BN=BN, BK=BK, sm=sm,
                    num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(out[0], a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_array_equal(out[1], c.astype(np.float64) @ b.astype(np.float64))
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    # a, c and b: num_stages - 1 iterations' before the loop, one in it
    assert gpu_ir.count("cp.async into stage buffers") == 3 * stages


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 2)])
@pytest.mark.parametrize("late", [True, False])
def test_operand_stored_by_the_iteration_before_is_not_prefetched(kernels, monkeypatch, sm, warps, late):
    """A loop whose A is what its previous iteration stored through the same argument: the
    load stays after that store (a signed permutation for B keeps the values exact). Copies
    landing at issue would show a load moved ahead of the store (it would read NaN)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    rng = np.random.default_rng(32)
    BM, BN, n = 64, 32, 5
    perm = np.zeros((BN, BN), dtype=np.float16)
    perm[np.arange(BN), rng.permutation(BN)] = rng.choice([-1.0, 1.0], BN)
    buf = np.full((n + 1, BM, BN), np.nan, dtype=np.float16)
    buf[0] = rng.integers(-8, 9, (BM, BN))
    eg.run(kernels.fed_back_operand, (1,), buf, perm, n, BM=BM, BN=BN, sm=sm, num_warps=warps, num_stages=3)
    want = buf[0].astype(np.float64)
    for i in range(n):
        want = want @ perm.astype(np.float64)
        np.testing.assert_array_equal(buf[i + 1].astype(np.float64), want)


@pytest.mark.parametrize("sm", [90, 80])
def test_atomics_across_ctas(kernels, sm):
    rng = np.random.default_rng(3)
    n, bins = 1000, 8
    x = rng.integers(0, 100, n).astype(np.int32)
    sums = np.zeros(bins, dtype=np.float32)
    maxes = np.full(bins, -1, dtype=np.int32)
    eg.run(kernels.histogram, (8,), x, sums, maxes, n, BLOCK=128, BINS=bins, sm=sm)
    np.testing.assert_array_equal(sums, [x[x % bins == k].sum() * 0.5 for k in range(bins)])  # exact: halves of integers
    np.testing.assert_array_equal(maxes, [x[x % bins == k].max() for k in range(bins)])


def test_a_miscompiled_kernel_is_caught(kernels, monkeypatch):
    """The emulator runs the IR it is given: an fadd turned fsub (the kernel's only one,
    exp(x) * alpha + y) must show as a wrong result."""
    original = eg.emit_llvm

    def mutated(handle, sm):
        ll = original(handle, sm)
        assert ll.count(" fadd ") >= 1
        return ll.replace(" fadd ", " fsub ")
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    rng = np.random.default_rng(4)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    y = rng.standard_normal((32, 32)).astype(np.float32) + 1.0
    out = np.zeros((32, 32), dtype=np.float32)
    eg.run(kernels.axpy_2d, (1, 1), x, y, out, 32, 32, 1.0, BM=32, BN=32)
    np.testing.assert_allclose(out, np.exp(x) - y, rtol=2e-6, atol=1e-6)
    assert not np.allclose(out, np.exp(x) + y)


def test_library_and_libdevice_asm(kernels):
    rng = np.random.default_rng(9)
    n = 64
    x = rng.standard_normal(n).astype(np.float32) * 4
    y = rng.standard_normal(n).astype(np.float32) * 4
    x[:3] = [np.nan, 2.5e9, -0.0005]  # NaN, beyond int32 once scaled, a tie-free small value
    y[3] = np.nan
    mag, rounded = np.zeros(n, np.float32), np.zeros(n, np.int32)
    lo, hi = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    handle = eg.run(kernels.known_asm, (1,), x, y, mag, lo, hi, rounded, BLOCK=n)
    both = np.fmax(np.abs(x), np.abs(y))
    sign = np.where(np.signbit(x) != np.signbit(y), -1.0, 1.0).astype(np.float32)
    nan = np.isnan(x) | np.isnan(y)
    np.testing.assert_array_equal(np.isnan(mag), nan)
    np.testing.assert_array_equal(mag[~nan], (sign * both)[~nan])
    a, b = x.view(np.uint32).astype(np.uint64), y.view(np.uint32).astype(np.uint64)
    wide = a * b + (a ^ b)  # < 2^64: (2^32 - 1)^2 + 2^32 - 1
    np.testing.assert_array_equal(lo, (wide & 0xFFFFFFFF).astype(np.uint32))
    np.testing.assert_array_equal(hi, (wide >> 32).astype(np.uint32))
    with np.errstate(invalid="ignore"):
        scaled = np.rint(x.astype(np.float32) * np.float32(1000.0)).astype(np.float64)
    expect = np.where(np.isnan(scaled), 0, np.clip(scaled, -2**31, 2**31 - 1)).astype(np.int32)
    np.testing.assert_array_equal(rounded, expect)
    assert "llvm.nvvm.f2i.rn" in eg.emit_llvm(handle, 90)


def test_unknown_asm_is_not_emulated(kernels):
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(64, dtype=np.int32)
    with pytest.raises(eg.NotEmulated, match="brev.b32"):
        eg.run(kernels.unknown_asm, (1,), x, out, BLOCK=64)


def test_dot_of_a_dot_result_tf32_wgmma(kernels):
    """fla.kda.chunk's wrong gradients on the H100: a tf32 wgmma whose B is an earlier dot's
    result (held transposed: its flat copy made through shared memory from byte 0) had A
    staged at byte 0 first, then overwritten by that round trip."""
    rng = np.random.default_rng(5)
    BT = 64
    a = rng.integers(-3, 4, (BT, BT)).astype(np.float32)
    x = rng.integers(-3, 4, (BT, BT)).astype(np.float32)
    out = np.full((BT, BT), np.nan, dtype=np.float32)
    eg.run(kernels.dot_of_dot, (1,), a, x, out, BT=BT, sm=90, num_warps=4)
    np.testing.assert_array_equal(out, a.astype(np.float64) @ (x.astype(np.float64) @ x))  # exact in tf32


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 2)])
@pytest.mark.parametrize("sink", [True, False])
def test_widening_casts_sunk_to_their_use(kernels, monkeypatch, sm, warps, sink):
    """A layer norm whose fp16 weight and bias are converted to fp32 where loaded (liger's)
    but used only after both reductions: the conversions are computed after the reductions'
    last barrier (gpu/sink_casts.h; the loads stay at the top), so the fp16 pairs, not the
    fp32 values, are what stays live across them (liger's at 4096 / 8 warps: 62 -> 48
    registers, as Triton 3.6). TRITIUM_REDUCE_EXPERIMENT=nosinkcasts keeps them at the loads.
    Same results either way."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "sinkcasts" if sink else "nosinkcasts")
    rng = np.random.default_rng(34)
    rows, n, BLOCK = 3, 500, 512
    x = rng.standard_normal((rows, n)).astype(np.float16)
    w = rng.standard_normal(n).astype(np.float16)
    b = rng.standard_normal(n).astype(np.float16)
    y = np.full((rows, n + 1), 9.0, dtype=np.float16)[:, :n].copy()
    mean = np.zeros(rows, dtype=np.float32)
    rstd = np.zeros(rows, dtype=np.float32)
    handle = eg.run(kernels.layer_norm_affine, (rows,), x, w, b, y, mean, rstd, n, 1e-5, BLOCK=BLOCK, sm=sm,
                    num_warps=warps)
    xf = x.astype(np.float64)
    want_mean = xf.mean(1)
    want_rstd = 1.0 / np.sqrt(((xf - want_mean[:, None]) ** 2).mean(1) + 1e-5)
    want = (xf - want_mean[:, None]) * want_rstd[:, None] * w.astype(np.float64) + b.astype(np.float64)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-5)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3, atol=4e-3)
    ptx = eg.emit_llvm(handle, sm, "ptx")
    after = ptx[ptx.rindex("bar.sync"):]
    per_thread = BLOCK // (32 * warps)
    # x's conversions come before the reductions; w's and b's after the last barrier when sunk.
    assert after.count("cvt.f32.f16") == (2 * per_thread if sink else 0), after.count("cvt.f32.f16")


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("experiment", ["nostsmtrans", "stsmtrans"])
def test_flat_copy_made_where_first_needed(kernels, monkeypatch, stages, experiment):
    """A fragment value's flat copy is made after its last fragment reader before the first
    flat one (here after the first loop, before the trans), not where the value is defined:
    its registers are not live across a loop that reads only the fragments
    (cut-cross-entropy's backward spilled 408 bytes so). The copy's round trip (the fragments' pairs, one st.shared.b32 each) comes
    after the first loop's wgmma with A from registers (before: ahead of the loop); with
    nostsmtrans. By default (stsmtrans) the trans, the second loop's A, is staged M-major from
    d's fragments by stmatrix (fragment_layout.h's trans_a_m_major): no flat copy at all."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(11)
    BM, BD, D = 64, 32, 96
    a, b = (rng.integers(-2, 3, (BM, BM)).astype(np.float16) for _ in range(2))
    c, e = (rng.integers(-2, 3, (BM, D)).astype(np.float16) for _ in range(2))
    out1, out2 = c.astype(np.float32), e.astype(np.float32)  # B of each loop, overwritten by its result
    handle = eg.run(kernels.dot_then_two_loops, (1,), a, b, out1, out2, D, BM=BM, BD=BD, sm=90,
                    num_warps=4, num_stages=stages)
    d = a.astype(np.float64) @ b.astype(np.float64)  # exact in fp16: |d| <= 256
    np.testing.assert_array_equal(out1, d @ c)
    np.testing.assert_array_equal(out2, d.T @ e)
    cast = [line for line in eg.emit_llvm(handle, 90, "gpu-ir").splitlines() if re.search(r"= cast [^\n]*64x64xfp16", line)]
    assert len(cast) == 1 and ("also read flat" in cast[0]) == (experiment == "nostsmtrans"), cast
    assert "cp.async" not in eg.emit_llvm(handle, 90, "gpu-ir")
    ptx = eg.emit_llvm(handle, 90, "ptx")
    a_in_registers = re.search(r"wgmma\.mma_async[^;]*\}, \{", ptx)
    pair_stores = re.search(r"st\.shared\.b32", ptx)
    if experiment == "nostsmtrans":
        assert a_in_registers and pair_stores and a_in_registers.start() < pair_stores.start()
    else:
        stmatrix = re.search(r"stmatrix\.sync\.aligned\.m8n8\.x4", ptx)
        assert a_in_registers and stmatrix and a_in_registers.start() < stmatrix.start() and not pair_stores


@pytest.mark.parametrize("sm", [80, 90])
def test_online_softmax_loop_with_fp32_scores(kernels, sm):
    """deepspeed.inference_attention_matmul's loop (found by run_realk.py --emulate): the
    carried accumulator, held in fragments and read flat too, was converted at the top of
    the body before the back edge's pending reads (the last iteration's row sums of p)
    counted, so with no barrier between a thread starting the next iteration overwrote sums
    another had not read (a race: the error varied from run to run)."""
    rng = np.random.default_rng(7)
    BM, BN, D, S = 128, 64, 32, 128  # two iterations
    q, k, v = (rng.integers(-2, 3, (n, D)).astype(np.float16) for n in (BM, S, S))
    mask = rng.integers(-2, 3, S).astype(np.float16)
    out = np.full((BM, D), np.nan, dtype=np.float32)
    eg.run(kernels.softmax_loop, (1,), q, k, v, mask, out, S, BM=BM, BN=BN, D=D, sm=sm, num_warps=1, num_stages=1)
    s = q.astype(np.float64) @ k.astype(np.float64).T + mask.astype(np.float64)  # exact in fp16
    p = np.exp2(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(out, p @ v.astype(np.float64), rtol=1e-2, atol=1e-2)  # (p rounded to fp16)


def tf32_bits(x, rounding):
    """fp32 values as a tf32 dot reads them: cvt.rna (to nearest, ties away: mma.sync's
    staging and fragments), the low 13 bits ignored (wgmma), or as they are (tf32x3's split
    products: exact for these values)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32)
    if rounding == "rna":
        u = (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    elif rounding == "truncate":
        u = u & np.uint32(0xFFFFE000)
    return u.view(np.float32).astype(np.float64)


@pytest.mark.parametrize("sm,warps,stages,precision,BM", [(90, 4, 3, "tf32", 64), (90, 4, 1, "tf32", 64),
                                                          (90, 8, 3, "tf32", 128), (90, 4, 1, "tf32", 128),
                                                          (80, 4, 3, "tf32", 64), (80, 2, 1, "tf32", 64),
                                                          (80, 4, 3, "tf32x3", 64), (80, 4, 1, "tf32", 128),
                                                          (90, 1, 3, "tf32", 64)])
def test_tf32_attention_reads_p_from_registers(kernels, sm, warps, stages, precision, BM):
    """fp32 attention's P·V with P, the first dot's fragments, the second dot's A in registers
    (wgmma's tf32 A from registers on sm_90, mma.sync m16n8k8 on sm_80 and below a warpgroup):
    the tf32 fragment's K (t, t + 4) is the accumulators' (2t, 2t + 1) permuted, and B is read
    (mma.sync) or held (wgmma: its copies and staging) in the same order. A wrong order of
    either gives wrong sums. P's low bits are rounded as the staged path rounded them."""
    rng = np.random.default_rng(11)
    BN, D, S = 64, 32, 192  # three iterations; BM 128 at 4 warps: two m-bands a warp
    q, k, v = (rng.integers(-3, 4, (n, D)).astype(np.float32) for n in (BM, S, S))
    out = np.full((BM, D), np.nan, dtype=np.float32)
    handle = eg.run(kernels.attention_tf32, (1,), q, k, v, out, S, BM=BM, BN=BN, D=D, PRECISION=precision, sm=sm,
                    num_warps=warps, num_stages=stages)
    wgmma = sm == 90 and warps % 4 == 0
    s = (q.astype(np.float64) @ k.astype(np.float64).T).reshape(BM, S // BN, BN)
    p = (s - s.max(2, keepdims=True)).reshape(BM, S) + 2.0 ** -11  # exact in fp32
    rounding = "exact" if precision == "tf32x3" else "truncate" if wgmma else "rna"
    want = tf32_bits(p, rounding) @ v.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6 * np.abs(want).max())
    ll = eg.emit_llvm(handle, sm)
    # wgmma's A operand is four registers ({$n, ...}), not a descriptor.
    assert (re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32 \{[^}]*\}, \{\$", ll) is not None) == wgmma
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    assert "A read from its fragments' registers" in gpu_ir


@pytest.mark.parametrize("sm", [90, 80])
def test_a_kernel_over_the_devices_shared_memory_does_not_run(kernels, sm):
    """As on the GPU (tritium raises OutOfResources when it loads such a kernel): a 128x256x64
    fp32 matmul with 3 stages holds 288 KiB of stage buffers (mamba's `_bmm_chunk_fwd_kernel`
    lists it), more than an H100 or A100 has; the module says how much it needs
    (!tritium.shared_bytes) and the launch is refused."""
    from tritium.errors import OutOfResources
    M, N = 128, 256
    K = 128
    a = np.ones((M, K), dtype=np.float32)
    b = np.ones((K, N), dtype=np.float32)
    c = np.zeros((M, N), dtype=np.float32)
    with pytest.raises(OutOfResources, match=f"shared memory, Required: \\d+, Hardware limit: {eg.SHARED_LIMIT[sm]}") as e:
        eg.run(kernels.matmul, (1, 1), a, b, c, M, N, K, BM=128, BN=256, BK=64, sm=sm, num_warps=8, num_stages=3)
    assert e.value.required > eg.SHARED_LIMIT[sm]
    assert not c.any()  # nothing ran
    # the small matmul's module states its (smaller) need the same way
    handle = eg.run(kernels.matmul, (1, 1), a[:64, :32].copy(), b[:32, :32].copy(), np.zeros((64, 32), np.float32),
                    64, 32, 32, BM=64, BN=32, BK=32, sm=sm)
    assert 0 < eg.shared_bytes(eg.emit_llvm(handle, sm)) <= eg.SHARED_LIMIT[sm] and eg.fits(handle, sm)


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 8, 1), (80, 4, 3), (80, 2, 1)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("side", [0, 1])
def test_operand_scaled_down_its_columns(kernels, sm, warps, stages, dtype, side):
    """A dot operand loaded contiguous down its columns (A along M, B along K) and scaled in
    the loop (lightning attention's `k_trans * k_decay`; a 16-bit A pipelined on wgmma is
    copied and scaled in A's fragments instead, session 32): the dot stages it from the load's
    layout, into a transposed tile (A M-major, B K-major) where the instruction reads one (A:
    wgmma's 16-bit transpose, every mma.sync path; B: both), each 16-byte run of the load one
    vector store. tf32's A on wgmma is K-major only: there each thread holds 4 x 4 elements
    (runs along M for the loads, along K for the stores). Exact against numpy."""
    rng = np.random.default_rng(11 + side)
    M, N, K, BK = 64 * max(1, warps // 4), 64, 96, 32
    a = rng.integers(-3, 4, (M, K)).astype(dtype)
    b = rng.integers(-3, 4, (K, N)).astype(dtype)
    s = rng.integers(-2, 3, K).astype(dtype)
    c = np.full((M, N), np.nan, dtype=np.float32)
    a_in, b_in = (np.ascontiguousarray(a.T), b) if side == 0 else (a, np.ascontiguousarray(b.T))
    handle = eg.run(kernels.scaled_down_columns, (1,), a_in, b_in, s, c, K, BM=M, BN=N, BK=BK, SIDE=side, sm=sm,
                    num_warps=warps, num_stages=stages)
    a64, b64, s64 = a.astype(np.float64), b.astype(np.float64), s.astype(np.float64)
    want = (a64 * s64[None, :]) @ b64 if side == 0 else a64 @ (b64 * s64[:, None])
    np.testing.assert_array_equal(c, want)  # small integers: exact in fp16 and tf32
    ll = eg.emit_llvm(handle, sm)
    assert ("wgmma.mma_async" in ll) == (sm == 90)
    bits = 16 if dtype == np.float16 else 32
    element = "half" if bits == 16 else "float"
    # The staged operand's stores into shared memory (addrspace 3): 16-byte vectors (a
    # row-major B of tf32 on wgmma, staged K-major, is stored an element at a time).
    vectors = len(re.findall(rf"store <{128 // bits} x {element}> [^\n]*addrspace\(3\)", ll))
    scalars = len(re.findall(rf"store {element} [^\n]*addrspace\(3\)", ll))
    per_thread = (M if side == 0 else N) * BK // (32 * warps)  # elements of the scaled operand a thread holds
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    if "A read from its fragments' registers" in gpu_ir:
        # Since session 32 (axis0copy, achain): a pipelined 16-bit A on wgmma at 4 warps is
        # copied down its columns by cp.async, scaled in A's fragments and read from registers,
        # as Triton does: nothing of it is staged from registers.
        # Since session 34 (achainmma) on mma.sync too (sm_80 at 4 warps along M).
        assert side == 0 and bits == 16 and stages > 1, gpu_ir
        assert vectors == 0 and scalars == 0, f"{vectors} vector stores, {scalars} scalar ones"
        assert "ldmatrix.sync.aligned.m8n8.x4.trans" in ll and "cp.async.cg" in ll
        return
    assert vectors >= per_thread * bits // 128 and scalars < per_thread, f"{vectors} vector stores, {scalars} scalar ones"
    if bits == 32 and side == 0 and sm == 90:
        o = handle._options
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, int(o.get("num_warps", 4)), int(o.get("num_stages", 3)),
                                     sm)
        loads = [line for line in gpu_ir.splitlines() if "= load" in line and f"{M}x{BK}xfp32" in line]
        assert len(loads) == 1 and "spt = [4, 4]" in loads[0], loads


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 4), (90, 4, 2), (80, 4, 3)])
@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("L", [128, 80])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("linecopy", [True, False])
def test_lines_scaling_an_operand_copied(kernels, monkeypatch, sm, warps, stages, side, L, late, linecopy):
    """mamba's _chunk_scan_bwd_dstates_kernel (side 0) and _chunk_state_fwd_kernel (side 1):
    the fp32 lines scaling a dot operand inside the loop (`dA_cs_k`, `dt_k`) are pipelined as
    Triton pipelines them: prefetched and copied by cp.async, an element a 4-byte copy
    (AsyncOperand::line), where before they were loaded every iteration. Each thread reads the
    lines from the stage buffer at the rows or columns it holds, after the iteration's wait and
    a barrier: at A's fragment positions (side 0, wgmma: the line reloaded there,
    line_reloaded) or at the flat elements of B's scale broadcast (side 1:
    AsyncPlan::reads_copied_lines), with no round trip of its own. The last chunk is masked
    (L = 80): masked-off copies read as zero. A line is copied only where the operand it
    scales reads a copied block too (gpu/prefetch_operands.cpp's reads_copied_block): side 0 on
    sm_80 as well since session 34 (its M-contiguous A copied and scaled in A's fragments on
    mma.sync too, achainmma). The epilogue's round trip ends with its barrier pending (lazybar:
    one barrier fewer than before session 34). TRITIUM_REDUCE_EXPERIMENT
    =nolinecopy: loaded every iteration, as before. Against numpy, the scaled operand rounded to fp16 as the
    kernel rounds it."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    if not linecopy:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "nolinecopy")
    rng = np.random.default_rng(41 + side)
    BM, BN, BK = 64, 128, 32
    x = rng.integers(-3, 4, (L, BM)).astype(np.float16)  # stored M-contiguous: x[k, m]
    b = rng.integers(-3, 4, (L, BN)).astype(np.float16)
    dA = np.sort(rng.uniform(-1.0, 0.0, L)).astype(np.float32)[::-1].copy()
    dt = rng.uniform(0.5, 1.5, L).astype(np.float32)
    c = np.full((BM, BN), np.nan, dtype=np.float32)
    handle = eg.run(kernels.scaled_by_lines, (1,), x, b, dA, dt, c, L, BM=BM, BN=BN, BK=BK, SIDE=side, sm=sm,
                    num_warps=warps, num_stages=stages)
    a64, b64 = x.T.astype(np.float64), b.astype(np.float64)
    if side == 0:
        a64 = (a64 * np.exp(dA.astype(np.float64))[None, :]).astype(np.float16).astype(np.float64)
    else:
        scale = np.exp(np.minimum(float(dA[L - 1]) - dA.astype(np.float64), 0.0)) * dt
        b64 = (b64 * scale[:, None]).astype(np.float16).astype(np.float64)
    np.testing.assert_allclose(c, a64 @ b64, rtol=2e-3, atol=2e-2)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    copied = linecopy
    lines = [line for line in gpu_ir.splitlines() if "= load" in line and f"block<{BK}xfp32" in line]
    assert lines and all(("copies of each element of a line" in line) == copied for line in lines), lines
    ptx = eg.emit_llvm(handle, sm, "ptx")
    loads, barriers = ptx.count("ld.global"), ptx.count("bar.sync")
    assert (ptx.count("cp.async.ca.shared.global") > 0) == copied
    computed = "the line computed at each thread's elements from the copied lines' stage buffers" in gpu_ir
    if (sm, side) == (90, 0):
        # Reloaded at A's fragment positions from the stage buffer: no global load left, and
        # no barrier more than the loop's one (the transposed read-back's wait and barrier).
        assert (loads, barriers) == ((0, 3) if linecopy else (4, 3)), (loads, barriers)
    if side == 1:
        # dA_last alone stays a load; the scale's round trip (2 barriers a chunk) is gone.
        assert computed == linecopy
        # (nolinecopy: 7, one fewer since session 35's elide_barriers)
        assert (loads, barriers) == ((1, 5) if linecopy else (3, 7)), (loads, barriers)


@pytest.mark.parametrize("sm,warps", [(80, 1), (90, 4)])
@pytest.mark.parametrize("n", [1, 0])
def test_branch_yielding_fragments_read_flat(kernels, sm, warps, n):
    """An `if` yielding two dot results, both stored: every phi of the merge before the
    fragments' flat copies (LLVM refused the module before)."""
    rng = np.random.default_rng(22)
    BM = 64
    a, b = (rng.integers(-3, 4, (BM, BM)).astype(np.float16) for _ in range(2))
    c = np.full((BM, BM), np.nan, dtype=np.float32)
    d = np.full((BM, BM), np.nan, dtype=np.float32)
    eg.run(kernels.branch_dots, (1,), a, b, c, d, n, BM=BM, sm=sm, num_warps=warps, num_stages=1)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_array_equal(c, a64 @ b64 if n > 0 else 0)
    np.testing.assert_array_equal(d, b64 @ a64 if n > 0 else 0)


@pytest.mark.parametrize("sm", [90, 80])
@pytest.mark.parametrize("BM,BN,stages", [(64, 64, 3), (32, 128, 3), (64, 32, 1)])
def test_scaled_dots_of_heads_stay_in_fragments(kernels, sm, BM, BN, stages):
    """mamba's dB / dC / dCB loops over heads (heads_scaled_dots): the operands are copied by
    cp.async although the loop adds into `sums` (prefetch_loads: the loads and the writes go
    through different arguments, the atomic's old value unread), the block read by every
    iteration is moved into fragments once before the loop (FragmentPlan::invariant_copy), and
    the row and column broadcasts, under the early return's `if`, are read in fragments: the
    dot's result never goes to the flat layout. Against numpy (exp: to 1e-5)."""
    rng = np.random.default_rng(31 + BM + BN)
    H, BK = 5, 32
    x = rng.integers(-3, 4, (H, BM, BK)).astype(np.float16)
    w = rng.integers(-3, 4, (H, BK, BN)).astype(np.float16)
    b = rng.integers(-3, 4, (BM, BN)).astype(np.float16)
    s = rng.standard_normal((H, BM)).astype(np.float32)
    t = rng.standard_normal((H, BN)).astype(np.float32)
    out = np.full((2, BM, BN), np.nan, dtype=np.float32)
    sums = np.zeros((H, BM), dtype=np.float32)
    handle = eg.run(kernels.heads_scaled_dots, (2,), x, w, b, s, t, out, sums, H, BM=BM, BN=BN, BK=BK, sm=sm,
                    num_warps=4, num_stages=stages)
    want, want_sums = np.zeros((BM, BN)), np.zeros((H, BM))
    for h in range(H):
        d = x[h].astype(np.float64) @ w[h].astype(np.float64) * t[h][None, :]
        d = d * np.exp(np.minimum(s[h][:, None] - t[h][None, :], 0.0))
        want_sums[h] = (d * b.astype(np.float64)).sum(1)
        want += d
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[1], 0.0)
    np.testing.assert_allclose(sums, want_sums, rtol=1e-5, atol=1e-4)
    o = handle._options
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, 4, stages, sm)
    assert not re.search(r"= dot [^\n]*also read flat", gpu_ir), gpu_ir
    assert re.search(r"= cast [^\n]*also copied into fragments here, once", gpu_ir), gpu_ir
    assert all("fragments:" in line for line in gpu_ir.splitlines() if re.search(r"= broadcast [^\n]*xfp32", line)), gpu_ir
    assert (gpu_ir.count("cp.async into stage buffers") > 0) == (stages > 1), gpu_ir


def paged_attention_reference(q, k, v, table, q_len, seq_len, scale):
    """numpy's paged_attention_rows (kernels.py): the softmax of Q Kᵀ over the pages of `table`,
    causal for the last q_len queries of a sequence of seq_len (4 rows a query), times V; and
    which rows hold a query."""
    BLOCK_M = q.shape[0]
    keys = np.concatenate([k[p] for p in table]).astype(np.float64)
    values = np.concatenate([v[p] for p in table]).astype(np.float64)
    rows = np.arange(BLOCK_M) // 4 < q_len
    s = q.astype(np.float64) @ keys.T * scale
    allowed = np.arange(keys.shape[0])[None, :] <= seq_len - q_len + (np.arange(BLOCK_M) // 4)[:, None]
    s = np.where(allowed, s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p @ values / p.sum(axis=1, keepdims=True), rows


@pytest.mark.parametrize("sm", [90, 80])
def test_attention_rows_across_warps_stay_in_fragments(kernels, sm):
    """vLLM's unified attention at BLOCK_M 16 (paged_attention_rows): the scores, their masks
    (a chain of some 20 index ops), the row maxima and sums across the 4 warps that split the
    columns, and the accumulator stay in the dots' fragments — `/ 1.0` folds (fold_constants)
    so the dot accumulates into acc, and the mask is computed at each register. Against numpy."""
    rng = np.random.default_rng(16)
    BLOCK_M, TILE, D, n_tiles = 16, 32, 64, 3
    q = rng.standard_normal((BLOCK_M, D)).astype(np.float16)
    k = rng.standard_normal((n_tiles + 1, TILE, D)).astype(np.float16)
    v = rng.standard_normal((n_tiles + 1, TILE, D)).astype(np.float16)
    table = np.array([2, 0, 3], dtype=np.int32)
    o = np.full((BLOCK_M, D), np.nan, dtype=np.float32)
    q_len, seq_len, scale = 3, 80, 0.125
    handle = eg.run(kernels.paged_attention_rows, (1,), q, k, v, table, o, n_tiles, q_len, seq_len, scale,
                    BLOCK_M=BLOCK_M, TILE=TILE, D=D, sm=sm, num_warps=4, num_stages=3)
    want, rows = paged_attention_reference(q, k, v, table, q_len, seq_len, scale)
    np.testing.assert_allclose(o[rows], want[rows], rtol=2e-2, atol=2e-2)  # P rounded to fp16
    assert np.isnan(o[~rows]).all()
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, 4, 3, sm)
    dots = [line for line in gpu_ir.splitlines() if "= dot " in line]
    assert len(dots) == 2 and not any("also read flat" in line for line in dots), dots
    acc = re.search(r"= dot %\w+, %\w+, (%\w+) ", dots[1]).group(1)  # acc * alpha, not a zero
    assert re.search(rf"{acc} = mul ", gpu_ir), dots[1]
    assert not re.search(r"= (div|mul|add|select|reduce) [^\n]*shared_offsets", gpu_ir), gpu_ir
    reduces = [line for line in gpu_ir.splitlines() if "= reduce " in line]
    assert len(reduces) == 2 and all("fragment rows" in line for line in reduces), reduces


@pytest.mark.parametrize("sm", [90, 80])
def test_loop_invariant_a_fragments_hoisted(kernels, monkeypatch, sm):
    """The default since session 33 (TRITIUM_REDUCE_EXPERIMENT=nohoista the old way): the
    loop-invariant A of an mma.sync dot (Q of vLLM's
    unified attention at BLOCK_M 16, paged_attention_rows) staged once before the loop, its
    fragments loaded there by ldmatrix and held in registers: the loop reads Q's fragments
    D / 16 ldmatrix fewer and meets fewer barriers than by default (Q staged and read in every
    iteration). Against numpy, both ways."""
    rng = np.random.default_rng(23)
    BLOCK_M, TILE, D, n_tiles = 16, 32, 64, 3
    q = rng.standard_normal((BLOCK_M, D)).astype(np.float16)
    k = rng.standard_normal((n_tiles + 1, TILE, D)).astype(np.float16)
    v = rng.standard_normal((n_tiles + 1, TILE, D)).astype(np.float16)
    table = np.array([1, 3, 0], dtype=np.int32)
    q_len, seq_len, scale = 4, 90, 0.125
    want, rows = paged_attention_reference(q, k, v, table, q_len, seq_len, scale)
    loops = {}
    for experiment in ("nohoista", "hoista"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        o = np.full((BLOCK_M, D), np.nan, dtype=np.float32)
        handle = eg.run(kernels.paged_attention_rows, (1,), q, k, v, table, o, n_tiles, q_len, seq_len, scale,
                        BLOCK_M=BLOCK_M, TILE=TILE, D=D, sm=sm, num_warps=4, num_stages=3)
        np.testing.assert_allclose(o[rows], want[rows], rtol=2e-2, atol=2e-2)  # P rounded to fp16
        ptx = handle._kernel.emit("ptx", handle.signature, 4, 3, sm)
        loop = ptx[ptx.index("cp.async.wait_group"):]  # the loop body's first wait onwards
        loops[experiment] = (len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared", loop)), loop.count("bar.sync"))
    (plain_ld, plain_bar), (hoisted_ld, hoisted_bar) = loops["nohoista"], loops["hoista"]
    assert hoisted_ld == plain_ld - D // 16, loops
    assert hoisted_bar < plain_bar, loops


def lines_at_fragments_case(rng, H, BM, BN, BK, n):
    """Inputs of kernels.lines_at_fragments and its result by numpy (float64), rows and
    columns from n on masked."""
    x = rng.integers(-3, 4, (H, BM, BK)).astype(np.float16)
    w = rng.integers(-3, 4, (H, BK, BN)).astype(np.float16)
    s = rng.standard_normal((H + 1, BM)).astype(np.float32)
    t = rng.standard_normal((H, BN)).astype(np.float32)
    rm, rn = np.arange(BM), np.arange(BN)
    c = np.where(rm < n, s[0], -1.0)
    want = np.zeros((BM, BN))
    for h in range(H):
        th = np.where(rn < n, t[h], 2.0)
        sh = np.where(rm < n, s[h + 1], 0.5)
        d = x[h].astype(np.float64) @ w[h].astype(np.float64) * (th * 0.5)[None, :]
        want += d * np.exp(np.minimum(sh[:, None] - th[None, :], 0.0)) + c[:, None]
    return x, w, s, t, want


@pytest.mark.parametrize("sm", [90, 80])
@pytest.mark.parametrize("BM,BN,stages", [(64, 64, 3), (32, 128, 1), (64, 32, 3)])
def test_lines_loaded_at_fragment_positions(kernels, sm, BM, BN, stages):
    """Line broadcasts into a dot's fragments whose lines are loads (and elementwise ops of
    loads) with no write since (line_reloaded): each thread loads the columns or rows its
    registers hold itself where the line is defined, no round trip through shared memory, so
    the kernel meets fewer barriers than the same kernel whose loop stores between a load and
    its line (CLOBBER: there those lines go through shared memory, as loaded). Masked edges
    (`other`); a line defined before the loop is loaded at its fragments once, there, even
    where the loop writes memory. Against numpy (exp: to 1e-5)."""
    rng = np.random.default_rng(41 + BM + BN)
    H, BK = 4, 32
    n = min(BM, BN) - 5  # masked rows and columns
    x, w, s, t, want = lines_at_fragments_case(rng, H, BM, BN, BK, n)
    bars = {}
    for clobber in (False, True):
        out = np.full((BM, BN), np.nan, dtype=np.float32)
        tc = t.copy()
        handle = eg.run(kernels.lines_at_fragments, (1,), x, w, s, tc, out, n, H, BM=BM, BN=BN, BK=BK, CLOBBER=clobber,
                        sm=sm, num_warps=4, num_stages=stages)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
        if clobber:
            np.testing.assert_array_equal(tc[:, :n], t[:, :n] * np.float32(3.0))
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, 4, stages, sm)
        lines = [line for line in gpu_ir.splitlines() if re.search(r"= broadcast [^\n]*xfp32", line)]
        assert lines and all("fragments:" in line for line in lines), gpu_ir
        # The loop body's: indented past the `for`.
        text = gpu_ir.splitlines()
        at = next(i for i, line in enumerate(text) if " = for " in line)
        indent = len(text[at]) - len(text[at].lstrip())
        body = []
        for line in text[at + 2:]:  # past the region's arguments
            if len(line) - len(line.lstrip()) <= indent:
                break
            body.append(line)
        in_loop = [line for line in body if re.search(r"= broadcast [^\n]*xfp32", line)]
        assert in_loop, gpu_ir
        # Without the store every line is loaded where its registers are (t's rows, s's and c's
        # columns); with it, only the lines defined before the loop (c's, loaded at its
        # fragments once there): t's and s's are defined after the store.
        for line in lines:
            source = re.search(r"= broadcast (%\w+)", line).group(1)
            in_body = any(b.strip().startswith(source + " =") for b in body)
            assert ("the line computed again" in line) == (not clobber or not in_body), gpu_ir
        bars[clobber] = handle._kernel.emit("ptx", handle.signature, 4, stages, sm).count("bar.sync")
    assert bars[False] < bars[True], bars


@pytest.mark.parametrize("sm,BM,BN,n", [(90, 64, 32, 16), (90, 64, 32, 24), (90, 64, 32, 17), (90, 64, 64, 48),
                                         (90, 64, 64, 40), (80, 64, 32, 16), (80, 64, 32, 23)])
def test_reloaded_line_pairs_share_masks(kernels, monkeypatch, sm, BM, BN, n):
    """mamba's dCB lines at fragment positions (reload_line): with a bound the specialization
    makes divisible by 16 (n:16), `rn < n` is constant over aligned runs of 16 columns, so a
    thread's columns c and c + 8 (rows r and r + 8 of `rm < n`) share one comparison
    (experiment "pairmask", the default): fewer setp than nopairmask. With n not a multiple
    of 16 (17, 23, 24, 40: an edge inside a run) nothing is shared, the PTX the same as
    nopairmask's. Masked edges both ways: exact against numpy (exp: to 1e-5) either way."""
    rng = np.random.default_rng(7 + n)
    H, BK = 3, 32
    x, w, s, t, want = lines_at_fragments_case(rng, H, BM, BN, BK, n)
    ptx = {}
    for experiment in ("", "nopairmask"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((BM, BN), np.nan, dtype=np.float32)
        handle = eg.run(kernels.lines_at_fragments, (1,), x, w, s, t.copy(), out, n, H, BM=BM, BN=BN, BK=BK,
                        CLOBBER=False, sm=sm, num_warps=4, num_stages=3)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
        ptx[experiment] = eg.emit_llvm(handle, sm, "ptx")
    setp = {e: len(re.findall(r"\bsetp\.", p)) for e, p in ptx.items()}
    # The predicates of the line loads: pairs of positions share one by default (under
    # nopairmask only the same line position's do: c's and s's `rm < n`, LLVM's CSE).
    loads = {e: re.findall(r"@(%p\d+) ld\.global", p) for e, p in ptx.items()}
    assert len(loads[""]) == len(loads["nopairmask"]) and loads[""], loads
    if n % 16 == 0:
        assert len(set(loads[""])) < len(set(loads["nopairmask"])) and setp[""] < setp["nopairmask"], (loads, setp)
    else:
        assert ptx[""] == ptx["nopairmask"], setp


def loop_body_ptx(ptx):
    """The PTX lines of the kernel's loop that holds a dot (wgmma or mma): its label up to
    the branch back to it."""
    lines = ptx.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s*@%p\d+ bra\s+(\$L__BB\d+_\d+);", line)
        if not m:
            continue
        start = next((j for j in range(i) if lines[j].startswith(m.group(1) + ":")), None)
        if start is not None and any("mma" in x for x in lines[start:i]):
            return lines[start:i + 1]
    return []


@pytest.mark.parametrize("sm,BM,BN,stages", [(90, 64, 32, 3), (90, 64, 64, 3), (80, 32, 32, 3), (90, 64, 32, 1)])
@pytest.mark.parametrize("M,N,n,H", [(128, 96, 80, 3), (64, 64, 40, 1), (128, 72, 67, 4)])
def test_carried_pointers_moved_by_a_scalar_base(kernels, monkeypatch, sm, BM, BN, stages, M, N, n, H):
    """mamba's dCB loop (carried_line_pointers): a carried pointer block `ptr + offs` moved by
    a stride is, in the loop, the same chain from its scalar pointer moved (experiment
    "scalarbase", opt-in): one scalar add an iteration and the loop-invariant 32-bit
    offsets, not a 64-bit offset block added to every element's 64-bit address; and a line
    reloaded at the fragments addresses its positions as the first one's plus the constant
    the value ranges prove cannot wrap (`pid_n * BN + arange`: "shiftwrap"). Masked rows and
    columns, several programs (pid_n > 0): exact against numpy with each knob on and off;
    with both on fewer 64-bit integer instructions in the loop than with either off."""
    rng = np.random.default_rng(5 + M + N + n + H)
    BK = 32
    x = rng.integers(-3, 4, (H, M, BK)).astype(np.float16)
    w = rng.integers(-3, 4, (H, BK, N)).astype(np.float16)
    t = rng.integers(-4, 5, (H, N)).astype(np.float32) * np.float32(0.25)
    s = rng.integers(-4, 5, (H, M)).astype(np.float32) * np.float32(0.5)
    rm, rn = np.arange(M), np.arange(N)
    want = np.zeros((M, N))
    for h in range(H):
        th = np.where(rn < n, t[h], 2.0)
        sh = np.where(rm < n, s[h], 0.5)
        want += (x[h].astype(np.float64) @ w[h].astype(np.float64)) * th[None, :] * sh[:, None]
    grid = ((M // BM) * ((N + BN - 1) // BN),)
    wide = {}
    for experiment in ("scalarbase", "", "scalarbase,noshiftwrap", "noshiftwrap"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((M, N), np.nan, dtype=np.float32)
        handle = eg.run(kernels.carried_line_pointers, grid, x, w, t, s, out, M, N, n, H, M * BK, BK * N, N, M,
                        BM=BM, BN=BN, BK=BK, sm=sm, num_warps=4, num_stages=stages)
        np.testing.assert_array_equal(out, want.astype(np.float32))
        if H == 1:
            continue  # a loop of one trip is its body (inline_one_trip_loops)
        body = loop_body_ptx(eg.emit_llvm(handle, sm, "ptx"))
        assert body, experiment
        # 64-bit arithmetic and widenings (a truncation to 32 bits is a register's half: not).
        wide[experiment] = sum(bool(re.match(r"\s*((add|sub|shl|mul|mad)\.\S*(s64|u64|b64|wide)|cvt\.[su]64\.)", x))
                               for x in body)
    if H > 1:
        assert wide["scalarbase"] < wide["noshiftwrap"] and wide["scalarbase"] < wide["scalarbase,noshiftwrap"], wide
        assert wide["scalarbase"] <= wide[""] < wide["noshiftwrap"], wide


@pytest.mark.parametrize("sm,warps", [(80, 1), (80, 2), (90, 2), (80, 4), (90, 4)])
@pytest.mark.parametrize("dtype,precision", [(np.float16, "tf32"), (np.float32, "tf32"), (np.float32, "ieee")])
def test_trans_operands_staged_from_their_source(kernels, sm, warps, dtype, precision):
    """Dot operands that are trans of a block (gpu::trans_staged_by_dots): each dot stages
    the source into its tile (B K-major, A M-major on mma.sync, a fragment pair at a time;
    wgmma's A and the fma dot's row-major tiles from the flat copy, transposed). Exact."""
    rng = np.random.default_rng(21)
    BT, BK = 64, 32
    x, y, z = (rng.integers(-2, 3, (BT, BK)).astype(dtype) for _ in range(3))
    w = rng.integers(-2, 3, (BK, BK)).astype(dtype)
    p = np.full((BT, BK), np.nan, dtype=np.float32)
    q = np.full((BT, BK), np.nan, dtype=np.float32)
    handle = eg.run(kernels.trans_operands, (1,), x, y, z, w, p, q, BT=BT, BK=BK, PRECISION=precision, sm=sm,
                    num_warps=warps, num_stages=1)
    x64, y64, z64, w64 = (a.astype(np.float64) for a in (x, y, z, w))
    s = np.tril(x64 @ y64.T)  # small integers: exact in fp16, tf32 and fp32
    np.testing.assert_array_equal(p, s @ z64)
    np.testing.assert_array_equal(q, s.T @ z64 + y64 @ w64)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 1, sm)
    trans = [line for line in gpu_ir.splitlines() if "= trans" in line]
    assert len(trans) == 2 and all("moves nothing" in line and "shared_offsets" not in line for line in trans), trans
    assert ("wgmma" in gpu_ir) == (sm == 90 and warps == 4 and precision == "tf32")


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 1), (90, 8)])
def test_awq_unpacking_by_interleaves(kernels, sm, warps):
    """Joins laid out so each stays in its threads (vector_widths' follow_joins): every
    nibble lands in its column, in AWQ's order [0, 4, 1, 5, 2, 6, 3, 7]."""
    rng = np.random.default_rng(9)
    rows, cols = 40, 24  # neither a multiple of the block: masked edges
    q = rng.integers(-2**31, 2**31, (rows, cols), dtype=np.int64).astype(np.int32)
    z = rng.integers(-2**31, 2**31, (1, cols), dtype=np.int64).astype(np.int32)
    out = np.full((rows, 8 * cols), 99.0, dtype=np.float16)
    eg.run(kernels.awq_unpack, (1, 2), q, z, out, rows, cols, BY=32, BX=32, sm=sm, num_warps=warps)
    shifts = np.array([0, 4, 1, 5, 2, 6, 3, 7]) * 4
    nib = lambda a: (a.astype(np.int64)[:, :, None] >> shifts) & 0xF  # noqa: E731
    want = (nib(q) - nib(z)).reshape(rows, 8 * cols).astype(np.float16)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("stages", [3, 4])
def test_w8a16_read_back_at_every_stage_count(kernels, stages):
    """The 8-warp 128 x 256 x 64 weight-only int8 tile (test_gpu_dequant.py's largest): B is
    copied ahead and read back at 3 and 4 stages (4 x 16 KiB of A and of B plus the staged
    fp16 B fit the read-back budget, gpu/prefetch_operands.h); exact against numpy (small
    integers, power-of-two scales), and the module's shared memory within sm_90's."""
    rng = np.random.default_rng(23)
    BM, BN, BK, K = 128, 256, 64, 320
    a = rng.integers(-3, 4, (BM, K)).astype(np.float16)
    b = rng.integers(-127, 128, (K, BN)).astype(np.int8)
    s = (2.0 ** rng.integers(-8, -3, BN)).astype(np.float16)
    c = np.full((BM, BN), np.nan, dtype=np.float32)
    handle = eg.run(kernels.w8a16, (1,), a, b, s, c, K, BM=BM, BN=BN, BK=BK, sm=90, num_warps=8, num_stages=stages)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ (b.astype(np.float64) * s.astype(np.float64)[None, :]))
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, 8, stages, 90)
    assert "read back into its registers" in gpu_ir
    assert 0 < eg.shared_bytes(eg.emit_llvm(handle, 90)) <= eg.SHARED_LIMIT[90]


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 4), (80, 1)])
@pytest.mark.parametrize("ctx_len", [64, 45])
def test_paged_cache_read_along_head_dim(kernels, sm, warps, ctx_len):
    """K read from a paged cache through a block table (vLLM's prefix prefill): its offsets
    are not recomputable from the element index (the table is loaded), so coalesce computes
    them in the access's layout (runs of 8 fp16 along the head dimension); both branches of
    the `if` around the last tile's masked load yield that layout and the dot stages from it.
    Exact against numpy (small integers)."""
    rng = np.random.default_rng(24)
    BM, D, BN, PBS, X, blocks = 64, 64, 32, 16, 8, 9
    q = rng.integers(-1, 2, (BM, D)).astype(np.float16)
    k_cache = rng.integers(-1, 2, (blocks, D // X, PBS, X)).astype(np.float16)
    v_cache = rng.integers(-1, 2, (blocks, D, PBS)).astype(np.float16)
    table = rng.permutation(blocks).astype(np.int32)
    out = np.full((BM, D), np.nan, dtype=np.float32)
    handle = eg.run(kernels.paged_attention, (1,), q, k_cache, v_cache, table, out, ctx_len, D * PBS, PBS * X,
                    D * PBS, PBS, BM=BM, D=D, BN=BN, PBS=PBS, X=X, sm=sm, num_warps=warps, num_stages=1)
    tiles = -(-ctx_len // BN) * BN
    t = np.arange(tiles)
    b = table[np.minimum(t // PBS, blocks - 1)]
    k = k_cache[b, :, t % PBS, :].reshape(tiles, D).astype(np.float64)  # [token, d]
    v = v_cache[b, :, t % PBS].astype(np.float64)  # [token, d]
    k[t >= ctx_len] = 0
    v[t >= ctx_len] = 0
    want = np.zeros((BM, D))
    for start in range(0, tiles, BN):
        s = q.astype(np.float64) @ k[start:start + BN].T
        want += s @ v[start:start + BN]
    np.testing.assert_array_equal(out, want)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 1, sm)
    k_loads = [line for line in gpu_ir.splitlines() if "= load" in line and f"block<{D}x{BN}xfp16" in line]
    assert len(k_loads) == 2 and all("spt = [8, 1]" in line for line in k_loads), k_loads


def paged_unified_inputs(seed, BM, D, BN, PBS, ctx_len, blocks=12):
    """Inputs of kernels.paged_unified (small integers, so exact): q, the K and V caches of
    `blocks` pages of PBS tokens, a permuted block table, and numpy's result: Q Kᵀ V summed
    over the tiles of BN tokens (the tiles' P is Q Kᵀ itself, no softmax)."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-1, 2, (BM, D)).astype(np.float16)
    k_cache = rng.integers(-1, 2, (blocks, PBS, D)).astype(np.float16)
    v_cache = rng.integers(-1, 2, (blocks, PBS, D)).astype(np.float16)
    table = rng.permutation(blocks).astype(np.int32)
    t = np.arange(ctx_len)
    k = k_cache[table[t // PBS], t % PBS].astype(np.float64)  # [token, d]
    v = v_cache[table[t // PBS], t % PBS].astype(np.float64)
    want = np.zeros((BM, D))
    for start in range(0, ctx_len, BN):
        want += (q.astype(np.float64) @ k[start:start + BN].T) @ v[start:start + BN]
    return q, k_cache, v_cache, table, want


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 2), (80, 4, 3), (80, 1, 2)])
@pytest.mark.parametrize("late", [True, False])
def test_paged_tiles_pipelined_from_the_block_table(kernels, monkeypatch, sm, warps, stages, late):
    """vLLM's unified attention: each KV tile's pages are block-table entries loaded in the
    loop body. The entries are prefetched an iteration further ahead than the tiles (in
    registers; gpu/prefetch_operands.h), so K and V are copied by cp.async too, and K, whose
    runs go along the head dimension through the loaded entries, is made in its slot where
    each thread holds whole 16-byte runs and copies its own (gpu/coalesce.h; in the flat
    layout the threads holding each run's first element copied them all, 106 -> 158
    registers in vLLM's kernel). The pages permuted, two a tile, the last tile masked; exact
    against numpy (small integers). Copies land at their wait or at issue (DEFER_COPIES)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    BM, D, BN, PBS, ctx_len = 16, 64, 32, 16, 150
    q, k_cache, v_cache, table, want = paged_unified_inputs(27, BM, D, BN, PBS, ctx_len)
    out = np.full((BM, D), np.nan, dtype=np.float32)
    handle = eg.run(kernels.paged_unified, (1,), q, k_cache, v_cache, table, out, ctx_len, PBS * D, D, PBS * D, D,
                    BM=BM, D=D, BN=BN, PBS=PBS, sm=sm, num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(out, want)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    k_loads = [line for line in gpu_ir.splitlines() if "= load" in line and f"block<{D}x{BN}xfp16" in line]
    v_loads = [line for line in gpu_ir.splitlines() if "= load" in line and f"block<{BN}x{D}xfp16" in line]
    assert len(k_loads) == stages and len(v_loads) == stages, gpu_ir  # stages - 1 before the loop, one in it
    assert all("spt = [8, 1]" in line and "each thread its own runs" in line for line in k_loads), k_loads
    assert all("cp.async" in line for line in v_loads), v_loads


@pytest.mark.parametrize("warps", [4, 8])
def test_trans_of_fragments_staged_as_wgmma_a(kernels, monkeypatch, warps):
    """A wgmma A that is the trans of a dot's fragments, staged by its dot: by default
    (stsmtrans) and with nostsmtrans,transafrag its fragments need no flat copy ("also read
    flat" gone, fewer barriers; fragment_layout.h's stages_trans_fragments): A's tile is
    M-major either way here, written from the fragments as they are. With
    nostsmtrans,notransafrag the flat copy is made as before. Exact every way."""
    rng = np.random.default_rng(83)
    BM, BN, BK, BD = 64, 64, 32, 64
    x = rng.integers(-2, 3, (BM, BK)).astype(np.float16)
    w = rng.integers(-2, 3, (BK, BN)).astype(np.float16)
    v = rng.integers(-2, 3, (BM, BD)).astype(np.float16)
    d = (x.astype(np.float64) @ w.astype(np.float64) * 0.5).astype(np.float16).astype(np.float64)
    want = d.T @ v.astype(np.float64)
    seen = {}
    for experiment in ("nostsmtrans,notransafrag", "nostsmtrans,transafrag", "stsmtrans"):
        # noelidebar: the barriers counted are the emitter's own, before the late passes.
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment + ",noelidebar")
        out = np.full((BN, BD), np.nan, dtype=np.float32)
        handle = eg.run(kernels.trans_of_dot_as_a, (1,), x, w, v, out, BM=BM, BN=BN, BK=BK, BD=BD, sm=90,
                        num_warps=warps, num_stages=1)
        np.testing.assert_array_equal(out, want)
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 1, 90)
        cast = [line for line in gpu_ir.splitlines() if re.search(r"= cast [^\n]*64x64xfp16", line)]
        seen[experiment] = (cast, handle._kernel.emit("ptx", handle.signature, warps, 1, 90).count("bar.sync"))
    old, afrag, m_major = (seen[e] for e in ("nostsmtrans,notransafrag", "nostsmtrans,transafrag", "stsmtrans"))
    assert old[0] and all("also read flat" in line for line in old[0]), seen
    for new in (afrag, m_major):
        assert new[0] and not any("also read flat" in line for line in new[0]), seen
        assert new[1] < old[1], seen


@pytest.mark.parametrize("BM,BN,warps,stages", [(64, 64, 4, 2), (128, 128, 4, 3), (64, 128, 4, 3),
                                                (128, 64, 8, 2), (128, 128, 8, 3)])
@pytest.mark.parametrize("experiment", ["", "nostsmtrans", "nostsmtrans,transafrag", "nostsmstage"])
def test_trans_of_fragments_hoisted_m_major(kernels, monkeypatch, BM, BN, warps, stages, experiment):
    """cut-cross-entropy's dC loop in small: trans(d), d a dot's fragments cast to f16, is the
    A of a wgmma dot in a loop, hoisted (written once before it). By default (stsmtrans:
    fragment_layout.h's trans_a_m_major) its tile is M-major (K rows of M: d's own rows),
    written from d's fragments by stmatrix.x4 (no flat copy of d, no stores of single
    elements) and read with wgmma's transpose bit for A (one wgmma's imm-trans-a of 1);
    nostsmtrans: K-major, from the flat copy, transposed (transafrag: from the fragments an
    element at a time); nostsmstage: M-major by register pairs. Exact every way."""
    BK, BD, ND = 32, 32, 3
    rng = np.random.default_rng(89)
    x = rng.integers(-2, 3, (BM, BK)).astype(np.float16)
    w = rng.integers(-2, 3, (BK, BN)).astype(np.float16)
    v = rng.integers(-2, 3, (BM, BD * ND)).astype(np.float16)
    d = (x.astype(np.float64) @ w.astype(np.float64) * 0.5).astype(np.float16).astype(np.float64)
    want = d.T @ v.astype(np.float64)
    if experiment:
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    out = np.full((BN, BD * ND), np.nan, dtype=np.float32)
    handle = eg.run(kernels.trans_of_dot_as_hoisted_a, (1,), x, w, v, out, BM=BM, BN=BN, BK=BK, BD=BD, ND=ND, sm=90,
                    num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(out, want)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, 90)
    hoisted = [line for line in gpu_ir.splitlines() if "A written once before the loop" in line]
    cast = [line for line in gpu_ir.splitlines() if re.search(rf"= cast [^\n]*{BM}x{BN}xfp16", line)]
    assert len(hoisted) == 1 and cast, gpu_ir
    ptx = eg.emit_llvm(handle, 90, "ptx")
    wgmma_a_m_major = re.findall(r"wgmma\.mma_async[^;]*p, 1, 1, 1, [01];", ptx)
    stmatrix = len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4", ptx))
    if experiment in ("", "nostsmstage"):
        assert "M-major" in hoisted[0] and wgmma_a_m_major, hoisted
        assert "also read flat" not in cast[0], cast
        # d's fragments: BM * BN / (128 warps) 16 x 8 tiles a warp, two an instruction.
        assert stmatrix == (BM * BN // (128 * warps) // 2 if not experiment else 0), stmatrix
    else:
        assert "M-major" not in hoisted[0] and not wgmma_a_m_major and stmatrix == 0, hoisted
        assert ("also read flat" in cast[0]) == (experiment == "nostsmtrans"), cast


def test_trans_of_fragments_read_without_transpose_bit_is_caught(kernels, monkeypatch):
    """The emulation can fail: the hoisted M-major A of test_trans_of_fragments_hoisted_m_major
    read with wgmma's imm-trans-a of 0 (K-major) gives a different result (or reads bytes
    outside the tile that a later round trip overwrites while the wgmma is in flight)."""
    original = eg.emit_llvm
    counts = []

    def mutated(handle, sm, stage="llvm"):
        ll = original(handle, sm, stage)
        ll, count = re.subn(r"(wgmma\.mma_async[^\n]*p, 1, 1, )1, ", r"\g<1>0, ", ll)
        counts.append(count)
        return ll
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    rng = np.random.default_rng(89)
    BM = BN = 64
    BK = BD = 32
    x = rng.integers(-2, 3, (BM, BK)).astype(np.float16)
    w = rng.integers(-2, 3, (BK, BN)).astype(np.float16)
    v = rng.integers(-2, 3, (BM, 3 * BD)).astype(np.float16)
    d = (x.astype(np.float64) @ w.astype(np.float64) * 0.5).astype(np.float16).astype(np.float64)
    out = np.full((BN, 3 * BD), np.nan, dtype=np.float32)
    with pytest.raises((AssertionError, eg.EmulationFailed)):
        eg.run(kernels.trans_of_dot_as_hoisted_a, (1,), x, w, v, out, BM=BM, BN=BN, BK=BK, BD=BD, ND=3, sm=90,
               num_warps=4, num_stages=3)
        np.testing.assert_array_equal(out, d.T @ v.astype(np.float64))
    assert counts and counts[0] >= 1, counts  # the M-major A's wgmmas were mutated


@pytest.mark.parametrize("sm,warps", [(90, 4), (90, 8), (80, 4)])
def test_full_reduction_reads_fragments(kernels, monkeypatch, sm, warps):
    """A dot's block reduced whole (reshape to 1-D, then a reduction to a scalar) by an exact
    integer combine: by default (fragreduce) the reduction reads the fragments' registers as
    its elements (FragmentPlan::reduces_fragments) instead of the block's flat copy through
    shared memory (nofragreduce: two barriers more). Programs 1 and 3 are all small and
    return before their stores; 0 and 2 store the block and its largest element. Exact."""
    rng = np.random.default_rng(71)
    G, BM, BN, BK = 4, 64, 64, 32
    x = rng.integers(-3, 4, (G, BM, BK)).astype(np.float16)
    x[1] = 0
    x[3] = 0
    x[3, 5, 7] = 1  # one product of 1 * w: |acc| <= 3 < eps
    w = rng.integers(-3, 4, (BK, BN)).astype(np.float16)
    acc = np.einsum("gmk,kn->gmn", x.astype(np.float64), w.astype(np.float64))
    seen = {}
    for experiment in ("nofragreduce", "fragreduce"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((G, BM, BN), np.nan, dtype=np.float32)
        flags = np.full(G, -1, dtype=np.int32)
        handle = eg.run(kernels.filtered_block, (G,), x, w, out, flags, 3.5, BM=BM, BN=BN, BK=BK, sm=sm,
                        num_warps=warps, num_stages=1)
        for g in range(G):
            if g in (1, 3):
                assert np.isnan(out[g]).all() and flags[g] == -1, g
            else:
                np.testing.assert_array_equal(out[g], acc[g])
                assert flags[g] == int(acc[g].max()), (g, flags[g])
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 1, sm)
        ptx = handle._kernel.emit("ptx", handle.signature, warps, 1, sm)
        seen[experiment] = (gpu_ir, ptx.count("bar.sync"))
    compared = [line for line in seen["fragreduce"][0].splitlines() if re.search(r"= cmp [^\n]*xi1", line)]
    assert compared and not any("also read flat" in line for line in compared), compared
    assert any("also read flat" in line for line in seen["nofragreduce"][0].splitlines() if re.search(r"= cmp [^\n]*xi1", line))
    assert seen["fragreduce"][1] <= seen["nofragreduce"][1] - 2, (seen["fragreduce"][1], seen["nofragreduce"][1])


@pytest.mark.parametrize("sm,warps", [(90, 4), (90, 8), (80, 4)])
@pytest.mark.parametrize("trips", [1, 2])
def test_scaling_line_loaded_before_the_dot(kernels, monkeypatch, sm, warps, trips):
    """fla's chunk_scaled_dot_kkt_fwd_kernel: beta, loaded before the K loop, scales the dot's
    rows after it. Its line is computed again at the rows each thread holds (line_reloaded);
    by default (earlyline) right after its load, so its loads are issued before the dot's
    operands are staged and the dot issued (FragmentPlan::reloaded_early), not after the
    dot's wait (noearlyline). The masked A's flat copy for its store leaves its ending
    barrier pending (lazycopy): one barrier fewer than nolazycopy. Exact (small integers)
    against numpy every way, the last chunk masked."""
    rng = np.random.default_rng(61 + trips)
    BT, K = 64, 64
    BK = K // trips
    T = 2 * BT - 9
    k = rng.integers(-3, 4, (T, K)).astype(np.float16)
    beta = rng.integers(-2, 3, T).astype(np.float16)
    want = np.zeros((2 * BT, BT))
    for c in range(2):
        rows = np.arange(c * BT, min((c + 1) * BT, T))
        kc = k[rows].astype(np.float64)
        a = kc @ kc.T * beta[rows].astype(np.float64)[:, None]
        a = np.tril(a, -1)
        want[rows, :len(rows)] = a
    seen = {}
    # noelidebar: late_passes.h's elide_barriers would drop nolazycopy's barrier too (the
    # store after it touches no shared memory), hiding what lazycopy itself saves.
    for experiment in ("noearlyline,nolazycopy", "earlyline,nolazycopy", "earlyline,lazycopy"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment + ",noelidebar")
        out = np.full((2 * BT, BT), np.nan, dtype=np.float32)
        handle = eg.run(kernels.scaled_gram, (2,), k, beta, out, T, K=K, BT=BT, BK=BK, sm=sm, num_warps=warps,
                        num_stages=2)
        np.testing.assert_array_equal(out[:T], want[:T])
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 2, sm)
        ptx = handle._kernel.emit("ptx", handle.signature, warps, 2, sm)
        seen[experiment] = (gpu_ir, ptx)
    mma = "wgmma.mma_async" if sm == 90 else "mma.sync"
    for experiment, (gpu_ir, ptx) in seen.items():
        scaled = [line for line in gpu_ir.splitlines() if re.search(r"= broadcast [^\n]*64x64xfp32", line)]
        assert scaled and all("the line computed again at the rows" in line for line in scaled), gpu_ir
        early = experiment.startswith("earlyline")
        assert all(("early" in line.split("//")[1]) == early for line in scaled), scaled
        # beta's loads (16-bit) against the first dot instruction.
        beta_at = ptx.index("ld.global.b16")
        assert (beta_at < ptx.index(mma)) == early, experiment
    bars = {e: ptx.count("bar.sync") for e, (_, ptx) in seen.items()}
    assert bars["earlyline,lazycopy"] == bars["earlyline,nolazycopy"] - 1, bars


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 4), (90, 4, 2), (80, 4, 3)])
@pytest.mark.parametrize("late", [True, False])
def test_gathered_operand_rebased_and_made_in_slot(kernels, monkeypatch, sm, warps, stages, late):
    """cut-cross-entropy's backward: B's columns are classifier rows gathered through a loaded
    ordering and read down D (K-major), the pointer block carried and moved by BD. By default
    (rebaseload) rebase_pointers carries it as its initial block plus a scalar offset although
    that block is not recomputable (the body only loads a dot operand through it), so the
    loop's load is made in its slot like the prologue's: each thread copies its own runs
    (norebaseload: the loop's load left to the threads holding each run's first element, 32
    copies each where Triton's layout gives every thread 4). Exact both ways."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    rng = np.random.default_rng(53)
    BB, BV, BD, D, V = 64, 64, 32, 160, 128
    e = rng.integers(-3, 4, (BB, D)).astype(np.float16)
    c = rng.integers(-3, 4, (V, D)).astype(np.float16)
    order = rng.permutation(V).astype(np.int32)
    want = e.astype(np.float64) @ c[order].astype(np.float64).T
    seen = {}
    for experiment in ("norebaseload", "rebaseload"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((BB, V), np.nan, dtype=np.float32)
        handle = eg.run(kernels.gathered_rows_matmul, (V // BV,), e, c, order, out, D, V, BB=BB, BV=BV, BD=BD, sm=sm,
                        num_warps=warps, num_stages=stages)
        np.testing.assert_array_equal(out, want)
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
        seen[experiment] = [line for line in gpu_ir.splitlines() if "= load" in line and f"block<{BD}x{BV}xfp16" in line]
    assert len(seen["rebaseload"]) == stages, seen  # stages - 1 before the loop, one in it
    assert all("each thread its own runs" in line for line in seen["rebaseload"]), seen["rebaseload"]
    assert any("by the threads holding each run's first element" in line for line in seen["norebaseload"]), seen


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2), (90, 8, 3), (80, 1, 2)])
@pytest.mark.parametrize("prefetch", ["1", "0"])
def test_block_table_line_held_in_slot(kernels, monkeypatch, sm, warps, stages, prefetch):
    """vLLM's unified attention (paged_unified): the block-table line `block` reaches K's
    addresses as `block[None, :]` (into K's slot) and V's as `block[:, None]` (into V's
    layout), which hold the same tokens in each thread. By default (lineslot) the line is
    loaded in that layout, each thread its own entries (one load per page: 16 tokens share
    an entry), carried so through the loop that prefetches it (TRITIUM_PREFETCH_INDICES), and
    both broadcasts are register moves (gpu/coalesce.cpp's lines_in_slot); nolineslot moves
    the flat line through shared memory for each (2 barriers each). Exact against numpy both
    ways; the loop meets at least 3 barriers fewer by default."""
    monkeypatch.setenv("TRITIUM_PREFETCH_INDICES", prefetch)
    BM, D, BN, PBS, ctx_len = 16, 64, 32, 16, 150
    q, k_cache, v_cache, table, want = paged_unified_inputs(31, BM, D, BN, PBS, ctx_len)
    seen = {}
    for experiment in ("nolineslot", "lineslot"):
        monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
        out = np.full((BM, D), np.nan, dtype=np.float32)
        handle = eg.run(kernels.paged_unified, (1,), q, k_cache, v_cache, table, out, ctx_len, PBS * D, D, PBS * D, D,
                        BM=BM, D=D, BN=BN, PBS=PBS, sm=sm, num_warps=warps, num_stages=stages)
        np.testing.assert_array_equal(out, want)
        gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
        ptx = handle._kernel.emit("ptx", handle.signature, warps, stages, sm)
        body = ptx[ptx.rindex("$L__BB0_", 0, ptx.index("mma.sync")):]  # from the loop body's label
        seen[experiment] = (gpu_ir, body.count("bar.sync"))
    plain_ir, plain_bar = seen["nolineslot"]
    slot_ir, slot_bar = seen["lineslot"]
    assert "slot_carried" not in plain_ir and "linear<" not in plain_ir, plain_ir
    line_loads = [line for line in slot_ir.splitlines() if re.search(r"= load [^\n]*: block<32xi32", line)]
    assert line_loads and all("linear<" in line for line in line_loads), line_loads
    if warps == 4:
        # Lanes 3 and 4 and the warps hold the tokens (K's slot: 8 lanes down D), 2 a thread.
        assert all("linear<reg = [16], lane = [0, 0, 0, 1, 2], warp = [4, 8]>" in line for line in line_loads), line_loads
    assert ("slot_carried" in slot_ir) == (prefetch == "1"), slot_ir
    from_line = [line for line in slot_ir.splitlines() if re.search(r"= broadcast %\w+ [^\n]*xptr<fp16>", line)]
    assert from_line and not any("shared_offsets" in line for line in from_line), from_line
    # (-2 at sm_80, 1 warp, 2 stages, where elide_barriers also drops one of nolineslot's)
    assert slot_bar <= plain_bar - (2 if (sm, warps, stages) == (80, 1, 2) else 3), (slot_bar, plain_bar)


@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (80, 4, 2)])
def test_query_masked_softmax_stays_in_fragments(kernels, sm, warps, stages):
    """vLLM's unified attention at BLOCK_M 16: S masked by `qm_a[:, None] & qm_b[:, None] &
    seq_mask` (each side computable from the element index within the budget, the two
    together not) stays in the dot's fragments through the softmax (the fragment plan had
    dropped the mask's `and`, and with it S, the reductions and the accumulator's rescale to
    the flat layout: round trips through shared memory every iteration), and `tl.dot(p, v) /
    1.0` added to the accumulator folds into the dot (fold_constants, combine_dot_add).
    Against numpy at bf16-of-P precision."""
    rng = np.random.default_rng(28)
    BM, D, BN, n, qlen, qstart, hoff = 16, 64, 32, 80, 3, 0, 4
    q = rng.integers(-2, 3, (BM, D)).astype(np.float16)
    k = rng.integers(-2, 3, (-(-n // BN) * BN, D)).astype(np.float16)
    v = rng.integers(-2, 3, (-(-n // BN) * BN, D)).astype(np.float16)
    out = np.full((BM, D), np.nan, dtype=np.float32)
    handle = eg.run(kernels.query_masked_attention, (1,), q, k, v, out, n, qlen, qstart, hoff, BM=BM, D=D, BN=BN,
                    P_SCALE=1.0, sm=sm, num_warps=warps, num_stages=stages)
    rm = np.arange(BM)
    qpos = qstart + rm // 4
    rows = (qpos < qlen) & (hoff + rm % 4 < 7)
    s = 0.5 * q.astype(np.float64) @ k[:n].astype(np.float64).T
    s[~((np.arange(n)[None, :] < n - qlen + qpos[:, None] + 1) & rows[:, None])] = -np.inf
    live = rows.nonzero()[0]  # the other rows are 0 / 0, as in vLLM's kernel (never stored there)
    p = np.exp(s[live] - s[live].max(1, keepdims=True))
    np.testing.assert_allclose(out[live], (p / p.sum(1, keepdims=True)) @ v[:n].astype(np.float64), rtol=2e-2, atol=2e-2)
    assert np.isnan(out[~rows]).all()
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, stages, sm)
    selects = [line for line in gpu_ir.splitlines() if " = select " in line and f"block<{BM}x{BN}xfp32" in line]
    assert selects and all("fragments" in line for line in selects), selects
    assert sum(" = div " in line and f"block<{BM}x{D}xfp32" in line for line in gpu_ir.splitlines()) == 1, gpu_ir


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 1)])
def test_paged_cache_read_without_a_dot(kernels, sm, warps):
    """The paged K read of test_paged_cache_read_along_head_dim in a kernel without a dot:
    its offsets computed in the access's layout, the loaded tile converted back for the
    sum. Exact."""
    rng = np.random.default_rng(25)
    D, BN, PBS, X, blocks, ctx_len = 64, 32, 16, 8, 9, 77
    k_cache = rng.integers(-4, 5, (blocks, D // X, PBS, X)).astype(np.float16)
    table = rng.permutation(blocks).astype(np.int32)
    out = np.full((D, BN), np.nan, dtype=np.float32)
    handle = eg.run(kernels.paged_sum, (1,), k_cache, table, out, ctx_len, D * PBS, PBS * X, D=D, BN=BN, PBS=PBS,
                    X=X, sm=sm, num_warps=warps)
    tiles = -(-ctx_len // BN) * BN
    t = np.arange(tiles)
    k = k_cache[table[t // PBS], :, t % PBS, :].reshape(tiles, D).astype(np.float64)
    k[t >= ctx_len] = 0
    np.testing.assert_array_equal(out, k.reshape(tiles // BN, BN, D).sum(0).T)
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 3, sm)
    assert any("= load" in line and "spt = [8, 1]" in line for line in gpu_ir.splitlines()), gpu_ir


@pytest.mark.parametrize("sm,warps", [(90, 4), (80, 1), (90, 8)])
def test_sort_and_flip_exchange_without_reductions(kernels, sm, warps):
    """tl.sort, tl.topk and tl.flip through the `flip` op: each exchange of the bitonic network
    a register move, a warp shuffle or (across warps) one shared-memory round trip, where
    Triton's language reduces and broadcasts back (liger's MoE router sort: 91 barriers ->
    8). Exact against numpy, with duplicates and negative values."""
    rng = np.random.default_rng(26)
    N, R, C, K = 1024, 32, 32, 16
    x = rng.integers(-50, 50, N).astype(np.int32)
    sorted_, top = np.zeros(N, np.int32), np.zeros(K, np.int32)
    rows, cols = np.zeros((R, C), np.int32), np.zeros((R, C), np.int32)
    handle = eg.run(kernels.sort_and_flip, (1,), x, sorted_, top, rows, cols, N=N, R=R, C=C, K=K, sm=sm,
                    num_warps=warps)
    np.testing.assert_array_equal(sorted_, np.sort(x))
    np.testing.assert_array_equal(top, np.sort(x)[::-1][:K])
    y = x[:R * C].reshape(R, C)
    np.testing.assert_array_equal(rows, y[::-1, :])
    np.testing.assert_array_equal(cols, y[:, ::-1])
    gpu_ir = handle._kernel.emit("gpu-ir", handle.signature, warps, 3, sm)
    lines = gpu_ir.splitlines()
    flips = [line for line in lines if "= flip" in line]
    assert len(flips) >= 55, len(flips)  # sort's 55 exchanges at least
    # Only the exchanges along warp bits go through shared memory.
    through_shared = sum("shared_offsets" in line for line in flips)
    assert through_shared < len(flips) // 2, (through_shared, len(flips))
    assert all("xor_sum" not in line for line in lines)


@pytest.mark.parametrize("head_dim,block_m,warps,copies", [(64, 128, 8, "pv"), (64, 64, 4, "pv"), (128, 128, 8, "pv"),
                                                           (64, 128, 8, "")])
def test_benchmark_attention_keeps_p_v_in_flight(monkeypatch, head_dim, block_m, warps, copies):
    """benchmarks/kernels_attention.py's causal forward as bench_attention.py launches it (3
    stages, BLOCK_N 64), with TRITIUM_INFLIGHT_COPIES=pv (opt-in): P.V stays in flight into
    the next iteration of both loops (the off-band one and the diagonal band's), retired by
    the next Q.Kᵀ's wait_group 0, which hands its accumulators over (async_copy.cpp's
    last_dot_in_flight); K and V take a fourth buffer (d=64, 128 x 64) or are copied after it
    (64 x 64 at 4 warps, d=128). The emulator tags in-flight accumulators as NaN until a wait
    retires them and checks that no buffer a wgmma still reads is overwritten. Against
    float64 numpy; "" (the knob unset) is the default, every dot waited for at once."""
    monkeypatch.delenv("TRITIUM_INFLIGHT_COPIES", raising=False)
    if copies:
        monkeypatch.setenv("TRITIUM_INFLIGHT_COPIES", copies)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
    try:
        import kernels_attention
    finally:
        sys.path.pop(0)
    fn = kernels_attention.load("tritium").attn_fwd
    rng = np.random.default_rng(5)
    n = 3 * block_m  # three query blocks: none, one and two off-band iterations of 64 x (block_m / 64)
    q, k, v = (rng.standard_normal((1, 1, n, head_dim)).astype(np.float16) for _ in range(3))
    out = np.full_like(q, np.nan)
    scale = head_dim ** -0.5
    handle = eg.run(fn, (n // block_m, 1), q, k, v, out, scale, n * head_dim, n * head_dim, head_dim, 1, n,
                    HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=64, STAGE=3, sm=90, num_warps=warps, num_stages=3)
    s = (q[0, 0].astype(np.float64) @ k[0, 0].astype(np.float64).T) * scale
    s[np.triu_indices(n, 1)] = -np.inf
    p = np.exp(s - s.max(1, keepdims=True))
    want = (p / p.sum(1, keepdims=True)) @ v[0, 0].astype(np.float64)
    np.testing.assert_allclose(out[0, 0].astype(np.float64), want, atol=2e-2, rtol=0)
    ll = eg.emit_llvm(handle, 90)
    assert ll.count("wgmma.wait_group.sync.aligned 1") == (2 if copies else 0)


def test_wrapped_tensors_are_found_and_not_compared():
    """A library's wrapper that launches by data_ptr() alone (triton_kernels' Tensor over
    .storage.data) has its torch tensor's storage saved and restored; a stand-in with a
    storage but no is_floating_point (FlagGems' StridedBuffer) is not compared."""
    torch = pytest.importorskip("torch")
    base = torch.arange(12, dtype=torch.float32)

    class Storage:
        def __init__(self, data):
            self.data = data

    class Wrapper:
        def __init__(self, data):
            self.storage = Storage(data)

        def data_ptr(self):
            return self.storage.data.data_ptr()

    view = base[4:]
    assert eg._storage(Wrapper(view)) == (base.untyped_storage().data_ptr(), 48)

    class Opaque:  # an address and nothing that holds it
        def data_ptr(self):
            return base.data_ptr()
    with pytest.raises(eg.NotEmulated, match="pointer argument of type Opaque"):
        eg._storage(Opaque())

    class StridedLike:
        def __init__(self, t):
            self.t = t

        def untyped_storage(self):
            return self.t.untyped_storage()
    assert eg._tensor_args([StridedLike(base), base, 3]) == [(1, base)]


# ---- TMA: host tensor descriptors on sm_90 ----

def bf16_bits(x):
    """Values rounded to bfloat16 (to nearest, ties to even), as uint16 bits."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def typed(array, dtype):
    """A numpy array as the kernel's `dtype` ("bf16": uint16 bits seen as tl.bfloat16)."""
    import tritium
    import tritium.language as tl
    return tritium.reinterpret(array, tl.bfloat16) if dtype == "bf16" else array


def check_tma_copy(kernels, dtype, BM, BN, warps):
    """Runs tma_copy on a 100 x 70 tensor in rows of 80 elements, its blocks SHIFT = 8
    rows and columns off the program grid; asserts what reaches big_desc and clip_desc."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    rng = np.random.default_rng(13)
    rows, cols, shift, pitch = 100, 70, 8, 80
    x = np.zeros((rows + 1, pitch), dtype)  # a row and 10 columns past the tensor
    x[:rows, :cols] = rng.integers(-50, 51, (rows, cols))
    grid = (-(-(rows + shift) // BM), -(-(cols + shift) // BN))
    big = np.full((grid[0] * BM, grid[1] * BN), 99, dtype)
    clip = np.full((rows + 1, pitch), 99, dtype)
    flat = np.full_like(big, 99)
    descs = [TensorDescriptor(x, [rows, cols], [pitch, 1], [BM, BN]), TensorDescriptor.from_tensor(big, [BM, BN]),
             TensorDescriptor(clip, [rows, cols], [pitch, 1], [BM, BN])]
    handle = eg.run(kernels.tma_copy, grid, *descs, flat, SHIFT=shift, BM=BM, BN=BN, sm=90, num_warps=warps)
    done = (x[:rows, :cols] * 2 + 1).astype(dtype)
    want = np.ones_like(big)  # zeros read outside the tensor, doubled plus one
    want[shift:shift + rows, shift:shift + cols] = done
    np.testing.assert_array_equal(flat, want)
    np.testing.assert_array_equal(big, want)
    want = np.full_like(clip, 99)  # nothing written outside the tensor
    want[:rows, :cols] = done
    np.testing.assert_array_equal(clip, want)
    return handle


@pytest.mark.parametrize("dtype,BM,BN,warps", [(np.float16, 64, 64, 4), (np.float32, 32, 64, 4), (np.int8, 64, 32, 2),
                                               (np.float16, 16, 32, 1)])
def test_tma_copy_across_the_tensor_edges(kernels, dtype, BM, BN, warps):
    """A host descriptor's block loads and stores on sm_90 are TMA copies through a swizzled
    tile in shared memory (rows of 128, 256, 32 and 64 bytes: the 128-byte swizzle, two column
    blocks of it, the 32- and the 64-byte one); the emulator's tensor maps are the launcher's.
    A block crossing the tensor's edges (negative coordinates too) reads zeros outside it and
    writes only inside it."""
    handle = check_tma_copy(kernels, dtype, BM, BN, warps)
    ll = eg.emit_llvm(handle, 90)
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ll and "cp.async.bulk.tensor.2d.global.shared::cta" in ll


def check_tma_matmul(kernels, dtype, BM, BN, BK, warps, stages, b_t, ksteps=3):
    """Runs tma_matmul with M, N and K past whole blocks (K = ksteps * BK - 16) on small
    integers (exact sums) and asserts C, rounded to its type, and that C's row padding and
    the row after it are untouched."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    rng = np.random.default_rng(14)
    M, N, K = BM + 40, BN + 24, ksteps * BK - 16
    a = rng.integers(-2, 3, (M, K)).astype(np.float32)
    b = rng.integers(-2, 3, (K, N)).astype(np.float32)
    bits = bf16_bits if dtype == "bf16" else (lambda v: np.asarray(v, np.float16))
    c = np.full((M + 1, N + 8), 0x7fff, np.uint16).view(np.float16) if dtype == "fp16" else \
        np.full((M + 1, N + 8), 0x7fff, np.uint16)
    b_stored = np.ascontiguousarray(b.T) if b_t else b
    descs = [TensorDescriptor.from_tensor(typed(bits(a), dtype), [BM, BK]),
             TensorDescriptor.from_tensor(typed(bits(b_stored), dtype), [BN, BK] if b_t else [BK, BN]),
             TensorDescriptor(typed(c, dtype), [M, N], [N + 8, 1], [BM, BN])]
    handle = eg.run(kernels.tma_matmul, (-(-M // BM), -(-N // BN)), *descs, K, B_T=b_t, BM=BM, BN=BN, BK=BK, sm=90,
                    num_warps=warps, num_stages=stages)
    want = np.full(c.shape, 0x7fff, np.uint16)
    want[:M, :N] = bits(a.astype(np.float64) @ b).view(np.uint16)
    np.testing.assert_array_equal(c.view(np.uint16), want)
    return handle


@pytest.mark.parametrize("dtype,BM,BN,BK,warps,stages,b_t,late", [
    ("fp16", 64, 64, 64, 4, 3, False, True), ("fp16", 64, 64, 64, 4, 3, False, False),
    ("bf16", 128, 64, 32, 8, 3, True, True), ("fp16", 64, 128, 32, 4, 2, True, True),
    ("bf16", 64, 32, 64, 4, 4, False, True)])
def test_tma_matmul_on_wgmma(kernels, monkeypatch, dtype, BM, BN, BK, warps, stages, b_t, late):
    """tl.dot of host-descriptor operands on sm_90: the pipelined loop's TMA copies (A, and B
    as it is or Bᵀ held K-major) complete on the stage buffers' mbarriers, each wait on the
    parity of its buffer's round; wgmma reads the swizzled tiles through its descriptors; C
    goes out with a TMA store. The K tail is the TMA's zero fill, C's edge blocks are
    clipped. Copies land at their wait (late) or at issue (an overwrite of a buffer a wgmma
    still reads shows)."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    handle = check_tma_matmul(kernels, dtype, BM, BN, BK, warps, stages, b_t)
    ll = eg.emit_llvm(handle, 90)
    assert "wgmma.mma_async" in ll and "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;" in ll
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ll and "cp.async.cg" not in ll


@pytest.fixture(scope="module")
def tutorials():
    """Triton's attention (06) and persistent matmul (09) tutorials as tests/python runs
    them (tests/python/triton_programs, `triton` resolving to tritium while they import)."""
    import importlib
    import tritium
    from tritium import triton_alias
    programs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "triton_programs")
    if not tritium.use_as_triton(quiet=True):
        pytest.skip("a real triton is imported in this process")
    sys.path.insert(0, programs)
    try:
        yield {n: importlib.import_module(f"tutorial_{n}") for n in ("06_fused_attention", "09_persistent_matmul")}
    finally:
        sys.path.remove(programs)
        triton_alias.stop_using_as_triton()


def run_tutorial_attention(t6, BM, BN, warps, stages, causal):
    """The tutorial's forward with host descriptors (Q, K, V, O over [Z * H * N_CTX, D]) at
    one of its configs, the block shapes its pre_hook would set; against float64 numpy."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    rng = np.random.default_rng(15)
    Z, H, N, D = 1, 2, 128, 64
    q, k, v = (rng.standard_normal((Z, H, N, D)).astype(np.float16) * 0.5 for _ in range(3))
    o = np.full_like(q, np.nan)
    lse = np.zeros((Z, H, N), np.float32)
    descs = [TensorDescriptor(t.reshape(Z * H * N, D), [Z * H * N, D], [D, 1], [rows, D])
             for t, rows in ((q, BM), (k, BN), (v, BN), (o, BM))]
    scale = D ** -0.5
    handle = eg.run(t6.attention_forward.fn, (N // BM, Z * H, 1), scale, lse, Z, H, *descs, N, HEAD_DIM=D, BLOCK_M=BM,
                    BLOCK_N=BN, FP8_OUTPUT=False, STAGE=3 if causal else 1, warp_specialize=False, sm=90,
                    num_warps=warps, num_stages=stages)
    s = np.einsum("zhnd,zhmd->zhnm", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        s = np.where(np.tril(np.ones((N, N), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(o.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64), atol=2e-3,
                               rtol=0)
    return handle


@pytest.mark.parametrize("BM,BN,warps,stages,causal", [(64, 64, 4, 2, True), (128, 64, 8, 3, False)])
def test_tutorial_attention_with_host_descriptors(tutorials, BM, BN, warps, stages, causal):
    """Triton's attention tutorial as bench_tutorial_attention.py runs it, on tritium's TMA
    path: Q a TMA block load, K (read transposed) and V the key loop's TMA copies (both
    loops of the causal form), O a TMA store; four tensor maps."""
    handle = run_tutorial_attention(tutorials["06_fused_attention"], BM, BN, warps, stages, causal)
    ll = eg.emit_llvm(handle, 90)
    assert len(eg._map_params(ll)) == 4 and "wgmma.mma_async" in ll


@pytest.mark.parametrize("case", ["transpose", "attention"])
def test_tma_block_load_mbarrier_outlives_its_barrier(kernels, tutorials, case):
    """A TMA block load outside a loop retires its mbarrier (thread 0's inval) before the
    next shared-memory user (a transpose's round trip, the attention key loop's cp.async
    stage buffers from byte 0) may store over its 8 bytes: writing them while it is valid is
    undefined in PTX. The emulator runs an inval as late as the other threads allow and
    fails with "overwritten while live" when their stores come first (emit_tma_load had no
    barrier after the inval before session 29)."""
    if case == "attention":
        run_tutorial_attention(tutorials["06_fused_attention"], 32, 32, 4, 2, True)
        return
    from tritium.tools.tensor_descriptor import TensorDescriptor
    x = np.ones((16, 32), np.float16)
    y = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.zeros((64, 64), np.float32)
    eg.run(kernels.tma_load_then_transpose, (1,), TensorDescriptor.from_tensor(x, [16, 32]), y, out, BM=16, BN=32,
           sm=90, num_warps=4)
    np.testing.assert_array_equal(out, y.T + 16 * 32)


@pytest.mark.parametrize("subtile", [False, True])
def test_tutorial_persistent_matmul_with_host_descriptors(tutorials, subtile):
    """Tutorial 09's matmul_tma_persistent: two programs walk four output tiles each in
    grouped order, A and Bᵀ TMA copies in the K loop, C one TMA store a tile (or two of half
    its columns, EPILOGUE_SUBTILE); the tensor maps stay the same across tiles."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    t9 = tutorials["09_persistent_matmul"]
    rng = np.random.default_rng(16)
    M, N, K, BM, BN, BK = 128, 256, 96, 64, 64, 32
    a = rng.integers(-2, 3, (M, K)).astype(np.float16)
    bt = rng.integers(-2, 3, (N, K)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    descs = [TensorDescriptor(a, [M, K], [K, 1], [BM, BK]), TensorDescriptor(bt, [N, K], [K, 1], [BN, BK]),
             TensorDescriptor(c, [M, N], [N, 1], [BM, BN // 2 if subtile else BN])]
    eg.run(t9.matmul_tma_persistent.fn, (2,), *descs, M, N, K, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
           GROUP_SIZE_M=4, EPILOGUE_SUBTILE=subtile, NUM_SMS=2, FLATTEN=False, WARP_SPECIALIZE=False, sm=90,
           num_warps=4, num_stages=3)
    np.testing.assert_array_equal(c, (a.astype(np.float64) @ bt.T.astype(np.float64)).astype(np.float16))


def flip_parity(ll):
    """The pipelined waits' parity operand made 1 - parity (an off-by-one round)."""
    out = []
    for line in ll.splitlines():
        m = re.search(r'mbarrier\.try_wait\.parity\.shared::cta\.b64 p, \[\$0\], \$1;[^"]*", "r,r"'
                      r'\(i32 .*, i32 (%[\w.]+|\d)\)', line)
        if m and m.group(1).startswith("%"):
            flipped = f"%flipped.{len(out)}"
            out.append(f"  {flipped} = xor i32 {m.group(1)}, 1")
            line = line[:m.start(1)] + flipped + line[m.end(1):]
        elif m:
            line = line[:m.start(1)] + str(1 - int(m.group(1))) + line[m.end(1):]
        out.append(line)
    return "\n".join(out) + "\n"


def corrupt_runtime(tmp_path, right, wrong):
    """emu_runtime.c with `right` made `wrong`."""
    with open(eg.RUNTIME_C) as f:
        source = f.read()
    assert right in source
    path = tmp_path / "emu_runtime.c"
    path.write_text(source.replace(right, wrong))
    return str(path)


@pytest.mark.parametrize("mutation", ["swizzle", "emulator_parity", "parity", "no_arrive", "unaligned", "overrun"])
def test_tma_mistakes_are_caught(kernels, monkeypatch, tmp_path, mutation):
    """Each TMA test can fail: an emulator whose swizzle is not the hardware's gives wrong
    results (the copy's tile and wgmma's operands disagree with tritium's reads), one whose
    waits pass on the wrong parity reads tiles before they land; tritium IR
    waiting on the wrong parity passes the first round before its copies land (a GPU would
    read stale bytes) and arrives again on a phase still waiting for them; IR without the
    stage's arrive never completes a phase: a deadlock, reported at once; a copy to an address
    off 128 bytes or past the kernel's shared memory fails the launch."""
    original = eg.emit_llvm
    edits = {
        "parity": flip_parity,
        "no_arrive": lambda ll: re.sub(r"@p mbarrier\.arrive\.expect_tx\.shared::cta\.b64 state, \[\$\d\], \d+;\\0A",
                                       "", ll),
        "unaligned": lambda ll: "\n".join(
            line.replace("i32 ptrtoint (ptr addrspace(3) @__tritium_shared to i32)",
                         "i32 add (i32 ptrtoint (ptr addrspace(3) @__tritium_shared to i32), i32 64)")
            if "cp.async.bulk.tensor.2d.shared::cluster" in line else line for line in ll.splitlines()) + "\n",
        "overrun": lambda ll: re.sub(r"^(!\d+ = !\{i64 )\d+\}", r"\g<1>4096}", ll, flags=re.M),
    }

    def mutated(handle, sm, stage="llvm"):
        ll = original(handle, sm, stage)
        if stage != "llvm" or mutation not in edits:
            return ll
        changed = edits[mutation](ll)
        assert changed != ll
        return changed
    monkeypatch.setattr(eg, "emit_llvm", mutated)
    monkeypatch.setattr(eg, "_BUILT", {})
    if mutation == "swizzle":  # the row bits taken one bit too high
        monkeypatch.setattr(eg, "RUNTIME_C", corrupt_runtime(tmp_path, "at ^ (((at >> 7) & (swizzle / 16 - 1)) << 4)",
                                                             "at ^ (((at >> 8) & (swizzle / 16 - 1)) << 4)"))
        with pytest.raises(AssertionError):
            check_tma_copy(kernels, np.float16, 64, 64, 4)
        with pytest.raises(AssertionError):
            check_tma_matmul(kernels, "fp16", 64, 64, 64, 4, 3, True)
        return
    if mutation == "emulator_parity":  # a wait passing while the phase of its parity is under way
        monkeypatch.setattr(eg, "RUNTIME_C", corrupt_runtime(tmp_path, "while ((int)(b->phase & 1) == parity) {",
                                                             "while ((int)(b->phase & 1) != parity) {"))
        with pytest.raises((AssertionError, eg.EmulationFailed)):
            check_tma_copy(kernels, np.float16, 64, 64, 4)
        with pytest.raises((AssertionError, eg.EmulationFailed)):
            check_tma_matmul(kernels, "fp16", 64, 64, 64, 4, 3, False, ksteps=8)
        return
    expected = {"parity": "more arrivals than its phase expects", "no_arrive": "deadlock at an mbarrier wait",
                "unaligned": "shared address 64 is not 128-byte aligned",
                "overrun": "overrun the kernel's 4096 bytes of shared memory"}[mutation]
    with pytest.raises(eg.EmulationFailed, match=expected):
        if mutation in ("parity", "no_arrive"):
            check_tma_matmul(kernels, "fp16", 64, 64, 64, 4, 3, False, ksteps=8)
        else:
            check_tma_copy(kernels, np.float16, 64, 64, 4)


def run_row_sum_atomic_loop(kernels, H, seed):
    """mamba's dB loop in small (row_sum_atomic_loop: 64x128x64, 4 warps, sm_90, 3 stages)
    over H iterations, exact against numpy (small integers, power-of-two scales): its PTX."""
    rng = np.random.default_rng(seed)
    BM, BN, BK = 64, 128, 64
    x = rng.integers(-2, 3, (max(H, 1), BM, BK)).astype(np.float32)
    s = rng.integers(-2, 3, (max(H, 1), BK, BN)).astype(np.float32)
    sc = (2.0 ** rng.integers(-1, 2, (max(H, 1), BM))).astype(np.float32)
    b = rng.integers(-3, 4, (BM, BN)).astype(np.float32)
    bf = lambda a: typed(bf16_bits(a), "bf16")  # exact: small integers
    acc = np.full((BM, BN), np.nan, dtype=np.float32)
    dd = np.zeros(max(H, 1) * BM + 1, dtype=np.float32)
    handle = eg.run(kernels.row_sum_atomic_loop, (1,), bf(x), bf(s), sc, bf(b), acc, dd, H, BM=BM, BN=BN, BK=BK,
                    sm=90, num_warps=4, num_stages=3)
    db = (x.astype(np.float64) @ s) * sc[:, :, None]  # exact in fp32
    want_dd = np.zeros_like(dd)
    if H:
        sums = (db * b).sum(2)
        for h in range(H):
            want_dd[h * BM + 1:h * BM + BM] = sums[h, :BM - 1]
    np.testing.assert_array_equal(acc, db.sum(0) if H else np.zeros((BM, BN)))
    np.testing.assert_array_equal(dd, want_dd)
    return eg.emit_llvm(handle, 90, "ptx")


@pytest.mark.parametrize("late,early", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("H", [0, 3])
def test_row_sum_round_trip_in_a_pipelined_loop(kernels, monkeypatch, late, early, H):
    """mamba's dB loop (64x128x64, 4 warps, sm_90): the row sums of the scaled dot go to the
    atomic's flat layout through shared memory, a guard's blocks (the writers' stores, the
    owners' loads) between the scaling and `acc += db`. With the late passes (late_passes.h,
    experiments hoistfadd and elidebar, the defaults) acc += db is one fma an element as
    Triton's (126 fma.rn: 62 in the row sums, 64 there; 62 without), and the barrier that
    ends the round trip of the row sums in the loop is gone, the next barrier (the pipelined
    loop's wait at the top of the body, or at its exit) covering it: 6 bar.sync instead of 7.
    b's fragment copy is made before the prologue's copies, in their bytes (experiment
    earlyinv, the default): its ending barrier orders its reads before them and stays; under
    noearlyinv it comes after the prologue, above the stage buffers, and its ending barrier
    goes too (5). Same results either way, also without an iteration."""
    experiments = ([] if late else ["nohoistfadd", "noelidebar"]) + ([] if early else ["noearlyinv"])
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", ",".join(experiments))
    ptx = run_row_sum_atomic_loop(kernels, H, 35)
    assert ptx.count("fma.rn.f32") == (126 if late else 62), ptx.count("fma.rn.f32")
    assert ptx.count("bar.sync") == (7 if not late else 6 if early else 5), ptx.count("bar.sync")


@pytest.mark.parametrize("rot", [True, False])
@pytest.mark.parametrize("H", [0, 1, 4])
def test_proxy_fence_rotated_before_the_atomics(kernels, monkeypatch, rot, H):
    """mamba's dB loop in small (64x128x64, 4 warps, sm_90, 3 stages): the pipeline's wait and
    proxy fence at the top of the body move back over the backedge to just before the row sums'
    atomics (late_passes.h's rotate_proxy_fences, experiment fencerot, the default), with a copy
    ahead of the loop, so the fence's membar no longer waits for the previous iteration's
    atomics. The copies land at the wait that retires them (the emulator's DEFER_COPIES): a
    wait that retired too little would feed the wgmma stale stages. Same results either way,
    with no iteration, one (a constant: no loop), and more than the stages."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "" if rot else "nofencerot")
    ptx = run_row_sum_atomic_loop(kernels, H, 37)
    fence = "fence.proxy.async.shared::cta;"
    # Ahead of the loop and before the atomics with fencerot; at the top of the body without.
    # H = 1 is specialized (a constant): the one-trip loop is its body, with one fence.
    moved = rot and H != 1
    assert ptx.count(fence) == (2 if moved else 1), ptx.count(fence)
    before_atom = ptx[:ptx.index("atom.global")]
    assert (fence in before_atom[before_atom.rindex("bar.sync"):]) == moved


def stores_before_fences(ptx):
    """How many st.global a proxy fence comes after with only shared-memory accesses, cp.async
    waits and arithmetic between them (the stores its membar waits for)."""
    lines = [l.strip() for l in ptx.splitlines() if l.strip() and not l.strip().startswith("//")]
    count = 0
    for i, line in enumerate(lines):
        if not line.startswith("fence.proxy.async"):
            continue
        for prev in reversed(lines[:i]):
            if re.match(r"(@%p\d+ )?st\.global", prev):
                count += 1
            elif prev.endswith(":") or re.match(r"(@%p\d+ )?(bar\.|ld\.global|ld\.param|cp\.async\.cg|fence|membar|"
                                                r"atom|red\.|wgmma|@%p\d+ bra|bra)", prev):
                break
    return count


@pytest.mark.parametrize("sink", [True, False])
@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("V", [32, 64])
def test_state_stores_sunk_past_proxy_fences(kernels, monkeypatch, sink, late, V):
    """fla's state recurrence at K = 128 on sm_90, 4 warps, 3 stages: each chunk's state is
    stored to global memory and staged by stmatrix for the next dots, whose proxy fence came
    after the stores (its membar waiting for them). With fencesink (late_passes.h's
    sink_stores_past_fences, the default) the stores move to just after the fence; without,
    V / 8 of them stay before one (4 of 6 at V = 32, 8 of 12 at V = 64). Exact against numpy
    both ways, copies landing at their wait or at issue."""
    monkeypatch.setattr(eg, "DEFER_COPIES", late)
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "" if sink else "nofencesink")
    BT, T = 64, 3 * 64 + 20
    w, k, v = state_inputs(37, 128, V, T)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    handle = eg.run(kernels.state_recurrence_two_blocks, (1,), k, v, w, vn, h, T, V=V, BT=BT, sm=90,
                    num_warps=4, num_stages=3)
    check_state_recurrence(k, v, w, h, vn, BT)
    ptx = eg.emit_llvm(handle, 90, "ptx")
    before = stores_before_fences(ptx)
    assert (before == 0) if sink else (before > 0), before
    assert ptx.count("st.global") > 0

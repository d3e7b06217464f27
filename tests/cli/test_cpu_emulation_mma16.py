"""fp16/bf16 tensor-core matmuls on the host: test_cpu_emulation.py's driver (each thread of the
CTA a host thread) with the inline PTX of the kernel made calls of emu_tensor_core.c: ldmatrix
(x1/x2/x4, .trans) and mma.sync m16n8k16 (f16/bf16, f32 or f16 accumulators) exchange the warp's
registers through per-warp slots between two warp barriers, as the PTX ISA lays the fragments
out; wgmma (test_cpu_emulation_wgmma.py) decodes its shared-memory matrix descriptors. Every
asm statement's operands go to the C function through 8-byte slots, by an IR wrapper made
for its signature (asm_as_calls). cp.async copies either at once or at the wait_group that
retires it (EMU_DEFER_COPIES: the two ends of the time a GPU may take), shared memory starts
as 0x7f bytes (NaN in f16 and fp8), so an element read before it is written shows. Inputs are
small integers, exact in every format and in the sums, so results must equal numpy's exactly.
The unpipelined row-major cases are code the GPU has verified: they check the emulation."""

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import textwrap

import numpy as np
import pytest

import test_cpu_emulation as emu

pytestmark = emu.pytestmark

EMU_C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "emu_tensor_core.c")

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def matmul(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # C (BM x BN) = A (BM x K) @ B (K x BN), K = stride, in a loop over K; A at x
        # (row-major, or M-major with A_MAJOR 0), B after it (row-major, or K-major with
        # B_MAJOR 0); ACC the accumulator, stored as out's type.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k0 in range(0, stride, BK):
            if A_MAJOR:
                a = tl.load(x_ptr + m[:, None] * stride + (k0 + k)[None, :])
            else:
                a = tl.load(x_ptr + m[:, None] + (k0 + k)[None, :] * BM)
            if B_MAJOR:
                b = tl.load(x_ptr + BM * stride + (k0 + k)[:, None] * BN + n[None, :])
            else:
                b = tl.load(x_ptr + BM * stride + (k0 + k)[:, None] + n[None, :] * stride)
            acc = tl.dot(a, b, acc, out_dtype=ACC)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def dot_once(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr, STORE_T: tl.constexpr):
        # One dot, no loop (K = BK = stride): the operands as in matmul. STORE_T: the result
        # stored column-major (out holds C transposed), the store's layout running down the
        # columns and its conversion reading the dot's fragments.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        if A_MAJOR:
            a = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        else:
            a = tl.load(x_ptr + m[:, None] + k[None, :] * BM)
        if B_MAJOR:
            b = tl.load(x_ptr + BM * BK + k[:, None] * BN + n[None, :])
        else:
            b = tl.load(x_ptr + BM * BK + k[:, None] + n[None, :] * BK)
        c = tl.dot(a, b, out_dtype=ACC)
        if STORE_T:
            tl.store(out_ptr + m[:, None] + n[None, :] * BM, c.to(out_ptr.dtype.element_ty))
        else:
            tl.store(out_ptr + m[:, None] * BN + n[None, :], c.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def chained(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # P = (A @ B) in x's type, then P @ V (BN x BK), attention's shape: the second dot's A
        # is the first one's result, read from registers.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        a = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        b = tl.load(x_ptr + BM * BK + k[:, None] * BN + n[None, :])
        v = tl.load(x_ptr + BM * BK + BK * BN + n[:, None] * BK + k[None, :])
        p = tl.dot(a, b).to(x_ptr.dtype.element_ty)
        o = tl.dot(p, v)
        tl.store(out_ptr + m[:, None] * BK + k[None, :], o)


    @tritium.jit
    def masked_k(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # matmul's loop with K = stride not a multiple of BK: the last block's columns of A
        # and rows of B past K masked to zero (copies of fewer source bytes). A row-major, B
        # row-major or K-major (B_MAJOR 0).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k0 in range(0, stride, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] * stride + kk[None, :], mask=kk[None, :] < stride, other=0.0)
            if B_MAJOR:
                b = tl.load(x_ptr + BM * stride + kk[:, None] * BN + n[None, :], mask=kk[:, None] < stride, other=0.0)
            else:
                b = tl.load(x_ptr + BM * stride + kk[:, None] + n[None, :] * stride, mask=kk[:, None] < stride,
                            other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=ACC)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def masked_k_bound(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       K: tl.constexpr):
        # masked_k with rows `stride` apart (16-byte aligned) and a bound K that is not a
        # multiple of 16: A's mask varies inside every 16-byte run, so its elements are loaded
        # one by one, laid out by the pointer's width (vector_widths.cpp) all the same.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] * stride + kk[None, :], mask=kk[None, :] < K, other=0.0)
            b = tl.load(x_ptr + BM * stride + kk[:, None] * BN + n[None, :], mask=kk[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)


    @tritium.jit
    def read_back_after_dot(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # B is read back (a * 2 - 1 of it reaches the second dot) only after the first dot,
        # which copies A and C in place and issues the next iteration's copies after its
        # barrier: B's buffer of this iteration must not be among those it copies into.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, stride, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] * stride + kk[None, :], mask=kk[None, :] < stride, other=0.0)
            b = tl.load(x_ptr + BM * stride + kk[:, None] * BN + n[None, :], mask=kk[:, None] < stride, other=0.0)
            c = tl.load(x_ptr + BM * stride + stride * BN + kk[:, None] * BN + n[None, :], mask=kk[:, None] < stride,
                        other=0.0)
            acc = tl.dot(a, c, acc)
            acc = tl.dot(a, b * 2.0 - 1.0, acc)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)


    @tritium.jit
    def masked_k_dequant(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # masked_k (row-major) with B reaching the dot through elementwise ops, as a
        # dequantized weight does: pipelined, B is copied ahead and read back into registers by
        # the threads that copied it (AsyncOperand::read_back). A_MAJOR False here: A scaled
        # too, so both are read back and neither is a copy the dot reads in place.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k0 in range(0, stride, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] * stride + kk[None, :], mask=kk[None, :] < stride, other=0.0)
            b = tl.load(x_ptr + BM * stride + kk[:, None] * BN + n[None, :], mask=kk[:, None] < stride, other=0.0)
            if A_MAJOR:  # A copied for the dot itself
                acc = tl.dot(a, b * 2.0 - 1.0, acc, out_dtype=ACC)
            else:  # A read back too: no operand of the dot is a copy
                acc = tl.dot(a * 2.0, b * 2.0 - 1.0, acc, out_dtype=ACC)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def m_major_scaled(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       SCALE: tl.constexpr):
        # mamba's chunk-scan shapes: A stored M-major (contiguous down its columns), scaled
        # by a constant (SCALE 0), per K column by a vector loaded in the loop (1), or (2) by
        # a difference of a column and a row vector and masked below the diagonal (mamba's
        # `tl.where(k >= m, cb * tl.exp(dA_k[None, :] - dA_m[:, None]), 0)`), then cast back
        # before the dot; K = stride with a masked tail. A is loaded along M in 16-byte runs
        # and the chain computed where it was loaded, the dot staging it from there.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        t = tl.load(x_ptr + BM * stride + stride * BN + m % 16).to(tl.float32)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, stride, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] + kk[None, :] * BM, mask=kk[None, :] < stride, other=0.0).to(tl.float32)
            s = tl.load(x_ptr + BM * stride + stride * BN + kk, mask=kk < stride, other=0.0).to(tl.float32)
            if SCALE == 1:
                a = a * s[None, :]
            elif SCALE == 2:
                a = tl.where(kk[None, :] >= m[:, None], a * (s[None, :] - t[:, None]), 0.0)
            else:
                a = a * 2.0
            b = tl.load(x_ptr + BM * stride + kk[:, None] * BN + n[None, :], mask=kk[:, None] < stride, other=0.0)
            acc = tl.dot(a.to(x_ptr.dtype.element_ty), b, acc)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)


    @tritium.jit
    def interleaved_dequant(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                            A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # AWQ's shape: B stored with half the columns (K x BN / 2), each column used twice
        # (tl.interleave, then a per-column offset), masked K tail. The load reaches the dot
        # through a shape op: pipelined, it is read back too (AsyncOperand::read_back).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        half = tl.arange(0, BN // 2)
        k = tl.arange(0, BK)
        odd = (n % 2).to(tl.float16)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k0 in range(0, stride, BK):
            kk = k0 + k
            a = tl.load(x_ptr + m[:, None] * stride + kk[None, :], mask=kk[None, :] < stride, other=0.0)
            b = tl.load(x_ptr + BM * stride + kk[:, None] * (BN // 2) + half[None, :], mask=kk[:, None] < stride,
                        other=0.0)
            w = tl.interleave(b, b) - odd[None, :].to(b.dtype)
            acc = tl.dot(a, w, acc, out_dtype=ACC)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def batched(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # Two dots in one 3-D dot: A (2 x BM x BK), B (2 x BK x BN), both row-major.
        g = tl.arange(0, 2)
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        a = tl.load(x_ptr + g[:, None, None] * (BM * BK) + m[None, :, None] * BK + k[None, None, :])
        b = tl.load(x_ptr + 2 * BM * BK + g[:, None, None] * (BK * BN) + k[None, :, None] * BN + n[None, None, :])
        c = tl.dot(a, b)
        tl.store(out_ptr + g[:, None, None] * (BM * BN) + m[None, :, None] * BN + n[None, None, :], c)


    @tritium.jit
    def attention(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # Attention's loop without the softmax: O = sum over key blocks j of
        # (Q @ trans(K_j)).to(x) @ V_j; Q (BM x BK), then K and V (stride x BK), row-major.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        q = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        acc = tl.zeros((BM, BK), dtype=tl.float32)
        for j in range(0, stride, BN):
            kb = tl.load(x_ptr + BM * BK + (j + n)[:, None] * BK + k[None, :])
            vb = tl.load(x_ptr + BM * BK + stride * BK + (j + n)[:, None] * BK + k[None, :])
            s = tl.dot(q, tl.trans(kb))
            acc = tl.dot(s.to(x_ptr.dtype.element_ty), vb, acc)
        tl.store(out_ptr + m[:, None] * BK + k[None, :], acc)


    @tritium.jit
    def split_loops_block(x_ptr, q, acc, top, j, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          MASK_LAST: tl.constexpr):
        # One key block of split_loops (as flash-attn's _attn_fwd_inner): S = Q @ K_j^T, the
        # last block's accumulator masked by an `if` before the dot when MASK_LAST.
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        kb = tl.load(x_ptr + BM * BK + (j + n)[:, None] * BK + k[None, :])
        vb = tl.load(x_ptr + BM * BK + stride * BK + (j + n)[:, None] * BK + k[None, :])
        s = tl.zeros((BM, BN), dtype=tl.float32)
        if MASK_LAST:
            if j + BN == stride:
                s = tl.where((j + n)[None, :] < stride - 1, s, 7.0)
        s = tl.dot(q, tl.trans(kb), s)
        top = tl.maximum(top, tl.max(s, 1))
        acc = tl.dot((s - top[:, None]).to(x_ptr.dtype.element_ty), vb, acc)
        return acc, top


    @tritium.jit
    def split_loops(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # flash-attn's fwd_prefill shape: the key blocks in two loops, each under an `if`, the
        # second's Q @ K^T accumulator chosen by an `if` (its last block masked before the dot:
        # 7 added to the last key); O and a row maximum (P = S - max, as softmax's shift)
        # carried from one loop into the other through the `if`s' results. Q (BM x BK), then
        # K and V (stride x BK).
        m = tl.arange(0, BM)
        k = tl.arange(0, BK)
        q = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        acc = tl.zeros((BM, BK), dtype=tl.float32)
        top = tl.full((BM,), -1000.0, dtype=tl.float32)
        half = stride // BN // 2 * BN
        if half > 0:
            for j in range(0, half, BN):
                acc, top = split_loops_block(x_ptr, q, acc, top, j, stride, BM, BN, BK, False)
        if stride > half:
            for j in range(half, stride, BN):
                acc, top = split_loops_block(x_ptr, q, acc, top, j, stride, BM, BN, BK, True)
        tl.store(out_ptr + m[:, None] * BK + k[None, :], acc + top[:, None])


    @tritium.jit
    def widen(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, TO: tl.constexpr):
        # BM * BN fp8 elements cast up to TO (on sm_90 two of a thread's registers per
        # cvt.rn.f16x2, emit_fp8.cpp), stored through fp32.
        i = tl.arange(0, BM * BN)
        x = tl.load(x_ptr + i)
        tl.store(out_ptr + i, x.to(TO).to(tl.float32))
''')

# ---- the inline PTX as calls ----

ASM_CALL = re.compile(r'^(\s*)(?:(%[-\w.]+) = )?(?:tail |notail )?call (void|\{[^}]*\}|[^ ]+) asm (?:sideeffect )?'
                      r'"((?:[^"\\]|\\.)*)", "([^"]*)"\((.*)\)((?:\s*#\d+)?)\s*$')
ARG_TYPE = re.compile(r'^(ptr|i\d+|half|bfloat|float|double|<\d+ x [a-z0-9]+>) ')
ELEMENT = {"f16": 0, "bf16": 1, "e4m3": 2, "e5m2": 3, "tf32": 4, "s8": 5}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "e4m3": 1, "e5m2": 1, "tf32": 4, "s8": 1}


def split_args(text):
    args, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    if text.strip():
        args.append(text[start:].strip())
    return args


class Statement:
    """One asm call: its PTX text (newlines as \\0A), outputs, and where each $operand is."""

    def __init__(self, text, constraints, ret, args):
        self.text = text.replace("\\0A", "\n").replace("\\09", "\t")
        parts = [c for c in constraints.split(",") if c and not c.startswith("~")]
        self.outputs = [c for c in parts if c.startswith("=")]
        self.inputs = [c for c in parts if not c.startswith("=")]
        self.ret = ret
        self.arg_types = []
        for a in args:
            m = ARG_TYPE.match(a)
            if not m:
                raise ValueError(f"cannot read the asm argument {a!r}")
            self.arg_types.append(m.group(1))
        assert len(self.arg_types) == len(self.inputs), (constraints, args)

    def slot(self, operand):
        """The argument slot of `$operand` (an input, or an output's tied input)."""
        i = int(operand.lstrip("$"))
        n = len(self.outputs)
        if i >= n:
            return i - n
        return self.inputs.index(str(i))

    def assert_results(self, group):
        """The brace group of results must be the outputs in order ($0, $1, ...)."""
        assert [o.strip() for o in group.strip("{} ").split(",")] == [f"${i}" for i in range(len(self.outputs))], group

    def slots(self, group):
        """The first slot of a brace group `{$a, $b, ...}`, whose slots must be consecutive."""
        slots = [self.slot(o.strip()) for o in group.strip("{} ").split(",")]
        assert slots == list(range(slots[0], slots[0] + len(slots))), (group, slots)
        return slots[0]


def translate(st):
    """(C function, its int constants) for a statement, or None if it is not known."""
    t = st.text.strip()
    if t == "mov.u32 $0, %tid.x;":
        return "emu_tid_x", []
    m = re.match(r"ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?\.shared\.b16 (\{[^}]*\}), \[\$(\d+)\];$", t)
    if m:
        st.assert_results(m.group(3))
        assert st.slot(m.group(4)) == 0
        return "emu_ldmatrix", [int(m.group(1)), int(bool(m.group(2)))]
    m = re.match(r"stmatrix\.sync\.aligned\.m8n8\.x([124])\.shared\.b16 \[\$(\d+)\], (\{[^}]*\});$", t)
    if m:
        assert st.slot(m.group(2)) == 0 and st.slots(m.group(3)) == 1, t
        return "emu_stmatrix", [int(m.group(1))]
    m = re.match(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.(f32|f16)\.(f16|bf16)\.(f16|bf16)\.(f32|f16) "
                 r"(\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\});$", t)
    if m:
        assert m.group(2) == m.group(3) and m.group(1) == m.group(4), t
        st.assert_results(m.group(5))
        return "emu_mma16", [ELEMENT[m.group(2)], int(m.group(1) == "f16"), st.slots(m.group(6)),
                             st.slots(m.group(7)), st.slots(m.group(8))]
    if "wgmma.mma_async" in t:
        m = re.search(r"setp\.ne\.b32 p, (\$\d+), 0;\s*wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)\.(f32|f16|s32)\."
                      r"(\w+)\.(\w+) (\{[^}]*\}), (\{[^}]*\}|\$\d+), (\$\d+), p(?:, (-?1), (-?1))?((?:, [01])*);", t)
        if not m:
            return None
        st.assert_results(m.group(7))
        assert int(m.group(3)) * ELEMENT_BYTES[m.group(6)] == 32, t  # 32 bytes of k
        # imm-trans-a and imm-trans-b (fp8: neither; A in registers: only b's).
        a_regs = m.group(8).startswith("{")
        trans = [int(x) for x in re.findall(r"[01]", m.group(12))]
        trans_a, trans_b = (0, trans[0]) if a_regs and trans else (trans + [0, 0])[:2]
        return "emu_wgmma", [int(m.group(2)), ELEMENT[m.group(5)], ELEMENT[m.group(6)], int(m.group(4) == "f16"),
                             int(a_regs), st.slots(m.group(8)) if a_regs else st.slot(m.group(8)),
                             st.slot(m.group(9)), st.slot(m.group(1)), st.slots(m.group(7)), int(m.group(10) or 1),
                             int(m.group(11) or 1), trans_a, trans_b]
    if t in ("wgmma.fence.sync.aligned;", "fence.proxy.async.shared::cta;"):
        return "emu_noop", []
    if t == "wgmma.commit_group.sync.aligned;":
        return "emu_wgmma_commit", []
    m = re.match(r"wgmma\.wait_group\.sync\.aligned (\d+);$", t)
    if m:
        assert st.inputs == [str(i) for i in range(len(st.outputs))], t  # the accumulators pass through
        return "emu_wgmma_wait", [len(st.outputs), int(m.group(1))]
    m = re.match(r"cp\.async\.c[ag]\.shared\.global \[\$0\], \[\$1\], (\d+)(, \$2)?;$", t)
    if m:
        kind = 0 if not m.group(2) else 2 if st.inputs[2] == "b" else 1
        return "emu_cp_async", [int(m.group(1)), kind]
    if t == "cp.async.commit_group;":
        return "emu_cp_async_commit", []
    m = re.match(r"cp\.async\.wait_group (\d+);$", t)
    if m:
        return "emu_cp_async_wait", [int(m.group(1))]
    m = re.search(r"(?:@(\$\d+) )?ld\.global[.\w:]*?(?:\.v(\d))?\.b(\d+) (?:\{[^}]*\}|\$\d+), "
                  r"\[(\$\d+)(?:\+(-?\d+))?\];$", t)
    if m:
        defaults = re.findall(r"mov\.b\d+ \$\d+, 0x0;", t)
        assert not m.group(1) or len(defaults) == len(st.outputs), t  # zeros where the predicate is off
        return "emu_ld_global", [int(m.group(2) or 1), int(m.group(3)), st.slot(m.group(4)),
                                 st.slot(m.group(1)) if m.group(1) else -1, int(m.group(5) or 0)]
    if t == "cvt.rn.bf16.f16 $0, $1;":
        return "emu_cvt_bf16_f16", []
    m = re.match(r"cvt\.rn\.f16x2\.(e4m3|e5m2)x2 \$0, \$1;$", t)
    if m:
        return "emu_cvt_f16x2_fp8", [ELEMENT[m.group(1)]]
    return None


def wrapper(name, ret, arg_types, outputs, callee, consts):
    """An IR function of an asm statement's signature: its operands stored into slots, the C
    function called, the results loaded back."""
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(arg_types))
    lines = [f"define {ret} @{name}({params}) {{",
             f"  %in = alloca [{max(1, len(arg_types))} x i64], align 8",
             f"  %out = alloca [{max(1, outputs)} x i64], align 8"]
    for i, t in enumerate(arg_types):
        lines.append(f"  %s{i} = getelementptr i64, ptr %in, i64 {i}")
        lines.append(f"  store i64 0, ptr %s{i}")
        if t == "i1":
            lines += [f"  %z{i} = zext i1 %a{i} to i32", f"  store i32 %z{i}, ptr %s{i}"]
        else:
            lines.append(f"  store {t} %a{i}, ptr %s{i}")
    lines.append(f"  call void @{callee}(ptr %in, ptr %out" + "".join(f", i32 {c}" for c in consts) + ")")
    if ret == "void":
        lines.append("  ret void")
    else:
        types = [x.strip() for x in ret.strip("{} ").split(",")] if ret.startswith("{") else [ret]
        for i, t in enumerate(types):
            lines += [f"  %o{i} = getelementptr i64, ptr %out, i64 {i}", f"  %v{i} = load {t}, ptr %o{i}"]
        if ret.startswith("{"):
            prev = "poison"
            for i, t in enumerate(types):
                lines.append(f"  %r{i} = insertvalue {ret} {prev}, {t} %v{i}, {i}")
                prev = f"%r{i}"
            lines.append(f"  ret {ret} {prev}")
        else:
            lines.append(f"  ret {ret} %v0")
    return "\n".join(lines) + "\n}\n"


def asm_as_calls(ll):
    """Every known asm statement of the (host) IR made a call of an emu_tensor_core.c function
    through a wrapper; unknown ones are left (the caller asserts none is)."""
    wrappers, declared, out = {}, {}, []
    for line in ll.splitlines():
        m = ASM_CALL.match(line)
        if not m:
            out.append(line)
            continue
        indent, lhs, ret, text, constraints, args, _ = m.groups()
        st = Statement(text, constraints, ret, split_args(args))
        found = translate(st)
        if found is None:
            out.append(line)
            continue
        callee, consts = found
        key = (callee, tuple(consts), ret, tuple(st.arg_types), len(st.outputs))
        if key not in wrappers:
            wrappers[key] = f"emu_w{len(wrappers)}"
            declared[callee] = len(consts)
        call = f"call {ret} @{wrappers[key]}({args})"
        out.append(f"{indent}{lhs + ' = ' if lhs else ''}{call}")
    text = "\n".join(out) + "\n"
    for (callee, consts, ret, arg_types, outputs), name in wrappers.items():
        text += wrapper(name, ret, arg_types, outputs, callee, consts)
    for callee, count in declared.items():
        text += f"declare void @{callee}(ptr, ptr" + ", i32" * count + ")\n"
    return text


def host_ir16(ll):
    """emu.host_ir with the shared array aligned to its size (2^18 bytes: a 32-bit shared
    address's low 18 bits are the offset, as in the descriptors' 14-bit start >> 4 and the
    swizzles' address bits), then the asm as calls."""
    ll = emu.host_ir(ll)
    ll, found = re.subn(r"(@__tritium_shared = global \[262144 x i8\] zeroinitializer), align 16",
                        r"\1, align 262144", ll)
    if "@__tritium_shared" not in ll:  # a kernel without shared memory: the driver's copies still name it
        ll += "@__tritium_shared = global [262144 x i8] zeroinitializer, align 262144\n"
        found = 1
    assert found == 1
    ll = asm_as_calls(ll)
    if "bfloat" in ll:
        ll += TRUNC_TO_BF16
    return ll


# llc lowers fptrunc to bfloat as a call of __truncsfbf2, which gcc 12's libgcc lacks: to
# nearest, ties to even (NaN kept quiet).
TRUNC_TO_BF16 = """
define bfloat @__truncsfbf2(float %x) {
  %u = bitcast float %x to i32
  %odd = lshr i32 %u, 16
  %lsb = and i32 %odd, 1
  %bias = add i32 %lsb, 32767
  %r = add i32 %u, %bias
  %nan = fcmp uno float %x, 0.0
  %q = or i32 %u, 4194304
  %v = select i1 %nan, i32 %q, i32 %r
  %h = lshr i32 %v, 16
  %t = trunc i32 %h to i16
  %b = bitcast i16 %t to bfloat
  ret bfloat %b
}
"""


DRIVER_MAIN = r'''
void KERNEL(void*, void*, int);
static void *x, *out;
static int stride;
static void* run(void* tid) {
  emu_tid = (int)(long)tid;
  KERNEL(x, out, stride);
  return NULL;
}
// argv: the input file, the output's bytes, threads, stride. Writes the output to stdout.
int main(int argc, char** argv) {
  (void)argc;
  FILE* f = fopen(argv[1], "rb");
  fseek(f, 0, SEEK_END);
  long nin = ftell(f);
  fseek(f, 0, SEEK_SET);
  long nout = atol(argv[2]);
  int threads = atoi(argv[3]);
  stride = atoi(argv[4]);
  x = aligned_alloc(64, (nin + 63) / 64 * 64);
  out = aligned_alloc(64, (nout + 63) / 64 * 64);
  if (fread(x, 1, nin, f) != (size_t)nin) return 2;
  fclose(f);
  memset(out, 0xff, nout);  // NaN: an element the kernel does not write shows
  memset(__tritium_shared, 0x7f, 262144);
  pthread_barrier_init(&cta, NULL, threads);
  for (int w = 0; w < threads / 32; ++w) pthread_barrier_init(&warp[w], NULL, 32);
  init_warpgroups(threads);
  pthread_t t[1024];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 18);
  for (long i = 0; i < threads; ++i) pthread_create(&t[i], &attr, run, (void*)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  fwrite(out, 1, nout, stdout);
  return 0;
}
'''


def driver_source(kernel, defer_copies):
    prefix = emu.DRIVER[:emu.DRIVER.index("void KERNEL(")]
    with open(EMU_C) as f:
        tensor_core = f.read()
    return (f"#define EMU_DEFER_COPIES {int(defer_copies)}\n" + prefix + tensor_core +
            DRIVER_MAIN.replace("KERNEL", kernel))


_DRIVERS = {}


def driver_object(kernel, defer_copies):
    """The driver compiled once per kernel name, copy timing and emulator source."""
    key = (kernel, bool(defer_copies), EMU_C)
    if key not in _DRIVERS:
        folder = tempfile.mkdtemp(prefix="emu_driver_")
        atexit.register(shutil.rmtree, folder, True)
        source = os.path.join(folder, "driver.c")
        with open(source, "w") as f:
            f.write(driver_source(kernel, defer_copies))
        subprocess.run([emu.CC, "-O1", "-c", source, "-o", source[:-1] + "o"], check=True)
        _DRIVERS[key] = source[:-1] + "o"
    return _DRIVERS[key]


# ---- data ----

def to_bits(values, ty):
    """Small integers in the kernel's element type, as raw bytes."""
    v = np.asarray(values, dtype=np.float64)
    if ty == "fp32":
        return v.astype(np.float32)
    if ty == "i8":
        return v.astype(np.int8)
    if ty == "fp16":
        return v.astype(np.float16).view(np.uint16)
    if ty == "bf16":
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact: no rounding needed
    if ty == "fp8e5":
        return (v.astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
    if ty == "fp8e4nv":
        out = np.zeros(v.shape, dtype=np.uint8)
        for i, x in np.ndenumerate(v):
            if x != 0:
                e = int(np.floor(np.log2(abs(x))))
                mant = abs(x) / 2.0**e - 1
                assert mant * 8 == int(mant * 8) and -6 <= e <= 8, x
                out[i] = (0x80 if x < 0 else 0) | (e + 7) << 3 | int(mant * 8)
        return out
    raise ValueError(ty)


def round_to(values, ty):
    """float values rounded as the kernel's `.to(ty)` does (to nearest, ties to even)."""
    v = np.asarray(values, dtype=np.float32)
    if ty == "fp16":
        return v.astype(np.float16).astype(np.float64)
    if ty == "bf16":
        u = v.view(np.uint32).astype(np.uint64)
        u = (u + 0x7fff + ((u >> 16) & 1)) >> 16 << 16
        return u.astype(np.uint32).view(np.float32).astype(np.float64)
    raise ValueError(ty)


OUT_TYPES = {"fp32": np.float32, "fp16": np.float16, "i32": np.int32}


def emitter(tmp_path, kernel, in_ty, out_ty, tile, warps, stages, sm, constexprs, kernels=KERNELS):
    """A function compiling the kernel to what it is given (ptx, llvm) through the CLI."""
    source = tmp_path / "kernels.py"
    source.write_text(kernels)
    BM, BN, BK = tile
    signature = f"*{in_ty}:16, *{out_ty}:16, i32:16, BM={BM}, BN={BN}, BK={BK}{constexprs}"

    def emit(what):
        return subprocess.run([emu.CLI, "compile", str(source), "--kernel", kernel, "--signature", signature,
                               "--num-warps", str(warps), "--num-stages", str(stages), "--arch", f"sm_{sm}",
                               "--emit", what], capture_output=True, text=True, check=True).stdout
    return emit


def matmul_constexprs(kernel, acc, layout, store_t=False):
    a_major, b_major = layout not in ("m-major-a", "both"), layout not in ("k-major-b", "both")
    acc_type = {"fp16": "tl.float16", "i32": "tl.int32"}.get(acc, "tl.float32")
    return (f", A_MAJOR={a_major}, B_MAJOR={b_major}, ACC={acc_type}"
            + (f", STORE_T={store_t}" if kernel == "dot_once" else ""))


def compile_ptx(tmp_path, kernel, ty, acc, layout, tile, warps, stages, sm, K):
    """check_matmul's kernel compiled only (for forms the emulator does not run)."""
    del K  # the loop's trip count is a run-time argument
    return emitter(tmp_path, kernel, ty, acc, tile, warps, stages, sm, matmul_constexprs(kernel, acc, layout))("ptx")


def run_kernel(tmp_path, kernel, in_ty, out_ty, values, nout, tile, warps, stages, sm, stride, constexprs,
               defer_copies=False, kernels=KERNELS, mutate=None):
    """The kernel through the host driver on `values` (in_ty elements); returns the output
    (out_ty) and the PTX. `mutate` edits the kernel's LLVM IR first (tests of the emulator's
    own checks)."""
    emit = emitter(tmp_path, kernel, in_ty, out_ty, tile, warps, stages, sm, constexprs, kernels)
    ptx = emit("ptx")
    if "cp.async.bulk.tensor" in ptx:
        pytest.skip("TMA copies are not emulated")
    ll = emit("llvm")
    host = host_ir16(mutate(ll) if mutate else ll)
    left = re.search(r" asm [^\n]*", host)
    assert left is None, "inline PTX left: " + (left.group(0)[:300] if left else "")
    (tmp_path / "k.ll").write_text(host)
    subprocess.run([emu.LLC, "-O1", "-relocation-model=pic", "-filetype=obj", str(tmp_path / "k.ll"), "-o",
                    str(tmp_path / "k.o")], check=True)
    subprocess.run([emu.CC, driver_object(kernel, defer_copies), str(tmp_path / "k.o"), "-o", str(tmp_path / "run"),
                    "-lpthread", "-lm"], check=True)
    (tmp_path / "in.bin").write_bytes(to_bits(values, in_ty).tobytes())
    out_type = OUT_TYPES[out_ty]
    done = subprocess.run([str(tmp_path / "run"), str(tmp_path / "in.bin"), str(nout * np.dtype(out_type).itemsize),
                           str(32 * warps), str(stride)], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    return np.frombuffer(done.stdout, dtype=out_type), ptx


def small_integers(n, limit, seed):
    return np.random.default_rng(seed).integers(-limit, limit + 1, n).astype(np.float64)


def operands(values, BM, BN, K, a_major, b_major):
    a = values[:BM * K].reshape(BM, K) if a_major else values[:BM * K].reshape(K, BM).T
    b = values[BM * K:BM * K + K * BN].reshape(K, BN) if b_major else values[BM * K:BM * K + K * BN].reshape(BN, K).T
    return a, b


def check_matmul(tmp_path, kernel, ty, acc, layout, tile, warps, K, stages, sm, defer_copies=False, mutate=None,
                 store_t=False):
    """A (BM x K) @ B (K x BN) of small integers against numpy, exactly; returns the PTX.
    layout: row-major, k-major-b, m-major-a or both (M-major A and K-major B); store_t:
    dot_once's result stored transposed."""
    BM, BN, BK = tile
    a_major, b_major = layout not in ("m-major-a", "both"), layout not in ("k-major-b", "both")
    limit = 3 if acc == "fp16" else 8  # f16 sums stay below 2048, exact
    if ty.startswith("fp8"):
        limit = 4
    values = small_integers(BM * K + K * BN, limit, seed=BM * 7 + BN * 3 + K)
    out, ptx = run_kernel(tmp_path, kernel, ty, acc, values, BM * BN, tile, warps, stages, sm, K,
                          matmul_constexprs(kernel, acc, layout, store_t), defer_copies=defer_copies, mutate=mutate)
    a, b = operands(values, BM, BN, K, a_major, b_major)
    c = out.reshape(BN, BM).T if store_t else out.reshape(BM, BN)
    np.testing.assert_array_equal(c.astype(np.float64), a @ b)
    return ptx


# The mma.sync instruction of a dot of `ty` into `acc` (out_dtype=float16 accumulates in f16).
def assert_mma_sync(ptx, ty, acc):
    kind = "bf16" if ty == "bf16" else "f16"
    assert (f"mma.sync.aligned.m16n8k16.row.col.f16.{kind}.{kind}.f16" in ptx) == (acc == "fp16")
    assert (f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32" in ptx) == (acc == "fp32")
    assert "ldmatrix.sync.aligned.m8n8" in ptx


LAYOUTS = ["row-major", "k-major-b", "m-major-a"]


@pytest.mark.parametrize("ty,stages", [("fp16", 1), ("fp16", 2), ("fp16", 4), ("bf16", 1), ("bf16", 4)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((32, 64, 16), 2, 64), ((16, 8, 32), 1, 64),
                                          ((128, 32, 32), 8, 64)])
def test_matmul_on_emulated_mma16(tmp_path, ty, layout, stages, tile, warps, K):
    """fp16/bf16 loops over K on ldmatrix + mma.sync m16n8k16, f32 accumulators, sm_80 PTX;
    pipelined (cp.async, copies completing at the latest moment) with num_stages 2 and 4."""
    ptx = check_matmul(tmp_path, "matmul", ty, "fp32", layout, tile, warps, K, stages, 80, defer_copies=stages > 1)
    assert_mma_sync(ptx, ty, "fp32")
    assert ("cp.async" in ptx) == (stages > 1)


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("tile,warps,K,stages", [((64, 64, 32), 4, 64, 3), ((32, 32, 16), 1, 48, 1)])
def test_pipelined_copies_landing_at_once(tmp_path, ty, tile, warps, K, stages):
    """The other end of a copy's time in flight: cp.async writing shared memory as it issues
    (a buffer still being read by a slower warp would be overwritten)."""
    ptx = check_matmul(tmp_path, "matmul", ty, "fp32", "row-major", tile, warps, K, stages, 80, defer_copies=False)
    assert_mma_sync(ptx, ty, "fp32")


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS + ["both"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((16, 16, 16), 1), ((32, 128, 64), 4), ((16, 8, 16), 1)])
def test_one_shot_dot_on_emulated_mma16(tmp_path, ty, layout, tile, warps):
    """A dot outside any loop, every operand layout (column-major operands of one-shot dots:
    the newest staging)."""
    ptx = check_matmul(tmp_path, "dot_once", ty, "fp32", layout, tile, warps, tile[2], 1, 80)
    assert_mma_sync(ptx, ty, "fp32")


# f16 accumulators (out_dtype=float16: mma.sync .f16.f16.f16.f16): sums of small integers,
# exact in f16.
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("layout", ["row-major", "k-major-b", "m-major-a"])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 128), ((32, 16, 16), 1, 64)])
def test_matmul_with_f16_accumulators(tmp_path, stages, layout, tile, warps, K):
    ptx = check_matmul(tmp_path, "matmul", "fp16", "fp16", layout, tile, warps, K, stages, 80,
                       defer_copies=stages > 1)
    assert_mma_sync(ptx, "fp16", "fp16")


def test_one_shot_dot_with_f16_accumulators(tmp_path):
    ptx = check_matmul(tmp_path, "dot_once", "fp16", "fp16", "both", (64, 32, 64), 4, 64, 1, 80)
    assert_mma_sync(ptx, "fp16", "fp16")


@pytest.mark.parametrize("ty", ["fp8e5"])
@pytest.mark.parametrize("layout,stages", [("k-major-b", 3), ("m-major-a", 1)])
def test_fp8_matmul_widened_for_mma16(tmp_path, ty, layout, stages):
    """fp8 on sm_80: widened to f16 exactly (by integer arithmetic: sm_80 has no fp8 cvt),
    then mma.sync. fp8e4nv needs sm_89 as in Triton (test_cli.py pins that error)."""
    ptx = check_matmul(tmp_path, "matmul", ty, "fp32", layout, (64, 32, 32), 4, 64, stages, 80, defer_copies=True)
    assert_mma_sync(ptx, "fp16", "fp32")


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((16, 32, 16), 1), ((128, 64, 64), 8)])
def test_chained_dots_read_a_from_registers(tmp_path, ty, tile, warps):
    """P = (A @ B).to(ty) then P @ V: the second dot's A fragment is the first one's
    accumulators, packed in place (emit_wgmma_registers.cpp's a_fragment)."""
    BM, BN, BK = tile
    values = small_integers(BM * BK + BK * BN + BN * BK, 4, seed=BM + BN + BK)
    out, ptx = run_kernel(tmp_path, "chained", ty, "fp32", values, BM * BK, tile, warps, 1, 80, 0,
                          ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32")
    a = values[:BM * BK].reshape(BM, BK)
    b = values[BM * BK:BM * BK + BK * BN].reshape(BK, BN)
    v = values[BM * BK + BK * BN:].reshape(BN, BK)
    p = round_to(a @ b, ty)
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), p @ v)
    assert_mma_sync(ptx, ty, "fp32")


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("ty,tile,warps,K", [("fp16", (64, 64, 32), 4, 80), ("bf16", (64, 32, 64), 4, 48)])
def test_masked_k_tail(tmp_path, sm, ty, stages, tile, warps, K):
    """K not a multiple of BK: the last block's masked elements are zeros, on mma.sync
    (sm_80) or wgmma (sm_90), pipelined (cp.async with a source size) or not."""
    BM, BN, _ = tile
    values = small_integers(BM * K + K * BN, 8, seed=K + BN)
    out, ptx = run_kernel(tmp_path, "masked_k", ty, "fp32", values, BM * BN, tile, warps, stages, sm, K,
                          ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32", defer_copies=stages > 1)
    a, b = operands(values, BM, BN, K, True, True)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    assert ("wgmma.mma_async" in ptx) == (sm == 90)


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("K", [49, 50])
def test_masked_k_unaligned_bound(tmp_path, sm, stages, K):
    """A bound K = 49 or 50 with 16-byte aligned rows: A's mask varies inside every run, so
    its elements are loaded one or two at a time, but the block is laid out by its pointer's width (8 fp16 of a
    row a thread, addresses one base plus constants; before, one element a thread, each
    address a computation of its own); the masked columns are zeros."""
    BM, BN, BK, stride = 64, 128, 32, 64  # A 2048 elements, B 4096: A's own layout

    k_rows = -(-K // BK) * BK  # B's rows the loop reads (those past K masked)
    values = small_integers(BM * stride + k_rows * BN, 8, seed=K)
    constexprs = f", K={K}"
    gpu_ir = emitter(tmp_path, "masked_k_bound", "fp16", "fp32", (BM, BN, BK), 4, stages, sm, constexprs)("gpu-ir")
    a_load = [line for line in gpu_ir.splitlines() if "= load" in line and "64x32xfp16" in line]
    assert a_load and all("spt = [1, 8]" in line for line in a_load), "\n".join(a_load)
    out, ptx = run_kernel(tmp_path, "masked_k_bound", "fp16", "fp32", values, BM * BN, (BM, BN, BK), 4, stages, sm,
                          stride, constexprs, defer_copies=stages > 1)
    a = values[:BM * stride].reshape(BM, stride)[:, :K]
    b = values[BM * stride:BM * stride + K * BN].reshape(K, BN)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    assert ("wgmma.mma_async" in ptx) == (sm == 90)


@pytest.mark.parametrize("defer_copies", [True, False])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("ty,tile,warps,K", [("fp16", (64, 64, 32), 4, 80), ("bf16", (32, 64, 32), 2, 112)])
@pytest.mark.parametrize("a_copied", [True, False])
def test_operand_through_elementwise_ops_read_back(tmp_path, a_copied, defer_copies, sm, stages, ty, tile, warps, K):
    """A dot whose B is `load(...) * 2 - 1` (a dequantized weight's shape), K with a masked
    tail: pipelined, B's load is copied ahead by cp.async and each thread reads its own
    elements back where the multiply uses them (AsyncOperand::read_back); copies landing at
    the latest moment (their wait_group) or at once (a buffer overwritten before its reader
    would show). Exact against numpy; on mma.sync (sm_80) and wgmma (sm_90)."""
    BM, BN, _ = tile
    values = small_integers(BM * K + K * BN, 8, seed=K + BN + stages)
    constexprs = f", A_MAJOR={a_copied}, B_MAJOR=True, ACC=tl.float32"
    out, ptx = run_kernel(tmp_path, "masked_k_dequant", ty, "fp32", values, BM * BN, tile, warps, stages, sm, K,
                          constexprs, defer_copies=defer_copies)
    a, b = operands(values, BM, BN, K, True, True)
    a = a if a_copied else a * 2
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ (b * 2 - 1))
    assert ("wgmma.mma_async" in ptx) == (sm == 90 and warps % 4 == 0)
    gpu_ir = emitter(tmp_path, "masked_k_dequant", ty, "fp32", tile, warps, stages, sm, constexprs)("gpu-ir")
    assert ("read back into its registers" in gpu_ir) == (stages > 1), gpu_ir
    if stages > 1:
        loop = ptx[ptx.index("cp.async.commit_group"):]
        assert "ld.global" not in loop  # every load of the loop is a copy


@pytest.mark.parametrize("defer_copies", [True, False])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [2, 3])
def test_operand_read_back_after_a_dot(tmp_path, defer_copies, sm, stages):
    """A read-back operand (AsyncOperand::read_back) first used after a dot that issues the
    loop's next copies keeps num_stages buffers (the copy goes to the one read an iteration
    before); one read back before every dot has num_stages - 1 (the copy goes to the one just
    read back: read_before_copies). Copies landing at once would overwrite a buffer still to be
    read. Exact against numpy."""
    BM, BN, BK, K = 64, 64, 32, 80
    values = small_integers(BM * K + 2 * K * BN, 8, seed=stages + sm)
    out, ptx = run_kernel(tmp_path, "read_back_after_dot", "fp16", "fp32", values, BM * BN, (BM, BN, BK), 4, stages,
                          sm, K, "", defer_copies=defer_copies)
    a = values[:BM * K].reshape(BM, K)
    b = values[BM * K:BM * K + K * BN].reshape(K, BN)
    c = values[BM * K + K * BN:].reshape(K, BN)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ c + a @ (b * 2 - 1))
    gpu_ir = emitter(tmp_path, "read_back_after_dot", "fp16", "fp32", (BM, BN, BK), 4, stages, sm, "")("gpu-ir")
    b_load = [line for line in gpu_ir.splitlines() if "read back into its registers" in line]
    assert b_load and not any("the stage this iteration read back" in line for line in b_load), b_load
    before = emitter(tmp_path, "masked_k_dequant", "fp16", "fp32", (BM, BN, BK), 4, stages, sm,
                     ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32")("gpu-ir")
    assert "the stage this iteration read back" in before


@pytest.mark.parametrize("scale", [0, 1, 2])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("ty,tile,warps,K", [("fp16", (64, 64, 32), 4, 80), ("bf16", (128, 64, 64), 8, 136)])
def test_m_major_operand_scaled_in_loop(tmp_path, scale, sm, stages, ty, tile, warps, K):
    """A dot whose A is stored M-major and scaled in the loop (by a constant, a vector loaded
    there, or a column-minus-row difference under a triangular mask) before the cast back: A
    is loaded along M in 16-byte runs (one vector load per 8 elements, not one load per element
    each with its own address) and the chain computed in that layout; the dot stages A from
    it, M-major (one vector store per run). Pipelined on wgmma, A is copied instead and the
    chain computed in A's fragments (read from registers). Exact against numpy, copies landing
    at their wait."""
    BM, BN, _ = tile
    values = small_integers(BM * K + K * BN + K, 3, seed=K + BN + stages + sm)
    constexprs = f", SCALE={scale}"
    out, ptx = run_kernel(tmp_path, "m_major_scaled", ty, "fp32", values, BM * BN, tile, warps, stages, sm, K,
                          constexprs, defer_copies=stages > 1)
    a = values[:BM * K].reshape(K, BM).T
    b = values[BM * K:BM * K + K * BN].reshape(K, BN)
    s = values[BM * K + K * BN:]
    if scale == 2:
        t = s[np.arange(BM) % 16]
        a = np.where(np.arange(K)[None, :] >= np.arange(BM)[:, None], a * (s[None, :] - t[:, None]), 0.0)
    else:
        a = a * (s[None, :] if scale == 1 else 2.0)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    gpu_ir = emitter(tmp_path, "m_major_scaled", ty, "fp32", tile, warps, stages, sm, constexprs)("gpu-ir")
    a_load = [line for line in gpu_ir.splitlines() if "= load" in line and f"{BM}x{tile[2]}x{ty}" in line]
    if stages > 1 and (sm == 90 or BM % (16 * warps) == 0):
        # Pipelined on wgmma (session 32), and on mma.sync where every warp gets 16 rows of M
        # (session 34, achainmma): A copied down its columns into a stage buffer held
        # transposed, the chain computed in A's fragments (each thread reading its positions
        # by ldmatrix.trans), the dot reading A from registers: no staging of A.
        assert len(a_load) == stages and all("copies down the columns" in line and
                                             "read back at the fragment positions" in line for line in a_load), a_load
        assert "A read from its fragments' registers" in gpu_ir
        assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans" in ptx
        assert len(re.findall(r"ld\.global(?:\.nc)?\.b16", ptx)) <= 2 * stages + 1
        assert "st.shared.b16" not in ptx
        return
    assert len(a_load) == 1 and "spt = [8, 1]" in a_load[0] and "order = [0, 1]" in a_load[0], a_load
    # A's 16-byte loads; the 2-byte ones left are the vectors' (a few elements a thread).
    assert re.search(r"ld\.global(\.nc)?\.v4\.b32", ptx)
    assert len(re.findall(r"ld\.global(?:\.nc)?\.b16", ptx)) <= 2 * stages + 1
    # Staged M-major (wgmma's transposed A, ldmatrix .trans), each 16-byte run one store.
    assert "st.shared.b16" not in ptx


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("ty,tile,warps,K", [("fp16", (64, 64, 32), 4, 80), ("bf16", (32, 32, 32), 1, 112)])
def test_interleaved_operand_read_back(tmp_path, sm, stages, ty, tile, warps, K):
    """B built from a load of half its columns by tl.interleave (AWQ's shape), minus 1 in odd
    columns, K with a masked tail: the load reaches the dot through a shape op and is read
    back too when pipelined. Copies landing at their wait; exact against numpy."""
    BM, BN, _ = tile
    values = small_integers(BM * K + K * BN // 2, 8, seed=K + BN + stages + sm)
    constexprs = ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32"
    out, ptx = run_kernel(tmp_path, "interleaved_dequant", ty, "fp32", values, BM * BN, tile, warps, stages, sm, K,
                          constexprs, defer_copies=stages > 1)
    a = values[:BM * K].reshape(BM, K)
    half = values[BM * K:].reshape(K, BN // 2)
    w = np.repeat(half, 2, axis=1) - (np.arange(BN) % 2)[None, :]
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ w)
    gpu_ir = emitter(tmp_path, "interleaved_dequant", ty, "fp32", tile, warps, stages, sm, constexprs)("gpu-ir")
    assert ("read back into its registers" in gpu_ir) == (stages > 1), gpu_ir


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 72), ((128, 64, 16), 8, 40)])
def test_masked_k_tail_tf32_on_wgmma(tmp_path, stages, tile, warps, K):
    """test_masked_k_tail in tf32 on sm_90: B's 4-byte copies per element (or its transposed
    staging) under their own mask bits, zeros past K."""
    BM, BN, _ = tile
    values = small_integers(BM * K + K * BN, 8, seed=K + BN)
    out, ptx = run_kernel(tmp_path, "masked_k", "fp32", "fp32", values, BM * BN, tile, warps, stages, 90, K,
                          ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32", defer_copies=stages > 1)
    a, b = operands(values, BM, BN, K, True, True)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    assert "k8.f32.tf32.tf32" in ptx


@pytest.mark.parametrize("b_major", [True, False])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 80), ((128, 64, 64), 8, 48)])
def test_masked_k_tail_int8_on_wgmma(tmp_path, b_major, stages, tile, warps, K):
    """test_masked_k_tail in int8 on sm_90 (wgmma k32 .s32.s8.s8): a K-major B copied 16 bytes
    along K under its mask (source sizes of 0 past K), or staged transposed; a row-major B in
    a pipelined loop stays on mma.sync (not run here: test_cpu_emulation_mma.py's)."""
    BM, BN, _ = tile
    constexprs = f", A_MAJOR=True, B_MAJOR={b_major}, ACC=tl.int32"
    if b_major and stages > 1:
        ptx = emitter(tmp_path, "masked_k", "i8", "i32", tile, warps, stages, 90, constexprs)("ptx")
        assert "mma.sync.aligned.m16n8k32" in ptx and "wgmma" not in ptx
        return
    values = small_integers(BM * K + K * BN, 8, seed=K + BN)
    out, ptx = run_kernel(tmp_path, "masked_k", "i8", "i32", values, BM * BN, tile, warps, stages, 90, K, constexprs,
                          defer_copies=stages > 1)
    a, b = operands(values, BM, BN, K, True, b_major)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    assert "k32.s32.s8.s8" in ptx and ("cp.async" in ptx) == (stages > 1)


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("tile,warps", [((32, 32, 32), 4), ((16, 64, 16), 2)])
def test_batched_dot(tmp_path, sm, ty, tile, warps):
    BM, BN, BK = tile
    values = small_integers(2 * BM * BK + 2 * BK * BN, 8, seed=BM + 2 * BN)
    out, ptx = run_kernel(tmp_path, "batched", ty, "fp32", values, 2 * BM * BN, tile, warps, 1, sm, 0,
                          ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32")
    a = values[:2 * BM * BK].reshape(2, BM, BK)
    b = values[2 * BM * BK:].reshape(2, BK, BN)
    np.testing.assert_array_equal(out.reshape(2, BM, BN).astype(np.float64), a @ b)
    assert "mma.sync" in ptx or "wgmma" in ptx


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("tile,warps,stages", [((64, 64, 32), 4, 3), ((128, 32, 64), 8, 1)])
def test_attention_loop(tmp_path, sm, ty, tile, warps, stages):
    """Q @ trans(K_j) (a K-major B from tl.trans), cast, then @ V_j with A from registers,
    accumulated over three key blocks, pipelined or not."""
    BM, BN, BK = tile
    L = 3 * BN
    values = small_integers(BM * BK + 2 * L * BK, 3, seed=BM + BN + sm)
    out, ptx = run_kernel(tmp_path, "attention", ty, "fp32", values, BM * BK, tile, warps, stages, sm, L,
                          ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32", defer_copies=stages > 1)
    q = values[:BM * BK].reshape(BM, BK)
    keys = values[BM * BK:BM * BK + L * BK].reshape(L, BK)
    v = values[BM * BK + L * BK:].reshape(L, BK)
    want = sum(round_to(q @ keys[j:j + BN].T, ty) @ v[j:j + BN] for j in range(0, L, BN))
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), want)
    assert ("wgmma.mma_async" in ptx) == (sm == 90)


def test_emulator_catches_a_misplaced_fragment(tmp_path, monkeypatch):
    """The emulation can fail: with B's ldmatrix rows taken from the wrong lanes (rows 0-7
    and 8-15 of each k16 swapped), the product is wrong."""
    source = open(EMU_C).read()
    broken = source.replace("unsigned r0 = lane_address[base + 8 * j + 2 * (lane % 4)]",
                            "unsigned r0 = lane_address[base + ((8 * j) ^ 8) + 2 * (lane % 4)]")
    broken = broken.replace("r1 = lane_address[base + 8 * j + 2 * (lane % 4) + 1]",
                            "r1 = lane_address[base + ((8 * j) ^ 8) + 2 * (lane % 4) + 1]")
    assert broken != source
    patched = tmp_path / "broken.c"
    patched.write_text(broken)
    monkeypatch.setitem(globals(), "EMU_C", str(patched))
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        check_matmul(tmp_path, "matmul", "fp16", "fp32", "row-major", (32, 32, 32), 1, 64, 1, 80)


def test_a_copy_read_before_its_wait_is_caught(tmp_path):
    """Copies landing late: with every cp.async.wait_group made to wait for nothing, the
    stages are read before their copies land (0x7f bytes: NaN)."""
    def no_waits(ll):
        ll, count = re.subn(r"cp\.async\.wait_group \d+;", "cp.async.wait_group 7;", ll)
        assert count > 0
        return ll
    check_matmul(tmp_path, "matmul", "fp16", "fp32", "row-major", (64, 64, 32), 4, 128, 3, 80, defer_copies=True)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        check_matmul(tmp_path, "matmul", "fp16", "fp32", "row-major", (64, 64, 32), 4, 128, 3, 80,
                     defer_copies=True, mutate=no_waits)


SELF_CHECK_MAIN = r'''
// One warp (mma) or one warpgroup (wgmma, A from registers, B from shared through a K-major
// descriptor without swizzle: 8-row core matrices of 16 bytes, LBO 128, SBO 256) of f16 with
// f16 accumulators: fragments built from A, B, C as the PTX ISA lays them out, D unpacked the
// same way. Reads A (M x 16), B (16 x N), C (M x N) as halves from stdin, writes D.
static unsigned short A[64 * 16], B[16 * 256], C[64 * 256], D[64 * 256];
static int wgmma_n;
static unsigned pack(unsigned short lo, unsigned short hi) { return lo | (unsigned)hi << 16; }
static void* lane_main(void* arg) {
  emu_tid = (int)(long)arg;
  int lane = emu_tid & 31, w = emu_tid / 32, g = lane / 4, t = lane % 4, r0 = 16 * w;
  unsigned long long in[4 + 2 + 64 + 2], out[64];
  memset(in, 0, sizeof in);
  for (int i = 0; i < 4; ++i) {  // A: (g | g+8, 2t | 2t+8)
    int row = r0 + g + 8 * (i & 1), col = 2 * t + 8 * (i >> 1);
    set_u32(in, i, pack(A[row * 16 + col], A[row * 16 + col + 1]));
  }
  if (!wgmma_n) {
    for (int i = 0; i < 2; ++i) set_u32(in, 4 + i, pack(B[(2 * t + 8 * i) * 8 + g], B[(2 * t + 8 * i + 1) * 8 + g]));
    for (int i = 0; i < 2; ++i) set_u32(in, 6 + i, pack(C[(g + 8 * i) * 8 + 2 * t], C[(g + 8 * i) * 8 + 2 * t + 1]));
    emu_mma16(in, out, 0, 1, 0, 4, 6);
    for (int i = 0; i < 2; ++i) {
      D[(g + 8 * i) * 8 + 2 * t] = out[i] & 0xffff;
      D[(g + 8 * i) * 8 + 2 * t + 1] = (out[i] >> 16) & 0xffff;
    }
    return NULL;
  }
  int n = wgmma_n;
  in[4] = (128ull >> 4) << 16 | (256ull >> 4) << 32;  // B's descriptor: start 0, no swizzle
  set_u32(in, 5, 1);                                  // scale-d
  for (int j = 0; j < n / 8; ++j)
    for (int h = 0; h < 2; ++h) {
      int row = r0 + g + 8 * h, col = 8 * j + 2 * t;
      set_u32(in, 6 + 2 * j + h, pack(C[row * n + col], C[row * n + col + 1]));
    }
  emu_wgmma(in, out, n, 0, 0, 1, 1, 0, 4, 5, 6, 1, 1, 0, 0);
  emu_wgmma_commit(NULL, NULL);
  emu_wgmma_wait(out, out, n / 4, 0);  // the accumulators' values in place of their tags
  for (int j = 0; j < n / 8; ++j)
    for (int h = 0; h < 2; ++h) {
      int row = r0 + g + 8 * h, col = 8 * j + 2 * t;
      D[row * n + col] = out[2 * j + h] & 0xffff, D[row * n + col + 1] = (out[2 * j + h] >> 16) & 0xffff;
    }
  return NULL;
}
int main(int argc, char** argv) {
  wgmma_n = atoi(argv[1]);
  int m = wgmma_n ? 64 : 16, n = wgmma_n ? wgmma_n : 8, threads = wgmma_n ? 128 : 32;
  if (fread(A, 2, m * 16, stdin) != (size_t)(m * 16) || fread(B, 2, 16 * n, stdin) != (size_t)(16 * n) ||
      fread(C, 2, m * n, stdin) != (size_t)(m * n)) return 2;
  for (int k = 0; k < 16; ++k)  // B (k, n) at (n % 8) * 16 + (n / 8) * 256 + (k % 8) * 2 + (k / 8) * 128
    for (int j = 0; j < n; ++j)
      memcpy(__tritium_shared + (j % 8) * 16 + (j / 8) * 256 + (k % 8) * 2 + (k / 8) * 128, &B[k * n + j], 2);
  for (int w = 0; w < threads / 32; ++w) pthread_barrier_init(&warp[w], NULL, 32);
  init_warpgroups(threads);
  pthread_t th[128];
  for (long i = 0; i < threads; ++i) pthread_create(&th[i], NULL, lane_main, (void*)i);
  for (int i = 0; i < threads; ++i) pthread_join(th[i], NULL);
  fwrite(D, 2, m * n, stdout);
  return 0;
}
'''


@pytest.mark.parametrize("wgmma_n", [0, 16, 64])
def test_f16_accumulator_fragments(tmp_path, wgmma_n):
    """The emulator's f16-accumulator forms (mma.sync .f16.f16.f16.f16, wgmma .f16.f16.f16)
    on fragments built from the PTX ISA's layouts, with fractions whose sums round (the
    matmul tests' sums are exact); wgmma's B through a descriptor without swizzle."""
    prefix = emu.DRIVER[:emu.DRIVER.index("void KERNEL(")]
    source = prefix + "char __tritium_shared[262144];\n" + open(EMU_C).read() + SELF_CHECK_MAIN
    (tmp_path / "self.c").write_text(source)
    subprocess.run([emu.CC, "-O1", str(tmp_path / "self.c"), "-o", str(tmp_path / "self"), "-lpthread", "-lm"],
                   check=True)
    m, n = (64, wgmma_n) if wgmma_n else (16, 8)
    rng = np.random.default_rng(wgmma_n)
    a = rng.integers(-8, 9, (m, 16)).astype(np.float16)
    b = rng.integers(-8, 9, (16, n)).astype(np.float16)
    c = (rng.integers(-64, 65, (m, n)) / 8).astype(np.float16)  # eighths: sums above 256 round
    done = subprocess.run([str(tmp_path / "self"), str(wgmma_n)], input=a.tobytes() + b.tobytes() + c.tobytes(),
                          capture_output=True, check=True)
    d = np.frombuffer(done.stdout, dtype=np.float16).reshape(m, n)
    # Products and sums of these are exact in f32; the result rounds once to f16.
    want = (a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)).astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(d, want)


@pytest.mark.parametrize("ty,sm", [("fp16", 80), ("bf16", 80), ("fp16", 90), ("fp32", 90)])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((128, 64, 16), 8), ((64, 128, 32), 4)])
def test_dot_result_stored_column_major(tmp_path, ty, sm, tile, warps):
    """The store's column layout takes the dot's fragments (mma.sync's, wgmma's) straight
    through one round trip: 16-byte stores down the columns, every element where it belongs."""
    ptx = check_matmul(tmp_path, "dot_once", ty, "fp32", "row-major", tile, warps, tile[2], 1, sm, store_t=True)
    assert "st.global.v4" in ptx
    assert ("wgmma" in ptx) == (sm == 90)


STATE_UPDATE = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def state_update(x_ptr, out_ptr, T, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # flash-linear-attention's chunked state update (chunk_fwd_kernel_h, launched at 1
        # warp): h (BM x BN) = sum over chunks of k^T (BM x BK) @ v (BK x BN); k (T x BM) at x,
        # read transposed (contiguous along BM), v (T x BN) after it; the last chunk masked.
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        h = tl.zeros((BM, BN), dtype=tl.float32)
        for chunk in range(tl.cdiv(T, BK)):
            t = chunk * BK + tl.arange(0, BK)
            live = t < T
            kt = tl.load(x_ptr + rows[:, None] + t[None, :] * BM, mask=live[None, :], other=0.0)
            vt = tl.load(x_ptr + T * BM + t[:, None] * BN + cols[None, :], mask=live[:, None], other=0.0)
            h += tl.dot(kt, vt)
        tl.store(out_ptr + rows[:, None] * BN + cols[None, :], h)
''')


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("tile,warps,T", [((16, 16, 64), 1, 80), ((32, 16, 32), 2, 48), ((16, 32, 32), 2, 112)])
def test_transposed_operand_at_small_warps(tmp_path, ty, sm, stages, tile, warps, T):
    """A masked, transposed A (k^T) at 1 and 2 warps: staged by the dot from its coalesced slot
    (num_stages 1; stage_slot's per-thread base and vector stores), or copied by cp.async in
    16-byte runs along M into a transposed stage buffer that ldmatrix reads with .trans
    (num_stages > 1; before, element by element behind a run-time test): exact against numpy."""
    BM, BN, _ = tile
    values = small_integers(T * BM + T * BN, 8, seed=T + BM)
    out, ptx = run_kernel(tmp_path, "state_update", ty, "fp32", values, BM * BN, tile, warps, stages, sm, T, "",
                          kernels=STATE_UPDATE, defer_copies=stages > 1)
    k = values[:T * BM].reshape(T, BM)
    v = values[T * BM:].reshape(T, BN)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), k.T @ v)
    assert_mma_sync(ptx, ty, "fp32")
    if stages > 1:
        # Both operands copied in 16-byte runs, no element loads left; A read by .trans.
        assert "ld.global" not in ptx
        assert re.search(r"cp\.async\.c[ag]\.shared\.global \[[^]]*\], \[[^]]*\], 16", ptx)
        assert not re.search(r"cp\.async\.c[ag]\.shared\.global \[[^]]*\], \[[^]]*\], [248],", ptx)
        assert "ldmatrix.sync.aligned.m8n8.x4.trans" in ptx


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("stride", [64, 192])
def test_fragments_through_branches(tmp_path, sm, ty, stride):
    """Values of the fragment layout carried through `if` results (flash-attn's two loops, each
    under an `if`, and a dot accumulator masked by an `if`) stay in registers: both P @ V dots
    read P from the first dot's registers (before, the second loop's values fell back to the
    flat layout: P, the row maximum and the accumulator through shared memory). stride 64: the
    first `if` not taken, its results the initial values."""
    BM, BN, BK = 64, 64, 32
    constexprs = ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32"
    gpu_ir = emitter(tmp_path, "split_loops", ty, "fp32", (BM, BN, BK), 4, 1, sm, constexprs)("gpu-ir")
    assert gpu_ir.count("A read from its fragments' registers") == 2, gpu_ir
    values = small_integers(BM * BK + 2 * stride * BK, 4, seed=stride + sm)
    out, _ = run_kernel(tmp_path, "split_loops", ty, "fp32", values, BM * BK, (BM, BN, BK), 4, 1, sm, stride,
                        constexprs)
    q = values[:BM * BK].reshape(BM, BK)
    keys = values[BM * BK:BM * BK + stride * BK].reshape(stride, BK)
    vals = values[BM * BK + stride * BK:].reshape(stride, BK)
    acc, top = np.zeros((BM, BK)), np.full(BM, -1000.0)
    for j in range(0, stride, BN):
        s = q @ keys[j:j + BN].T
        if j + BN == stride and j >= stride // BN // 2 * BN:
            s[:, -1] += 7
        top = np.maximum(top, s.max(axis=1))
        acc += round_to(s - top[:, None], ty) @ vals[j:j + BN]
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), acc + top[:, None])


@pytest.mark.parametrize("ty", ["fp8e4nv", "fp8e5"])
@pytest.mark.parametrize("to", ["float16", "bfloat16", "float32"])
def test_fp8_widened_two_registers_per_cvt(tmp_path, ty, to):
    """fp8 cast up on sm_90: one cvt.rn.f16x2 converts two of a thread's registers (Triton's
    pairing; before, one cvt per element with a zero high byte), and to bf16 one more cvt from
    the half (before: through f32, two): every element its own value
    (a pairing that mixed registers up would move values between elements). Values with two
    mantissa bits, exact in both formats."""
    rng = np.random.default_rng(len(ty) + len(to))
    n = 64 * 32  # 16 elements a thread at 4 warps
    values = rng.choice([-1.0, 1.0], n) * (1 + rng.integers(0, 4, n) / 4) * 2.0 ** rng.integers(-4, 7, n)
    values[::7] = 0.0
    out, ptx = run_kernel(tmp_path, "widen", ty, "fp32", values, n, (64, 32, 16), 4, 1, 90, 0, f", TO=tl.{to}")
    np.testing.assert_array_equal(out.astype(np.float64), values)
    assert ptx.count("cvt.rn.f16x2.e") == 8, ptx.count("cvt.rn.f16x2.e")
    assert ("cvt.rn.bf16.f16" in ptx) == (to == "bfloat16")  # one cvt from f16, not two through f32


@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((128, 32, 32), 8)])
def test_tf32_attention_writes_q_once(tmp_path, tile, warps):
    """attention's loop in fp32 on sm_90 (tf32 wgmma): the loop-invariant Q (the first dot's A)
    is written into its own buffer once before the loop, as fp16 Q is (before, only 16-bit As
    were: fp32 Q stayed in registers and was staged again in every iteration)."""
    BM, BN, BK = tile
    L = 3 * BN
    constexprs = ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32"
    gpu_ir = emitter(tmp_path, "attention", "fp32", "fp32", tile, warps, 1, 90, constexprs)("gpu-ir")
    assert "A written once before the loop" in gpu_ir and "tf32" in gpu_ir, gpu_ir
    values = small_integers(BM * BK + 2 * L * BK, 3, seed=BM + BN)
    out, ptx = run_kernel(tmp_path, "attention", "fp32", "fp32", values, BM * BK, tile, warps, 1, 90, L, constexprs)
    q = values[:BM * BK].reshape(BM, BK)
    keys = values[BM * BK:BM * BK + L * BK].reshape(L, BK)
    v = values[BM * BK + L * BK:].reshape(L, BK)
    want = sum((q @ keys[j:j + BN].T) @ v[j:j + BN] for j in range(0, L, BN))  # small integers: exact in tf32
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), want)
    assert "wgmma.mma_async" in ptx and "tf32" in ptx


KEY_BIAS_KERNELS = KERNELS + textwrap.dedent('''

    @tritium.jit
    def key_bias(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # DeepSpeed's packed flash attention with a key mask, without the exponentials: per key
        # block j, S = Q @ trans(K_j) + bias_j[None, :] (a row loaded in the loop, broadcast down
        # the scores' rows) minus a column loaded before the loop (`lse[:, None]` as in
        # cut-cross-entropy's backward, across the scores' columns), its running row maximum,
        # O += (S - max).to(x) @ V_j. Q (BM x BK), K and V (stride x BK), the bias (stride),
        # then the column (BM).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        q = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        acc = tl.zeros((BM, BK), dtype=tl.float32)
        top = tl.full((BM,), -1000.0, dtype=tl.float32)
        col = tl.load(x_ptr + BM * BK + 2 * stride * BK + stride + m).to(tl.float32)
        for j in range(0, stride, BN):
            kb = tl.load(x_ptr + BM * BK + (j + n)[:, None] * BK + k[None, :])
            vb = tl.load(x_ptr + BM * BK + stride * BK + (j + n)[:, None] * BK + k[None, :])
            bias = tl.load(x_ptr + BM * BK + 2 * stride * BK + j + n)
            s = tl.dot(q, tl.trans(kb)) + bias[None, :].to(tl.float32) - col[:, None]
            top = tl.maximum(top, tl.max(s, 1))
            acc = tl.dot((s - top[:, None]).to(x_ptr.dtype.element_ty), vb, acc)
        tl.store(out_ptr + m[:, None] * BK + k[None, :], acc + top[:, None])
''')


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("tile,warps,stages", [((64, 32, 32), 4, 3), ((128, 64, 32), 4, 1)])
def test_key_bias_added_in_fragments(tmp_path, sm, tile, warps, stages):
    """A row broadcast down the columns of a dot's result (`bias[None, :]`) is read in the
    fragment layout, each register taking the row's element at its column (a column across the
    rows likewise, at its row), so the scores, their row maxima and P stay in registers (fragment_layout.cpp's line_broadcast). Before, the add
    was flat: the scores went through shared memory, and the softmax with them (DeepSpeed's
    packed flash attention with a key mask: 255 registers, 32 bytes spilled; Triton 168)."""
    BM, BN, BK = tile
    L = 3 * BN
    gpu_ir = emitter(tmp_path, "key_bias", "fp16", "fp32", tile, warps, stages, sm, "", KEY_BIAS_KERNELS)("gpu-ir")
    broadcast = re.search(r"= broadcast [^\n]*fp32[^\n]*", gpu_ir).group(0)
    assert "fragments:" in broadcast, gpu_ir
    assert not re.search(r"= (dot|reduce) [^\n]*also read flat", gpu_ir), gpu_ir
    values = small_integers(BM * BK + 2 * L * BK + L + BM, 2, seed=BM + BN + sm)
    out, ptx = run_kernel(tmp_path, "key_bias", "fp16", "fp32", values, BM * BK, tile, warps, stages, sm, L, "",
                          defer_copies=stages > 1, kernels=KEY_BIAS_KERNELS)
    q = values[:BM * BK].reshape(BM, BK)
    keys = values[BM * BK:BM * BK + L * BK].reshape(L, BK)
    v = values[BM * BK + L * BK:BM * BK + 2 * L * BK].reshape(L, BK)
    bias = values[BM * BK + 2 * L * BK:BM * BK + 2 * L * BK + L]
    col = values[BM * BK + 2 * L * BK + L:]
    acc, top = np.zeros((BM, BK)), np.full(BM, -1000.0)
    for j in range(0, L, BN):
        s = q @ keys[j:j + BN].T + bias[j:j + BN][None, :] - col[:, None]
        top = np.maximum(top, s.max(axis=1))
        acc = acc + (s - top[:, None]) @ v[j:j + BN]
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), acc + top[:, None])
    assert ("wgmma.mma_async" in ptx) == (sm == 90)
    # The column's broadcast too: each register reads the element at its row.
    column = re.search(r"= broadcast %\d+ : block<\d+x\d+xfp32[^\n]*\n[^\n]*= sub ", gpu_ir)
    assert column and "fragments:" in column.group(0), gpu_ir

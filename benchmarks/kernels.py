"""The benchmark kernels, written once in Triton's language and decorated by each JIT in
bench.py (tritium.jit and triton.jit read the same source text)."""

import triton.language as tl


def add4(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add16(p0, p1, p2, p3, p4, p5, p6, out_ptr, n, a1, a2, a3, a4, a5, a6, a7,
          BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(p0 + offs, mask=mask) + tl.load(p1 + offs, mask=mask)
    acc += tl.load(p2 + offs, mask=mask) + tl.load(p3 + offs, mask=mask)
    acc += tl.load(p4 + offs, mask=mask) + tl.load(p5 + offs, mask=mask)
    acc += tl.load(p6 + offs, mask=mask)
    s = a1 + a2 + a3 + a4 + a5 + a6 + a7
    tl.store(out_ptr + offs, acc + s, mask=mask)

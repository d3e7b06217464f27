"""The reduction benchmark kernels (bench_reduce.py), written once in Triton's language and
decorated by each JIT there (tritium.jit and triton.jit read the same source text). Each
kernel is self-contained (no @jit helpers), as in Triton's tutorials."""

import triton.language as tl


def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    """One program per row; the row in registers: max, exp, sum, divide."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


def layer_norm(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    """Forward layer norm of one row per program, the row loaded once (BLOCK >= N)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    tl.store(Y + row * stride + cols, xc * rstd * w + b, mask=mask)


def rms_norm(X, Y, W, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    rrms = 1 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride + cols, x * rrms * w, mask=mask)


def cross_entropy(logits, targets, loss, stride, V, BLOCK: tl.constexpr):
    """loss[row] = logsumexp(logits[row]) - logits[row, target]: one pass over the
    vocabulary with a running max and a rescaled running sum per lane."""
    row = tl.program_id(0)
    base = logits + row * stride
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        new_m = tl.maximum(m, x)
        s = s * tl.exp(m - new_m) + tl.exp(x - new_m)
        s = tl.where(new_m == -float("inf"), 0., s)
        m = new_m
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    target = tl.load(targets + row)
    picked = tl.load(base + target).to(tl.float32)
    tl.store(loss + row, tl.log(total) + row_max - picked)


def sum_atomic(X, Z, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    """Each program sums ITERS blocks of BLOCK elements, then one atomic add into Z."""
    start = tl.program_id(0) * BLOCK * ITERS
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(ITERS):
        offs = start + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(X + offs, mask=offs < n, other=0.)
    tl.atomic_add(Z, tl.sum(acc, axis=0))


def cumsum_rows(X, Z, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols, mask=mask, other=0.)
    tl.store(Z + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)

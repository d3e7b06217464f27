"""Row reductions of a dot's result (fragment rows, DESIGN.md "Dots and the fragment layout"):
tl.max / tl.min / tl.sum along axis 1, with and without keep_dims, on rows that may hold -inf
and NaN, then the row value broadcast back onto the dot (`c - r[:, None]`). Shared by the
interpreter suite (test_fragment_rows.py) and the GPU suite (tests/gpu/test_gpu_fragment_rows.py)."""

import importlib

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")


@jit
def dot_row_reduce(a_ptr, b_ptr, out_ptr, rows_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   OP: tl.constexpr, KEEP: tl.constexpr, SPECIAL: tl.constexpr):
    """a: [M, K], b: [K, N] (fp16); rows: [M] the reduction of a @ b along its rows; out:
    [M, N] a @ b minus its row's reduction. SPECIAL: rows 3, 8, 13, ... all -inf, and column
    1 of rows 2, 9, 16, ... NaN (masks from ranges, so the dot stays in fragments)."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    if SPECIAL:
        c = tl.where((rm % 5 == 3)[:, None], float("-inf"), c)
        c = tl.where((rm % 7 == 2)[:, None] & (rn == 1)[None, :], float("nan"), c)
    if OP == "max":
        r = tl.max(c, 1, keep_dims=KEEP)
    elif OP == "min":
        r = tl.min(c, 1, keep_dims=KEEP)
    else:
        r = tl.sum(c, 1, keep_dims=KEEP)
    if KEEP:
        tl.store(rows_ptr + rm[:, None], r)
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], c - r)
    else:
        tl.store(rows_ptr + rm, r)
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], c - r[:, None])


@jit
def softmax_rows(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """softmax(a @ b) along rows, computed on the dot's fragments: max, exp2, sum, divide."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    s = tl.dot(a, b) * 1.44269504
    p = tl.math.exp2(s - tl.max(s, 1)[:, None])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], p / tl.sum(p, 1)[:, None])


def special_rows(c, m, n):
    """What SPECIAL does to a float64 copy of a @ b."""
    import numpy as np
    c = c.copy()
    rows = np.arange(m)
    c[rows % 5 == 3, :] = -np.inf
    c[(rows % 7 == 2), 1] = np.nan
    return c


def reference(a, b, op, special):
    """(rows, out) in float64 for dot_row_reduce; max and min skip NaN as the GPU's max.f32
    does, unless a row is all NaN."""
    import numpy as np
    c = a.astype(np.float64) @ b.astype(np.float64)
    if special:
        c = special_rows(c, a.shape[0], b.shape[1])
    with np.errstate(invalid="ignore"):
        r = {"max": np.fmax.reduce, "min": np.fmin.reduce, "sum": np.add.reduce}[op](c, axis=1)
        return r, c - r[:, None]


@jit
def chained_dots(a_ptr, b_ptr, d_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, D: tl.constexpr,
                 PREC: tl.constexpr):
    """(a @ b) @ d with the first result cast to d's type: the second dot's A operand is
    staged into shared memory straight from the first dot's fragments."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rd = tl.arange(0, D)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    d = tl.load(d_ptr + rn[:, None] * D + rd[None, :])
    c = tl.dot(a, b) * 0.25
    out = tl.dot(c.to(d.dtype), d, input_precision=PREC)
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], out)


@jit
def softmax_dot(a_ptr, b_ptr, v_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                D: tl.constexpr):
    """softmax(a @ b) @ v for one block (attention without the loop): P cast to fp16 is the
    second dot's A, from registers where every warp holds whole rows of it."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rd = tl.arange(0, D)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
    s = tl.dot(a, b) * 1.44269504
    p = tl.math.exp2(s - tl.max(s, 1)[:, None])
    o = tl.dot(p.to(tl.float16), v) / tl.sum(p, 1)[:, None]
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], o)


def softmax_dot_reference(a, b, v):
    import numpy as np
    s = a.astype(np.float64) @ b.astype(np.float64)
    p = np.exp(s - s.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)

"""Reduction, scan and shape kernels written once in Triton's language, for the interpreter
suite (test_reduce.py), the GPU suite (tests/gpu/test_gpu_reduce.py) and real Triton.

`import reduce_kernels` gives the tritium flavour; `load("triton")` executes this same file
again as a second module whose `jit` and `tl` are Triton's, so a differential test launches
the very same source text through both JITs.
"""

import importlib
import importlib.util

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")


def load(jit_module):
    """This file as a module whose kernels are decorated by `jit_module` ("tritium"/"triton")."""
    spec = importlib.util.spec_from_file_location(f"reduce_kernels_{jit_module}", __file__)
    module = importlib.util.module_from_spec(spec)
    module.JIT = jit_module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------
# Loading and storing an N-D block (rank 1-4, row-major, power-of-two dims).


@jit
def nd_offsets(RANK: tl.constexpr, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr,
               D3: tl.constexpr):
    if RANK == 1:
        offs = tl.arange(0, D0)
    elif RANK == 2:
        offs = tl.arange(0, D0)[:, None] * D1 + tl.arange(0, D1)[None, :]
    elif RANK == 3:
        offs = (tl.arange(0, D0)[:, None, None] * D1 + tl.arange(0, D1)[None, :, None]) * D2 \
            + tl.arange(0, D2)[None, None, :]
    else:
        offs = ((tl.arange(0, D0)[:, None, None, None] * D1
                 + tl.arange(0, D1)[None, :, None, None]) * D2
                + tl.arange(0, D2)[None, None, :, None]) * D3 + tl.arange(0, D3)[None, None, None, :]
    return offs


@jit
def store_flat(Z, z, SCALAR: tl.constexpr, BF16: tl.constexpr):
    """Stores `z` (scalar or block of any rank) row-major at Z; bf16 as its uint16 bits."""
    if BF16:
        z = z.to(tl.uint16, bitcast=True)
    if SCALAR:
        tl.store(Z, z)
    else:
        tl.store(Z + tl.arange(0, z.numel), tl.reshape(z, [z.numel]))


# ---------------------------------------------------------------------------------------
# Reductions.


@jit
def reduce_kernel(X, Z, ZI, OP: tl.constexpr, RANK: tl.constexpr, D0: tl.constexpr,
                  D1: tl.constexpr, D2: tl.constexpr, D3: tl.constexpr, AXIS: tl.constexpr,
                  KEEP: tl.constexpr, IN_BF16: tl.constexpr, OUT_BF16: tl.constexpr,
                  SCALAR: tl.constexpr, TIE_LEFT: tl.constexpr):
    x = tl.load(X + nd_offsets(RANK, D0, D1, D2, D3))
    if IN_BF16:
        x = x.to(tl.bfloat16, bitcast=True)
    if OP == "sum":
        z = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        z = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        z = tl.min(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "xor_sum":
        z = tl.xor_sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        z = tl.argmax(x, axis=AXIS, tie_break_left=TIE_LEFT, keep_dims=KEEP)
    elif OP == "argmin":
        z = tl.argmin(x, axis=AXIS, tie_break_left=TIE_LEFT, keep_dims=KEEP)
    elif OP == "max_with_indices":
        z, i = tl.max(x, axis=AXIS, return_indices=True, return_indices_tie_break_left=TIE_LEFT,
                      keep_dims=KEEP)
        store_flat(ZI, i, SCALAR, False)
    else:
        z, i = tl.min(x, axis=AXIS, return_indices=True, return_indices_tie_break_left=TIE_LEFT,
                      keep_dims=KEEP)
        store_flat(ZI, i, SCALAR, False)
    store_flat(Z, z, SCALAR, OUT_BF16)


@jit
def method_reduce_kernel(X, Z, N: tl.constexpr):
    """The tensor-method spellings: x.sum(), x.max(0), x.argmin(0), x.cumsum(0)."""
    x = tl.load(X + tl.arange(0, N))
    tl.store(Z + 0, x.sum())
    tl.store(Z + 1, x.max(0))
    tl.store(Z + 2, x.min(axis=0))
    tl.store(Z + 3, x.argmin(0).to(x.dtype))
    tl.store(Z + 4 + tl.arange(0, N), x.cumsum(0))


@jit
def sum_dtype_kernel(Z, INIT: tl.constexpr, IN_DTYPE: tl.constexpr, OUT_DTYPE: tl.constexpr):
    x = tl.full((32, 32), INIT, dtype=IN_DTYPE)
    tl.store(Z, tl.sum(x, dtype=OUT_DTYPE).to(tl.int32))


@jit
def sum_default_kernel(X, Z, IN_DTYPE: tl.constexpr):
    """sum without dtype= of a bool / small-int block; Z's type shows the accumulator."""
    x = tl.load(X + tl.arange(0, 1024)[:, None] * 4 + tl.arange(0, 4)[None, :])
    if IN_DTYPE == tl.int1:
        x = x != 0
    tl.store(Z, tl.sum(x))


@jit
def scalar_reduce_kernel(X, Z):
    """Reductions of a scalar (0-d) value with no axis: each gives the value back (an axis
    of a scalar is an error, as in Triton: tests/errors/reduce_axis_of_scalar.py)."""
    x = tl.load(X)
    tl.store(Z + 0, tl.sum(x))
    tl.store(Z + 1, tl.max(x))
    tl.store(Z + 2, tl.min(x, axis=None))


@jit
def _welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = weight_2 / new_weight
    return (
        mean_1 + delta * w2_over_w,
        m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w,
        new_weight,
    )


@jit
def var_mean_kernel(X, out_mean, out_var, BLOCK: tl.constexpr):
    xindex = tl.arange(0, BLOCK)
    x = tl.load(X + xindex)
    mean = x
    m2 = tl.zeros_like(x)
    weight = tl.full(x.shape, 1, x.dtype)
    (mean, m2, weight) = tl.reduce((mean, m2, weight), 0, _welford_combine)
    tl.store(out_mean, mean)
    tl.store(out_var, m2 / weight)


@jit
def _max_abs_with_index(v1, i1, v2, i2):
    a1 = tl.abs(v1)
    a2 = tl.abs(v2)
    better = (a1 > a2) | ((a1 == a2) & (i1 < i2))
    return tl.where(better, v1, v2), tl.where(better, i1, i2)


@jit
def _bitwise_or(a, b):
    return a | b


@jit
def _product(a, b):
    return a * b


@jit
def generic_reduce_kernel(X, V, I, OR, PROD, M: tl.constexpr, N: tl.constexpr,
                          AXIS: tl.constexpr, KEEP: tl.constexpr):
    """tl.reduce with user combine functions: a 2-tuple (signed value of largest |x| and
    its index), a bitwise-or and a product, along AXIS of an M x N block."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    if AXIS == 0:
        idx = tl.broadcast_to(tl.arange(0, M)[:, None], (M, N))
        out = tl.arange(0, N)
    else:
        idx = tl.broadcast_to(tl.arange(0, N)[None, :], (M, N))
        out = tl.arange(0, M)
    v, i = tl.reduce((x, idx), AXIS, _max_abs_with_index, keep_dims=KEEP)
    o = tl.reduce(x.to(tl.int32, bitcast=True), AXIS, _bitwise_or, keep_dims=KEEP)
    p = tl.reduce(x, AXIS, combine_fn=_product, keep_dims=KEEP)
    tl.store(V + out, tl.reshape(v, [out.numel]))
    tl.store(I + out, tl.reshape(i, [out.numel]))
    tl.store(OR + out, tl.reshape(o, [out.numel]))
    tl.store(PROD + out, tl.reshape(p, [out.numel]))


# ---------------------------------------------------------------------------------------
# Scans.


@jit
def get_first_element(a, b):
    return a


@jit
def linear_recurrence(a1, b1, a2, b2):
    # x_i = a_i * x_{i-1} + b_i
    return a1 * a2, b1 * a2 + b2


@jit
def cummax(v0, i0, v1, i1):
    gt = v0 > v1
    return tl.where(gt, v0, v1), tl.where(gt, i0, i1)


@jit
def roll(a1, b1_last, b1_cur, a2, b2_last, b2_cur):
    return a1 + a2, tl.where(a2 == 1, b1_cur, 0) + b2_last, b2_cur


@jit
def scan_kernel(X, Y, Z, OP: tl.constexpr, RANK: tl.constexpr, D0: tl.constexpr,
                D1: tl.constexpr, D2: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr,
                IN_BF16: tl.constexpr, AX_STRIDE: tl.constexpr, AX_LEN: tl.constexpr,
                OUT_BF16: tl.constexpr):
    offs = nd_offsets(RANK, D0, D1, D2, 1)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    if IN_BF16:
        x = x.to(tl.bfloat16, bitcast=True)
        y = y.to(tl.bfloat16, bitcast=True)
    if OP == "cumsum":
        z = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    elif OP == "cumprod":
        z = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    elif OP == "get_first_element":
        z = tl.associative_scan(x, axis=AXIS, combine_fn=get_first_element, reverse=REVERSE)
    elif OP == "linear_recurrence":
        _, z = tl.associative_scan((x, y), axis=AXIS, combine_fn=linear_recurrence,
                                   reverse=REVERSE)
    elif OP == "cummax":
        # the index along AXIS of each element (its stride in offs is AX_STRIDE), as int64
        idx = (offs // AX_STRIDE) % AX_LEN
        _, z = tl.associative_scan((x, idx.to(tl.int64)), axis=AXIS, combine_fn=cummax,
                                   reverse=REVERSE)
    else:
        _, z, _ = tl.associative_scan((1 + 0 * x, 0 * x, x), axis=AXIS, combine_fn=roll,
                                      reverse=REVERSE)
    if OUT_BF16:
        z = z.to(tl.uint16, bitcast=True)
    tl.store(Z + offs, z)


@jit
def cumsum_dtype_kernel(X, Z, N: tl.constexpr, DTYPE: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Z + tl.arange(0, N), tl.cumsum(x, 0, dtype=DTYPE))


@jit
def scan_1d_broadcast_kernel(out_ptr, in_ptr, M: tl.constexpr, N: tl.constexpr):
    inp = tl.load(in_ptr + tl.arange(0, M))
    output = tl.cumsum(inp).reshape([1, M]).broadcast_to([N, M])
    tl.store(out_ptr + tl.arange(0, M * N), output.reshape([M * N]))


# ---------------------------------------------------------------------------------------
# Histogram.


@jit
def histogram_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offset1 = tl.arange(0, M)
    offset2 = tl.arange(0, N)
    x = tl.load(x_ptr + offset1)
    z = tl.histogram(x, N)
    bias = tl.full([M, N], 1, dtype=tl.int32)
    # the result broadcasts like any [N] block
    biased = z + bias
    tl.store(z_ptr + offset2, z)
    tl.store(z_ptr + N + offset2, tl.sum(biased, axis=0))


@jit
def histogram_mask_kernel(x_ptr, z_ptr, n, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    z = tl.histogram(x, N, mask=mask)
    tl.store(z_ptr + tl.arange(0, N), z)


# ---------------------------------------------------------------------------------------
# Shape ops.


@jit
def trans_2d_kernel(In, Out, in_shape1: tl.constexpr, in_shape2: tl.constexpr,
                    ou_shape1: tl.constexpr, ou_shape2: tl.constexpr, trans1: tl.constexpr,
                    trans2: tl.constexpr, SPELLING: tl.constexpr):
    in_offs = tl.arange(0, in_shape1)[:, None] * in_shape2 + tl.arange(0, in_shape2)[None, :]
    ou_offs = tl.arange(0, ou_shape1)[:, None] * ou_shape2 + tl.arange(0, ou_shape2)[None, :]
    x = tl.load(In + in_offs)
    if SPELLING == "permute":
        z = tl.permute(x, (trans1, trans2))
    elif SPELLING == "permute_varargs":
        z = tl.permute(x, trans1, trans2)
    elif SPELLING == "trans":
        z = tl.trans(x, (trans1, trans2))
    elif SPELLING == "trans_default":
        z = tl.trans(x) if trans1 == 1 else x
    elif SPELLING == "T":
        z = x.T if trans1 == 1 else x
    else:
        z = x.permute(trans1, trans2)
    tl.store(Out + ou_offs, z)


@jit
def trans_4d_kernel(In, Out, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr,
                    S3: tl.constexpr, O0: tl.constexpr, O1: tl.constexpr, O2: tl.constexpr,
                    O3: tl.constexpr, P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr,
                    P3: tl.constexpr):
    x = tl.load(In + nd_offsets(4, S0, S1, S2, S3))
    tl.store(Out + nd_offsets(4, O0, O1, O2, O3), x.permute((P0, P1, P2, P3)))


@jit
def flip_kernel(X, Z, RANK: tl.constexpr, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr,
                DIM: tl.constexpr, BOOL: tl.constexpr):
    offs = nd_offsets(RANK, D0, D1, D2, 1)
    x = tl.load(X + offs)
    if BOOL:
        x = x != 0
    if DIM is None:
        z = tl.flip(x)
    else:
        z = x.flip(DIM)
    tl.store(Z + offs, z)


@jit
def sort_kernel(X, Z, ZK, RANK: tl.constexpr, D0: tl.constexpr, D1: tl.constexpr,
                D2: tl.constexpr, DESCENDING: tl.constexpr, K: tl.constexpr):
    """tl.sort along the last dim, and tl.topk(K) stored as a [..., K] block."""
    offs = nd_offsets(RANK, D0, D1, D2, 1)
    x = tl.load(X + offs)
    tl.store(Z + offs, tl.sort(x, descending=DESCENDING))
    if RANK == 1:
        tl.store(ZK + tl.arange(0, K), tl.topk(x, K))
    else:
        tl.store(ZK + tl.arange(0, D0)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@jit
def cat_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.cat(x, y, can_reorder=True)
    tl.store(Z + tl.arange(0, 2 * N), z)


@jit
def join_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.join(x, y)
    tl.store(Z + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :], z)


@jit
def join_2d_kernel(X, Y, Z, M: tl.constexpr, N: tl.constexpr):
    """join of a block and a broadcast scalar row: (M, N) and (1, N) -> (M, N, 2)."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    y = tl.load(Y + tl.arange(0, N))[None, :]
    z = tl.join(x, y)
    tl.store(Z + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], z)


@jit
def join_scalars_kernel(X, Y, Z):
    x = tl.load(X)
    y = tl.load(Y)
    z = tl.join(x, y)
    tl.static_assert(z.shape == [2])
    tl.store(Z + tl.arange(0, 2), z)


@jit
def interleave_kernel(Z, N: tl.constexpr):
    z = tl.interleave(tl.arange(0, N), tl.arange(N, 2 * N))
    tl.store(Z + tl.arange(0, 2 * N), z)


@jit
def interleave_2d_kernel(X, Y, Z, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    z = tl.interleave(tl.load(X + offs), tl.load(Y + offs))
    tl.store(Z + tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :], z)


@jit
def interleave_scalars_kernel(X, Y, Z):
    z = tl.interleave(X, Y)
    tl.static_assert(z.shape == [2])
    tl.store(Z + tl.arange(0, 2), z)


@jit
def split_kernel(X, Z1, Z2, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    x1 = tl.reshape(x, (N // 2, 2))
    z1, z2 = tl.split(x1)
    tl.store(Z1 + tl.arange(0, N // 2), z1)
    tl.store(Z2 + tl.arange(0, N // 2), z2)


@jit
def split_3d_kernel(X, Z1, Z2, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + nd_offsets(3, M, N, 2, 1))
    z1, z2 = x.split()
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Z1 + offs, z1)
    tl.store(Z2 + offs, z2)


@jit
def split_to_scalar_kernel(X, Z1, Z2):
    offs = tl.arange(0, 2)
    x = tl.load(X + offs)
    z1, z2 = tl.split(x)
    tl.static_assert(z1.shape == [])
    tl.static_assert(z2.shape == [])
    tl.store(Z1, z1)
    tl.store(Z2, z2)


@jit
def reshape_kernel(X, Z, RANK_IN: tl.constexpr, I0: tl.constexpr, I1: tl.constexpr,
                   I2: tl.constexpr, I3: tl.constexpr, RANK_OUT: tl.constexpr,
                   O0: tl.constexpr, O1: tl.constexpr, O2: tl.constexpr, O3: tl.constexpr,
                   SPELLING: tl.constexpr):
    x = tl.load(X + nd_offsets(RANK_IN, I0, I1, I2, I3))
    if RANK_OUT == 1:
        shape: tl.constexpr = (O0, )
    elif RANK_OUT == 2:
        shape: tl.constexpr = (O0, O1)
    elif RANK_OUT == 3:
        shape: tl.constexpr = (O0, O1, O2)
    else:
        shape: tl.constexpr = (O0, O1, O2, O3)
    if SPELLING == "reshape":
        z = tl.reshape(x, shape)
    elif SPELLING == "method":
        z = x.reshape(shape)
    else:
        z = tl.reshape(x, shape, can_reorder=True)
    tl.store(Z + nd_offsets(RANK_OUT, O0, O1, O2, O3), z)


@jit
def ravel_kernel(X, Z, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(Z + tl.arange(0, M * N), tl.ravel(x))


@jit
def expand_broadcast_kernel(X, Z, N: tl.constexpr, M: tl.constexpr):
    """expand_dims (positive, negative, tuple axes) and broadcast_to: each result is an
    M x N (or M x 1 x N) block stored row-major."""
    x = tl.load(X + tl.arange(0, N))
    a = tl.broadcast_to(tl.expand_dims(x, 0), (M, N))
    b = tl.broadcast_to(tl.expand_dims(x, -2), M, N)
    c = tl.broadcast_to(tl.expand_dims(x, (0, 1)), (M, 1, N))
    d = tl.broadcast_to(x[None, :], (M, N))
    e = tl.broadcast_to(tl.expand_dims(x, 1), (N, M))
    rows = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Z + rows, a)
    tl.store(Z + M * N + rows, b)
    tl.store(Z + 2 * M * N + tl.reshape(rows, (M, 1, N)), c)
    tl.store(Z + 3 * M * N + rows, d)
    tl.store(Z + 4 * M * N + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], e)


# ---------------------------------------------------------------------------------------
# Kernels of the kind users write: softmax, norms, cross-entropy, loops of reductions.


@jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@jit
def softmax_builtin_kernel(X, Z, M: tl.constexpr, N: tl.constexpr):
    """tl.softmax: dim None (0) of a 1-D row, dim 0 of a block, dim 1 with keep_dims."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    tl.store(Z + tl.arange(0, N), tl.softmax(tl.load(X + tl.arange(0, N))))
    tl.store(Z + N + offs, tl.softmax(x, 0))
    tl.store(Z + N + M * N + offs, x.softmax(dim=1, keep_dims=True))


@jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        acc += x * x
    var = tl.sum(acc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@jit
def rms_norm_kernel(X, Y, W, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride + cols, (x / rms * w).to(Y.dtype.element_ty), mask=mask)


@jit
def cross_entropy_kernel(logits, targets, loss, stride, V, BLOCK: tl.constexpr):
    """Per-row loss = logsumexp(logits) - logits[target], with an online max and sum over
    the vocabulary in chunks of BLOCK."""
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


@jit
def while_sum_kernel(X, Z, n, BLOCK: tl.constexpr):
    """A while loop whose carried value is a reduction result."""
    acc = 0.
    off = 0
    while off < n:
        cols = off + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(X + cols, mask=cols < n, other=0.), axis=0)
        off += BLOCK
    tl.store(Z, acc)


@jit
def argmax_rows_kernel(X, Z, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(Z + row, tl.argmax(x, axis=0))


@jit
def cumsum_rows_kernel(X, Z, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols, mask=mask, other=0.)
    tl.store(Z + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)


@jit
def sum_2d_blocks_kernel(X, Z, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Column sums of an M x N matrix: each program sums BLOCK_N columns over all rows."""
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], tl.float32)
    for r in range(0, M, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.sum(tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=0.), 0)
    tl.store(Z + cols, acc, mask=cols < N)

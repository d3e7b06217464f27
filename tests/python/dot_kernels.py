"""tl.dot kernels shared by the interpreter suite (test_dot.py) and the GPU suite
(tests/gpu/test_gpu_dot.py). `load("triton")` gives the same kernels under real Triton for
differential runs; the `a @ b` branch (USE_OP) is tritium's extension and is only taken
under tritium (Triton 3.6 has no `@` in kernels)."""

import importlib
import importlib.util

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")


def load(jit_module):
    """This file as a module whose kernels are decorated by `jit_module` ("tritium"/"triton")."""
    spec = importlib.util.spec_from_file_location(f"dot_kernels_{jit_module}", __file__)
    module = importlib.util.module_from_spec(spec)
    module.JIT = jit_module
    spec.loader.exec_module(module)
    return module


@jit
def dot_kernel(a_ptr, b_ptr, c_ptr, acc_ptr, stride_am, stride_ak, stride_bk, stride_bn,
               M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PREC: tl.constexpr,
               HAS_ACC: tl.constexpr, OUT_DTYPE: tl.constexpr, USE_OP: tl.constexpr):
    """c[M, N] = (acc +) a[M, K] @ b[K, N]; a and b read through strides (transposed
    operands are strides), c and acc row-major."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak)
    b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn)
    offs = rm[:, None] * N + rn[None, :]
    if USE_OP:
        c = a @ b
    elif HAS_ACC:
        acc = tl.load(acc_ptr + offs)
        c = tl.dot(a, b, acc, input_precision=PREC, out_dtype=OUT_DTYPE)
    else:
        c = tl.dot(a, b, input_precision=PREC, out_dtype=OUT_DTYPE)
    tl.store(c_ptr + offs, c)


@jit
def dot3d_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                 K: tl.constexpr, PREC: tl.constexpr, USE_OP: tl.constexpr):
    """Batched: c[B, M, N] = a[B, M, K] @ b[B, K, N], all row-major."""
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    if USE_OP:
        c = a @ b
    else:
        c = tl.dot(a, b, input_precision=PREC)
    tl.store(c_ptr + rb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


@jit
def dot_bias_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """tl.dot inside an expression: relu(a @ b + bias[None, :]) stored as fp16."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    bias = tl.load(bias_ptr + rn)
    c = tl.maximum(tl.dot(a, b) + bias[None, :], 0.0)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(tl.float16))


@jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, ACC_IN_DOT: tl.constexpr,
                  PREC: tl.constexpr, OUT_FP16: tl.constexpr, ACC_DTYPE: tl.constexpr = tl.float32,
                  IMPRECISE: tl.constexpr = None):
    """Triton's matmul tutorial: grouped program ordering, tl.cdiv, K-edge masks; the
    accumulator passed to tl.dot (ACC_IN_DOT, with max_num_imprecise_acc=IMPRECISE) or
    `acc += tl.dot(a, b)`; ACC_DTYPE int32 for int8 inputs."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=ACC_DTYPE)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        if ACC_IN_DOT:
            accumulator = tl.dot(a, b, accumulator, input_precision=PREC, out_dtype=ACC_DTYPE,
                                 max_num_imprecise_acc=IMPRECISE)
        else:
            accumulator += tl.dot(a, b, input_precision=PREC)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if OUT_FP16:
        c = accumulator.to(tl.float16)
    else:
        c = accumulator
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@jit
def matmul_nt_kernel(x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """y = x @ w.T as a linear layer computes it: W is [N, K] row-major, each tile loaded as
    it lies ([BLOCK_N, BLOCK_K]) and transposed for the dot; edges masked on every side."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        w = tl.load(w_ptr + offs_n[:, None] * stride_wn + offs_k[None, :],
                    mask=(offs_n[:, None] < N) & (offs_k[None, :] < K), other=0.0)
        acc = tl.dot(x, w.T, acc)
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_grid(M, N, BLOCK_SIZE_M, BLOCK_SIZE_N):
    return ((M + BLOCK_SIZE_M - 1) // BLOCK_SIZE_M * ((N + BLOCK_SIZE_N - 1) // BLOCK_SIZE_N),)


@jit
def attention_fwd(Q, K, V, Out, sm_scale, seq_len, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """Flash-attention forward in the style of Triton's fused-attention tutorial: one program
    per (query block, head); q, k, v, out are [heads, seq_len, HEAD] row-major; the running
    max and sum in base 2, K read transposed through its pointers, P cast to fp16 for P.V."""
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


def attention_reference(q, k, v, scale, causal):
    """softmax(q k^T * scale) v in float64 (numpy arrays [heads, seq, head])."""
    import numpy as np
    s = (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)

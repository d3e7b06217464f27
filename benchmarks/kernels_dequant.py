"""A weight-only int8 matmul (w8a16: fp16 activations, int8 weights with a per-column fp16
scale, fp32 accumulation): `tl.dot(a, b.to(tl.float16) * scale[None, :])`, the shape of
vLLM's w8a16 fused_moe and GPTQ-style kernels. Plain Triton source, no tritium names, so the
same function goes through both JITs (benchmarks/bench_dequant.py, static_dequant.py, and
tests/gpu/test_gpu_dequant.py)."""

import triton.language as tl


def w8a16_matmul(a_ptr, b_ptr, s_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    scale = tl.load(s_ptr + rn, mask=rn < N, other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b.to(tl.float16) * scale[None, :])
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

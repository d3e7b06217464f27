"""Dots whose operand reaches them through elementwise ops (DESIGN: Pipelining): a
weight-only int8 matmul, `tl.dot(a, b.to(tl.float16) * scale[None, :])`, as vLLM's fused_moe
(w8a16) and GPTQ-style kernels write it. Pipelined (num_stages >= 2), B's load is copied
ahead by cp.async and each thread reads its own elements back (AsyncOperand::read_back); the
scale's broadcast is hoisted out of the loop (hoist_invariants). Against torch in fp32, with
M, N and K not multiples of the blocks (masked tails), on mma.sync (2 warps) and wgmma."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
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


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("BM,BN,BK,warps", [(128, 128, 64, 4), (64, 128, 32, 4), (128, 256, 64, 8), (32, 64, 32, 2)])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 232)])
def test_weight_only_int8_matmul(gen, stages, BM, BN, BK, warps, M, N, K):
    a = torch.randn((M, K), device="cuda", generator=gen).to(torch.float16)
    b = torch.randint(-127, 128, (K, N), device="cuda", generator=gen, dtype=torch.int8)
    # Scales that keep every product exact in fp16 (powers of two).
    s = (2.0 ** torch.randint(-8, -3, (N,), device="cuda", generator=gen)).to(torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float32)
    grid = (tritium.cdiv(M, BM), tritium.cdiv(N, BN))
    handle = w8a16_matmul[grid](a, b, s, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
                                num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    want = a.double() @ (b.double() * s.double()[None, :])
    torch.testing.assert_close(c.double(), want, rtol=2e-3, atol=2e-2)
    gpu_ir = handle.asm["gpu-ir"]
    assert ("read back into its registers" in gpu_ir) == (stages > 1)

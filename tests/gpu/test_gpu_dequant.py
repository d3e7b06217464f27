"""Dots whose operand reaches them through elementwise ops (DESIGN: Pipelining): a
weight-only int8 matmul, `tl.dot(a, b.to(tl.float16) * scale[None, :])`, as vLLM's fused_moe
(w8a16) and GPTQ-style kernels write it. Pipelined (num_stages >= 2), B's load is copied
ahead by cp.async and each thread reads its own elements back (AsyncOperand::read_back); the
scale's broadcast is hoisted out of the loop (hoist_invariants). Against torch in fp32, with
M, N and K not multiples of the blocks (masked tails), on mma.sync (2 warps) and wgmma."""

import pathlib
import sys

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402


# benchmarks/kernels_dequant.py's kernel (plain Triton source), through tritium; its
# `import triton.language` is tritium's where Triton is not installed.
try:
    import triton.language  # noqa: F401
except ImportError:
    tritium.use_as_triton(quiet=True)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import kernels_dequant  # noqa: E402

w8a16_matmul = tritium.jit(kernels_dequant.w8a16_matmul)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("BM,BN,BK,warps", [(128, 128, 64, 4), (64, 128, 32, 4), (128, 256, 64, 8), (32, 64, 32, 2)])
@pytest.mark.parametrize("M,N,K,pad", [(512, 512, 512, 0), (300, 200, 232, 0), (300, 200, 232, 24)])
def test_weight_only_int8_matmul(gen, stages, BM, BN, BK, warps, M, N, K, pad):
    # pad: rows `pad` elements longer than the matrix (strides multiples of 16, bounds not:
    # masks that vary inside every 16-byte run over blocks laid out by their pointers).
    a = torch.randn((M, K + pad), device="cuda", generator=gen).to(torch.float16)[:, :K]
    b = torch.randint(-127, 128, (K, N + pad), device="cuda", generator=gen, dtype=torch.int8)[:, :N]
    # Scales that keep every product exact in fp16 (powers of two).
    s = (2.0 ** torch.randint(-8, -3, (N,), device="cuda", generator=gen)).to(torch.float16)
    c = torch.empty((M, N + pad), device="cuda", dtype=torch.float32)[:, :N]
    grid = (tritium.cdiv(M, BM), tritium.cdiv(N, BN))
    handle = w8a16_matmul[grid](a, b, s, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
                                num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    want = a.double() @ (b.double() * s.double()[None, :])
    torch.testing.assert_close(c.double(), want, rtol=2e-3, atol=2e-2)
    gpu_ir = handle.asm["gpu-ir"]
    # B is read back from its copies where its 16-byte runs are whole (N a multiple of 16);
    # with N = 200 its mask varies inside them and each element is loaded alone.
    assert ("read back into its registers" in gpu_ir) == (stages > 1 and N % 16 == 0)

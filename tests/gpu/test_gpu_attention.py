"""The flash-attention forward kernel of tests/python/dot_kernels.py on the GPU (issue 9):
torch fp16 tensors, two dots per step with the operands copied by cp.async, against
softmax(q k^T) v in float64, causal and not, ragged sequence lengths, head dims 64 and 128."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dot_kernels as dk  # noqa: E402  (tests/python)


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_len,head,block_m,block_n,warps", [(128, 64, 64, 64, 4), (300, 64, 64, 32, 4),
                                                                 (256, 128, 64, 64, 8), (77, 64, 32, 32, 4)])
def test_attention_forward_on_gpu(rng, causal, seq_len, head, block_m, block_n, warps, stages):
    """num_stages 3 copies Kᵀ with cp.async along K into a transposed tile (K-major wgmma B
    on sm_90, addresses computed from the element index, the seq_len mask per run)."""
    heads = 3
    q, k, v = (rng.standard_normal((heads, seq_len, head)).astype(np.float16) for _ in range(3))
    cuda = [torch.from_numpy(x).cuda() for x in (q, k, v)]
    out = torch.zeros_like(cuda[0])
    grid = ((seq_len + block_m - 1) // block_m, heads)
    dk.attention_fwd[grid](*cuda, out, 0.125, seq_len, HEAD=head, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
                           num_warps=warps, num_stages=stages)
    want = dk.attention_reference(q, k, v, 0.125, causal)
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), want, atol=4e-3, rtol=1e-2)

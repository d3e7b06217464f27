"""A flash-attention forward kernel (Triton's fused-attention tutorial style: two dots per
step, running max and sum, a causal mask, ragged sequence lengths) through the interpreter,
against softmax(q k^T) v in float64; tests/gpu/test_gpu_attention.py runs it on the GPU."""

import numpy as np
import pytest

import dot_kernels as dk


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_len", [16, 40])
def test_attention_forward(rng, causal, seq_len):
    heads, head = 2, 16
    q, k, v = (rng.standard_normal((heads, seq_len, head)).astype(np.float16) for _ in range(3))
    out = np.zeros_like(q)
    block = 16
    dk.attention_fwd[((seq_len + block - 1) // block, heads)](q, k, v, out, 0.25, seq_len, HEAD=head, BLOCK_M=block,
                                                              BLOCK_N=block, CAUSAL=causal)
    want = dk.attention_reference(q, k, v, 0.25, causal)
    # fp16 inputs and output, P rounded to fp16 before P.V: about 1e-3 of the values' scale.
    np.testing.assert_allclose(out.astype(np.float64), want, atol=4e-3, rtol=1e-2)

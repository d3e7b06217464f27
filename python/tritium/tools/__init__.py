"""tritium.tools: Triton's ``triton.tools`` helpers that kernels' callers use (``import
triton.tools.tensor_descriptor`` resolves here under ``tritium.use_as_triton()``)."""

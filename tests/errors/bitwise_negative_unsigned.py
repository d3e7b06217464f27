# RUN: --kernel kernel --signature "*u8" --emit ir
# ERROR: 12:9: between an unsigned tensor and a negative scalar
# Triton's bitwise operators and shifts check a number operand as arithmetic does (fuzz seed
# 1048): -4 ^ uint8 is an error, not an int32 result.
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    v = tl.load(p + tl.arange(0, 4))
    r = -4 ^ v
    tl.store(p + tl.arange(0, 4), r)

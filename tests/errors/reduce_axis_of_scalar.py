# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:17: invalid axis 0. Expected 0 <= axis < 0
# An explicit axis of a scalar is out of range (Triton says the same); tl.sum(x) with no
# axis reduces a scalar to itself.
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    tl.store(p, tl.sum(tl.program_id(0), 0) + tl.sum(tl.program_id(0)))

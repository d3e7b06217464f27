# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:20: invalid axis 0. Expected 0 <= axis < 0
# max with return_indices=True reduces with indices, like argmax: a scalar has no axis 0.
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    x = tl.program_id(0)
    value, index = tl.max(x, 0, return_indices=True)
    tl.store(p, value + index)

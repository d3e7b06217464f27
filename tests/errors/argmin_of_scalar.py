# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:17: invalid axis 0. Expected 0 <= axis < 0
# The same for argmin through the tensor method (Triton 3.6: _reduce_with_indices).
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    x = tl.program_id(0) + 1
    tl.store(p, x.argmin(0, keep_dims=True))

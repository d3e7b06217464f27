# RUN: --kernel kernel --signature "*i8" --emit ir
# ERROR: 11:35: Scalar 300 is out of range for type int8
# A number does not take part in a shift's promotion: it must fit the tensor's type.
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    v = tl.load(p + tl.arange(0, 4))
    tl.store(p + tl.arange(0, 4), v << 300)

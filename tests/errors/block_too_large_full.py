# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: exceeds the block limit of 1048576 elements
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    # 2^80 elements: the product wraps a 64-bit integer to 0.
    z = tl.zeros((1048576, 1048576, 1048576, 1048576), tl.float32)
    tl.store(x_ptr, z)

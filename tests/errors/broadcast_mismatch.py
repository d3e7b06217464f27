# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 11:9: Cannot make_shape_compatible: incompatible dimensions at index 0
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b
    tl.store(x_ptr + a, c)

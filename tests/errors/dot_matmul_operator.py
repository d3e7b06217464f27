# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: Both inputs must be either 2D or 3D; (lhs: [16] vs rhs: [16])
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16))
    b = tl.load(y_ptr + tl.arange(0, 16))
    c = a @ b
    tl.static_print(c)

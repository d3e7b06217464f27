# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: First input shape ([16, 32]) and second input shape [16, 16] are not compatible for matmul (second index of first shape (32) must be equal to first index of second shape (16))
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b)
    tl.static_print(c)

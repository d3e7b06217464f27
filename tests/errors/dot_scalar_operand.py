# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: tl.dot needs blocks; the first operand is
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(2.0, b)
    tl.static_print(c)

# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: input_precision must be one of ('tf32', 'tf32x3', 'ieee'). Got fp64
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, input_precision="fp64")
    tl.static_print(c)

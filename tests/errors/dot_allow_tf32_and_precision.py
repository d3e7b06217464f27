# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: Only one of input_precision and allow_tf32 can be specified
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, input_precision="ieee", allow_tf32=False)
    tl.static_print(c)

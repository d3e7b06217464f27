# RUN: --kernel kernel --signature "*u8, *u8" --emit ir
# ERROR: 11:9: only int8 supported!
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    c = tl.dot(a, b)
    tl.static_print(c)

# RUN: --kernel kernel --signature "*u8, *u8, *u8" --emit ir
# ERROR: 12:9: scales K dimension must match the operand K divided by the scale factor
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    s = tl.load(s_ptr + tl.arange(0, 16)[:, None] * 2 + tl.arange(0, 2)[None, :])
    c = tl.dot_scaled(a, s, "e4m3", b, None, "e4m3")
    tl.static_print(c)

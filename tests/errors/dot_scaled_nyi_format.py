# RUN: --kernel kernel --signature "*u8, *u8, *u8" --emit ir
# ERROR: 11:9: NYI: rhs_format e2m3
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot_scaled(a, None, "e4m3", b, None, "e2m3")
    tl.static_print(c)

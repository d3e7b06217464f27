# RUN: --kernel kernel --signature "*u8, *u8, *u8" --emit ir
# ERROR: 10:9: Both inputs must be either 2D or 3D; (lhs: [16, 32] vs rhs: [32])
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    c = tl.dot_scaled(a, None, "e4m3", tl.load(y_ptr + tl.arange(0, 32)), None, "e4m3")
    tl.static_print(c)

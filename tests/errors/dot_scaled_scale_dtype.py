# RUN: --kernel kernel --signature "*u8, *u8, *fp32" --emit ir
# ERROR: 11:9: lhs_scale must be a block of uint8 (e8m0 exponents)
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot_scaled(a, tl.load(s_ptr + tl.arange(0, 16)[:, None] + tl.arange(0, 1)[None, :]), "e4m3", b, None, "e4m3")
    tl.static_print(c)

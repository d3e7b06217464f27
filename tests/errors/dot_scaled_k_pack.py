# RUN: --kernel kernel --signature "*u8, *u8, *u8" --emit ir
# ERROR: 11:9: only mxfp4 inputs can be packed along a dimension different than K
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot_scaled(a, None, "e4m3", b, None, "e4m3", lhs_k_pack=False)
    tl.static_print(c)

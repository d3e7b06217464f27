# RUN: --kernel kernel --signature "*u8, *u8, *u8" --emit ir
# ERROR: 12:9: Invalid float format: E4M4.
# (both formats are looked up before either is checked as implemented: Triton's order)
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr, s_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot_scaled(a, None, "e2m3", b, None, "E4M4")
    tl.static_print(c)

# RUN: --kernel kernel --signature "*fp16, *fp16" --emit ir
# ERROR: 11:9: Input shapes should have M >= 1, N >= 1 and K >= 16
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 8 + tl.arange(0, 8)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 8)[:, None] * 32 + tl.arange(0, 32)[None, :])
    c = tl.dot(a, b)
    tl.static_print(c)

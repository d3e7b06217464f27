# RUN: --kernel kernel --signature "*i8, *i8" --emit ir
# ERROR: 11:9: Input shapes should have M >= 1, N >= 1 and K >= 32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b)
    tl.static_print(c)

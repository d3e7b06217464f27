# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 16:12: the combine function returned 1 values for 2 inputs
import tritium
import tritium.language as tl


@tritium.jit
def first_only(a, i, b, j):
    return a + b


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    i = tl.arange(0, 8)
    s, t = tl.reduce((x, i), 0, first_only)
    tl.store(x_ptr, s)

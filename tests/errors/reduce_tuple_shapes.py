# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 16:12: the inputs of tl.reduce have different shapes
import tritium
import tritium.language as tl


@tritium.jit
def comb(a, i, b, j):
    return a + b, i + j


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    i = tl.arange(0, 16)
    s, t = tl.reduce((x, i), 0, comb)
    tl.store(x_ptr, s)

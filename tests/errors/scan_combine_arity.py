# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 15:9: the combine function returned 2 values for 1 inputs
import tritium
import tritium.language as tl


@tritium.jit
def pair(a, b):
    return a + b, a * b


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = tl.associative_scan(x, 0, pair)
    tl.store(x_ptr + tl.arange(0, 8), s)

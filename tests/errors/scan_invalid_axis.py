# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: invalid axis 1. Expected -1 <= axis < 1
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    c = tl.cumsum(x, axis=1)
    tl.store(x_ptr + tl.arange(0, 8), c)

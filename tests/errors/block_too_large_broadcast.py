# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 11:9: exceeds the block limit of 1048576 elements
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    a = tl.arange(0, 65536)
    b = tl.arange(0, 65536)
    c = a[:, None] + b[None, :]
    tl.store(x_ptr + a, tl.sum(c, 1))

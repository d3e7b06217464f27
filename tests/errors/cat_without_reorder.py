# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: current implementation of `cat` always may reorder elements
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    z = tl.cat(x, x)
    tl.store(x_ptr + tl.arange(0, 16), z)

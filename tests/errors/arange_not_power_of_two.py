# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:12: power of two
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    offs = tl.arange(0, 12)
    tl.store(x_ptr + offs, 1.0)

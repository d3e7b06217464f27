# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:12: exceeds the block limit
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    offs = tl.arange(0, 2097152)
    tl.store(x_ptr + offs, 1.0)

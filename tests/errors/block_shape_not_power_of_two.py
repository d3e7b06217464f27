# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: must be a positive power of two
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    z = tl.full((4, 0), 1.0, tl.float32)
    tl.store(x_ptr, z)

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:12: must be a tl.constexpr integer
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    BLOCK = 16
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0)

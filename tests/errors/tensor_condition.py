# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:8: condition must be a scalar
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    offs = tl.arange(0, 16)
    if offs < 4:
        tl.store(x_ptr, 1.0)

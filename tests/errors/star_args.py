# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:14: star
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    args = (x_ptr, 1.0)
    tl.store(*args)

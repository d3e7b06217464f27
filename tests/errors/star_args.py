# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:14: a star argument (*x) in a kernel must be a tuple
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    args = (x_ptr, 1.0)  # tl.store(*args) is fine: a tuple's items are the arguments
    tl.store(*x_ptr)

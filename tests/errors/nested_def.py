# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: nested function definition
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    def inner(v):
        return v
    tl.store(x_ptr, 1.0)

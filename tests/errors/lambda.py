# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: lambda
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    f = lambda v: v + 1
    tl.store(x_ptr, f(1.0))

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: cannot unpack 3 values into 2 names
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    a, b = 1, 2, 3
    tl.store(x_ptr, 1.0)

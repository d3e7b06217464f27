# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 9:5: tl.store needs a pointer
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    tl.store(n, 1.0)

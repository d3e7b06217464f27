# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 9:8: chained comparisons
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    if 0 < n < 10:
        tl.store(x_ptr, 1.0)

# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 10:9: `break` is not supported
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    for i in range(n):
        break
    tl.store(x_ptr, 1.0)

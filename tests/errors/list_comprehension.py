# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: comprehension
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = [i for i in range(4)]
    tl.store(x_ptr, 1.0)

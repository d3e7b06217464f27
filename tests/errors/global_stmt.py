# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: global
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    global g
    tl.store(x_ptr, 1.0)

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: f-string
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    s = f"{x_ptr}"
    tl.store(x_ptr, 1.0)

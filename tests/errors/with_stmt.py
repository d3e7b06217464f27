# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: with
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    with x_ptr:
        pass

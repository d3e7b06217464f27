# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: class
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    class A:
        pass
    tl.store(x_ptr, 1.0)

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: :=
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    if (n := 3) > 2:
        tl.store(x_ptr, 1.0)

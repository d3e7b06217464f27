# RUN: --kernel kernel --signature "*fp32, 16" --emit ir
# ERROR: 9:5: cannot be reassigned
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    BLOCK: tl.constexpr = 32
    tl.store(x_ptr, 1.0)

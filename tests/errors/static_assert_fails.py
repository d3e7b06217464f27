# RUN: --kernel kernel --signature "*fp32, 64" --emit ir
# ERROR: 9:5: static_assert failed: block too big
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 32, "block too big")
    tl.store(x_ptr, 1.0)

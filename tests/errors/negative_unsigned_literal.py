# RUN: --kernel kernel --signature "*u32, u64" --emit ir
# ERROR: 9:22: between an unsigned tensor and a negative scalar
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    tl.store(x_ptr, (n + -1).to(tl.uint32))

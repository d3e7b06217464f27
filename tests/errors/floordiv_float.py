# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:21: unexpected type fp32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, v // 2.0)

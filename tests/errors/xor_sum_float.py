# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: xor_sum only supported for integers
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = tl.xor_sum(x, axis=0)
    tl.store(x_ptr, s)

# RUN: --kernel kernel --signature "*fp16" --emit ir
# ERROR: 10:21: expects fp32 or fp64
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, tl.exp(v))

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:21: tl.dot_scaled is not supported
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr, tl.dot_scaled(v, None, "e4m3", v, None, "e4m3"))

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: exceeds the block limit of 1048576 elements
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.reshape(a, (65536, 65536, 65536, 65536, 16))
    tl.store(x_ptr, b)

# RUN: --kernel kernel --signature "*fp32, *i32" --emit ir
# ERROR: 10:9: tl.histogram needs a 1-D block of integers
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, z_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    h = tl.histogram(x, 8)
    tl.store(z_ptr + tl.arange(0, 8), h)

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: cannot reshape
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.reshape(x, (4, 4))
    tl.store(x_ptr + tl.arange(0, 16), tl.ravel(y))

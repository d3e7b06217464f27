# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 14:9: must be a @triton.jit function
import tritium
import tritium.language as tl


def add(a, b):
    return a + b


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = tl.reduce(x, 0, add)
    tl.store(x_ptr, s)

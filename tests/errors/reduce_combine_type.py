# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 15:9: the combine function returned
import tritium
import tritium.language as tl


@tritium.jit
def to_int(a, b):
    return (a + b).to(tl.int32)


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s = tl.reduce(x, 0, to_int)
    tl.store(x_ptr, s)

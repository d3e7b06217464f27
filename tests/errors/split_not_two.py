# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:12: split: the last dimension of the input must be 2
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    a, b = tl.split(x)
    tl.store(x_ptr + tl.arange(0, 4), a + b)

# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: incompatible shapes for broadcasting
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    z = tl.join(x, tl.load(x_ptr + tl.arange(0, 4)))
    tl.store(x_ptr + tl.arange(0, 8)[:, None] * 2 + tl.arange(0, 2)[None, :], z)

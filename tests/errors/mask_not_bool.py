# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: must be boolean
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    offs = tl.arange(0, 16)
    v = tl.load(x_ptr + offs, mask=offs)
    tl.store(x_ptr + offs, v)

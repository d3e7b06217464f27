# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 10:9: undefined_thing
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    offs = tl.arange(0, 16)
    y = undefined_thing + offs
    tl.store(x_ptr + offs, y)

# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 12:9: both operands of fdiv must have floating scalar type
# Triton's fdiv refuses integers with this message (tritium divided them as floats; found
# comparing tritium with Triton 3.6 over elementwise ops).
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.fdiv(x, x + 1)
    tl.store(x_ptr + tl.arange(0, 16), y.to(tl.int32))

# RUN: --kernel kernel --signature "*i8" --emit ir
# ERROR: 11:9: tl.full: the value 300 is not an int8 (out of its range)
# Triton's builder raises TypeError for a number outside the dtype ("get_int8(): incompatible
# function arguments"), as for a negative unsigned one (differential seed 3023).
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.full((4,), 300, tl.int8) + tl.full((4,), -128, tl.int8)
    tl.store(x_ptr + tl.arange(0, 4), v)

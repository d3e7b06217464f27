# RUN: --kernel kernel --signature "*u32" --emit ir
# ERROR: 11:9: tl.full: the value 1.0 is not a uint32 (an integer dtype takes an integer)
# Triton's builder raises TypeError here ("get_uint32(): incompatible function arguments";
# differential seed 10000): a float is no integer argument of get_uint32.
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.full((), 1.0, tl.uint32)
    tl.store(x_ptr, v + tl.full((), 3, tl.float32).to(tl.uint32))

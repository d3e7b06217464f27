# RUN: --kernel kernel --signature "*u16" --emit ir
# ERROR: 12:9: tl.full: the value -1 is not a uint16 (out of its range)
# Triton's builder raises TypeError here ("get_uint16(): incompatible function arguments";
# differential seed 3023): its get_<dtype> takes integers in the type's range only.
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    ok = tl.full((), 0.0, tl.uint16) + tl.full((), 65535, tl.uint16)  # 0 and 0.0: the null value
    v = tl.full((), -1, tl.uint16)
    tl.store(x_ptr, v + ok)

# RUN: --kernel kernel --signature "*i32, i32" --emit ir
# ERROR: 12:5: initial value for 'v' is of type u8, but the else block redefines it as i32
# The check holds for a branch that returns too (Triton checks each branch's own
# statements); assignments after the if are not part of it.
import triton
import triton.language as tl


@triton.jit
def kernel(p, n):
    v = n.to(tl.uint8)
    if n > 0:
        tl.store(p, v)
        return
    else:
        v = v.to(tl.int32)
        tl.store(p, v)

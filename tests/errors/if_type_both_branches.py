# RUN: --kernel kernel --signature "*i32, i32" --emit ir
# ERROR: 12:5: initial value for 'v' is of type u8, but the then block redefines it as i32
# A variable from before a dynamic if keeps its type in each branch, even when both branches
# change it alike (Triton 3.6's visit_then_else_blocks; fuzz seeds 365, 1292).
import triton
import triton.language as tl


@triton.jit
def kernel(p, n):
    v = tl.program_id(0).to(tl.uint8)
    if n > 3:
        v = v.to(tl.int32)
    else:
        v = (v + 1).to(tl.int32)
    tl.store(p, v)

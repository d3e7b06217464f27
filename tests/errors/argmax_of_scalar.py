# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:17: invalid axis 0. Expected 0 <= axis < 0
# argmax/argmin (and max/min with return_indices=True) of a scalar: Triton indexes the shape
# with the axis and fails; tritium returned index 0 (fuzz seed 1004, differential run).
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    tl.store(p, tl.argmax(tl.program_id(0), 0))

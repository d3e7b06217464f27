# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:17: invalid axis 0. Expected 0 <= axis < 0
# A scalar has no axis to scan along (Triton says the same; found by the differential run
# against Triton: tritium returned the scalar unchanged).
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    tl.store(p, tl.cumprod(tl.program_id(0), 0))

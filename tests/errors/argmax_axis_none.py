# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 11:17: tl.argmax needs an integer axis, got None
# Triton reduces with indices along one given axis only (its argmax indexes the shape with
# the axis; None fails there); tritium used to reduce over all axes.
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    tl.store(p, tl.argmax(tl.load(p + tl.arange(0, 16)), None))

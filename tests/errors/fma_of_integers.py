# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 12:9: tl.fma expects floating-point operands, got int32
# Triton's tl.fma is math.fma, which its MLIR verifier refuses on integers ("error encountered
# during parsing"; found comparing tritium with Triton 3.6 over elementwise ops).
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.fma(x, x, 1)
    tl.store(x_ptr + tl.arange(0, 16), y)

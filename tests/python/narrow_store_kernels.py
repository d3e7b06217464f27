"""Kernels that store the low bits of float values through narrow pointers: a float's bits
(`.to(tl.uint32, bitcast=True)`) truncated to i8/u8/i16/i1 by the store or by `.to()`, with
and without a mask, scalar and per block. ptxas reads `st.b8/st.b16` of a register that a
float instruction defined as a saturating float-to-integer conversion, so the back end must
hand it integer low bits (differential seeds 32994, 54609: the GPU stored min(x, 255))."""

import importlib
import os

JIT = os.environ.get("TRITIUM_TEST_JIT", "tritium")
triton = importlib.import_module(JIT)
tl = importlib.import_module(JIT + ".language")


@triton.jit
def float_bits_to_narrow(x_ptr, out_ptr, n, scale, NARROW: tl.constexpr, MASKED: tl.constexpr,
                         BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    else:
        x = tl.load(x_ptr + offs)
    y = x + scale  # a float instruction defines the value (an add: no fma contraction)
    bits = y.to(tl.uint32, bitcast=True)
    if NARROW:
        bits = bits.to(out_ptr.dtype.element_ty)  # explicit truncation; the store then keeps it
    if MASKED:
        tl.store(out_ptr + offs, bits, mask=offs < n)
    else:
        tl.store(out_ptr + offs, bits)


@triton.jit
def scalar_float_bits_to_narrow(x_ptr, out_ptr, scale):
    y = tl.load(x_ptr) + scale
    tl.store(out_ptr, y.to(tl.int32, bitcast=True).to(tl.int8))

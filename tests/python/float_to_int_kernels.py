"""A float converted to an integer type: `.to()` toward zero, saturated at the type's ends,
NaN to 0 (tritium's definition: PTX's cvt.rzi, which Triton leaves to LLVM's fptosi)."""

import importlib
import os

JIT = os.environ.get("TRITIUM_TEST_JIT", "tritium")
triton = importlib.import_module(JIT)
tl = importlib.import_module(JIT + ".language")


@triton.jit
def float_to_int(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=mask)

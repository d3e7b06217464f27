"""@jit helpers that test_python_corners.py reaches through the module (`h.fn(...)`), as
torch-inductor's triton_helpers are reached."""

import tritium
import tritium.language as tl

SCALE = 3


@tritium.jit
def maximum(a, b):
    return tl.maximum(a, b)


@tritium.jit
def pid(axis: tl.constexpr):
    return tl.program_id(axis)


@tritium.jit
def scaled(x):
    return x * SCALE

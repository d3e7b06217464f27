"""tritium: a Triton-compatible GPU kernel JIT written in C++.

    import tritium
    import tritium.language as tl

    @tritium.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask) + tl.load(y_ptr + offs, mask), mask)

    add_kernel[(tritium.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

Arguments may be numpy arrays (run by the CPU interpreter), torch tensors or other objects
with ``data_ptr()`` and ``dtype``, objects with ``__cuda_array_interface__`` (CuPy), and
Python ints, floats, bools, None, strings and tritium.language dtypes.
"""

__version__ = "0.1.0"

from . import language
from .errors import ArgumentTypeError, CompilationError, InternalError, LaunchError
from .jit import JITFunction, cdiv, jit, next_power_of_2

__all__ = [
    "ArgumentTypeError",
    "CompilationError",
    "InternalError",
    "JITFunction",
    "LaunchError",
    "__version__",
    "cdiv",
    "jit",
    "language",
    "next_power_of_2",
]

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

# Triton programs check this to tell tritium (standing in for `triton`) apart.
__tritium__ = True

from . import language
from .compiled import CompiledKernel
from .errors import (ArgumentTypeError, CompilationError, InternalError, InterpreterError, LaunchError,
                     OutOfResources, TritonError)
from .language import must_use_result
from .jit import (ConstexprFunction, JITFunction, TensorWrapper, _extension, cdiv,
                  constexpr_function, jit, next_power_of_2, register_host_memory, reinterpret)
from .triton_alias import use_as_triton
from .driver import set_allocator
from . import testing  # noqa: E402  (triton.testing)
from . import runtime  # noqa: E402  (triton.runtime)
from . import knobs  # noqa: E402  (triton.knobs)
from . import compiler  # noqa: E402  (triton.compiler)
from . import tools  # noqa: E402  (triton.tools: Triton's `import triton` imports it too)
from .compiler import compile  # noqa: E402  (triton.compile of an ASTSource)
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .runtime import KernelInterface, MockTensor  # noqa: E402

# The C++ core loads here, as Triton's does at import, so a first launch does not pay for
# loading the library; without it `import tritium.language` still works and the first
# launch reports why it is missing.
try:
    _extension()
except ImportError:
    pass


def cache_stats():
    """The process's cache counters (memory/disk hits and misses, compiles, bad entries,
    evictions) and seconds per compile stage (lower, optimize, ptx, cubin, load, disk)."""
    return _extension().cache_stats()


def reset_cache_stats():
    """Zeroes the counters of cache_stats()."""
    _extension().reset_cache_stats()


def cache_dir():
    """The disk cache directory: TRITIUM_CACHE_DIR, else $XDG_CACHE_HOME/tritium, else
    ~/.cache/tritium."""
    return _extension().cache_dir()

__all__ = [
    "ArgumentTypeError",
    "Autotuner",
    "Config",
    "Heuristics",
    "CompilationError",
    "CompiledKernel",
    "OutOfResources",
    "TensorWrapper",
    "TritonError",
    "register_host_memory",
    "reinterpret",
    "runtime",
    "set_allocator",
    "testing",
    "use_as_triton",
    "InternalError",
    "InterpreterError",
    "KernelInterface",
    "MockTensor",
    "must_use_result",
    "tools",
    "JITFunction",
    "LaunchError",
    "__version__",
    "autotune",
    "cache_dir",
    "cache_stats",
    "cdiv",
    "compile",
    "compiler",
    "constexpr_function",
    "ConstexprFunction",
    "heuristics",
    "jit",
    "knobs",
    "language",
    "next_power_of_2",
    "reset_cache_stats",
]

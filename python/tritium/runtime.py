"""``triton.runtime`` (and ``triton.compiler``) under tritium: the runtime names Triton
programs import — JITFunction, TensorWrapper, reinterpret, the errors, the compiled-kernel
handle, and the autotuner when it is present."""

import sys

from .compiled import CompiledKernel, GPUTarget
from .driver import driver, set_allocator
from .errors import CompilationError, OutOfResources, TritonError
from .jit import JITFunction, TensorWrapper, reinterpret

jit = sys.modules[__package__ + ".jit"]  # the module (the package's `jit` is the decorator)
KernelInterface = JITFunction

try:  # the autotuner is its own module (tritium.autotuner)
    from . import autotuner
    from .autotuner import *  # noqa: F401,F403
except ImportError:
    autotuner = None

__all__ = ["CompilationError", "CompiledKernel", "GPUTarget", "JITFunction", "KernelInterface",
           "OutOfResources", "TensorWrapper", "TritonError", "driver", "jit", "reinterpret",
           "set_allocator"]

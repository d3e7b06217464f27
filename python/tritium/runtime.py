"""``triton.runtime`` (and ``triton.compiler``) under tritium: the runtime names Triton
programs import — JITFunction, TensorWrapper, reinterpret, the errors, the compiled-kernel
handle, and the autotuner when it is present."""

import sys

from .compiled import CompiledKernel, GPUTarget
from .driver import driver, set_allocator
from . import errors  # noqa: F401  (triton.runtime.errors)
from .errors import CompilationError, InterpreterError, OutOfResources, TritonError
from .jit import JITFunction, TensorWrapper, reinterpret

jit = sys.modules[__package__ + ".jit"]  # the module (the package's `jit` is the decorator)
from .jit import KernelInterface  # noqa: E402  (Triton: the base of JITFunction and Autotuner)


class MockTensor:
    """Triton's stand-in for a tensor where only its dtype matters (``kernel.warmup(
    MockTensor(torch.float32), ...)``): shape [1] unless given, data_ptr() 0."""

    @staticmethod
    def wrap_dtype(arg):
        if arg.__class__.__name__ == "dtype" and arg.__module__ == "torch":
            return MockTensor(arg)
        return arg

    def __init__(self, dtype, shape=None):
        self.dtype = dtype
        self.shape = [1] if shape is None else shape

    def stride(self):
        strides = [1]
        for size in self.shape[1:]:
            strides.append(strides[-1] * size)
        return tuple(reversed(strides))

    @staticmethod
    def data_ptr():
        return 0

    @staticmethod
    def ptr_range():
        return 0

try:  # the autotuner is its own module (tritium.autotuner)
    from . import autotuner
    from .autotuner import *  # noqa: F401,F403
except ImportError:
    autotuner = None

__all__ = ["CompilationError", "CompiledKernel", "GPUTarget", "InterpreterError", "JITFunction", "KernelInterface",
           "MockTensor", "OutOfResources", "TensorWrapper", "TritonError", "driver", "errors", "jit", "reinterpret",
           "set_allocator"]

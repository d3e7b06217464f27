"""``triton.backends`` (and ``triton.backends.compiler``) under tritium: the names other
libraries read from Triton's registry of backends when they ask what is installed.

PyTorch imports ``triton.backends.compiler`` and ``triton.compiler.compiler`` as soon as
``torch._dynamo`` is imported (``torch.compiler.disable``, ``torch.compile``), whenever a
``triton`` package can be imported; vLLM reads ``triton.backends.backends`` to decide
whether Triton can run its kernels (one backend whose driver is active). Without this
module neither works under ``python -m tritium``.

tritium compiles through its own C++ pipeline, not through Triton's backend plugins: the
registry holds one entry, "nvidia", whose ``driver`` answers ``is_active()`` as
``triton.runtime.driver.active`` does (True: tritium runs kernels on the GPU, else in its
interpreter) and whose ``compiler`` is a ``BaseBackend`` that cannot be constructed.
``AttrsDescriptor`` is absent, as in Triton 3.6, so PyTorch takes its current-Triton path.
"""

from .compiled import GPUTarget

__all__ = ["Backend", "BaseBackend", "DriverBase", "GPUTarget", "backends", "compiler"]


class BaseBackend:
    """Triton's base class of a compiler backend. tritium does not compile through backend
    objects: constructing one says so."""

    def __init__(self, target):
        raise NotImplementedError(
            "triton.backends.compiler.BaseBackend: tritium compiles kernels with its own "
            "pipeline and has no backend plugins")

    @staticmethod
    def supports_target(target):
        return False


class DriverBase:
    """Triton's driver base class (``triton.backends.driver.DriverBase``): the registry's
    driver is this class; its questions are answered by ``triton.runtime.driver.active``."""

    @classmethod
    def is_active(cls):
        from .driver import driver
        return bool(driver.active.is_active())

    def __getattr__(self, name):
        from .driver import driver
        return getattr(driver.active, name)


class Backend:
    """One registry entry: Triton's dataclass of (compiler class, driver class)."""

    __slots__ = ("compiler", "driver")

    def __init__(self, compiler, driver):
        self.compiler = compiler
        self.driver = driver

    def __repr__(self):
        return f"Backend(compiler={self.compiler.__name__}, driver={self.driver.__name__})"


# Triton's {name: Backend} of installed backends.
backends = {"nvidia": Backend(BaseBackend, DriverBase)}

import sys as _sys  # noqa: E402

compiler = driver = _sys.modules[__name__]  # triton.backends.compiler / .driver: this module

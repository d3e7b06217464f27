"""``triton.backends`` (and ``triton.backends.compiler``) under tritium: the names other
libraries read from Triton's registry of backends when they ask what is installed.

PyTorch imports ``triton.backends.compiler`` and ``triton.compiler.compiler`` as soon as
``torch._dynamo`` is imported (``torch.compiler.disable``, ``torch.compile``), whenever a
``triton`` package can be imported; vLLM reads ``triton.backends.backends`` to decide
whether Triton can run its kernels (one backend whose driver is active). Without this
module neither works under ``python -m tritium``.

tritium compiles through its own C++ pipeline, not through Triton's backend plugins: the
registry holds two entries. "nvidia": its ``driver`` answers ``is_active()`` as tritium's
own driver does (True: tritium runs kernels on the GPU, else in its interpreter), and an
instance of it (what PyTorch's ``set_driver_to_gpu`` makes active) answers every question
as tritium's own driver. "cpu": tritium's interpreter as Triton's CPU backend (triton-cpu)
stands, so PyTorch's inductor with ``cpu_backend = "triton"`` generates Triton kernels for
CPU tensors and runs them in the interpreter; its driver (``driver.CPUDriver``) names the
target "cpu" and is active only once made so (``driver.set_active(CPUDriver())``), so the
registry still has one active driver. Each ``compiler`` is a ``BaseBackend`` that cannot be
constructed (``triton.compiler.compiler.make_backend`` answers for a target).
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
    driver is this class; its questions are answered by tritium's own driver."""

    @classmethod
    def is_active(cls):
        from .driver import driver
        return bool(driver.default.is_active())

    def __getattr__(self, name):
        # tritium's own driver: an instance of this class may itself be driver.active
        from .driver import driver
        return getattr(driver.default, name)


class Backend:
    """One registry entry: Triton's dataclass of (compiler class, driver class)."""

    __slots__ = ("compiler", "driver")

    def __init__(self, compiler, driver):
        self.compiler = compiler
        self.driver = driver

    def __repr__(self):
        return f"Backend(compiler={self.compiler.__name__}, driver={self.driver.__name__})"


# Triton's {name: Backend} of installed backends.
def _cpu_driver():
    from .driver import CPUDriver
    return CPUDriver


backends = {"nvidia": Backend(BaseBackend, DriverBase), "cpu": Backend(BaseBackend, _cpu_driver())}

import sys as _sys  # noqa: E402

compiler = driver = _sys.modules[__name__]  # triton.backends.compiler / .driver: this module

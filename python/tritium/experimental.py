"""``triton.experimental`` and ``triton.experimental.gluon`` under tritium: Gluon, Triton's
lower-level language (explicit layouts and shared memory), is not supported by tritium.

Libraries import it beside ``triton.language`` (vLLM's ``triton_utils`` does so
unconditionally) and define Gluon kernels only for some GPUs. So the import works, and so
does defining a kernel with ``@gluon.jit`` (the module that holds it may serve other GPUs
too); launching, calling or compiling one raises NotImplementedError that names the kernel.
``gluon.language`` has tritium.language's ``constexpr`` and dtypes, which Gluon shares with
Triton's language (for annotations such as ``BLOCK: gl.constexpr``); any other name is an
AttributeError saying Gluon is not supported.
"""

import sys as _sys
import types as _types

__all__ = ["gluon"]

_UNSUPPORTED = "Gluon (triton.experimental.gluon) is not supported by tritium"


class GluonJITFunction:
    """What ``@gluon.jit`` makes: keeps the function; every use as a kernel raises."""

    def __init__(self, fn, **options):
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{_UNSUPPORTED}: cannot launch or compile the Gluon kernel "
                                  f"{self.__name__!r}")

    __call__ = run = warmup = _refuse

    def __getitem__(self, grid):
        return self._refuse

    def __repr__(self):
        return f"GluonJITFunction({self.__name__})"


def _jit(fn=None, **options):
    if fn is None:
        return lambda f: GluonJITFunction(f, **options)
    return GluonJITFunction(fn, **options)


def _constexpr_function(fn):
    return fn


class _GluonLanguage(_types.ModuleType):
    """``triton.experimental.gluon.language``: constexpr and the dtypes, nothing else."""

    def __getattr__(self, name):
        from . import language as tl
        if name == "constexpr" or isinstance(getattr(tl, name, None), tl.dtype):
            return getattr(tl, name)
        raise AttributeError(f"triton.experimental.gluon.language.{name}: {_UNSUPPORTED}")


gluon = _types.ModuleType("tritium.experimental.gluon", __doc__)
gluon.jit = _jit
gluon.constexpr_function = _constexpr_function
gluon.GluonJITFunction = GluonJITFunction
gluon.language = _GluonLanguage("tritium.experimental.gluon.language",
                                _GluonLanguage.__doc__)
gluon.__path__ = []
_sys.modules["tritium.experimental.gluon"] = gluon
_sys.modules["tritium.experimental.gluon.language"] = gluon.language

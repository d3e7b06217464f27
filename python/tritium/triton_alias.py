"""``import triton`` resolving to tritium, so an unmodified Triton program runs on it.

    python -m tritium program.py [ARGS]      # or, inside a program, before `import triton`:
    import tritium; tritium.use_as_triton()

A finder at the front of ``sys.meta_path`` answers every ``triton`` and ``triton.*`` import
with the tritium module that plays its part (TRITON_MODULES below); a Triton module
tritium has no counterpart for is a clear ModuleNotFoundError. If the real Triton is
already imported, nothing is changed and the call says so.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

__all__ = ["use_as_triton", "TRITON_MODULES", "TRITON_VERSION"]

# The Triton release whose behaviour tritium follows (docs/DESIGN.md): what `triton.__version__`
# says under the alias, so libraries that gate on Triton's version (unsloth: >= 3.0, aiter:
# >= 3.6) take their current path. tritium.__version__ stays tritium's own.
TRITON_VERSION = "3.6.0"

# triton.* module -> the tritium module that stands for it.
TRITON_MODULES = {
    "triton": "tritium",
    "triton.language": "tritium.language",
    "triton.language.core": "tritium.language",
    "triton.language.standard": "tritium.language",
    "triton.language.random": "tritium.language",
    "triton.language.math": "tritium.libdevice",
    "triton.language.target_info": "tritium.target_info",
    "triton.language.extra": "tritium.libdevice_extra",
    "triton.language.extra.libdevice": "tritium.libdevice",
    "triton.language.extra.cuda": "tritium.libdevice_extra",
    "triton.language.extra.cuda.libdevice": "tritium.libdevice",
    "triton.language.extra.cuda.gdc": "tritium.libdevice_extra",
    "triton.language.extra.cuda.utils": "tritium.libdevice_extra",
    "triton.runtime": "tritium.runtime",
    "triton.runtime.jit": "tritium.jit",
    "triton.runtime.errors": "tritium.errors",
    "triton.runtime.driver": "tritium.driver",
    "triton.runtime.autotuner": "tritium.autotuner",
    "triton.backends": "tritium.backends",
    "triton.backends.compiler": "tritium.backends",
    "triton.backends.driver": "tritium.backends",
    "triton.experimental": "tritium.experimental",
    "triton.experimental.gluon": "tritium.experimental.gluon",
    "triton.experimental.gluon.language": "tritium.experimental.gluon.language",
    "triton.compiler": "tritium.compiler",
    "triton.compiler.compiler": "tritium.compiled",
    "triton.compiler.errors": "tritium.errors",
    "triton.errors": "tritium.errors",
    "triton.testing": "tritium.testing",
    "triton.knobs": "tritium.knobs",
    "triton.tools": "tritium.tools",
    "triton.tools.tensor_descriptor": "tritium.tools.tensor_descriptor",
    "triton.tools.mxfp": "tritium.tools.mxfp",
    "triton.tools.ragged_tma": "tritium.tools.ragged_tma",
}


class _TritonPackage(types.ModuleType):
    """`triton` itself under the alias: every attribute is tritium's, read through (so
    `triton.jit is tritium.jit`), except `__version__`, which is Triton's."""

    def __init__(self):
        super().__init__("triton", importlib.import_module("tritium").__doc__)
        self.__version__ = TRITON_VERSION

    def __getattr__(self, name):
        return getattr(importlib.import_module("tritium"), name)

    def __dir__(self):
        return sorted(set(dir(importlib.import_module("tritium"))) | set(self.__dict__))


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self._target = target

    def create_module(self, spec):
        if spec.name == "triton":
            return _TritonPackage()
        return importlib.import_module(self._target)

    def exec_module(self, module):
        pass  # already executed as the tritium module it is


class _TritonFinder(importlib.abc.MetaPathFinder):
    """Answers imports of `triton` and `triton.*` with tritium's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        mapped = TRITON_MODULES.get(fullname)
        if mapped is None and fullname.startswith("triton.experimental.gluon.language."):
            mapped = "tritium" + fullname[len("triton"):]  # a Gluon namespace (experimental.py)
        if mapped is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: tritium stands in for Triton (python -m "
                f"tritium / tritium.use_as_triton()) and has no counterpart for this Triton "
                f"module", name=fullname)
        try:
            importlib.import_module(mapped)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: its tritium counterpart {mapped!r} is not "
                f"available ({e})", name=fullname) from e
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(mapped),
                                              is_package=True)


_finder = None


def use_as_triton(quiet=False):
    """Makes ``import triton`` (and ``triton.language``, ``triton.language.extra.libdevice``,
    ``triton.language.math``, ``triton.runtime``, ``triton.runtime.jit``,
    ``triton.testing``, ...) import tritium. Returns True when installed (or already),
    False when the real Triton is imported already: then nothing changes, and a warning
    says so (unless `quiet`)."""
    global _finder
    real = sys.modules.get("triton")
    if real is not None and not getattr(real, "__tritium__", False):
        if not quiet:
            warnings.warn(
                "tritium.use_as_triton(): the real Triton is already imported (from "
                f"{getattr(real, '__file__', '?')}); `triton` stays Triton and nothing was "
                "changed. Call it before anything imports triton, or run the program with "
                "`python -m tritium program.py`.", RuntimeWarning, stacklevel=2)
        return False
    if _finder is None:
        _finder = _TritonFinder()
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    importlib.import_module("tritium.language")._REPR_MODULE[0] = "triton.language"
    return True


def stop_using_as_triton():
    """Undoes use_as_triton(): removes the finder and the `triton*` modules it imported."""
    if _finder is not None and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    importlib.import_module("tritium.language")._REPR_MODULE[0] = "tritium.language"
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        if getattr(sys.modules[name], "__tritium__", False) or \
                sys.modules[name].__name__.startswith("tritium"):
            del sys.modules[name]

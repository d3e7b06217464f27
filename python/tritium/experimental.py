"""``triton.experimental`` and ``triton.experimental.gluon`` under tritium: Gluon, Triton's
lower-level language (explicit layouts and shared memory), is not supported by tritium.

Libraries import it beside ``triton.language`` (vLLM's ``triton_utils`` does so
unconditionally) and define Gluon kernels only for some GPUs. So the import works, and so
does defining a kernel with ``@gluon.jit`` (the module that holds it may serve other GPUs
too); launching, calling or compiling one raises NotImplementedError that names the kernel.
``gluon.language`` has tritium.language's ``constexpr`` and dtypes, which Gluon shares with
Triton's language (for annotations such as ``BLOCK: gl.constexpr``); its other names (Triton
3.6's: ``gl.exp``, ``gl.BlockedLayout``, ...) and its submodules (``extra``, ``nvidia``,
``amd``, imported at any depth) are placeholders that may be read (at a module's top: fla's
``exp = gl.exp``) but not called; a name Gluon lacks is an AttributeError.
"""

import importlib.abc as _importlib_abc
import inspect as _inspect
import importlib.machinery as _importlib_machinery
import sys as _sys
import types as _types

__all__ = ["gluon"]

_UNSUPPORTED = "Gluon (triton.experimental.gluon) is not supported by tritium"


class GluonJITFunction:
    """What ``@gluon.jit`` makes: keeps the function; every use as a kernel raises."""

    def __init__(self, fn, **options):
        self.fn = fn
        # what decorators read of a JITFunction (fla's autotuner: `fn.arg_names`)
        self.arg_names = list(_inspect.signature(fn).parameters) if callable(fn) else []
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


class _GluonNamespace(_types.ModuleType):
    """A submodule of ``gluon.language`` (``extra``, ``nvidia.hopper``, ``amd``, ...): it
    imports, and any name read in it (at a module's top: fla's ``tanh =
    extra.libdevice.tanh``) is another such namespace; calling one raises
    NotImplementedError naming it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _namespace(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        name = self.__name__.replace("tritium.experimental", "triton.experimental", 1)
        raise NotImplementedError(f"{_UNSUPPORTED}: {name} cannot be used")


def _namespace(name):
    module = _sys.modules.get(name)
    if module is None:
        module = _GluonNamespace(name)
        module.__path__ = []
        _sys.modules[name] = module
    return module


# gluon.language's submodules and its other public names besides constexpr and the dtypes
# (Triton 3.6): placeholders (namespaces); names outside these are AttributeErrors.
_SUBMODULES = ("extra", "nvidia", "amd")
_NAMES = frozenset("""
    AutoLayout BlockedLayout CoalescedLayout DistributedLinearLayout DotOperandLayout
    NVMMADistributedLayout NVMMASharedLayout PaddedSharedLayout SharedLinearLayout SliceLayout
    SwizzledSharedLayout abs add allocate_shared_memory arange associative_scan assume
    atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor
    bank_conflicts base_type base_value block_type broadcast cast cdiv ceil convert_layout cos
    device_assert device_print distributed_type div_rn dot_fma dtype erf exp exp2 expand_dims
    fdiv floor fma fp4_to_fp full full_like gather histogram inline_asm_elementwise join load
    log log2 map_elementwise max max_constancy max_contiguous maximum min minimum mul
    multiple_of num_ctas num_programs num_warps permute pointer_type program_id ravel reduce
    reduce_or reshape rsqrt set_auto_layout shared_memory_descriptor
    shared_memory_descriptor_type sin split sqrt sqrt_rn static_assert static_print
    static_range store sub sum tensor thread_barrier to_linear_layout to_tensor tuple
    tuple_type umulhi void warp_specialize where xor_sum zeros zeros_like""".split())
_LANGUAGE = "tritium.experimental.gluon.language"


class _GluonLanguage(_types.ModuleType):
    """``triton.experimental.gluon.language``: constexpr, the dtypes, and its submodules and
    other names as namespaces (_GluonNamespace), nothing else."""

    def __getattr__(self, name):
        from . import language as tl
        if name == "constexpr" or isinstance(getattr(tl, name, None), tl.dtype):
            return getattr(tl, name)
        if name in _SUBMODULES or name in _NAMES:
            return _namespace(f"{self.__name__}.{name}")
        raise AttributeError(f"triton.experimental.gluon.language.{name}: {_UNSUPPORTED}")


class _NamespaceFinder(_importlib_abc.MetaPathFinder, _importlib_abc.Loader):
    """Imports of gluon.language's submodules at any depth (fla's ``from
    triton.experimental.gluon.language.nvidia.ampere import async_copy``): namespaces."""

    def find_spec(self, fullname, path=None, target=None):
        rest = fullname[len(_LANGUAGE) + 1:] if fullname.startswith(_LANGUAGE + ".") else ""
        if rest.split(".")[0] not in _SUBMODULES:
            return None
        return _importlib_machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return _namespace(spec.name)

    def exec_module(self, module):
        pass


gluon = _types.ModuleType("tritium.experimental.gluon", __doc__)
gluon.jit = _jit
gluon.constexpr_function = _constexpr_function
gluon.GluonJITFunction = GluonJITFunction
gluon.language = _GluonLanguage("tritium.experimental.gluon.language",
                                _GluonLanguage.__doc__)
gluon.__path__ = []
gluon.language.__path__ = []
_sys.modules["tritium.experimental.gluon"] = gluon
_sys.modules[_LANGUAGE] = gluon.language
if not any(isinstance(f, _NamespaceFinder) for f in _sys.meta_path):
    _sys.meta_path.append(_NamespaceFinder())

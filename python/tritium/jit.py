"""@tritium.jit and JITFunction: the Python face of a kernel.

Python only gathers (DESIGN law 6): the function's source text, where it came from, the
globals the kernel reads (scanned once, at the first call), and each call's arguments.
Parsing, specialization, the cache and the launch happen in C++ (tritium._C.Kernel): a
launch on a cache hit is one call into C++ with the argument tuple as Python gave it.
"""

import ast
import functools
import hashlib
import inspect
import os
import re
import textwrap
import types

from . import knobs as _knobs
from . import language as _language

__all__ = ["jit", "JITFunction", "cdiv", "next_power_of_2", "TensorWrapper", "reinterpret",
           "LAUNCH_OPTIONS", "register_host_memory", "type_canonicalisation_dict"]

_extension_module = None


def _extension():
    """tritium._C, imported on first use so `import tritium.language` works without it."""
    global _extension_module
    if _extension_module is None:
        try:
            from . import _C
        except ImportError as e:
            raise ImportError(
                "tritium's C++ extension (tritium._C) is not built or not on the path: "
                "`pip install .`, or build with CMake and use PYTHONPATH=python "
                f"(see python/CMakeLists.txt). Cause: {e}") from e
        _extension_module = _C
    return _extension_module


# Module names a kernel may use for Triton's, spelled either way; C++ sees Triton's.
_MODULE_ALIASES = {"tritium": "triton", "tritium.language": "triton.language",
                   "tritium.libdevice": "triton.language.extra.libdevice",
                   "tritium.libdevice_extra": "triton.language.extra",
                   "tritium.target_info": "triton.language.target_info"}


def _source_of(fn):
    """(text, path, first line) of `fn`'s definition, decorators included. A function
    nested in another is dedented (its columns in messages are then relative)."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ValueError(
            f"@tritium.jit needs the source of {fn.__qualname__!r} and cannot find it "
            f"(defined in a REPL or with exec?): {e}") from e
    text = "".join(lines)
    if lines and lines[0][:1] in (" ", "\t"):
        text = textwrap.dedent(text)
    path = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return text, path, first_line


def _global_names(source):
    """Names the function reads that it does not bind itself: its globals (and the
    nonlocals of a nested function). Decorators, annotations and defaults count."""
    tree = ast.parse(source)
    function = next(node for node in tree.body
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    bound = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
    loaded = []
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.append(node.id)
            else:
                bound.add(node.id)
    # Python: a name bound anywhere in the function is local everywhere in it.
    return sorted(set(name for name in loaded if name not in bound))


def _module_attributes(source, name):
    """The attribute chains `name.a.b...` the function's source reads (a user module's
    helpers; `torch.version.hip`: ("version", "hip")), each as a tuple of names."""
    chains = set()
    for node in ast.walk(ast.parse(source)):
        path = []
        while isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id == name and path:
            chains.add(tuple(reversed(path)))
    return sorted(chains)


def _is_language_module(module_name):
    return module_name in _MODULE_ALIASES or module_name.split(".")[0] in ("triton", "tritium")


def _describe_global(name, value, in_progress):
    """What C++ needs to know about the global `name`, or None to leave it out (C++ then
    reports a located "undefined name" if the kernel really uses it)."""
    if isinstance(value, types.ModuleType):
        module = value.__name__
        return {"kind": "module", "module": _MODULE_ALIASES.get(module, module)}
    if isinstance(value, JITFunction):
        return value._describe(in_progress)
    if isinstance(value, ConstexprFunction):
        functions = [(f, f._describe(in_progress)) for f in value.jit_functions_named()]
        # The @jit functions it may return are part of what it means: their sources join
        # its own in the cache key.
        source = "\n".join([value.src] + [f.src for f, _ in functions])
        return {"kind": "host_function", "name": value.__name__, "source": source,
                "callable": value._compile_time_callable(), "functions": functions,
                "builtin": isinstance(value, BuiltinFunction)}
    if _is_namedtuple_class(value):
        return _describe_namedtuple(value)
    if isinstance(value, types.FunctionType) and value.__module__ in _MODULE_ALIASES:
        # A tl.* or libdevice function imported by name (`from ...libdevice import tanh`):
        # C++ resolves "<module>.<name>" as that module's attribute.
        module = _MODULE_ALIASES[value.__module__]
        return {"kind": "module", "module": f"{module}.{value.__name__}"}
    if isinstance(value, _language.constexpr):
        value = value.value
        if isinstance(value, types.FunctionType):
            # `@tl.constexpr` over a Python function (FlagGems' get_scan_accum_type): a
            # constexpr holding a function, which Triton calls at compile time as it calls a
            # tl.constexpr_function.
            return _describe_global(name, ConstexprFunction(value), in_progress)
    if value is None or isinstance(value, (bool, int, float, str)) or _is_scalar_dtype(value):
        return {"kind": "constant", "value": value}
    return None


def _signature_parameters(fn):
    try:
        return list(inspect.signature(fn).parameters.items())
    except (TypeError, ValueError):
        return []


def _is_namedtuple_class(value):
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


def _describe_namedtuple(cls):
    """A NamedTuple class a kernel calls to make one (`Point(x=..., y=...)`): its fields, and
    the defaults of its last fields when they are constants (else none: then every field
    must be given)."""
    defaults = []
    found = getattr(cls, "_field_defaults", {}) or {}
    for name in cls._fields[len(cls._fields) - len(found):]:
        value = found.get(name)
        if isinstance(value, _language.constexpr):
            value = value.value
        if not (value is None or isinstance(value, (bool, int, float, str)) or _is_scalar_dtype(value)):
            defaults = []
            break
        defaults.append(value)
    return {"kind": "tuple_type", "name": cls.__name__, "fields": list(cls._fields), "defaults": defaults}


def _argument_description(value):
    """(key, description) of a @jit function or tl.constexpr_function passed as a kernel
    argument (the C++ binding calls this once per function object and keeps the result):
    the key names it and digests its source and globals, so two functions give two
    compilations and the same one reuses the cache; the description is a global's."""
    if isinstance(value, JITFunction):
        return f"{value.__name__}:{value.cache_key}", value._describe(set())
    if isinstance(value, ConstexprFunction):
        description = _describe_global(value.__name__, value, set())
        # Its source and the sources of the @jit functions it names (what it can return).
        digest = hashlib.sha256(description["source"].encode("utf-8")).hexdigest()
        return f"{value.__name__}:{digest}", description
    raise TypeError(f"{type(value).__name__} is not a @jit function")


def _is_scalar_dtype(value):
    """tl.float32 and friends, and pointers to them (a global `tl.pointer_type(tl.int32)`);
    not block types, not void."""
    if type(value) is _language.pointer_type:
        value = value.element_ty
    return type(value) is _language.dtype and value.name != "void"


def _debug_option(debug):
    """Triton's `debug`: the decorator's value, else the TRITON_DEBUG / TRITIUM_DEBUG
    environment variable ("1", "true", ...): asserts are compiled only when it is on."""
    if debug is not None:
        return bool(debug)
    for name in ("TRITIUM_DEBUG", "TRITON_DEBUG"):
        value = os.environ.get(name, "").strip().lower()
        if value in ("1", "true", "yes", "on"):
            return True
    return False


def _as_given(spec):
    """A do_not_specialize list as Triton's JITFunction keeps it (None: empty)."""
    if spec is None:
        return []
    return [spec] if isinstance(spec, (str, int)) else list(spec)


def _param_indices(names, spec, option):
    """`do_not_specialize` entries (indices or names) as sorted parameter indices. An entry
    that names no parameter (a name not among them, an index out of range) is ignored, as
    Triton ignores it: FlagGems declares a placeholder kernel without parameters under
    ``do_not_specialize=["seqlen_q", "seqlen_k"]``."""
    if spec is None:
        return []
    if isinstance(spec, (str, int)):
        spec = [spec]
    indices = set()
    for entry in spec:
        if isinstance(entry, str):
            if entry in names:
                indices.add(names.index(entry))
        elif isinstance(entry, int) and not isinstance(entry, bool):
            if 0 <= entry < len(names):
                indices.add(entry)
        else:
            raise TypeError(f"{option}: entries are parameter names or indices, got {entry!r}")
    return sorted(indices)


# Triton's launch options (keywords of kernel[grid](...), run and warmup that are not
# kernel parameters); the C++ launcher knows the same list (kernel_binding.cpp).
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                  "launch_cooperative_grid", "launch_pdl", "debug", "stream", "extern_libs", "arch")


def _take_options(kwargs, params=()):
    """Removes the launch options from `kwargs` and returns them. An option that is also
    a parameter name (`params`) stays in `kwargs` too: it binds both, as in Triton; except
    `arch`, which a kernel's own parameter of that name keeps to itself."""
    return {name: (kwargs[name] if name in params else kwargs.pop(name))
            for name in LAUNCH_OPTIONS if name in kwargs and not (name == "arch" and name in params)}


class KernelParam:
    """One parameter of a kernel, as Triton's ``JITFunction.params`` lists them (libraries
    such as FlagGems' libentry read them): ``num`` (its index), ``name``, ``annotation``
    (text: "constexpr", "fp32", ...; "" when there is none), ``is_constexpr``, ``is_const``,
    ``do_not_specialize``, ``do_not_specialize_on_alignment``, ``default`` and
    ``has_default``."""

    def __init__(self, num, param, do_not_specialize, do_not_specialize_on_alignment):
        self.num = num
        self._param = param
        self.name = param.name
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment
        self.annotation = _annotation_text(param.annotation)
        self.is_constexpr = "constexpr" in self.annotation
        self.is_const = not self.is_constexpr and (
            "const" in self.annotation or self.annotation.startswith("*k"))

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty

    def __repr__(self):
        return f"KernelParam({self.num}, {self.name!r}, annotation={self.annotation!r})"


def _annotation_text(annotation):
    """A parameter annotation as text, as Triton normalizes it: "constexpr" for
    tl.constexpr (the class, an instance or the string), a dtype's name, else str()."""
    if annotation is inspect.Parameter.empty or annotation is None or annotation == "":
        return ""
    if annotation is _language.constexpr or isinstance(annotation, _language.constexpr):
        return "constexpr"
    if isinstance(annotation, _language.dtype):
        return annotation.name
    if isinstance(annotation, type):
        return annotation.__name__
    text = str(annotation)
    return "constexpr" if text.split(".")[-1] == "constexpr" else text


class _KernelSignature(inspect.Signature):
    """``JITFunction.signature``: the Python signature of the kernel function (an
    inspect.Signature, as Triton's attribute is) that can also be called with example
    arguments for the canonical specialization text (tritium's ``kernel.signature(...)``)."""

    __slots__ = ("_jit_function",)

    def __call__(self, *args, **kwargs):
        jit_function = self._jit_function
        return (jit_function._kernel or jit_function._build()).signature(args, kwargs)


def _key_text(description):
    """A stable text of a globals description for the cache key (callables by source)."""
    if isinstance(description, dict):
        return "{" + ",".join(f"{k}:{_key_text(v)}" for k, v in sorted(description.items())
                              if k != "callable") + "}"
    return repr(description)


class KernelInterface:
    """Triton's base class of launchable kernels (JITFunction, Autotuner, Heuristics), which
    programs import from triton.runtime.jit for isinstance checks and type hints (fla), and
    subclass with their own `run` (FlagGems' LibEntry, a launch cache in front of a kernel):
    ``kernel[grid](*args)`` calls ``run(*args, grid=grid, warmup=False)``."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITFunction(KernelInterface):
    """A kernel: ``kernel[grid](*args, **kwargs)`` launches it and returns the compiled-kernel
    handle (tritium.compiled.CompiledKernel: ``.asm``, ``.metadata``, ``.n_regs``, ...).

    `grid` is a tuple of 1-3 ints, or a callable taking the dict META (parameter name ->
    bound value, defaults included) and returning one. Launch options, as Triton's:
    ``num_warps=4``, ``num_stages=3``, ``num_ctas=1`` (> 1: a thread-block cluster per
    program on sm_90), ``maxnreg=None``, ``enable_fp_fusion=True``,
    ``launch_cooperative_grid=False``, ``launch_pdl=False``, ``debug=False``,
    ``stream=None`` (a CUstream handle, an object with ``cuda_stream``, or one following
    the ``__cuda_stream__`` protocol)."""

    def __init__(self, fn, *, do_not_specialize=None, do_not_specialize_on_alignment=None,
                 debug=None, noinline=None, repr=None, launch_metadata=None, version=None):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"@tritium.jit applies to functions, not {type(fn).__name__}")
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__
        self.__wrapped__ = fn
        self.module = fn.__module__
        python_signature = inspect.signature(fn)
        self.signature = _KernelSignature(list(python_signature.parameters.values()),
                                          return_annotation=python_signature.return_annotation)
        self.signature._jit_function = self
        self.arg_names = list(python_signature.parameters)
        # JITFunction(fn) built directly (Triton's tests patch a template's text that way)
        # names no lists: the decorator written in the source is the compiler's word then.
        self._specialization_given = (do_not_specialize is not None
                                      or do_not_specialize_on_alignment is not None)
        # As Triton keeps them: the lists as given (names and/or indices), so that code which
        # rebuilds a kernel from another's attributes (triton_kernels' `specialize`, whose
        # new kernel has other parameters) names the same parameters; the indices are
        # tritium's own.
        self.do_not_specialize = _as_given(do_not_specialize)
        self.do_not_specialize_on_alignment = _as_given(do_not_specialize_on_alignment)
        self._dns_indices = _param_indices(self.arg_names, do_not_specialize, "do_not_specialize")
        self._dns_alignment_indices = _param_indices(
            self.arg_names, do_not_specialize_on_alignment, "do_not_specialize_on_alignment")
        self.params = [KernelParam(i, param, i in self._dns_indices,
                                   i in self._dns_alignment_indices)
                       for i, param in enumerate(python_signature.parameters.values())]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self.debug = debug
        self.noinline = bool(noinline)
        self._repr = repr
        # Triton's `repr`: a function of the specialization giving the kernel's display name
        # (the decorator's `repr=`, else the function's name).
        self.repr = (lambda _: fn.__name__) if repr is None else repr
        self.pre_run_hooks = []
        self.launch_metadata = launch_metadata
        self.version = version
        self._source, self.path, self.starting_line_number = _source_of(fn)
        self._globals = None  # name -> description, gathered at the first call
        self._kernel = None   # the tritium._C.Kernel, created at the first call
        self._last_launcher = None  # (grid, launcher) of the last kernel[grid]
        self._cache_key = None

    @property
    def src(self):
        """The kernel's source text as Triton gives it: from its `def` on, without the
        decorators (FlagGems' pointwise_dynamic pastes it into generated modules, where the
        decorators' names are not defined). tritium compiles the text with its decorators
        (`_source`), which say where the text starts in its file."""
        match = re.search(r"^(async\s+)?def\s+\w+\s*\(", self._source, re.MULTILINE)
        return self._source[match.start():] if match else self._source

    @src.setter
    def src(self, text):
        self._source = text

    def get_capture_scope(self):
        """The names the kernel's text can see, as Triton's method gives them: the module's
        globals and the closure's variables (triton_kernels' `specialize` rebuilds a kernel
        from its text with them)."""
        return self.__globals__ | inspect.getclosurevars(self.fn).nonlocals

    def _unsafe_update_src(self, new_src):
        """Replaces the kernel's source text (Triton's ``JITFunction._unsafe_update_src``,
        used by programs that patch a template kernel's text): the next launch compiles the
        new text; the signature stays the original function's."""
        self.src = new_src
        self._tritium_argument = None  # its form as a kernel argument (arg_convert.cpp)
        self._globals = None
        self._kernel = None
        self._last_launcher = None
        self._cache_key = None

    @property
    def cache_key(self):
        """A hex digest of what the compiled kernel depends on besides its arguments: the
        source, where it starts, and the globals it reads (callees by their own sources and
        globals), as Triton's ``cache_key``."""
        if self._cache_key is not None:
            return self._cache_key
        # Before the first launch the globals are read without being kept: a global defined
        # later in the module must still be seen by the launch.
        found = self._globals if self._globals is not None else self._gather_globals(set())
        text = f"{self._source}\n{self.starting_line_number}\n{_key_text(found)}"
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if self._globals is not None:
            self._cache_key = key
        return key

    # -- what C++ is given ---------------------------------------------------------------

    def globals_used(self):
        """The globals this kernel reads, as handed to C++ (gathered once, then cached)."""
        if self._globals is None:
            self._globals = self._gather_globals(set())
        return self._globals

    def _gather_globals(self, in_progress):
        fn = self.fn
        closure = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # a cell not yet assigned
                pass
        found = {}
        in_progress.add(id(self))
        try:
            for name in _global_names(self._source):
                if name in closure:
                    value = closure[name]
                elif name in fn.__globals__:
                    value = fn.__globals__[name]
                else:
                    continue  # a builtin (range, min, ...) or undefined: C++ decides
                description = _describe_global(name, value, in_progress)
                if description is not None:
                    found[name] = description
                if isinstance(value, types.ModuleType) and not _is_language_module(value.__name__):
                    # `h.fn(...)` with `h` a user module: each attribute read becomes the
                    # global "<module>.<attr>", which C++ looks up for the attribute; through
                    # submodules too (`torch.version.hip`: "torch.version" and
                    # "torch.version.hip").
                    for chain in _module_attributes(self._source, name):
                        module = value
                        for attr in chain:
                            if not hasattr(module, attr):
                                break
                            attribute = getattr(module, attr)
                            described = _describe_global(attr, attribute, in_progress)
                            if described is not None:
                                found[f"{module.__name__}.{attr}"] = described
                            if not isinstance(attribute, types.ModuleType) or \
                                    _is_language_module(attribute.__name__):
                                break
                            module = attribute
            if "target_info" in self._source:
                # `tl.target_info.is_cuda()`, `ti.cuda_capability_geq(9)`: the module's
                # constexpr functions, as the attributes C++ looks up for it.
                from . import target_info
                for attr in target_info.__all__:
                    described = _describe_global(attr, getattr(target_info, attr), in_progress)
                    if described is not None:
                        found[f"triton.language.target_info.{attr}"] = described
            # Parameter defaults as Python evaluated them: C++ reads a literal, a dtype or a
            # constant global itself, and takes "<default>.NAME" for any other expression
            # (`FP8_MIN: tl.constexpr = torch.finfo(torch.float8_e4m3fn).min`).
            for pname, param in _signature_parameters(fn):
                value = param.default
                if value is inspect.Parameter.empty:
                    continue
                if isinstance(value, _language.constexpr):
                    value = value.value
                if value is None or isinstance(value, (bool, int, float, str)) or \
                        _is_scalar_dtype(value):
                    found[f"<default>.{pname}"] = {"kind": "constant", "value": value}
        finally:
            in_progress.discard(id(self))
        return found

    def _describe(self, in_progress):
        """This function as a callee of another kernel."""
        description = {"kind": "function", "name": self.__name__, "source": self._source,
                       "path": self.path, "first_line": self.starting_line_number,
                       "noinline": self.noinline,
                       "must_use_result": getattr(self, "_must_use_result", None)
                       or getattr(self.fn, "_must_use_result", None)}
        if id(self) not in in_progress:  # a cycle (recursion) is C++'s to report
            if self._globals is None:
                self._globals = self._gather_globals(in_progress)
            description["globals"] = self._globals
        return description

    def _build(self):
        kernel = _extension().Kernel(self._source, self.__name__, self.path,
                                     self.starting_line_number)
        kernel.set_globals(self.globals_used())
        if self._specialization_given:
            kernel.set_specialization(self._dns_indices, self._dns_alignment_indices)
        kernel.set_debug(_debug_option(self.debug))
        self._kernel = kernel
        return kernel

    @property
    def kernel(self):
        """The C++ kernel object (tritium._C.Kernel)."""
        return self._kernel or self._build()

    # -- launching -----------------------------------------------------------------------

    def __getitem__(self, grid):
        # The launcher is a C++ object (DESIGN law 6): calling it takes the launch options
        # num_warps, num_stages and stream out of the keyword arguments and launches. The
        # last one is kept for the same grid (the same object, or an equal tuple of ints).
        if _knobs.runtime._hooks_active:
            return _HookedLauncher(self, grid)
        last = self._last_launcher
        if last is not None:
            last_grid = last[0]
            if last_grid is grid or (type(grid) is tuple and type(last_grid) is tuple
                                     and last_grid == grid):
                return last[1]
        launcher = (self._kernel or self._build()).launcher(grid)
        if self._repr is not None:
            launcher = _NamingLauncher(launcher, self)
        self._last_launcher = (grid, launcher)
        return launcher

    def run(self, *args, grid, warmup=False, **kwargs):
        """Triton's spelling: ``kernel.run(*args, grid=..., **kwargs)``; returns the
        compiled-kernel handle (tritium.compiled.CompiledKernel)."""
        if not warmup and _knobs.runtime._hooks_active:
            return _HookedLauncher(self, grid)(*args, **kwargs)
        kernel = self._kernel or self._build()
        options = _take_options(kwargs, self.arg_names)
        if warmup:
            return self._named(kernel.warmup(args, kwargs, options))
        return self._named(kernel.launch(grid, args, kwargs, options))

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles (and caches) the kernel for these arguments without launching it; on the
        GPU it is also loaded on the arguments' device, so a CUDA graph captured afterwards
        sees only launches. Returns the compiled-kernel handle."""
        options = _take_options(kwargs, self.arg_names)
        return self._named((self._kernel or self._build()).warmup(args, kwargs, options))

    def _named(self, handle):
        """Gives a compiled handle the name the decorator's `repr=` makes of its
        specialization (Triton's ``@jit(repr=...)``), once per handle."""
        if self._repr is None or handle is None or getattr(handle, "_repr_named", False):
            return handle
        name = self._repr(Specialization(self.arg_names, handle.signature))
        handle.name = handle.metadata.name = str(name)
        handle._repr_named = True
        return handle

    # -- looking inside ------------------------------------------------------------------

    def bind(self, *args, **kwargs):
        """META for these arguments: parameter name -> bound value, defaults included."""
        return (self._kernel or self._build()).bind(args, kwargs)

    def emit(self, stage, *args, signature=None, num_warps=4, num_stages=3, arch=0, num_ctas=1,
             maxnreg=None, enable_fp_fusion=None, debug=False, **kwargs):
        """A compiler stage: `stage` is "ast", "ir", "ir-opt", "gpu-ir", "llvm" or "ptx" (text), or
        "cubin" (bytes; needs a GPU of that architecture); the specialization is given as
        `signature` text or by example arguments; `arch` (80, 90; 0: the GPU's, else 90) is
        the target of the last three."""
        kernel = self._kernel or self._build()
        if signature is None:
            signature = kernel.signature(args, kwargs)
        elif args or kwargs:
            raise TypeError("emit: give either example arguments or signature=, not both")
        fusion = -1 if enable_fp_fusion is None else int(bool(enable_fp_fusion))
        return kernel.emit(stage, signature, num_warps, num_stages, arch, num_ctas=num_ctas,
                           maxnreg=maxnreg or 0, enable_fp_fusion=fusion, debug=bool(debug))

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__name__} is a @tritium.jit kernel: launch it with "
            f"{self.__name__}[grid](...), or call it from another kernel")

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"


class ConstexprFunction:
    """Triton's ``tl.constexpr_function``: a Python function a kernel calls at compile time.
    In a kernel its arguments must be compile-time constants (constexprs arrive as their
    values) and its result, which must be None, a bool, int, float, str or dtype, is a
    constexpr; or it is a @jit function that the function's code names (a global or closure
    variable, or a dict/list/tuple held in one), which the kernel may then call. From host
    code it is the plain function."""

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"constexpr_function takes a function, got {type(fn).__name__}")
        self.fn = fn
        functools.update_wrapper(self, fn)
        try:
            self.src = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):  # no source (a builtin, exec): its identity keys the cache
            self.src = f"<{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}>"

    def jit_functions_named(self):
        """The @jit functions this function's code reads as globals or closure variables
        (nested code included): the ones a kernel may receive from it as its result."""
        fn = inspect.unwrap(self.fn)
        code = getattr(fn, "__code__", None)
        if code is None:
            return []
        names = set()
        pending = [code]
        while pending:
            current = pending.pop()
            names.update(current.co_names)
            names.update(current.co_freevars)
            pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
        scope = dict(getattr(fn, "__globals__", {}))
        for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                pass
        found = []
        for name in sorted(names):
            value = scope.get(name)
            candidates = value.values() if isinstance(value, dict) else \
                value if isinstance(value, (list, tuple)) else (value,)
            for candidate in candidates:
                if isinstance(candidate, JITFunction) and all(candidate is not f for f in found):
                    found.append(candidate)
        return found

    def _compile_time_callable(self):
        """What the compiler calls with the constant arguments of a call in a kernel."""
        return self.fn

    def __call__(self, *args, **kwargs):
        args = [_language._unwrap(a) for a in args]
        kwargs = {k: _language._unwrap(v) for k, v in kwargs.items()}
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"ConstexprFunction({getattr(self.fn, '__qualname__', self.fn)!r})"


class BuiltinFunction(ConstexprFunction):
    """``triton.language.core.builtin`` applied outside Triton (language.builtin): run at
    compile time as a ConstexprFunction is, with Triton's builtin calling convention (each
    argument a ``tl.constexpr``, ``_semantic=None`` when the function takes it)."""

    def _compile_time_callable(self):
        fn = self.fn
        try:
            parameters = inspect.signature(fn).parameters
            takes_semantic = "_semantic" in parameters or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        except (TypeError, ValueError):
            takes_semantic = False

        def call(*args, **kwargs):
            args = [_language.constexpr(a) for a in args]
            kwargs = {k: _language.constexpr(v) for k, v in kwargs.items()}
            if takes_semantic:
                kwargs["_semantic"] = None
            return fn(*args, **kwargs)

        return call

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__name__} is a builtin (triton.language.core.builtin): it runs inside "
            "@triton.jit functions only")

    def __repr__(self):
        return f"BuiltinFunction({getattr(self.fn, '__qualname__', self.fn)!r})"


def constexpr_function(fn):
    """Marks a Python function that kernels may call at compile time on constexpr arguments
    (``@triton.constexpr_function``); its result is a constexpr."""
    return ConstexprFunction(fn)


# Triton's compile-time helpers of triton.language.standard (tritium.language answers for
# that module), which programs import by name (FlagGems' topk: `from
# triton.language.standard import _log2`). Defined here, where constexpr_function is.
def _log2(i):
    """floor(log2(i)) for i >= 1, 0 below."""
    i = _language._unwrap(i)
    return max(int(i).bit_length() - 1, 0)


def _is_power_of_two(i):
    i = _language._unwrap(i)
    return i != 0 and (i & (i - 1)) == 0


_language._log2 = constexpr_function(_log2)
_language._is_power_of_two = constexpr_function(_is_power_of_two)




def jit(fn=None, *, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
        noinline=None, repr=None, launch_metadata=None, version=None):
    """Marks a function as a kernel: ``@tritium.jit`` or ``@tritium.jit(do_not_specialize=[...])``.
    `do_not_specialize` (parameter names or indices) turns off the equal-to-1 and
    divisible-by-16 specializations of integer arguments; `do_not_specialize_on_alignment`
    only the divisibility one (pointers and integers)."""

    def decorator(fn):
        return JITFunction(fn, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                           debug=debug, noinline=noinline, repr=repr,
                           launch_metadata=launch_metadata, version=version)

    return decorator if fn is None else decorator(fn)


def cdiv(x, y):
    """Ceiling division of integers: ``(x + y - 1) // y``."""
    x = _language._unwrap(x)
    y = _language._unwrap(y)
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (for n >= 1), as Triton computes it."""
    n = int(_language._unwrap(n)) - 1
    for shift in (1, 2, 4, 8, 16, 32):
        n |= n >> shift
    return n + 1


# Every dtype spelling host code may use -> the signature spelling of that dtype (Triton's
# ``triton.runtime.jit.type_canonicalisation_dict``): numpy/torch names ("float32", "bool",
# "uint8", "float8_e4m3fn"), tl long names ("float8e4nv") and the short names themselves.
def _canonical_names():
    table = {}
    for short, row in _language._TABLE.items():
        if row["long"] == short:      # the integer rows are also stored under their long name
            continue
        sig = short
        for spelling in (short, row["long"], row["torch"], row["numpy"]):
            if spelling:
                table[spelling] = sig
    table.update({"bool": "i1", "int1": "i1", "bool_": "i1"})
    return table


type_canonicalisation_dict = _canonical_names()

class LazyDict:
    """Triton's launch metadata handed to launch hooks: ``get()`` is the dict, with what the
    kernel's ``launch_metadata=`` function adds computed on first use."""

    def __init__(self, data):
        self.data = data
        self.extras = []

    def get(self):
        for func, args in self.extras:
            self.data = self.data | func(*args)
        self.extras.clear()
        return self.data

    def add(self, func, args):
        self.extras.append((func, args))


class JitFunctionInfo:
    """The `fn` the JIT hooks receive (Triton's): ``module``, ``name``, ``jit_function``."""

    def __init__(self, module, name, jit_function):
        self.module = module
        self.name = name
        self.jit_function = jit_function


class _HookedLauncher:
    """kernel[grid] while a runtime hook is set (tritium.knobs.runtime): the JIT hooks
    around the first compile of each specialization and launch options in this process, the
    load hooks once per compiled kernel, the launch hooks around each launch."""

    def __init__(self, function, grid):
        self._function = function
        self._grid = grid

    def __call__(self, *args, **kwargs):
        fn = self._function
        runtime = _knobs.runtime
        kernel = fn._kernel or fn._build()
        params = dict(kwargs)
        options = _take_options(params, fn.arg_names)
        seen = fn.__dict__.setdefault("_hook_seen", set())
        signature = kernel.signature(args, params)
        key = f"{signature}|{sorted((k, repr(v)) for k, v in options.items())}"
        if key not in seen:
            info = self._compile_info(key, signature, options)
            name = fn.__qualname__
            repr_text = f"{name}[{', '.join(f'{k}={v}' for k, v in options.items())}]({signature})"
            function_info = JitFunctionInfo(fn.__module__, name, fn)
            if runtime.jit_cache_hook is not None:
                if runtime.jit_cache_hook(key=key, repr=repr_text, fn=function_info, compile=info,
                                          is_manual_warmup=False, already_compiled=False):
                    return None
            handle = fn._named(kernel.warmup(args, params, options))
            seen.add(key)
            if runtime.jit_post_compile_hook is not None:
                runtime.jit_post_compile_hook(key=key, repr=repr_text, fn=function_info, compile=info,
                                              is_manual_warmup=False, already_compiled=False)
        else:
            handle = fn._named(kernel.warmup(args, params, options))
        if id(handle) not in seen and (runtime.kernel_load_start_hook or runtime.kernel_load_end_hook):
            seen.add(id(handle))
            group = {}
            runtime.kernel_load_start_hook(None, None, handle.name, group, handle.hash)
            runtime.kernel_load_end_hook(None, None, handle.name, group, handle.hash)
        grid = self._grid
        if callable(grid):
            grid = grid(kernel.bind(args, params))
        metadata = LazyDict({"name": handle.name, "function": None, "stream": options.get("stream")})
        if fn.launch_metadata is not None:
            metadata.add(fn.launch_metadata, (grid, handle.metadata, kernel.bind(args, params)))
        runtime.launch_enter_hook(metadata)
        result = fn._named(kernel.launch(grid, args, params, options))
        runtime.launch_exit_hook(metadata)
        return result

    def _compile_info(self, key, signature, options):
        """The `compile` dict of Triton's JIT hooks: the key and the options that compile."""
        fusion = options.get("enable_fp_fusion")
        libs = options.get("extern_libs") or {}
        return {"key": key, "signature": signature, "device": 0, "constants": None,
                "num_warps": options.get("num_warps", 4), "num_ctas": options.get("num_ctas", 1),
                "num_stages": options.get("num_stages", 3),
                "enable_fp_fusion": True if fusion is None else bool(fusion),
                "launch_cooperative_grid": bool(options.get("launch_cooperative_grid", False)),
                "extern_libs": tuple(libs.items()) if isinstance(libs, dict) else tuple(libs),
                "configs": None, "specialization_data": None, "is_warmup": False}


class _NamingLauncher:
    """kernel[grid] for a kernel with `repr=`: the C++ launcher, then the handle renamed."""

    def __init__(self, launcher, function):
        self._launcher = launcher
        self._function = function

    def __call__(self, *args, **kwargs):
        return self._function._named(self._launcher(*args, **kwargs))

    def __getattr__(self, name):
        return getattr(self._launcher, name)


class Specialization:
    """What a `repr=` function of ``@jit(repr=...)`` is given (Triton's ASTSource fields):
    ``signature`` (parameter name -> type text: "i32", "*fp16", "constexpr"), ``constants``
    (name -> value of each constexpr, and of integer arguments specialized to 1), and
    ``attrs`` (name -> the specialization hints: "D" for divisible by 16)."""

    def __init__(self, arg_names, signature_text):
        self.signature = {}
        self.constants = {}
        self.attrs = {}
        for name, entry in zip(arg_names, _split_top_level(signature_text)):
            entry = entry.strip()
            if "=" in entry and not entry.startswith(("*", "(", "tensordesc")):
                _, value = entry.split("=", 1)
                self.signature[name] = "constexpr"
                self.constants[name] = _literal(value)
            elif entry in ("1", "None"):
                self.signature[name] = "constexpr"
                self.constants[name] = _literal(entry)
            else:
                ty, _, hint = entry.partition(":")
                self.signature[name] = ty
                if hint == "16":
                    self.attrs[name] = [["tt.divisibility", 16]]
        self.constexprs = self.constants


def _split_top_level(text):
    # (a tensor descriptor's entry has commas inside its <...>: "tensordesc<bf16[64, 64],shape_div=[16, 16]>")
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        parts.append("".join(current))
    return parts


def _literal(text):
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return text.strip()


class TensorWrapper:
    """A tensor seen with another element type of the same storage (Triton's
    ``triton.runtime.jit.TensorWrapper``): kernels receive ``base``'s memory typed as
    `dtype` (a tritium.language dtype, e.g. ``tl.float8e4nv`` over a ``torch.int8`` tensor)."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", base)
        self.shape = tuple(getattr(base, "shape", ()))
        self.device = getattr(base, "device", None)

    def data_ptr(self):
        base = self.base
        if hasattr(base, "data_ptr"):
            return base.data_ptr()
        interface = getattr(base, "__array_interface__", None) or \
            getattr(base, "__cuda_array_interface__")
        return interface["data"][0]

    def element_size(self):
        return max(1, self.dtype.primitive_bitwidth // 8)

    @property
    def nbytes(self):
        return int(getattr(self.base, "nbytes"))

    def storage_offset(self):
        base = self.base
        return base.storage_offset() * base.element_size() // self.element_size()

    def numel(self):
        base = self.base
        return base.numel() if hasattr(base, "numel") else int(getattr(base, "size"))

    def stride(self, *args):
        base = self.base
        if hasattr(base, "stride"):
            return base.stride(*args)
        # A numpy array: its byte strides in elements of the base's type, as torch gives them.
        strides = tuple(s // base.itemsize for s in base.strides)
        return strides[args[0]] if args else strides

    def dim(self):
        return len(self.shape)

    def clone(self):
        return TensorWrapper(self.base.clone() if hasattr(self.base, "clone")
                             else self.base.copy(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __getattr__(self, name):
        # Everything else (untyped_storage, get_device, is_cuda, ...) is the base's.
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"


def reinterpret(tensor, dtype):
    """`tensor`'s memory seen as elements of `dtype` (Triton's
    ``triton.reinterpret``): a TensorWrapper, or the base tensor itself when `dtype` is
    its own type again."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__") or \
            hasattr(tensor, "__cuda_array_interface__"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__name__} as {dtype}")


def _host_block(array):
    """(address, bytes) of a host array: numpy (or anything with __array_interface__) or a
    CPU torch tensor."""
    interface = getattr(array, "__array_interface__", None)
    if interface is not None:
        return int(interface["data"][0]), int(array.nbytes)
    if hasattr(array, "data_ptr") and hasattr(array, "untyped_storage"):
        if getattr(array, "is_cuda", False):
            raise ValueError("register_host_memory: a GPU tensor is reachable on the GPU already; "
                             "the interpreter needs host memory")
        return int(array.data_ptr()), int(array.numel() * array.element_size())
    raise TypeError(f"register_host_memory takes numpy arrays or CPU torch tensors, "
                    f"got {type(array).__name__}")


def register_host_memory(*arrays, name=None):
    """Lets kernels run by the interpreter reach `arrays` through pointers made from
    integers: host code that stores ``a.ctypes.data`` (or ``t.data_ptr()``) in an int64 array
    that a kernel loads and casts with ``.to(tl.pointer_type(...))`` (Triton's grouped-GEMM
    tutorial). Accesses stay checked: inside the launch's arguments or a registered array.
    Each array stays registered until it is freed. Returns the arrays' addresses."""
    import weakref

    extension = _extension()
    addresses = []
    for i, array in enumerate(arrays):
        address, size = _host_block(array)
        label = name or f"host memory {i} registered with register_host_memory"
        extension._register_host_memory(address, size, label)
        try:
            weakref.finalize(array, extension._unregister_host_memory, address)
        except TypeError:  # an object without weak references: registered for the process
            pass
        addresses.append(address)
    return addresses

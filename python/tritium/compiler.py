"""``triton.compiler`` under tritium: ``ASTSource`` and ``compile`` for a @jit kernel given
its specialization by hand (Triton's ahead-of-time entry point), plus the names Triton
programs reach through this module (``triton.compiler.errors``, ``CompiledKernel``).

    src = triton.compiler.ASTSource(fn=kernel, signature={"X": "*fp32", "N": "i32",
                                    "BLOCK": "constexpr"}, constexprs={"BLOCK": 128})
    handle = triton.compile(src)          # compile errors surface here, located
    handle.asm["ir"]                      # tritium's stages, as for a launched kernel

Triton's other input, a file of its MLIR dialects (.ttir/.ttgir/...), has no meaning to
tritium: compile() says so.
"""

from . import errors
from .compiled import CompiledKernel, GPUTarget, make_backend, triton_key
from .errors import CompilationError, CompileTimeAssertionFailure

__all__ = ["ASTSource", "CompiledKernel", "CompilationError", "CompileTimeAssertionFailure",
           "GPUTarget", "compile", "errors", "make_backend", "triton_key"]

# Triton's signature type names that tritium spells differently.
_TYPE_NAMES = {"i1": "i1", "int1": "i1", "bool": "i1"}


class ASTSource:
    """A @jit kernel and its specialization: `signature` maps parameter names (or
    positions) to Triton's type strings ("i32", "fp16", "*fp32", "constexpr", ...);
    `constexprs` maps names (or positions, or 1-tuples of positions) to the constant
    values; `attrs` maps parameter positions (1-tuples, as Triton keys them) to Triton's
    attribute lists: ``[["tt.divisibility", 16]]`` on a pointer or integer parameter
    specializes it as divisible by 16 (``*fp32:16``), as a launch with such an argument
    would (PyTorch's inductor passes these); other attributes are accepted and unused."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        from .jit import JITFunction
        if not isinstance(fn, JITFunction):
            raise TypeError(f"ASTSource needs a @jit function, got {type(fn).__name__}")
        self.fn = fn
        names = list(fn.arg_names)
        self.signature = {_param_name(names, k): v for k, v in dict(signature).items()}
        self.constexprs = {_param_name(names, k): v for k, v in dict(constexprs or {}).items()}
        self.attrs = attrs or {}
        self._divisible = set()
        for key, entries in dict(self.attrs).items():
            if isinstance(key, tuple) and len(key) == 1:
                key = key[0]
            if not isinstance(key, (int, str)):
                continue  # an element of a tuple parameter: not specialized here
            name = _param_name(names, key)
            for entry in entries or ():
                if tuple(entry) == ("tt.divisibility", 16):
                    self._divisible.add(name)
        unknown = [k for k in list(self.signature) + list(self.constexprs) if k not in names]
        if unknown:
            raise TypeError(f"ASTSource: {fn.__name__} has no parameter {unknown[0]!r} "
                            f"(its parameters: {', '.join(names) or 'none'})")

    def signature_text(self):
        """tritium's specialization text for this source (what a launch would make)."""
        parts = []
        names = list(self.fn.arg_names)
        constexpr_params = set(getattr(self.fn, "constexprs", ()) or ())
        for i, name in enumerate(names):
            is_constexpr_param = i in constexpr_params or name in constexpr_params
            if name in self.constexprs:
                value = _literal(self.constexprs[name])
                parts.append(f"{name}={value}" if is_constexpr_param else value)
            elif name in self.signature:
                ty = str(self.signature[name]).strip()
                if ty == "constexpr":
                    raise TypeError(f"ASTSource: {name} is 'constexpr' in the signature but has "
                                    "no value in constexprs")
                ty = _TYPE_NAMES.get(ty, ty)
                if name in self._divisible and ":" not in ty and (
                        ty.startswith("*") or ty in ("i32", "i64", "u32", "u64")):
                    ty += ":16"
                parts.append(ty)
            else:
                param = self.fn.params[i]
                if param.has_default:
                    value = _literal(param.default)
                    parts.append(f"{name}={value}" if is_constexpr_param else value)
                else:
                    raise TypeError(f"ASTSource: the signature gives no type for parameter "
                                    f"{name!r} of {self.fn.__name__}")
        return ", ".join(parts)


def _param_name(names, key):
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, int):
        if not 0 <= key < len(names):
            raise TypeError(f"ASTSource: parameter position {key} out of range")
        return names[key]
    return key


def _literal(value):
    """A constant as tritium's specialization text writes it."""
    from . import language as tl
    if isinstance(value, tl.constexpr):
        value = value.value
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, tl.dtype):
        return str(value)
    raise TypeError(f"ASTSource: a constexpr value of type {type(value).__name__} cannot be "
                    "given to compile() (give it to a launch instead)")


def compile(src, target=None, options=None):
    """``triton.compile(ASTSource(...), target=None, options=None)``: compiles the kernel
    for that specialization and returns its compiled handle; a wrong kernel raises
    CompilationError as a launch would. `options` may give num_warps, num_stages, num_ctas,
    debug. `target`: a ``GPUTarget("cuda", arch, 32)`` compiles for that NVIDIA
    architecture (80 for sm_80, 90, 100, ...) without needing that GPU: the PTX is made here,
    so the GPU back end's errors surface at this call, and ``handle.asm`` gives that
    architecture's stages; None is the active driver's target as in Triton: the GPU present
    (its back end's errors, such as an fp8 type it lacks, raised here), else the interpreter;
    the interpreter's "cpu" target compiles for the interpreter, whose ``asm["ptx"]`` is for
    the GPU present, else sm_90. Other backends (Triton's "hip") are a ValueError: tritium
    generates code for NVIDIA GPUs only."""
    if not isinstance(src, ASTSource):
        raise NotImplementedError(
            "triton.compile is not supported by tritium for this input: tritium compiles @jit "
            "Python kernels (triton.compile(triton.compiler.ASTSource(fn, signature, "
            f"constexprs)), or a launch); Triton's MLIR text ({src!r}) has no meaning to it")
    options = dict(options or {})
    info = {"backend": "interpreter"}
    if target is None:
        from .driver import driver
        current = driver.active.get_current_target()
        if getattr(current, "backend", None) == "cuda" and getattr(current, "arch", 0):
            target = current
    if target is not None:
        backend = getattr(target, "backend", None)
        arch = getattr(target, "arch", None)
        if backend == "cuda":
            if not isinstance(arch, int) or isinstance(arch, bool) or arch < 50:
                raise ValueError(f"triton.compile: the cuda target's arch must be an int such as "
                                 f"80 or 90 (10 * major + minor), got {arch!r}")
            info = {"backend": "cuda", "sm": arch}
        elif backend not in ("cpu", "interpreter"):
            raise ValueError(f"triton.compile: tritium generates code for NVIDIA GPUs (backend "
                             f"'cuda') and its interpreter; target {target!r} is not supported")
    kernel = src.fn._kernel or src.fn._build()
    signature = src.signature_text()
    opts = {"num_warps": int(options.get("num_warps", 4)),
            "num_stages": int(options.get("num_stages", 3)),
            "num_ctas": int(options.get("num_ctas", 1)),
            "debug": bool(options.get("debug", False))}
    # Lowering runs here, so the kernel's errors are raised by compile() itself.
    kernel.emit("ir", signature, opts["num_warps"], opts["num_stages"], 0,
                num_ctas=opts["num_ctas"], debug=opts["debug"])
    # Triton's handle always has a hash (its cache key; PyTorch files kernels under it): the
    # kernel's source key, this specialization, the options and the target.
    import hashlib
    text = f"{src.fn.cache_key}|{signature}|{sorted(opts.items())}|{sorted(info.items())}"
    info["key"] = hashlib.sha256(text.encode()).hexdigest()
    info["src"] = src
    handle = CompiledKernel(kernel, signature, opts, info)
    if info["backend"] == "cuda":
        handle.asm["ptx"]  # the GPU back end runs now (its errors raised here), kept in asm
    return handle

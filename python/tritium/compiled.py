"""The compiled-kernel handle: what ``kernel[grid](...)``, ``kernel.run(...)`` and
``kernel.warmup(...)`` return, shaped like Triton's ``CompiledKernel``.

The C++ launcher makes one handle per compiled specialization (and launch options) and
returns the same object on every later launch, so a cache hit pays nothing for it. The
text stages in ``.asm`` are produced on first access, never at launch. Stages that exist
only in Triton's compiler (``ttir``, ``ttgir``) are absent rather than faked.
"""

from collections.abc import Mapping

__all__ = ["CompiledKernel", "KernelMetadata", "GPUTarget", "make_backend", "triton_key"]

_STAGES = {"ir": "ir-opt", "gpu-ir": "gpu-ir", "llir": "llvm", "ptx": "ptx", "cubin": "cubin"}


class GPUTarget:
    """Triton's ``GPUTarget``: backend, arch (10 * major + minor) and warp size."""

    __slots__ = ("backend", "arch", "warp_size")

    def __init__(self, backend, arch, warp_size):
        self.backend = backend
        self.arch = arch
        self.warp_size = warp_size

    def __eq__(self, other):
        return isinstance(other, GPUTarget) and (self.backend, self.arch, self.warp_size) == (
            other.backend, other.arch, other.warp_size)

    def __hash__(self):
        return hash((self.backend, self.arch, self.warp_size))

    def __repr__(self):
        return f"GPUTarget(backend={self.backend!r}, arch={self.arch}, warp_size={self.warp_size})"


class KernelMetadata:
    """``handle.metadata``: attribute access, as Triton's namedtuple, plus ``_asdict()``."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def _asdict(self):
        return dict(self.__dict__)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"KernelMetadata({inner})"


class _Asm(Mapping):
    """``handle.asm``: "ir" (tritium's optimized tile IR), "gpu-ir" (the same after the GPU
    passes, with layouts, tensor-core instructions and shared-memory stages noted), "llir",
    "ptx" (text) and "cubin" (bytes), each compiled on first access and then kept. A
    handle not loaded on a GPU gets its cubin from ptxas when no device of its
    architecture is there (CompiledKernel._cubin_without_device)."""

    def __init__(self, handle):
        self._handle = handle
        self._done = {}

    def __getitem__(self, stage):
        if stage not in _STAGES:
            raise KeyError(stage)
        if stage not in self._done:
            self._done[stage] = self._handle._emit(_STAGES[stage])
        return self._done[stage]

    def __iter__(self):
        return iter(_STAGES)

    def __len__(self):
        return len(_STAGES)

    def __contains__(self, stage):
        return stage in _STAGES

    def __repr__(self):
        return f"<asm stages {list(_STAGES)} of {self._handle.name}>"


class CompiledKernel:
    """One compiled specialization of a kernel, as launched.

    ``name``, ``signature`` (tritium's canonical text), ``asm``, ``metadata`` (name,
    num_warps, warp_size, num_ctas, num_stages, shared, cluster_dims, target, maxnreg,
    enable_fp_fusion, launch_cooperative_grid, debug; global_scratch_size and
    profile_scratch_size 0), ``n_regs``, ``n_spills`` and
    ``n_max_threads`` (asked of the driver when the kernel ran on a GPU; None when it ran
    in the interpreter, where there are no registers), ``hash`` (the disk cache key, GPU
    only), ``backend`` ("cuda" or "interpreter") and ``device`` (the ordinal of the GPU the
    specialization is loaded on; None in the interpreter)."""

    def __init__(self, kernel, signature, options, info):
        self._kernel = kernel
        self.name = kernel.name
        self.signature = signature
        self._options = dict(options)
        self.backend = info.get("backend", "interpreter")
        self.hash = info.get("key") or None
        arch = int(info.get("sm", 0))
        self._arch = arch
        num_ctas = int(options.get("num_ctas", 1))
        self.metadata = KernelMetadata(
            name=self.name,
            hash=self.hash,
            num_warps=int(options.get("num_warps", 4)),
            warp_size=32,
            num_ctas=num_ctas,
            num_stages=int(options.get("num_stages", 3)),
            maxnreg=int(options.get("maxnreg", 0)) or None,
            enable_fp_fusion=int(options.get("enable_fp_fusion", -1)) != 0,
            launch_cooperative_grid=bool(options.get("launch_cooperative_grid", False)),
            launch_pdl=bool(options.get("launch_pdl", False)),
            debug=bool(options.get("debug", False)),
            shared=int(info.get("shared", 0)),
            cluster_dims=(num_ctas, 1, 1),
            target=GPUTarget("cuda", arch, 32) if arch else None,
            backend=self.backend,
            # Triton's implicit global and profiler scratch buffers: tritium's kernels take
            # none (its device-made tensor descriptors are pointer arithmetic)
            global_scratch_size=0,
            global_scratch_align=1,
            profile_scratch_size=0,
            profile_scratch_align=1,
        )
        self.n_regs = info.get("n_regs")
        self.n_spills = info.get("n_spills")
        self.n_max_threads = info.get("n_max_threads")
        self.device = info.get("device")  # the GPU ordinal it is loaded on (None: interpreter)
        self.asm = _Asm(self)
        self.src = info.get("src")  # the ASTSource triton.compile was given (else None)
        self.function = None  # Triton's CUfunction handle: tritium's launcher holds its own
        self.shared = self.metadata.shared
        self.num_warps = self.metadata.num_warps

    @property
    def kernel(self):
        """The cubin (Triton's ``CompiledKernel.kernel``)."""
        return self.asm["cubin"]

    def _init_handles(self):
        """Triton loads the binary here; tritium's launch (or warmup) already has: nothing
        is left to do, and calling it any number of times is harmless."""

    def __getitem__(self, grid):
        """``compiled[grid](*args, stream=None)``: launches this specialization with the
        options it was compiled with. As in Triton, `args` are all the kernel's arguments
        in order, constexprs included; `grid` is a tuple of 1-3 ints (or a callable of META).
        Arguments that specialize differently compile (and are cached) as a kernel launch
        would, rather than running this binary on them."""
        options = {k: v for k, v in self._options.items()}
        if options.get("enable_fp_fusion", -1) == -1:
            options.pop("enable_fp_fusion", None)
        if not options.get("maxnreg"):
            options.pop("maxnreg", None)

        def runner(*args, stream=None):
            launch_options = dict(options)
            if stream is not None:
                launch_options["stream"] = stream
            return self._kernel.launch(grid, args, {}, launch_options)

        return runner

    def run(self, grid_0, grid_1, grid_2, stream, function, metadata, launch_metadata,
            launch_enter_hook, launch_exit_hook, *args):
        """Triton's launcher entry (``CompiledKernel.run``), as PyTorch's inductor calls it:
        the grid, the stream, the handle's function and metadata (unused: tritium launches
        its own), the launch metadata given to the hooks, then all the kernel's arguments
        in order, constexprs included."""
        options = dict(self._options)
        if options.get("enable_fp_fusion", -1) == -1:
            options.pop("enable_fp_fusion", None)
        if not options.get("maxnreg"):
            options.pop("maxnreg", None)
        if stream:
            options["stream"] = stream
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        self._kernel.launch((grid_0, grid_1, grid_2), args, {}, options)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)

    def launch_metadata(self, grid, stream, *args):
        """Triton's ``launch_metadata``: None unless a launch-enter hook is set; then a
        LazyDict of name, function and stream, plus what the kernel's `launch_metadata=`
        function gives for (grid, metadata, the named arguments)."""
        from . import knobs
        if not knobs.runtime.launch_enter_hook:
            return None
        from .jit import LazyDict
        result = LazyDict({"name": self.name, "function": self.function, "stream": stream})
        fn = getattr(self.src, "fn", None)
        if fn is not None and getattr(fn, "launch_metadata", None) is not None:
            result.add(fn.launch_metadata, (grid, self.metadata, dict(zip(fn.arg_names, args))))
        return result

    def _emit(self, stage):
        if stage == "cubin" and self.device is None:
            return self._cubin_without_device()
        return self._emit_stage(stage)

    def _cubin_without_device(self):
        """A handle not loaded on a GPU (compiled by triton.compile for a target, or run in
        the interpreter): the CUDA driver's JIT linker makes the cubin when a device of the
        arch is there; otherwise ptxas does, as Triton's compiler always does (found as
        Triton finds it: TRITON_PTXAS_PATH, then `ptxas` on PATH, then the CUDA toolkit)."""
        from .errors import LaunchError
        try:
            return self._emit_stage("cubin")
        except LaunchError as driver_error:
            ptxas = _find_ptxas()
            if ptxas is None:
                raise LaunchError(f"{driver_error}; and no ptxas to assemble the PTX without "
                                  "a device (set TRITON_PTXAS_PATH)") from None
            return _assemble(ptxas, self.asm["ptx"], self.name)

    def _emit_stage(self, stage):
        o = self._options
        return self._kernel.emit(stage, self.signature, int(o.get("num_warps", 4)),
                                 int(o.get("num_stages", 3)), self._arch,
                                 num_ctas=int(o.get("num_ctas", 1)),
                                 maxnreg=int(o.get("maxnreg", 0)),
                                 enable_fp_fusion=int(o.get("enable_fp_fusion", -1)),
                                 debug=bool(o.get("debug", False)))

    def __repr__(self):
        return f"<tritium.CompiledKernel {self.name} [{self.signature}] on {self.backend}>"


def _find_ptxas():
    import os
    import shutil
    for path in (os.environ.get("TRITON_PTXAS_PATH"), shutil.which("ptxas"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _assemble(ptxas, ptx, name):
    """ptxas on `ptx` for the architecture its .target names (sm_90a where it says so)."""
    import os
    import re
    import subprocess
    import tempfile
    from .errors import LaunchError
    m = re.search(r"^\.target\s+(sm_\w+)", ptx, re.MULTILINE)
    if m is None:
        raise LaunchError(f"kernel '{name}': its PTX names no .target")
    with tempfile.TemporaryDirectory(prefix="tritium-ptxas-") as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        out = os.path.join(tmp, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        run = subprocess.run([ptxas, f"-arch={m.group(1)}", src, "-o", out],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise LaunchError(f"kernel '{name}': ptxas ({ptxas}) rejected the PTX for "
                              f"{m.group(1)}: {(run.stderr or run.stdout).strip()}")
        with open(out, "rb") as f:
            return f.read()


def _make(kernel, signature, options, info):
    """Called by the C++ launcher (kernel_binding.cpp) the first time a specialization is
    launched with these options."""
    return CompiledKernel(kernel, signature, options, info)


class BackendOptions:
    """What ``make_backend(target).parse_options(opts)`` returns: Triton's compile options
    for the target, as attributes (``__dict__`` is the dict Triton's options give)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"BackendOptions({inner})"


class Backend:
    """``triton.compiler.compiler.make_backend(target)``: the compiler of one target as
    PyTorch's inductor asks it — ``hash()`` (mixed into its cache keys with triton_key())
    and ``parse_options(opts)`` (the options a compile of that target takes, defaults filled
    in; ``supported_fp8_dtypes`` as Triton's NVIDIA backend gives them for the arch, all of
    them in the interpreter). tritium compiles through its own pipeline, not through this
    object."""

    def __init__(self, target):
        self.target = target
        self.binary_ext = "cubin" if target.backend == "cuda" else "interp"

    def hash(self):
        return f"tritium-{self.target.backend}-{self.target.arch}"

    def parse_options(self, opts):
        arch = self.target.arch if isinstance(self.target.arch, int) else 0
        fp8 = ("fp8e5", "fp8e4b15")
        if self.target.backend != "cuda" or arch >= 89:
            fp8 = fp8 + ("fp8e4nv",)
        fields = {"num_warps": 4, "num_ctas": 1, "num_stages": 3, "maxnreg": None,
                  "enable_fp_fusion": True, "launch_cooperative_grid": False,
                  "launch_pdl": False, "debug": False, "sanitize_overflow": False,
                  "extern_libs": None, "supported_fp8_dtypes": fp8,
                  "deprecated_fp8_dot_operand_dtypes": (), "default_dot_input_precision": "tf32",
                  "allowed_dot_input_precisions": ("tf32", "tf32x3", "ieee"),
                  "arch": self.target.arch, "backend_name": self.target.backend}
        fields.update({k: v for k, v in dict(opts or {}).items() if k in fields})
        return BackendOptions(**fields)

    def __repr__(self):
        return f"<tritium backend for {self.target!r}>"


def make_backend(target):
    """Triton's ``make_backend(target)``: the backend of a GPUTarget ("cuda", or "cpu" /
    "interpreter" for tritium's interpreter). Other backends are a RuntimeError, as in Triton
    when no installed backend supports the target."""
    if getattr(target, "backend", None) not in ("cuda", "cpu", "interpreter"):
        raise RuntimeError(f"No backend available for target {target!r}: tritium compiles for "
                           "NVIDIA GPUs ('cuda') and its interpreter ('cpu')")
    return Backend(target)


def __getattr__(name):
    # triton.compiler.compiler also holds ASTSource and compile (tritium.compiler, which
    # imports this module: read lazily).
    if name in ("ASTSource", "compile"):
        from . import compiler
        return getattr(compiler, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def triton_key():
    """Triton's ``triton.compiler.compiler.triton_key()``: a text that changes whenever the
    compiler does, which caches of compiled kernels (PyTorch's inductor, fla) mix into their
    keys. Under tritium: the Triton version it follows and tritium's own version."""
    from . import __version__
    from .triton_alias import TRITON_VERSION
    return f"{TRITON_VERSION}-tritium-{__version__}"

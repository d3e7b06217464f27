"""``triton.knobs`` for programs run on tritium: the settings Triton keeps there, as
attributes that read (and, when set, write) the environment variables tritium honours.

Only the knobs that mean something here are present; each is a plain attribute group
(`runtime`, `cache`, `autotuning`, `compilation`, `nvidia`). Triton's own knob machinery
(descriptors, scoped overrides) is not reproduced: `base_knobs.copy()`/`reset()` exist so
code that snapshots knobs keeps working.
"""

import os

__all__ = ["base_knobs", "runtime", "cache", "autotuning", "compilation", "nvidia",
           "propagate_env", "HookChain"]

propagate_env = True


def _flag(*names):
    for name in names:
        value = os.environ.get(name)
        if value is not None:
            return value.strip().lower() in ("1", "true", "yes", "on")
    return False


class base_knobs:
    """A group of knobs. `knob_descriptors` is empty: tritium's knobs are properties."""
    knob_descriptors = {}

    def copy(self):
        return self

    def reset(self):
        return self


class HookChain:
    """Hooks of one kind called in order (Triton's ``knobs.HookChain``): ``add``, ``remove``,
    and calling the chain calls each (the exit and load-end chains in reverse order)."""

    def __init__(self, reversed=False, on_change=None):
        self.calls = []
        self.reversed = reversed
        self._on_change = on_change

    def add(self, func):
        if func not in self.calls:
            self.calls.append(func)
        if self._on_change is not None:
            self._on_change()

    def remove(self, func):
        if func in self.calls:
            self.calls.remove(func)
        if self._on_change is not None:
            self._on_change()

    def __bool__(self):
        return bool(self.calls)

    def __call__(self, *args, **kwargs):
        for call in (reversed(self.calls) if self.reversed else list(self.calls)):
            call(*args, **kwargs)


class _Runtime(base_knobs):
    """Triton's runtime knobs. The hooks, as Triton calls them (jit.py's _HookedLauncher; a
    launch takes that slower path only while one is set): `launch_enter_hook` and
    `launch_exit_hook` (chains) around each launch with the launch metadata (a LazyDict:
    name, function, stream and what the kernel's `launch_metadata=` function adds);
    `kernel_load_start_hook` and `kernel_load_end_hook` (chains) once per compiled kernel,
    both after it is built and loaded (tritium loads inside its launch path); and
    `jit_cache_hook` (before compiling a specialization not seen in this process; a true
    result skips the compile and the launch) and `jit_post_compile_hook` (after it)."""

    def __init__(self):
        # Whether any hook is set: read at every kernel[grid] (one attribute), so it is kept
        # up to date by the chains' add/remove and the JIT hooks' setters.
        self._hooks_active = False
        self._jit_cache_hook = None
        self._jit_post_compile_hook = None
        self.launch_enter_hook = HookChain(on_change=self._refresh)
        self.launch_exit_hook = HookChain(reversed=True, on_change=self._refresh)
        self.kernel_load_start_hook = HookChain(on_change=self._refresh)
        self.kernel_load_end_hook = HookChain(reversed=True, on_change=self._refresh)

    def _refresh(self):
        self._hooks_active = bool(self.launch_enter_hook or self.launch_exit_hook
                                  or self.kernel_load_start_hook or self.kernel_load_end_hook
                                  or self._jit_cache_hook or self._jit_post_compile_hook)

    @property
    def jit_cache_hook(self):
        return self._jit_cache_hook

    @jit_cache_hook.setter
    def jit_cache_hook(self, hook):
        self._jit_cache_hook = hook
        self._refresh()

    @property
    def jit_post_compile_hook(self):
        return self._jit_post_compile_hook

    @jit_post_compile_hook.setter
    def jit_post_compile_hook(self, hook):
        self._jit_post_compile_hook = hook
        self._refresh()

    @property
    def interpret(self):
        """True when kernels run in the interpreter (TRITON_INTERPRET or TRITIUM_INTERPRET)."""
        return _flag("TRITON_INTERPRET", "TRITIUM_INTERPRET")

    @interpret.setter
    def interpret(self, value):
        os.environ["TRITIUM_INTERPRET"] = "1" if value else "0"

    @property
    def debug(self):
        return _flag("TRITON_DEBUG")


class _Cache(base_knobs):
    @property
    def dir(self):
        from . import cache_dir
        return cache_dir()

    @dir.setter
    def dir(self, value):
        os.environ["TRITIUM_CACHE_DIR"] = str(value)


class _Autotuning(base_knobs):
    @property
    def print(self):
        return _flag("TRITON_PRINT_AUTOTUNING", "TRITIUM_PRINT_AUTOTUNING")

    @print.setter
    def print(self, value):
        os.environ["TRITIUM_PRINT_AUTOTUNING"] = "1" if value else "0"


class _Compilation(base_knobs):
    @property
    def default_fp_fusion(self):
        return os.environ.get("TRITON_DEFAULT_FP_FUSION", "1").strip() not in ("0", "false")


class _Ptxas:
    @property
    def version(self):
        """The CUDA version of the toolchain side ("12.8"): tritium hands PTX to the driver,
        so this is the driver's CUDA version when torch can tell it, else torch's build's."""
        try:
            import torch
            if torch.version.cuda:
                return str(torch.version.cuda)
        except ImportError:
            pass
        return "12.0"


class _Nvidia(base_knobs):
    ptxas = _Ptxas()


runtime = _Runtime()
cache = _Cache()
autotuning = _Autotuning()
compilation = _Compilation()
nvidia = _Nvidia()

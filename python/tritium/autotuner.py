"""@tritium.autotune, @tritium.heuristics and tritium.Config: Triton's autotuning surface.

An Autotuner wraps a kernel (a JITFunction, or another wrapper: the decorators stack in
either order, as Triton's do). At the first launch for a tuning key (the values of `key`
and the dtypes of all array arguments) it compiles every config in parallel threads
(`warmup`), times each one, and launches with the fastest; later launches with that key go
straight to the chosen config.

Where the kernel runs decides how it is timed:
  * on the GPU (torch CUDA tensors or ``__cuda_array_interface__`` arrays, and no
    TRITIUM_INTERPRET=1): CUDA events around each run, with the L2 cache flushed before
    each one (a 256 MiB buffer is zeroed), as triton.testing.do_bench does;
  * in the interpreter (numpy arrays, CPU tensors): interpreter time says nothing about the
    GPU, so nothing is timed and the FIRST config (after pruning) is chosen, every time,
    skipping those that fail a static_assert (Triton times them as infinite);
  * with ``do_bench=`` given: that function times every config, wherever the kernel runs.

Beyond Triton: a choice that came from timing is stored in the disk cache directory
(``<cache_dir>/autotune/<sha256>.json``, written to a temporary file and renamed into
place) under the kernel's source (and its callees and globals), the tuning key, the
configs, the device name and tritium's version, so a new process does not tune again.
``cache_results=False`` or TRITIUM_AUTOTUNE_CACHE=0 turns that off.
TRITIUM_PRINT_AUTOTUNING=1 (or TRITON_PRINT_AUTOTUNING=1) prints each config as it is
timed and the choice, or where a stored choice came from.
"""

import builtins
import concurrent.futures
import hashlib
import json
import os
import tempfile
import time
import types

from . import _timing
# Triton's autotuner module imports these, and programs import them from it
# (`from triton.runtime.autotuner import OutOfResources`, fla does).
from .errors import CompileTimeAssertionFailure, OutOfResources  # noqa: F401
from .jit import KernelInterface

__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]


class Config:
    """One point of the tuning space: meta-parameters (`kwargs`, passed to the kernel as
    keyword arguments) and launch options. The attributes are Triton's, so code that reads
    ``config.kwargs`` or ``config.num_warps`` works unchanged."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    @classmethod
    def from_any(cls, config):
        """A tritium Config from ours or from anything with Triton's attributes (for
        example a real ``triton.Config``)."""
        if isinstance(config, cls):
            return config
        if not hasattr(config, "kwargs"):
            raise TypeError(f"autotune: configs must be tritium.Config (or triton.Config) "
                            f"objects, got {config!r}")
        return cls(config.kwargs, num_warps=getattr(config, "num_warps", 4),
                   num_stages=getattr(config, "num_stages", 3),
                   num_ctas=getattr(config, "num_ctas", 1),
                   maxnreg=getattr(config, "maxnreg", None),
                   pre_hook=getattr(config, "pre_hook", None),
                   ir_override=getattr(config, "ir_override", None))

    def launch_options(self):
        """The options the launcher takes. num_ctas and maxnreg are passed only when they
        differ from the defaults (1, None), so a launcher without them still works for
        configs that do not use them."""
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.num_ctas != 1:
            options["num_ctas"] = self.num_ctas
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return options

    def all_kwargs(self):
        """Meta-parameters and launch options together, as Triton's Config gives them."""
        options = {"num_warps": self.num_warps, "num_ctas": self.num_ctas,
                   "num_stages": self.num_stages, "maxnreg": self.maxnreg,
                   "ir_override": self.ir_override}
        return {**self.kwargs, **{k: v for k, v in options.items() if v is not None}}

    def _identity(self):
        return (tuple(self.all_kwargs().items()), self.pre_hook)

    def __hash__(self):
        return hash(self._identity())

    def __eq__(self, other):
        return isinstance(other, Config) and self._identity() == other._identity()

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    def __repr__(self):
        return f"Config({self})"


def _print_enabled():
    return (os.environ.get("TRITIUM_PRINT_AUTOTUNING", "") not in ("", "0")
            or os.environ.get("TRITON_PRINT_AUTOTUNING", "") not in ("", "0"))


def _innermost(fn):
    """The JITFunction under any stack of wrappers."""
    while not hasattr(fn, "globals_used"):
        if not hasattr(fn, "fn"):
            raise TypeError(f"autotune/heuristics apply to @tritium.jit kernels, not {fn!r}")
        fn = fn.fn
    return fn


def _arg_names(fn):
    names = getattr(fn, "arg_names", None)
    if names is None:
        raise TypeError(f"autotune/heuristics apply to @tritium.jit kernels, not {fn!r}")
    return list(names)


# -- where a launch runs, and its device -----------------------------------------------------

def _is_cuda_tensor(value):
    return bool(getattr(value, "is_cuda", False)) and hasattr(value, "data_ptr")


def _gpu_argument(values):
    """The first argument in device memory, or None when the launch runs in the
    interpreter (host arrays only, or TRITIUM_INTERPRET=1)."""
    if os.environ.get("TRITIUM_INTERPRET", "") not in ("", "0"):
        return None
    for value in values:
        if isinstance(value, (tuple, list)):  # tuple arguments: their elements
            inner = _gpu_argument(value)
            if inner is not None:
                return inner
            continue
        if hasattr(value, "block_shape") and hasattr(value, "base"):  # a host TensorDescriptor
            value = value.base
        if _is_cuda_tensor(value) or hasattr(value, "__cuda_array_interface__"):
            return value
    return None


def _device_name(gpu_value):
    if gpu_value is None:
        return "interpreter"
    if _is_cuda_tensor(gpu_value):
        import torch
        index = gpu_value.device.index
        return torch.cuda.get_device_name(torch.cuda.current_device() if index is None
                                          else index)
    try:
        import cupy
        device = getattr(getattr(gpu_value, "device", None), "id", 0)
        name = cupy.cuda.runtime.getDeviceProperties(device)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # no CuPy: the name is only part of a cache key
        return "cuda"


# -- timing ----------------------------------------------------------------------------------

def gpu_do_bench(kernel_call, warmup=25, rep=100, quantiles=None, device=None):
    """Milliseconds per run of `kernel_call` on the GPU, timed with CUDA events (torch's, else
    CuPy's), the L2 cache flushed before every run by zeroing a 256 MiB buffer (larger than
    any current L2). Runs for about `warmup` ms, then times about `rep` ms of runs; returns
    the `quantiles` of the run times (a list), or their mean. The protocol is
    tritium.testing.do_bench's (both in _timing.py)."""
    times = _timing.time_runs(kernel_call, warmup, rep, _timing.gpu_backend(device))
    if not quantiles:
        return sum(times) / len(times)
    return _timing.quantiles_of(times, quantiles)


def _first_time(result):
    if isinstance(result, (list, tuple)):
        return float(result[0])
    return float(result)


# -- the persistent choice -------------------------------------------------------------------

def _autotune_dir():
    from .jit import _extension
    return os.path.join(_extension().cache_dir(), "autotune")


def _stored_choice_path(kernel, tuning_key, configs, device):
    from . import __version__
    jit_fn = _innermost(kernel)
    record = {
        "tritium": __version__,
        "kernel": jit_fn.__name__,
        "source": jit_fn.src,
        "globals": jit_fn.globals_used(),
        "key": list(tuning_key),
        "configs": [str(c) + (f", pre_hook: {getattr(c.pre_hook, '__qualname__', '?')}"
                              if c.pre_hook else "") for c in configs],
        "device": device,
    }
    text = json.dumps(record, sort_keys=True, default=repr)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return os.path.join(_autotune_dir(), f"{digest}.json")


def _load_choice(path, configs):
    """The index of the stored best config, or None (no file, or one that does not fit)."""
    try:
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
        index = stored["best"]
        if not (isinstance(index, int) and 0 <= index < len(configs)
                and stored["config"] == str(configs[index])):
            return None
        return index, stored.get("timings")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store_choice(path, kernel_name, tuning_key, configs, best, timings):
    """Atomically: a temporary file in the same directory, renamed into place (no locks, so
    safe with many processes on a network filesystem). Failures only cost a re-tune."""
    record = {"kernel": kernel_name, "key": list(tuning_key), "best": best,
              "config": str(configs[best]), "timings": timings}
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.replace(temp, path)
    except OSError:
        pass


# -- the wrappers ----------------------------------------------------------------------------

class _KernelWrapper(KernelInterface):
    """What Autotuner and Heuristics share with JITFunction: ``kernel[grid](...)``."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a @tritium.jit kernel: launch it with "
                           f"{self.__name__}[grid](...)")

    # Both are plain attributes in Triton, which subclasses assign (FlagGems' LibTuner sets
    # ``self.base_fn`` and ``self.__name__`` in its __init__): a value assigned replaces the
    # computed one.
    @property
    def __name__(self):
        name = self.__dict__.get("_assigned_name")
        return _innermost(self.fn).__name__ if name is None else name

    @__name__.setter
    def __name__(self, value):
        self.__dict__["_assigned_name"] = value

    @property
    def base_fn(self):
        """The Python function under every decorator (Triton's ``Autotuner.base_fn`` and
        ``Heuristics.base_fn``; tools such as Inductor read its name and source)."""
        if "_assigned_base_fn" in self.__dict__:
            return self.__dict__["_assigned_base_fn"]
        fn = self.fn
        while not isinstance(fn, types.FunctionType) and hasattr(fn, "fn"):
            fn = fn.fn
        return fn

    @base_fn.setter
    def base_fn(self, value):
        self.__dict__["_assigned_base_fn"] = value

    def __repr__(self):
        return f"{type(self).__name__}({_innermost(self.fn)!r})"


class Autotuner(_KernelWrapper):
    """A kernel that picks its launch config by timing (see the module's docstring)."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=None):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.configs = ([Config.from_any(c) for c in configs] if configs
                        else [Config({}, num_warps=4, num_stages=3, num_ctas=1)])
        # A key that names no parameter is ignored, as Triton ignores it (flash-attn's ROCm
        # backward gives its preprocess kernel the key list of the main kernels, IS_CAUSAL
        # and all); the names to reset or restore must be parameters.
        self.keys = [key] if isinstance(key, str) else list(key or [])
        for name in list(reset_to_zero or []) + list(restore_value or []):
            if name not in self.arg_names:
                raise ValueError(f"autotune: {name!r} is not a parameter of "
                                 f"{_innermost(fn).__name__} ({', '.join(self.arg_names)})")
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        # Triton's names: `pre_hook`/`post_hook` are the hooks run around each timed launch
        # (the user's, else the reset_to_zero / restore_value ones below), and subclasses
        # (fla's CachedAutotuner) read `user_defined_pre_hook` and replace `pre_hook`.
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook if pre_hook is not None else self._default_pre_hook
        self.post_hook = post_hook if post_hook is not None else self._default_post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.warmup_ms = 25 if warmup is None else warmup
        self.rep_ms = 100 if rep is None else rep
        self.use_cuda_graph = use_cuda_graph
        self.user_do_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}            # tuning key -> Config, for this process
        self.configs_timings = {}  # Config -> timing, of the last tuning
        self.best_config = None
        self.bench_time = 0.0
        self.bench_runs = 0        # kernel_call()s made for timing, in this process
        self.nargs = None
        self.restore_copies = {}

    # -- hooks: reset_to_zero and restore_value around each timed run --------------------

    def _default_pre_hook(self, nargs, reset_only=False):
        for name in self.reset_to_zero:
            value = nargs.get(name)
            if value is not None:
                _zero(value)
        if not reset_only:
            self.restore_copies = {name: _copy(nargs[name]) for name in self.restore_value
                                   if nargs.get(name) is not None}

    def _default_post_hook(self, nargs, exception):
        for name, saved in self.restore_copies.items():
            _restore(nargs[name], saved)
        self.restore_copies = {}

    # -- choosing ---------------------------------------------------------------------

    def _tuning_key(self, args, kwargs):
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        named = {k: v for k, v in named.items() if k in self.arg_names}
        key = [_key_text(named[k]) for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        return tuple(key)

    def _cache_key(self, args, kwargs):
        """The key of `self.cache`, made as Triton makes it: the key arguments' values, then
        the dtype (as text) of every argument that has one. Code that fills the cache itself
        (fla's CachedAutotuner stores its saved best configs there) builds the same tuple.
        Values that cannot be hashed (numpy arrays) stand as their text instead."""
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        named = {k: v for k, v in named.items() if k in self.arg_names}
        key = [named[k] for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        key = tuple(key)
        try:
            hash(key)
        except TypeError:
            key = self._tuning_key(args, kwargs)
        return key

    def prune_configs(self, kwargs):
        configs = self.configs
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(self.configs, self.nargs, **kwargs))
            if not configs:
                raise ValueError("autotune: early_config_prune returned no config; it must "
                                 "return at least one")
            configs = [Config.from_any(c) for c in configs]
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("autotune: prune_configs_by['top_k'] must be an int or a "
                                "float <= 1.0")
            if len(configs) > top_k:
                estimate = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs())
                            for c in configs}
                configs = sorted(configs, key=lambda c: estimate[c])[:top_k]
        return configs

    def _compile_all(self, args, kwargs, configs):
        """Compiles every config in parallel threads (the C++ compile releases the GIL);
        returns {config: exception} for those that failed to compile."""
        call_kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}

        def compile_one(config):
            self.fn.warmup(*args, **call_kwargs, **config.kwargs, **config.launch_options())

        failed = {}
        # A config's pre_hook may change how the arguments specialize (the fused-attention
        # tutorial sets its tensor descriptors' block shapes there), so those configs are
        # compiled one at a time, each right after its hook, as Triton's first timed run
        # would; the others compile in parallel.
        for config in [c for c in configs if c.pre_hook is not None]:
            try:
                config.pre_hook({**self.nargs, **config.kwargs, **kwargs})
                compile_one(config)
            except Exception as e:  # noqa: BLE001 - reported per config like the others
                failed[config] = e
        configs = [c for c in configs if c.pre_hook is None]
        workers = max(1, min(len(configs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(compile_one, c): c for c in configs}
            for future in concurrent.futures.as_completed(futures):
                error = future.exception()
                if error is not None:
                    failed[futures[future]] = error
        return failed

    def _bench_one(self, args, kwargs, config, do_bench, index, count):
        if _print_enabled():
            print(f"tritium autotuning {self.__name__}: timing config {index + 1}/{count}: "
                  f"{config}", flush=True)
        current = {**kwargs, **config.kwargs, **config.launch_options()}
        full_nargs = {**self.nargs, **config.kwargs, **kwargs}

        def kernel_call():
            self.bench_runs += 1
            if config.pre_hook is not None:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                self.post_hook(full_nargs, e)
                raise
            self.post_hook(full_nargs, None)

        return do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))

    def _bench(self, *args, config, **meta):
        """Triton's ``Autotuner._bench``: times one config for these arguments and returns
        [median, 20th, 80th percentile] in ms; a config that does not compile times as
        infinite (Triton's rule for OutOfResources and compile errors). Subclasses that
        choose among the configs themselves call it (FlagGems' LibTuner, whose `policy`
        takes the minimum). In the interpreter (no GPU argument and no `do_bench` given)
        nothing is timed and every config gets the same time, 0 (infinite for one that fails
        a static_assert), so a minimum picks the first config that compiles, as tritium's own
        choice does there."""
        if self.nargs is None:
            self.nargs = dict(zip(self.arg_names, args))
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"autotune: conflicting meta-parameters "
                             f"{', '.join(sorted(conflicts))}: given at the launch and "
                             f"by the configs of {self.__name__}")
        do_bench = self._do_bench_for(args, meta)
        if do_bench is None:
            return [float("inf")] * 3 if self._asserts_in_interpreter(args, meta, config) else [0.0] * 3
        failed = self._compile_all(args, meta, [config])
        if failed:
            return [float("inf")] * 3
        result = self._bench_one(args, meta, config, do_bench, 0, 1)
        return list(result) if isinstance(result, (list, tuple)) else [result] * 3

    def _asserts_in_interpreter(self, args, kwargs, config):
        """Whether `config` fails a static_assert for these arguments (compiled for the
        interpreter, and cached for its launch): Triton's autotuner times such a config as
        infinite (CompileTimeAssertionFailure), so it is never chosen. FlagGems' attention
        lists configs whose BLOCK_N exceeds a small HEAD_DIM and asserts against them."""
        call_kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **config.kwargs, **kwargs})
        try:
            self.fn.warmup(*args, **call_kwargs, **config.kwargs, **config.launch_options())
        except CompileTimeAssertionFailure:
            return True
        return False

    def _do_bench_for(self, args, kwargs):
        """The timing function for these arguments: the user's `do_bench`, else CUDA events
        when an argument lives on the GPU, else None (the interpreter: nothing is timed)."""
        gpu_value = _gpu_argument(list(args) + list(kwargs.values()))
        do_bench = self.user_do_bench
        if do_bench is None and gpu_value is not None:
            device = (gpu_value.device.index if _is_cuda_tensor(gpu_value)
                      else getattr(getattr(gpu_value, "device", None), "id", None))
            warmup, rep = self.warmup_ms, self.rep_ms
            do_bench = (lambda call, quantiles: gpu_do_bench(
                call, warmup=warmup, rep=rep, quantiles=quantiles, device=device))
        return do_bench

    def _choose(self, args, kwargs, tuning_key):
        """(config, how): how is "timed", "stored" or "first"."""
        configs = self.prune_configs(kwargs)
        for config in configs:
            conflicts = kwargs.keys() & config.kwargs.keys()
            if conflicts:
                raise ValueError(f"autotune: conflicting meta-parameters "
                                 f"{', '.join(sorted(conflicts))}: given at the launch and "
                                 f"by the configs of {self.__name__}")
        if len(configs) == 1:
            return configs[0], "only"
        gpu_value = _gpu_argument(list(args) + list(kwargs.values()))
        do_bench = self._do_bench_for(args, kwargs)
        if do_bench is None:
            # the interpreter: deterministic, nothing timed; the first config whose
            # static_asserts hold (Triton times a failing one as infinite)
            for config in configs:
                if not self._asserts_in_interpreter(args, kwargs, config):
                    return config, "first"
            self.fn.warmup(*args, **{k: v for k, v in kwargs.items() if k not in ("grid", "warmup")},
                           **configs[0].kwargs, **configs[0].launch_options())  # raises it
            return configs[0], "first"

        path = None
        if self.cache_results is not False and os.environ.get(
                "TRITIUM_AUTOTUNE_CACHE", "1") not in ("0", ""):
            path = _stored_choice_path(self.fn, tuning_key, configs, _device_name(gpu_value))
            stored = _load_choice(path, configs)
            if stored is not None:
                index, timings = stored
                self.configs_timings = {}
                if isinstance(timings, list) and len(timings) == len(configs):
                    self.configs_timings = dict(zip(configs, timings))
                self._stored_path = path
                return configs[index], "stored"

        start = time.perf_counter()
        failed = self._compile_all(args, kwargs, configs)
        compile_seconds = time.perf_counter() - start
        if len(failed) == len(configs):
            raise next(iter(failed.values()))
        timings = {}
        for index, config in enumerate(configs):
            if config in failed:
                if _print_enabled():
                    print(f"tritium autotuning {self.__name__}: config {config} does not "
                          f"compile: {failed[config]}", flush=True)
                timings[config] = [float("inf")] * 3
                continue
            timings[config] = self._bench_one(args, kwargs, config, do_bench, index,
                                              len(configs))
        self.bench_time = time.perf_counter() - start
        self._compile_seconds = compile_seconds
        self.configs_timings = timings
        best = builtins.min(configs, key=lambda c: _first_time(timings[c]))
        # reset_to_zero once more, so the real launch starts from zeros.
        self.pre_hook({**self.nargs, **kwargs, **best.kwargs}, reset_only=True)
        if path is not None:
            _store_choice(path, self.__name__, tuning_key, configs, configs.index(best),
                          [_jsonable_time(timings[c]) for c in configs])
        return best, "timed"

    def _report(self, tuning_key, config, how):
        if how == "timed":
            print(f"tritium autotuning for {self.__name__} with key {tuning_key} finished "
                  f"after {self.bench_time:.2f}s (compiling in parallel: "
                  f"{self._compile_seconds:.2f}s); best config selected: {config};",
                  flush=True)
        elif how == "stored":
            print(f"tritium autotuning for {self.__name__} with key {tuning_key}: best config "
                  f"loaded from {self._stored_path} (nothing timed): {config};", flush=True)
        elif how == "first":
            print(f"tritium autotuning for {self.__name__} with key {tuning_key}: the kernel "
                  f"runs in the interpreter, so nothing is timed and the first config is "
                  f"used: {config};", flush=True)

    # -- launching --------------------------------------------------------------------

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        try:
            if len(self.configs) > 1:
                cache_key = self._cache_key(args, kwargs)
                config = self.cache.get(cache_key)
                if config is None:
                    tuning_key = self._tuning_key(args, kwargs)
                    config, how = self._choose(args, kwargs, tuning_key)
                    self.cache[cache_key] = config
                    if _print_enabled():
                        self._report(tuning_key, config, how)
            else:
                config = self.configs[0]
            self.best_config = config
            if config.pre_hook is not None:
                config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
            return self.fn.run(*args, **kwargs, **config.kwargs, **config.launch_options())
        finally:
            self.nargs = None

    def warmup(self, *args, **kwargs):
        """Compiles every (pruned) config for these arguments, in parallel; launches none."""
        self.nargs = dict(zip(self.arg_names, args))
        try:
            failed = self._compile_all(args, kwargs, self.prune_configs(kwargs))
        finally:
            self.nargs = None
        if failed and len(failed) == len(self.configs):
            raise next(iter(failed.values()))


class Heuristics(_KernelWrapper):
    """A kernel whose meta-parameters are computed from its arguments at each launch."""

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.values = dict(values)

    def _with_values(self, args, kwargs):
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._with_values(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._with_values(args, kwargs))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=None):
    """Decorator: time `configs` (tritium.Config or triton.Config) at the first launch of
    each value of the `key` arguments and launch with the fastest. `do_bench(kernel_call,
    quantiles)` replaces the timer; `warmup`/`rep` are the default timer's milliseconds.
    The choice is kept on disk (see the module docstring) unless cache_results=False."""

    def decorator(fn):
        return Autotuner(fn, _arg_names(fn), configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


def heuristics(values):
    """Decorator: ``{name: function(args) -> value}``; each function receives the launch's
    arguments by name (positional and keyword) and its result is passed as `name`."""
    if not isinstance(values, dict):
        raise TypeError("heuristics: values must be a dict of parameter name -> function")

    def decorator(fn):
        return Heuristics(fn, _arg_names(fn), values)

    return decorator


# -- small helpers ---------------------------------------------------------------------------

def _key_text(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{value.dtype}{list(value.shape)}"
    return repr(value)


def _jsonable_time(result):
    if isinstance(result, (list, tuple)):
        return [float(t) for t in result]
    return float(result)


def _zero(value):
    if hasattr(value, "zero_"):
        value.zero_()
    else:
        value[...] = 0


def _copy(value):
    return value.clone() if hasattr(value, "clone") else value.copy()


def _restore(value, saved):
    if hasattr(value, "copy_"):
        value.copy_(saved)
    else:
        value[...] = saved


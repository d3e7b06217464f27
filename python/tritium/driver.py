"""``triton.runtime.driver`` under tritium: ``driver.active`` answers what Triton's
tutorials ask of the active driver (the current target, the device's properties, the
torch device) and ``triton.set_allocator`` records the global-scratch allocator.

On a GPU the answers come from torch (else CuPy). Where kernels run in the CPU interpreter
(TRITIUM_INTERPRET=1, or no GPU visible) there is no device to ask: the properties are
those of a nominal CUDA device (INTERPRETER_PROPERTIES, a few SMs so that persistent
kernels loop over tiles) and the target's arch is 0.
"""

import os

from .compiled import GPUTarget

__all__ = ["driver", "set_allocator", "CPUDriver", "INTERPRETER_PROPERTIES"]

# What get_device_properties returns when kernels run in the interpreter.
INTERPRETER_PROPERTIES = {
    "max_shared_mem": 232448,
    "max_num_regs": 65536,
    "multiprocessor_count": 4,
    "warpSize": 32,
    "sm_clock_rate": 0,
    "mem_clock_rate": 0,
    "mem_bus_width": 0,
}


def _interpreting():
    return os.environ.get("TRITIUM_INTERPRET", "").strip().lower() in ("1", "true", "yes", "on")


def _torch_cuda():
    """torch, when it is installed and sees a GPU (and kernels are not interpreted)."""
    if _interpreting():
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _cupy():
    if _interpreting():
        return None
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, or no driver/device
        return None


class _Utils:
    def get_device_properties(self, device=None):
        """Triton's keys: max_shared_mem, max_num_regs, multiprocessor_count, warpSize,
        sm_clock_rate, mem_clock_rate, mem_bus_width."""
        index = device if isinstance(device, int) else getattr(device, "index", None) or 0
        torch = _torch_cuda()
        if torch is not None:
            p = torch.cuda.get_device_properties(index)
            return {
                "max_shared_mem": int(getattr(p, "shared_memory_per_block_optin", 232448)),
                "max_num_regs": int(getattr(p, "regs_per_multiprocessor", 65536)),
                "multiprocessor_count": int(p.multi_processor_count),
                "warpSize": int(getattr(p, "warp_size", 32)),
                "sm_clock_rate": int(getattr(p, "clock_rate", 0)),
                "mem_clock_rate": int(getattr(p, "memory_clock_rate", 0)),
                "mem_bus_width": int(getattr(p, "memory_bus_width", 0)),
            }
        cupy = _cupy()
        if cupy is not None:
            p = cupy.cuda.runtime.getDeviceProperties(index)
            return {
                "max_shared_mem": int(p.get("sharedMemPerBlockOptin", 232448)),
                "max_num_regs": int(p.get("regsPerMultiprocessor", 65536)),
                "multiprocessor_count": int(p["multiProcessorCount"]),
                "warpSize": int(p.get("warpSize", 32)),
                "sm_clock_rate": int(p.get("clockRate", 0)),
                "mem_clock_rate": int(p.get("memoryClockRate", 0)),
                "mem_bus_width": int(p.get("memoryBusWidth", 0)),
            }
        return dict(INTERPRETER_PROPERTIES)


class _ActiveDriver:
    """``triton.runtime.driver.active``."""

    def __init__(self):
        self.utils = _Utils()

    def get_current_device(self):
        torch = _torch_cuda()
        return torch.cuda.current_device() if torch is not None else 0

    def get_current_target(self):
        """GPUTarget("cuda", 10 * major + minor, 32); arch 0 in the interpreter."""
        arch = 0
        torch = _torch_cuda()
        if torch is not None:
            major, minor = torch.cuda.get_device_capability()
            arch = 10 * major + minor
        else:
            cupy = _cupy()
            if cupy is not None:
                arch = int(cupy.cuda.Device().compute_capability)
        return GPUTarget("cuda", arch, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device()) if _torch_cuda() else torch.device("cpu")

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_current_stream(self, device=None):
        """The raw handle of the current stream (torch's, else CuPy's) on `device` (default:
        the current one), as Triton's driver gives it; 0 (the default stream) without a GPU."""
        torch = _torch_cuda()
        if torch is not None:
            if device is None:
                device = torch.cuda.current_device()
            return torch.cuda.current_stream(device).cuda_stream
        cupy = _cupy()
        if cupy is not None:
            return cupy.cuda.get_current_stream().ptr
        return 0

    def get_benchmarker(self):
        """The timing function Triton's autotuner uses: ``triton.testing.do_bench``."""
        from .testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A 256 MB buffer whose clearing flushes the L2 cache between timed runs (torch)."""
        import torch
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int,
                           device="cuda" if _torch_cuda() is not None else "cpu")

    def clear_cache(self, cache):
        cache.zero_()

    def is_active(self):
        return True


class CPUDriver(_ActiveDriver):
    """The driver of the registry's "cpu" backend (triton.backends.backends["cpu"]): the
    interpreter as Triton's CPU backend. Its target is GPUTarget("cpu", 0, 32) and its torch
    device the CPU; it is active while it is ``driver.active``."""

    @classmethod
    def is_active(cls):
        return isinstance(driver.active, cls)

    def get_current_device(self):
        return 0

    def get_current_target(self):
        return GPUTarget("cpu", 0, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_current_stream(self, device=None):
        return 0


class _Driver:
    """``triton.runtime.driver``: ``.active`` is the one driver tritium has."""

    def __init__(self):
        self.active = _ActiveDriver()
        self.default = self.active

    def set_active(self, driver):
        self.active = driver

    def reset_active(self):
        self.active = self.default


driver = _Driver()

_allocator = None


def set_allocator(allocator):
    """Triton's ``triton.set_allocator(fn)``: `fn(size, alignment, stream)` returns the
    global scratch that kernels making tensor descriptors on the device need. tritium's
    device-made descriptors are pointer arithmetic and need no scratch, so the allocator is
    only checked and kept (``get_allocator()``); None clears it."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator takes a callable (size, alignment, stream), got "
                        f"{type(allocator).__name__}")
    _allocator = allocator


def get_allocator():
    return _allocator
# `import triton.runtime.driver` under the alias binds this module where Triton has the
# `driver` object (triton.runtime.driver): the module answers as the object does, `active`
# and `default` read when asked (a driver made active later is seen).
def set_active(new_driver):
    driver.set_active(new_driver)


def reset_active():
    driver.reset_active()


def __getattr__(name):
    if name in ("active", "default"):
        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

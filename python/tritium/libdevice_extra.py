"""``triton.language.extra`` (and ``triton.language.extra.cuda``) under tritium: the
namespace that holds ``libdevice``."""

from . import libdevice

__all__ = ["libdevice", "gdc_wait", "gdc_launch_dependents", "num_threads", "num_warps", "smid", "globaltimer"]
cuda = None  # set below: triton.language.extra.cuda is this same namespace
import sys as _sys
cuda = _sys.modules[__name__]


def gdc_wait():
    """In a kernel: waits for the kernel this launch depends on (programmatic dependent
    launch, ``launch_pdl=True``); PTX griddepcontrol.wait on sm_90+, a no-op in the
    interpreter."""
    raise RuntimeError("gdc_wait() can only be called inside a @tritium.jit kernel")


def gdc_launch_dependents():
    """In a kernel: lets the dependent kernel begin launching; PTX
    griddepcontrol.launch_dependents on sm_90+, a no-op in the interpreter."""
    raise RuntimeError("gdc_launch_dependents() can only be called inside a @tritium.jit kernel")


def num_warps():
    """In a kernel: the launch's num_warps, a compile-time constant (tl.constexpr)."""
    raise RuntimeError("num_warps() can only be called inside a @tritium.jit kernel")


def num_threads():
    """In a kernel: the threads of a program, 32 * num_warps, a compile-time constant."""
    raise RuntimeError("num_threads() can only be called inside a @tritium.jit kernel")


def smid():
    """In a kernel: the SM the program runs on (int32, PTX %smid); 0 in the interpreter."""
    raise RuntimeError("smid() can only be called inside a @tritium.jit kernel")


def globaltimer():
    """In a kernel: the GPU's global nanosecond timer (int64, PTX %globaltimer), read anew at
    each call; the host's monotonic clock in nanoseconds in the interpreter."""
    raise RuntimeError("globaltimer() can only be called inside a @tritium.jit kernel")

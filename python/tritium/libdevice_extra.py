"""``triton.language.extra`` (and ``triton.language.extra.cuda``) under tritium: the
namespace that holds ``libdevice``."""

from . import libdevice

__all__ = ["libdevice", "gdc_wait", "gdc_launch_dependents"]
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

"""``triton.language.target_info``: what a kernel is compiled for, as compile-time constants
(``@tl.constexpr_function``s a kernel may call, e.g. to guard inline asm by architecture)."""

from .jit import constexpr_function

__all__ = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip", "is_hip_cdna3", "is_hip_cdna4"]


def current_target():
    """The active device's GPUTarget (arch 0 when kernels run in the interpreter), or None."""
    from .driver import driver
    try:
        return driver.active.get_current_target()
    except RuntimeError:
        return None


@constexpr_function
def is_cuda():
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major, minor=0):
    """Whether the target's compute capability is at least (major, minor)."""
    target = current_target()
    return target is not None and target.backend == "cuda" and target.arch >= major * 10 + minor


@constexpr_function
def is_hip():
    target = current_target()
    return target is not None and target.backend == "hip"


@constexpr_function
def is_hip_cdna3():
    return False  # tritium targets NVIDIA GPUs only


@constexpr_function
def is_hip_cdna4():
    return False

"""Host-side helpers shared by the tutorial programs (tutorial_*.py): the same program runs
on numpy arrays (the CPU interpreter, tests/python/test_tutorials.py) and on torch CUDA
tensors (tests/gpu/test_gpu_tutorials.py). Only allocation, strides and addresses differ."""

import numpy as np
import triton


def is_torch(x):
    return type(x).__module__.startswith("torch")


def _torch_dtype(dtype):
    import torch
    return getattr(torch, np.dtype(dtype).name)


def empty(shape, dtype, like):
    """An uninitialized array of `shape` and numpy `dtype`, where `like` lives."""
    if is_torch(like):
        import torch
        return torch.empty(shape, dtype=_torch_dtype(dtype), device=like.device)
    return np.empty(shape, dtype)


def empty_like(x):
    if is_torch(x):
        import torch
        return torch.empty_like(x)
    return np.empty_like(x)


def zeros(shape, dtype, like):
    out = empty(shape, dtype, like)
    out[...] = 0
    return out


def array(values, dtype, like):
    """A small array of host `values` placed where `like` lives."""
    values = np.asarray(values, dtype)
    if is_torch(like):
        import torch
        return torch.from_numpy(values).to(like.device)
    return values


def stride(x, dim):
    """x.stride(dim) in elements, for torch tensors and numpy arrays."""
    return x.stride(dim) if is_torch(x) else x.strides[dim] // x.itemsize


def element_size(x):
    return x.element_size() if is_torch(x) else x.itemsize


def address(x):
    """x's data address, for a kernel that loads it from an array of int64 addresses; host
    memory is also made reachable for the interpreter (tritium.register_host_memory)."""
    if is_torch(x) and x.is_cuda:
        return x.data_ptr()
    return triton.register_host_memory(x)[0]


def to_numpy(x):
    return x.detach().cpu().numpy() if is_torch(x) else x

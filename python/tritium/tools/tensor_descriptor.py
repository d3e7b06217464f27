"""Tensor descriptors made on the host, as Triton's ``triton.tools.tensor_descriptor``:

    from tritium.tools.tensor_descriptor import TensorDescriptor   # or triton.tools...
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    kernel[grid](a_desc, ...)          # in the kernel: a_desc.load([m, k]), a_desc.store(...)

The same constructor, fields, checks and messages as Triton 3.6's class; the base may also
be a numpy array (run by the interpreter), whose strides are given in elements as torch's
are. A launch accepts this class and Triton's own (any dataclass named TensorDescriptor with
these fields): the kernel receives the base pointer, the shape and the strides, and the
block shape, dtype and padding select the compiled specialization (docs/DESIGN.md).
"""

from dataclasses import dataclass
from typing import Any, List

__all__ = ["TensorDescriptor"]

_MAX_NUMEL = 1048576  # Triton's TRITON_MAX_TENSOR_NUMEL


def _check(condition, message):
    # Triton's class asserts; raised explicitly here so that `python -O` keeps the checks.
    if not condition:
        raise AssertionError(message)


def _validate_block_shape(shape):
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got `constexpr[{type(d)}]")
        if d <= 0 or d & (d - 1) != 0:
            raise ValueError(f"Shape element {i} must be a power of 2")
        numel *= d
    if numel > _MAX_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({_MAX_NUMEL})")
    return numel


# Triton's module exports it under this name (from triton._utils).
validate_block_shape = _validate_block_shape


def _data_address(base):
    if hasattr(base, "data_ptr"):
        return base.data_ptr()
    interface = getattr(base, "__cuda_array_interface__", None) or getattr(base, "__array_interface__", None)
    return interface["data"][0] if interface else None


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        # (the message is built only on failure: repr of a torch tensor costs milliseconds)
        if len(self.strides) != rank or len(self.block_shape) != rank:
            _check(False, f"rank mismatch: {self}")
        _check(rank > 0, "rank must not be zero")
        _check(rank <= 5, "rank cannot be more than 5")
        ty = type(self.base)
        if f"{ty.__module__}.{ty.__name__}" not in ("torch.FakeTensor", "torch.FunctionalTensor"):
            address = _data_address(self.base)
            _check(address is not None and address % 16 == 0, "base must be 16-byte aligned")
        _validate_block_shape(self.block_shape)
        elem_bytes = self.base.dtype.itemsize
        for stride in self.strides[:-1]:
            _check((stride * elem_bytes) % 16 == 0, "strides must be 16-byte aligned")
        _check(self.strides[-1] == 1, "Last dimension must be contiguous")
        _check(self.padding == "zero" or self.padding == "nan", "Illegal value for padding")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero"):
        """A descriptor over all of `tensor` (torch: its shape and stride(); numpy: its
        strides divided by the element size)."""
        if callable(getattr(tensor, "stride", None)):
            strides = tensor.stride()
        else:
            strides = [s // tensor.dtype.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), list(strides), block_shape, padding)

"""Ragged tensor descriptors, Triton's ``triton.tools.ragged_tma`` (vLLM's vendored
triton_kernels imports it for its MoE matmul):

    desc = create_ragged_descriptor(T, [BLOCK_M, BLOCK_K])       # host
    x = load_ragged(desc, start, size, [row, col])               # kernel: T[start:start+size]
    store_ragged(desc, start, size, [row, col], x)               # rows past `size` untouched

One descriptor serves a tensor whose first (ragged) axis is cut into consecutive batches of
any sizes: a kernel reads or writes block `coords` of the batch that starts at row
`batch_offset` and has `batch_size` rows, and the descriptor's bounds check treats the rows
past the batch as outside the tensor (zeros when read, not written).

How: the descriptor has two more leading axes than T, and each access names the batch's end
in them, using 64-bit address wraparound. With W = 2**30 rows (more than any T has) and s
the stride of the ragged axis, the descriptor's axes are
    (huge, stride 2**34 - s), (huge, stride s), T's axes with the ragged one W long;
a batch row r (0 <= r < batch_size) is addressed as (W, batch_offset + batch_size,
..., W - batch_size + r, ...), whose address is
    W * (2**34 - s) + (batch_offset + batch_size) * s + (W - batch_size + r) * s
    = 2**64 + (batch_offset + r) * s  =  (batch_offset + r) * s   (mod 2**64),
and whose ragged coordinate W - batch_size + r is inside [0, W) exactly when r < batch_size.
"""

from .. import jit
from .. import language as tl
from .tensor_descriptor import TensorDescriptor

__all__ = ["create_ragged_descriptor", "load_ragged", "store_ragged", "atomic_add_ragged",
           "to_ragged_indices"]

_ROWS = 1 << 30           # W: the ragged axis's length in the descriptor
_OUTER = 0x7FFF0000       # the two leading axes' length (any coordinate used fits)


def create_ragged_descriptor(T, block_shape, ragged_dim=0):
    """A descriptor of the 2- or 3-D tensor `T` for load_ragged/store_ragged, whose blocks
    are `block_shape` (one extent per axis of T) and whose batches run along `ragged_dim`
    (not the last axis)."""
    shape = list(T.shape)
    block = list(block_shape)
    rank = len(shape)
    if ragged_dim < 0:
        ragged_dim += rank
    if not 0 <= ragged_dim < rank - 1:
        raise AssertionError("last dimension cannot be ragged")
    if rank > 3:
        raise AssertionError("read-write ragged descriptors must have at most 3 dimensions")
    if len(block) != rank:
        raise AssertionError("block shape must have same length as tensor shape")
    if shape[ragged_dim] > _ROWS:
        raise AssertionError("number of rows may not exceed 2**30")
    step = T.stride(ragged_dim)
    strides = [T.stride(i) for i in range(rank)]
    shape[ragged_dim] = _ROWS
    return TensorDescriptor(T, [_OUTER, _OUTER] + shape, [(1 << 34) - step, step] + strides,
                            [1, 1] + block)


@jit
def to_ragged_indices(batch_offset, batch_size, row):
    """The two leading coordinates and the ragged one that address row `row` of the batch
    (see the module's docstring)."""
    rows = 0x40000000
    return rows, batch_offset + batch_size, rows - batch_size + row


@jit
def load_ragged(TMA, batch_offset, batch_size, coords, ragged_dim: tl.constexpr = 0):
    """Block `coords` of T[batch_offset : batch_offset + batch_size] (rows past the batch
    read as zeros)."""
    tl.static_assert(len(TMA.shape) == len(coords) + 2, "TMA must be a read-write ragged descriptor")
    lead, end, row = to_ragged_indices(batch_offset, batch_size, coords[ragged_dim])
    block = TMA.load([lead, end] + coords[:ragged_dim] + [row] + coords[ragged_dim + 1:])
    return tl.reshape(block, block.shape[2:])


@jit
def store_ragged(TMA, batch_offset, batch_size, coords, data, ragged_dim: tl.constexpr = 0):
    """Writes `data` to block `coords` of T[batch_offset : batch_offset + batch_size]; rows
    past the batch are not written."""
    lead, end, row = to_ragged_indices(batch_offset, batch_size, coords[ragged_dim])
    TMA.store([lead, end] + coords[:ragged_dim] + [row] + coords[ragged_dim + 1:],
              tl.reshape(data, [1, 1] + data.shape))


@jit
def atomic_add_ragged(TMA, batch_offset, batch_size, coords, data, ragged_dim: tl.constexpr = 0):
    """Adds `data` atomically into block `coords` of T[batch_offset : batch_offset +
    batch_size]; rows past the batch are left alone."""
    lead, end, row = to_ragged_indices(batch_offset, batch_size, coords[ragged_dim])
    TMA.atomic_add([lead, end] + coords[:ragged_dim] + [row] + coords[ragged_dim + 1:],
                   tl.reshape(data, [1, 1] + data.shape))

"""Tutorial 04 (low-memory dropout): dropout driven by a keep-mask array, then the seeded
form that draws the mask in the kernel with tl.rand(seed, offsets), so that only the
seed is kept for the backward pass."""

import triton
import triton.language as tl

import tutorial_host as host


@triton.jit
def masked_dropout_kernel(x_ptr, keep_ptr, out_ptr, count, p, BLOCK_SIZE: tl.constexpr):
    index = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    x = tl.load(x_ptr + index, mask=inside)
    keep = tl.load(keep_ptr + index, mask=inside)
    tl.store(out_ptr + index, tl.where(keep, x / (1 - p), 0.0), mask=inside)


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, count, p, seed, BLOCK_SIZE: tl.constexpr):
    index = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    x = tl.load(x_ptr + index, mask=inside)
    draw = tl.rand(seed, index)
    tl.store(out_ptr + index, tl.where(draw > p, x / (1 - p), 0.0), mask=inside)


def masked_dropout(x, keep, p, block_size=256):
    out = host.empty_like(x)
    count = x.shape[0]
    masked_dropout_kernel[(triton.cdiv(count, block_size),)](x, keep, out, count, p, BLOCK_SIZE=block_size)
    return out


def seeded_dropout(x, p, seed, block_size=256):
    out = host.empty_like(x)
    count = x.shape[0]
    grid = lambda meta: (triton.cdiv(count, meta["BLOCK_SIZE"]),)
    seeded_dropout_kernel[grid](x, out, count, p, seed, BLOCK_SIZE=block_size)
    return out

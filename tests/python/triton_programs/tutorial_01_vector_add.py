"""Tutorial 01 (vector addition): one program per BLOCK_SIZE slice, a masked tail, the grid
from META with triton.cdiv."""

import triton
import triton.language as tl

import tutorial_host as host


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, c_ptr, count, BLOCK_SIZE: tl.constexpr):
    first = tl.program_id(axis=0) * BLOCK_SIZE
    index = first + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    a = tl.load(a_ptr + index, mask=inside)
    b = tl.load(b_ptr + index, mask=inside)
    tl.store(c_ptr + index, a + b, mask=inside)


def vector_add(a, b, block_size=1024):
    c = host.empty_like(a)
    count = a.shape[0]
    vector_add_kernel[lambda meta: (triton.cdiv(count, meta["BLOCK_SIZE"]),)](
        a, b, c, count, BLOCK_SIZE=block_size)
    return c

"""Tutorial 07 (extern functions): libdevice's asin through triton.language.extra, and
the same kernel launched with an extern_libs mapping as Triton's tutorial does."""

import triton
import triton.language as tl
from triton.language.extra import libdevice

import tutorial_host as host


@triton.jit
def asin_kernel(x_ptr, y_ptr, count, BLOCK_SIZE: tl.constexpr):
    index = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    x = tl.load(x_ptr + index, mask=inside)
    tl.store(y_ptr + index, libdevice.asin(x), mask=inside)


@triton.jit
def cuda_libdevice_kernel(x_ptr, y_ptr, count, BLOCK_SIZE: tl.constexpr):
    # The same library reached as tl.extra.cuda.libdevice inside the kernel.
    index = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    x = tl.load(x_ptr + index, mask=inside)
    tl.store(y_ptr + index, tl.extra.cuda.libdevice.asin(x) + tl.extra.libdevice.acos(x), mask=inside)


def asin(x, extern_libs=None):
    y = host.empty_like(x)
    count = x.shape[0]
    grid = lambda meta: (triton.cdiv(count, meta["BLOCK_SIZE"]),)
    if extern_libs is None:
        asin_kernel[grid](x, y, count, BLOCK_SIZE=1024)
    else:
        asin_kernel[grid](x, y, count, BLOCK_SIZE=1024, extern_libs=extern_libs)
    return y


def asin_plus_acos(x):
    y = host.empty_like(x)
    count = x.shape[0]
    cuda_libdevice_kernel[(triton.cdiv(count, 512),)](x, y, count, BLOCK_SIZE=512)
    return y

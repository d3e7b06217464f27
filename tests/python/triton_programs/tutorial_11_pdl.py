"""Tutorial 11 (programmatic dependent launch): the vector add with USE_GDC: it waits for
the kernel it depends on (tl.extra.cuda.gdc_wait) before its loads and lets the next one
launch (tl.extra.cuda.gdc_launch_dependents) before its store; launched with
launch_pdl=True."""

import triton
import triton.language as tl

import tutorial_host as host


@triton.jit
def pdl_add_kernel(a_ptr, b_ptr, c_ptr, count, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    index = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = index < count
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    a = tl.load(a_ptr + index, mask=inside)
    b = tl.load(b_ptr + index, mask=inside)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(c_ptr + index, a + b, mask=inside)


def add(a, b, launch_pdl=True):
    c = host.empty_like(a)
    count = a.shape[0]
    grid = lambda meta: (triton.cdiv(count, meta["BLOCK_SIZE"]),)
    pdl_add_kernel[grid](a, b, c, count, BLOCK_SIZE=1024, USE_GDC=launch_pdl, launch_pdl=launch_pdl)
    return c


def chained(a, b, launch_pdl=True):
    """Two dependent launches: (a + b) + b, the second reading what the first wrote."""
    return add(add(a, b, launch_pdl), b, launch_pdl)

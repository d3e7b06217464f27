"""Triton issue 741 (../shared/seeds/004_6c6e82fa47940810.txt): an argument reassigned to a
constant inside the kernel (`xnumel = 2000`). Facts known about the argument must not
leak onto the constant, nor the other way round (DESIGN law 2).

The two kernels below are the seed's text, with only inductor's `@pointwise(...)`
decorator lines dropped; `triton` is tritium here. Then the same kernel with the constant
differing from the value passed, and with the reassignment inside a loop and a branch,
each checked against the reference the constant's meaning gives.
"""

import numpy as np
import pytest

import tritium
import tritium as triton  # the seed's kernels say @triton.jit
import tritium.language as tl

XNUMEL = 2000
XBLOCK = 1024
GRID = (tritium.cdiv(XNUMEL, XBLOCK),)


# ---- kernel1 of the seed ------------------------------------------------------------
@triton.jit
def kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


kernel1 = kernel


# ---- kernel2 of the seed ------------------------------------------------------------
@triton.jit
def kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


kernel2 = kernel
del kernel


# ---- the reassignment inside a loop and inside branches ------------------------------
@triton.jit
def kernel_reassigned_in_loop(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    for i in range(3):
        xnumel = 2000 - 250 * i  # 1500 after the loop
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


@triton.jit
def kernel_reassigned_per_program(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    if tl.program_id(0) == 0:
        xnumel = 700
    else:
        xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


@triton.jit
def kernel_reassigned_if_large(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    if xnumel > 2000:
        xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


# ---- inputs and the reference -------------------------------------------------------


def seed_inputs():
    arg4_1 = (np.arange(2000, dtype=np.int64) % 196).reshape(2, 1, 1000)
    arg7_1 = np.arange(1, 2001, dtype=np.float32).reshape(2, 1000)
    return arg4_1, arg7_1


def random_inputs(rng):
    return (rng.integers(0, 196, (2, 1, 1000), dtype=np.int64),
            rng.standard_normal((2, 1000)).astype(np.float32))


def scatter_reference(out, index, src, written):
    """torch.Tensor.scatter_(1, index, src) on `out`, for the flat element positions
    (b * 1000 + j) where `written` is true: out[b, index[b, 0, j], j] = src[b, j]."""
    ref = out.copy()
    flat = np.arange(index.size)
    keep = written(flat)
    b, j = flat[keep] // 1000, flat[keep] % 1000
    ref[b, index.reshape(-1)[keep], j] = src.reshape(-1)[keep]
    return ref


def run(kernel_fn, index, src, xnumel, fill=0.0):
    out = np.full((2, 196, 1000), fill, dtype=np.float32)
    kernel_fn[GRID](index, src, out, xnumel, XBLOCK)
    return out


def below(limit):
    return lambda flat: flat < limit


# ---- the tests ----------------------------------------------------------------------


@pytest.mark.parametrize("kernel_fn", [kernel1, kernel2], ids=["kernel1", "kernel2"])
def test_seed_exactly(kernel_fn):
    index, src = seed_inputs()
    out = run(kernel_fn, index, src, 1000 * 2)
    ref = scatter_reference(np.zeros((2, 196, 1000), np.float32), index, src, below(2000))
    np.testing.assert_array_equal(out, ref)
    # What the seed printed for the correct answer.
    np.testing.assert_array_equal(out[0].max(-1)[:10], np.arange(981, 991, dtype=np.float32))
    assert out.sum(dtype=np.float64) == 2001000.0


@pytest.mark.parametrize("kernel_fn", [kernel1, kernel2], ids=["kernel1", "kernel2"])
def test_seed_kernels_random_inputs(rng, kernel_fn):
    index, src = random_inputs(rng)
    out = run(kernel_fn, index, src, 2000, fill=np.nan)
    ref = scatter_reference(np.full((2, 196, 1000), np.nan, np.float32), index, src,
                            below(2000))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 2001, 17, 1])
def test_constant_differs_from_argument(rng, passed):
    # kernel2 masks with its constant 2000 whatever is passed.
    index, src = random_inputs(rng)
    out = run(kernel2, index, src, passed, fill=np.nan)
    ref = scatter_reference(np.full_like(out, np.nan), index, src, below(2000))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 1500])
def test_reassigned_in_loop(rng, passed):
    index, src = random_inputs(rng)
    out = run(kernel_reassigned_in_loop, index, src, passed, fill=np.nan)
    ref = scatter_reference(np.full_like(out, np.nan), index, src, below(1500))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 700])
def test_reassigned_per_program_in_branches(rng, passed):
    # Program 0 keeps elements below 700, program 1 (from 1024) those below 2000.
    index, src = random_inputs(rng)
    out = run(kernel_reassigned_per_program, index, src, passed, fill=np.nan)
    ref = scatter_reference(np.full_like(out, np.nan), index, src,
                            lambda flat: (flat < 700) | ((flat >= 1024) & (flat < 2000)))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("passed, limit", [(2048, 2000), (4096, 2000), (1000, 1000),
                                           (1024, 1024), (2000, 2000)])
def test_reassigned_in_branch_on_argument(rng, passed, limit):
    index, src = random_inputs(rng)
    out = run(kernel_reassigned_if_large, index, src, passed, fill=np.nan)
    ref = scatter_reference(np.full_like(out, np.nan), index, src, below(limit))
    np.testing.assert_array_equal(out, ref)


def test_signature_facts_stay_on_the_argument():
    index, src = seed_inputs()
    out = np.zeros((2, 196, 1000), np.float32)
    assert kernel2.signature(index, src, out, 2048, XBLOCK).endswith("i32:16, XBLOCK=1024")
    assert kernel2.signature(index, src, out, 1000, XBLOCK).endswith("i32, XBLOCK=1024")

"""Python-value corners of the kernel language (issue 10, items 8, 10, 11): chained
comparisons and boolean chains, float("inf"/"-inf"/"nan"), shape tuples compared with lists,
`>>` by the left operand's own signedness, constexpr defaults from module constants,
tl.assume, helpers reached through another module, early returns, and newer language."""

import math

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def in_range(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = 0 <= offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    inside = lo <= x < hi
    tl.static_assert(1 < 2 < 3 and not (1 < 3 < 2))
    tl.static_assert(True and 1 and 2 == 2)
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=mask)


def test_chained_comparisons(rng):
    x = rng.integers(-10, 10, size=50).astype(np.int32)
    out = np.full(50, -1, dtype=np.int32)
    in_range[(1,)](x, out, -3, 4, 50, BLOCK=64)
    np.testing.assert_array_equal(out, ((-3 <= x) & (x < 4)).astype(np.int32))


@tritium.jit
def bool_chain(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    r = (x > 0) and (x < 10) and (x != 5)
    tl.store(out_ptr + offs, r.to(tl.int32))


def test_boolean_chains_on_tensors(rng):
    x = rng.integers(-5, 15, size=64).astype(np.int32)
    out = np.zeros(64, dtype=np.int32)
    bool_chain[(1,)](x, out, BLOCK=64)
    np.testing.assert_array_equal(out, ((x > 0) & (x < 10) & (x != 5)).astype(np.int32))

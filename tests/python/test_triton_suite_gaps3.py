"""Gaps found by running more of Triton 3.6's test files (tests/triton_suite/RESULTS.md,
session 14), each pinned here in tritium's own words. Kernels run in the interpreter (numpy
arrays) or compile to text, so they need no GPU."""

import warnings

import numpy as np
import pytest

import tritium
import tritium.language as tl


# ---- tl.where with a non-boolean condition warns as Triton 3.6 does (a UserWarning) ----

@tritium.jit
def where_of_uint32(out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    cond = (i % 3).to(tl.uint32)
    tl.store(out_ptr + i, tl.where(cond, 1.0, 2.0))


@tritium.jit
def where_of_bool(out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.where(i % 3 != 0, 1.0, 2.0))


def test_where_with_a_non_boolean_condition_warns_and_converts():
    out = np.zeros(8, np.float32)
    with pytest.warns(UserWarning, match=r"tl.where with a non-boolean condition is deprecated and will "
                                         r"error out in a future triton release. Got uint32") as record:
        where_of_uint32[(1,)](out, 8)
    # The warning points at the kernel line of the call.
    assert any(w.filename.endswith("test_triton_suite_gaps3.py") for w in record)
    # Non-zero is true, as Triton converts the condition to int1.
    assert out.tolist() == [2.0 if k % 3 == 0 else 1.0 for k in range(8)]


def test_where_with_a_boolean_condition_does_not_warn():
    out = np.zeros(8, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        where_of_bool[(1,)](out, 8)
    assert out.tolist() == [2.0 if k % 3 == 0 else 1.0 for k in range(8)]


@tritium.jit
def where_of_float(out_ptr, x_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.where(tl.load(x_ptr + i), 5, 7))


def test_where_warning_names_the_float_dtype_and_an_error_filter_raises():
    out = np.zeros(4, np.int32)
    x = np.array([0.0, 0.5, -1.0, 0.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="Got fp32"):
            where_of_float[(1,)](out, x, 4)

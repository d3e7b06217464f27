"""Triton 3.6's type rules for values crossing a dynamic `if` and for reductions with indices
(issue 11, differential testing), through a launch (the interpreter here): a variable live
into the `if` keeps its type at the end of each branch (code_generator.py,
visit_then_else_blocks), while names new to one branch, retyping after the `if` and
compile-time conditions stay allowed; argmax/argmin need an axis the input has."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def retyped_in_both_branches(p, n):
    v = tl.program_id(0).to(tl.uint8)
    if n > 3:  # LINE: both
        v = v.to(tl.int32)
    else:
        v = (v + 1).to(tl.int32)
    tl.store(p, v)


def test_retyped_in_both_branches_is_located():
    line, text = marked_line(__file__, "both")
    with pytest.raises(tritium.CompilationError) as info:
        retyped_in_both_branches[(1,)](np.zeros(1, np.int32), 5)
    assert info.value.line == line and info.value.col == text.index("if") + 1
    assert "initial value for 'v' is of type u8, but the then block redefines it as i32" in info.value.message


@tritium.jit
def retyped_before_return(p, n):
    v = n.to(tl.uint8)
    if n > 0:  # LINE: returning
        v = v.to(tl.int32)
        tl.store(p, v)
        return
    tl.store(p, n)


def test_retyped_in_a_returning_branch_is_an_error():
    line, _ = marked_line(__file__, "returning")
    with pytest.raises(tritium.CompilationError) as info:
        retyped_before_return[(1,)](np.zeros(1, np.int32), 5)
    assert info.value.line == line
    assert "the then block redefines it as i32" in info.value.message


@tritium.jit
def allowed_branches(p, n, FLAG: tl.constexpr):
    v = n.to(tl.uint8)
    if n > 0:
        only_here = n.to(tl.int64)  # new in one branch, unused after: fine
        tl.store(p + 1, only_here.to(tl.int32))
    if FLAG:  # a compile-time condition lowers one branch only
        v = v.to(tl.int32)
    if n > 100:
        tl.store(p, 7)
        return
    v = v.to(tl.int16)  # retyped after an if whose branch returned: fine
    tl.store(p, v.to(tl.int32))


@pytest.mark.parametrize("n, expected", [(5, [5, 5]), (200, [7, 200])])
def test_allowed_retyping(n, expected):
    out = np.zeros(2, np.int32)
    allowed_branches[(1,)](out, n, FLAG=True)
    np.testing.assert_array_equal(out, expected)


@tritium.jit
def argmax_of(p, AXIS: tl.constexpr, SCALAR: tl.constexpr):
    x = tl.load(p + tl.arange(0, 8))
    if SCALAR:
        x = tl.max(x, 0)
    tl.store(p, tl.argmax(x, AXIS))  # LINE: argmax


@pytest.mark.parametrize("axis, scalar, message", [
    (0, True, "invalid axis 0. Expected 0 <= axis < 0"),
    (None, False, "tl.argmax needs an integer axis, got None"),
    (1, False, "invalid axis 1. Expected -1 <= axis < 1"),
])
def test_argmax_needs_an_axis_of_the_input(axis, scalar, message):
    line, _ = marked_line(__file__, "argmax")
    with pytest.raises(tritium.CompilationError) as info:
        argmax_of[(1,)](np.zeros(8, np.int32), AXIS=axis, SCALAR=scalar)
    assert info.value.line == line
    assert message in info.value.message


def test_argmax_along_the_last_axis_runs():
    x = np.array([3, 9, 1, 9, 0, 2, 8, 4], np.int32)
    argmax_of[(1,)](x, AXIS=-1, SCALAR=False)
    assert x[0] == 1

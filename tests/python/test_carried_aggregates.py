"""Tuples (and other values made of several tensors) reassigned inside loops and branches:
lowering carries their tensor leaves as loop-carried values and `if` results and rebuilds
the tuple after; their compile-time leaves must not change (a located error if they do)."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def fib_pair(out_ptr, n):
    pair = (tl.zeros([4], tl.int32), tl.full([4], 1, tl.int32))
    for i in range(n):
        pair = (pair[1], pair[0] + pair[1])
    a, b = pair
    offs = tl.arange(0, 4)
    tl.store(out_ptr + offs, a)
    tl.store(out_ptr + 4 + offs, b)


def test_tuple_reassigned_in_for_loop():
    out = np.zeros(8, np.int32)
    fib_pair[(1,)](out, 10)
    np.testing.assert_array_equal(out, [55] * 4 + [89] * 4)


@tritium.jit
def running_min_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    zero = 0  # a runtime i32 (a bare 0 in a tuple would be a compile-time constant)
    stats = (tl.full([BLOCK], 1e30, tl.float32), tl.full([BLOCK], -1e30, tl.float32), zero)
    i = 0
    while i < n:
        v = tl.load(x_ptr + i * BLOCK + offs)
        lo, hi, count = stats
        stats = (tl.minimum(lo, v), tl.maximum(hi, v), count + 1)
        i += 1
    tl.store(out_ptr + offs, stats[0])
    tl.store(out_ptr + BLOCK + offs, stats[1])
    tl.store(out_ptr + 2 * BLOCK + offs, stats[2].to(tl.float32))


def test_tuple_reassigned_in_while_loop(rng):
    rows, block = 7, 16
    x = rng.standard_normal((rows, block)).astype(np.float32)
    out = np.zeros(3 * block, np.float32)
    running_min_max[(1,)](x, out, rows, BLOCK=block)
    np.testing.assert_array_equal(out[:block], x.min(axis=0))
    np.testing.assert_array_equal(out[block:2 * block], x.max(axis=0))
    np.testing.assert_array_equal(out[2 * block:], np.full(block, rows, np.float32))


@tritium.jit
def swap_if(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    t = (tl.load(x_ptr + offs), tl.load(x_ptr + BLOCK + offs) * 2, "tag")
    if flag > 0:
        t = (t[1], t[0], "tag")
    else:
        t = (t[0] + 1, t[1], "tag")
    tl.store(out_ptr + offs, t[0])
    tl.store(out_ptr + BLOCK + offs, t[1])


@pytest.mark.parametrize("flag", [0, 3])
def test_tuple_merged_after_dynamic_if(rng, flag):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    swap_if[(1,)](x, out, flag, BLOCK=16)
    a, b = x[:16], x[16:] * 2
    expected = np.concatenate([b, a]) if flag > 0 else np.concatenate([a + 1, b])
    np.testing.assert_array_equal(out, expected)


@tritium.jit
def nested_tuples(out_ptr, n, m):
    zero = 0
    acc = ((tl.zeros([2], tl.int32), zero), tl.zeros([2], tl.int32))
    for i in range(n):
        for j in range(m):
            inner, outer = acc
            if j % 2 == 0:
                inner = (inner[0] + 1, inner[1] + j)
            acc = (inner, outer + i)
    tl.store(out_ptr + tl.arange(0, 2), acc[0][0])
    tl.store(out_ptr + 2 + tl.arange(0, 2), acc[1])
    tl.store(out_ptr + 4, acc[0][1])


def test_nested_tuples_in_nested_loops_and_branches():
    n, m = 3, 5
    out = np.zeros(5, np.int32)
    nested_tuples[(1,)](out, n, m)
    evens = [j for j in range(m) if j % 2 == 0]
    assert list(out[:2]) == [n * len(evens)] * 2
    assert list(out[2:4]) == [m * sum(range(n))] * 2
    assert out[4] == n * sum(evens)


@tritium.jit
def unchanged_leaf(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # `t[1]` is never reassigned: the loop does not carry it.
    offs = tl.arange(0, BLOCK)
    t = (tl.zeros([BLOCK], tl.float32), tl.load(x_ptr + offs))
    for i in range(n):
        t = (t[0] + t[1], t[1])
    tl.store(out_ptr + offs, t[0])


def test_loop_invariant_leaf(rng):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.zeros(8, np.float32)
    unchanged_leaf[(1,)](x, out, 4, BLOCK=8)
    expected = np.zeros(8, np.float32)
    for _ in range(4):
        expected = expected + x
    np.testing.assert_array_equal(out, expected)


@tritium.jit
def constant_leaf_changes(out_ptr, n):
    t = (tl.zeros([2], tl.int32), 1)
    for i in range(n):  # LINE: const_change
        t = (t[0] + 1, 2)
    tl.store(out_ptr + tl.arange(0, 2), t[0])


def test_constant_leaf_change_in_loop_is_located():
    line, text = marked_line(__file__, "const_change")
    with pytest.raises(tritium.CompilationError) as info:
        constant_leaf_changes[(1,)](np.zeros(2, np.int32), 3)
    assert info.value.line == line
    assert "'t'" in info.value.message
    assert "is the integer constant 1 before the loop and the integer constant 2 after an iteration (at [1])" in info.value.message


@tritium.jit
def leaf_type_changes(x_ptr, n):
    t = (tl.zeros([2], tl.int32), tl.zeros([2], tl.int32))
    for i in range(n):  # LINE: type_change
        t = (t[0], t[1].to(tl.float32))
    tl.store(x_ptr + tl.arange(0, 2), t[1])


def test_leaf_type_change_in_loop_is_located():
    line, _ = marked_line(__file__, "type_change")
    with pytest.raises(tritium.CompilationError) as info:
        leaf_type_changes[(1,)](np.zeros(2, np.float32), 3)
    assert info.value.line == line
    assert "has type block<2xi32> before the loop and block<2xfp32> after an iteration (at [1])" in info.value.message


@tritium.jit
def tuple_length_changes(x_ptr, n):
    t = (tl.zeros([2], tl.int32),)
    for i in range(n):  # LINE: length_change
        t = t + (tl.zeros([2], tl.int32),)
    tl.store(x_ptr + tl.arange(0, 2), t[0])


def test_tuple_length_change_in_loop_is_located():
    line, _ = marked_line(__file__, "length_change")
    with pytest.raises(tritium.CompilationError) as info:
        tuple_length_changes[(1,)](np.zeros(2, np.int32), 3)
    assert info.value.line == line
    assert "is (block<2xi32>,) before the loop and (block<2xi32>, block<2xi32>) after an iteration" in info.value.message


@tritium.jit
def branch_constants_differ(x_ptr, flag):
    t = (tl.zeros([2], tl.int32), 1)
    if flag > 0:  # LINE: branch_const
        t = (t[0] + 1, 2)
    tl.store(x_ptr + tl.arange(0, 2), t[0])


def test_constant_leaf_differing_between_branches_is_located():
    line, _ = marked_line(__file__, "branch_const")
    with pytest.raises(tritium.CompilationError) as info:
        branch_constants_differ[(1,)](np.zeros(2, np.int32), 1)
    assert info.value.line == line
    assert "cannot differ between runtime branches" in info.value.message


@tritium.jit
def constant_name_in_loop(out_ptr, n, MODE: tl.constexpr):
    mode = MODE
    acc = 0
    for i in range(n):  # LINE: mode_change
        if mode == "add":
            acc += i
        else:
            acc *= 2
        mode = "add"
    tl.store(out_ptr, acc)


def test_constant_name_reassigned_to_the_same_value_in_a_loop():
    out = np.zeros(1, np.int32)
    constant_name_in_loop[(1,)](out, 5, MODE="add")
    assert out[0] == sum(range(5))


def test_constant_name_changing_in_a_loop_is_located():
    line, _ = marked_line(__file__, "mode_change")
    with pytest.raises(tritium.CompilationError) as info:
        constant_name_in_loop[(1,)](np.zeros(1, np.int32), 5, MODE="mul")
    assert info.value.line == line
    assert ("loop-carried variable 'mode' is the string 'mul' before the loop and the string 'add' after an "
            "iteration; a value known at compile time cannot change in a loop") in info.value.message


@tritium.jit
def split_pair_in_loop(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The tuple tl.split returns is carried through the loop (review risk 4).
    offs = tl.arange(0, BLOCK)
    pair = tl.split(tl.join(tl.load(x_ptr + offs), tl.load(x_ptr + BLOCK + offs)))
    for i in range(n):
        a, b = pair
        pair = tl.split(tl.join(b, a + b))
    tl.store(out_ptr + offs, pair[0])
    tl.store(out_ptr + BLOCK + offs, pair[1])


def test_split_result_carried_through_loop(rng):
    x = rng.integers(-5, 5, 16).astype(np.int32)
    out = np.zeros(16, np.int32)
    split_pair_in_loop[(1,)](x, out, 6, BLOCK=8)
    a, b = x[:8].copy(), x[8:].copy()
    for _ in range(6):
        a, b = b, a + b
    np.testing.assert_array_equal(out, np.concatenate([a, b]))

"""Tuple kernel arguments on the GPU: the launcher flattens a tuple of torch tensors, ints,
floats and constexprs into the entry's leaves (pointers placed as any pointer argument is),
and the kernels of tests/python/test_tuple_args.py compute the same results as there."""

import pytest

torch = pytest.importorskip("torch")

import test_tuple_args as tup  # noqa: E402  (tests/python)


def test_tuple_of_tensors():
    x = torch.randn(1000, device="cuda")
    y = torch.randn(1000, device="cuda")
    out = torch.zeros_like(x)
    tup.add_pair[(16,)]((x, y, out), 1000, BLOCK=64)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_scalar_elements_specialize_one_by_one():
    a, b, c = (torch.randn(32, device="cuda") for _ in range(3))
    out = torch.zeros(32, device="cuda")
    tup.weighted_sum[(1,)]((a, b, c), (2.0, 3, 1), out, BLOCK=32)
    torch.testing.assert_close(out, a * 2 + b * 3 + c)
    tup.weighted_sum[(1,)]((a, b), (0.5, 16), out, BLOCK=32)
    torch.testing.assert_close(out, a * 0.5 + b * 16)


def test_nested_tuple_with_constexpr_element():
    x = torch.randn(64, device="cuda")
    out = torch.zeros_like(x)
    tl = tup.tl
    tup.nested_and_constexpr[(1,)](((x, (50, tl.constexpr(3))), tl.constexpr(64)), out)
    torch.testing.assert_close(out[:50], x[:50] * 3)
    assert not out[50:].any()


def test_scalars_between_pointers_keep_their_places():
    # Pointer, int, pointer in one tuple: the leaves' order and alignment in the parameter
    # buffer must match the entry's.
    ints = torch.zeros(1, dtype=torch.int32, device="cuda")
    tup.unrolled_sum[(1,)]((5, 7, 30), ints)
    assert ints.item() == 42
    src = torch.arange(8, dtype=torch.float32, device="cuda")
    out = torch.zeros(8, device="cuda")
    tup.copy_first_to_second[(1,)]((src, out), BLOCK=8)
    torch.testing.assert_close(out, src)

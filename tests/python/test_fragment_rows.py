"""Row reductions on a dot's result in the interpreter (the reference the GPU suite compares
against, tests/gpu/test_gpu_fragment_rows.py): max, min and sum along axis 1, keep_dims, rows
of -inf and NaN, the reduction broadcast back onto the dot, and a row softmax."""

import numpy as np
import pytest

import fragment_rows_kernels as fk


@pytest.mark.parametrize("op", ["max", "min", "sum"])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("special", [False, True])
def test_row_reduce_of_a_dot(rng, op, keep, special):
    m, n, k = 32, 16, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    out = np.full((m, n), 7.0, np.float32)
    rows = np.full((m, 1) if keep else (m,), 7.0, np.float32)
    fk.dot_row_reduce[(1,)](a, b, out, rows, M=m, N=n, K=k, OP=op, KEEP=keep, SPECIAL=special)
    want_rows, want_out = fk.reference(a, b, op, special)
    np.testing.assert_allclose(rows.reshape(m), want_rows, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out, want_out, rtol=1e-5, atol=1e-4)
    if special:
        assert np.isneginf(rows.reshape(m)[3])  # a row of -inf
        assert np.isnan(out[3]).all()  # -inf - -inf
        # A NaN in row 2: max and min skip it (maxnum), the sum is NaN.
        assert np.isnan(rows.reshape(m)[2]) == (op == "sum")


def test_softmax_rows_of_a_dot(rng):
    m, n, k = 16, 32, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    out = np.zeros((m, n), np.float32)
    fk.softmax_rows[(1,)](a, b, out, M=m, N=n, K=k)
    s = a.astype(np.float64) @ b.astype(np.float64)
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(out, p / p.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_chained_dots(rng, dtype):
    m, n, k, d = 32, 32, 16, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    dm = rng.standard_normal((n, d)).astype(dtype)
    out = np.zeros((m, d), np.float32)
    fk.chained_dots[(1,)](a, b, dm, out, M=m, N=n, K=k, D=d, PREC="ieee")
    c = (a.astype(np.float64) @ b.astype(np.float64) * 0.25).astype(dtype).astype(np.float64)
    # The kernel rounds its fp32 sums to fp16, the reference the exact ones: an element near a
    # rounding boundary may land one fp16 ulp (about 1e-3 at 1) away, and the second dot adds
    # such flips up (1e-3 failed for seed 1142607479: 0.0012).
    tol = 1e-2 if dtype == "float16" else 1e-3
    np.testing.assert_allclose(out, c @ dm.astype(np.float64), rtol=tol, atol=tol)


def test_softmax_dot(rng):
    m, n, k, d = 32, 32, 16, 16
    a, b, v = (rng.standard_normal(s).astype(np.float16) for s in ((m, k), (k, n), (n, d)))
    out = np.zeros((m, d), np.float32)
    fk.softmax_dot[(1,)](a, b, v, out, M=m, N=n, K=k, D=d)
    # P is rounded to fp16 before the second dot.
    np.testing.assert_allclose(out, fk.softmax_dot_reference(a, b, v), rtol=1e-2, atol=2e-3)

"""Row reductions of a dot's result on the GPU, where they run on the tensor-core fragments
(fragment rows: in-thread, shfl.bfly within quads, shared memory across warps along n only):
tl.max / tl.min / tl.sum along axis 1, keep_dims, rows of -inf and NaN, the reduction
broadcast back onto the fragments, and a row softmax; M = 16 .. 128 in 4 and 8 warps, which
on the H200 covers wgmma's warpgroup layout (M a multiple of 16 * num_warps) and the mma.sync
grids with several warps along n. Each result against tritium's interpreter on the same
inputs (tests/python/test_fragment_rows.py checks the interpreter against numpy) and against
float64 numpy.

  python3 -m pytest -q tests/gpu/test_gpu_fragment_rows.py       (on the GPU machine)
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fragment_rows_kernels as fk  # noqa: E402  (tests/python, on sys.path through conftest.py)


def close(got, want, k):
    # fp16 products accumulated in fp32 in a different order: ~1e-3 of sqrt(K) scale.
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * k ** 0.5)


@pytest.mark.parametrize("m", [16, 32, 64, 128])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("op", ["max", "min", "sum"])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("special", [False, True])
def test_row_reduce_of_a_dot_matches_the_interpreter(rng, m, warps, op, keep, special):
    n, k = 64, 32
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    rows_shape = (m, 1) if keep else (m,)
    kwargs = dict(M=m, N=n, K=k, OP=op, KEEP=keep, SPECIAL=special)
    # The interpreter on host arrays.
    out_ref = np.full((m, n), 7.0, np.float32)
    rows_ref = np.full(rows_shape, 7.0, np.float32)
    fk.dot_row_reduce[(1,)](a, b, out_ref, rows_ref, **kwargs)
    # The GPU.
    out = torch.full((m, n), 7.0, device="cuda")
    rows = torch.full(rows_shape, 7.0, device="cuda")
    fk.dot_row_reduce[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out, rows, **kwargs,
                            num_warps=warps)
    torch.cuda.synchronize()
    got_rows, got_out = rows.cpu().numpy().reshape(m), out.cpu().numpy()
    close(got_rows, rows_ref.reshape(m), k)
    close(got_out, out_ref, k)
    want_rows, want_out = fk.reference(a, b, op, special)
    close(got_rows, want_rows, k)
    close(got_out, want_out, k)
    # NaN and -inf where the reference has them (assert_allclose already pairs NaNs).
    assert np.array_equal(np.isnan(got_rows), np.isnan(want_rows))
    assert np.array_equal(np.isneginf(got_rows), np.isneginf(want_rows))


@pytest.mark.parametrize("m,n", [(16, 64), (64, 64), (128, 128)])
@pytest.mark.parametrize("warps", [4, 8])
def test_softmax_rows_of_a_dot(rng, m, n, warps):
    k = 32
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    out = torch.zeros((m, n), device="cuda")
    fk.softmax_rows[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out, M=m, N=n, K=k,
                          num_warps=warps)
    torch.cuda.synchronize()
    s = a.astype(np.float64) @ b.astype(np.float64)
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(out.cpu().numpy(), p / p.sum(1, keepdims=True), rtol=2e-3, atol=1e-6)


@pytest.mark.parametrize("m,n,k,d", [(16, 16, 16, 16), (64, 64, 32, 64), (128, 64, 32, 64)])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("dtype,prec,tol", [("float16", "ieee", 1e-2), ("bfloat16", "ieee", 2e-2),
                                            ("float32", "tf32", 1e-2), ("float32", "ieee", 1e-4)])
def test_chained_dots_stage_a_from_fragments(gen, m, n, k, d, warps, dtype, prec, tol):
    a = torch.randn((m, k), device="cuda", generator=gen).half()
    b = torch.randn((k, n), device="cuda", generator=gen).half()
    dm = torch.randn((n, d), device="cuda", generator=gen).to(getattr(torch, dtype))
    out = torch.full((m, d), 7.0, device="cuda")
    fk.chained_dots[(1,)](a, b, dm, out, M=m, N=n, K=k, D=d, PREC=prec, num_warps=warps)
    torch.cuda.synchronize()
    c = (a.double() @ b.double() * 0.25).to(getattr(torch, dtype)).double()
    want = c @ dm.double()
    torch.testing.assert_close(out.double(), want, rtol=tol, atol=tol * n ** 0.5)


@pytest.mark.parametrize("m,warps", [(16, 1), (32, 2), (64, 4), (128, 4), (128, 8), (32, 4), (64, 8)])
@pytest.mark.parametrize("n,d", [(64, 64), (32, 128)])
def test_softmax_dot_reads_p_from_registers(rng, m, warps, n, d):
    """1 and 2 warps: mma.sync with A from registers (rows split first: 1 x 1, 2 x 1 warps);
    64 / 128 rows in 4 or 8 warps: wgmma with A from registers; 32 rows in 4 warps and 64 in
    8: warps along n, P staged from its fragments."""
    k = 32
    a, b, v = (rng.standard_normal(s).astype(np.float16) for s in ((m, k), (k, n), (n, d)))
    out = torch.full((m, d), 7.0, device="cuda")
    fk.softmax_dot[(1,)](*(torch.from_numpy(x).cuda() for x in (a, b, v)), out, M=m, N=n, K=k, D=d,
                         num_warps=warps)
    torch.cuda.synchronize()
    ref = np.zeros((m, d), np.float32)
    fk.softmax_dot[(1,)](a, b, v, ref, M=m, N=n, K=k, D=d)  # the interpreter
    got = out.cpu().numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-2, atol=2e-3)
    np.testing.assert_allclose(got, fk.softmax_dot_reference(a, b, v), rtol=1e-2, atol=4e-3)

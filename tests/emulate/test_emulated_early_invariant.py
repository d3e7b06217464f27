"""A loop-invariant block read in fragments (FragmentPlan::invariant_copy) whose fragment copy
is made before the pipeline's prologue copies, its round trip through shared memory reusing
the stage buffers' bytes (Emitter::emission_order, experiment "earlyinv", the default;
"noearlyinv": made where the IR defines it, after the prologue, in bytes of its own above the
stage buffers). mamba's `_chunk_state_bwd_db_kernel` is the shape: `b` loaded once as bf16,
widened to f32 (the cast sunk to the loop), multiplied into each head's dot result for a row
sum, the dots' operands copied by cp.async through 2 or 3 stages.

Run on the emulated GPU (emulated_gpu.py) against numpy, exactly (small integers), with the
copies landing where the GPU may land them last (at their wait) and first (at issue: a copy
into bytes that a round trip still reads, or a round trip writing bytes a copy already filled,
then shows). Checked: the shared memory (`!tritium.shared_bytes`) falls to the stage buffers'
under the default, and the round trip's stores come before the first cp.async in the PTX.
Fails when the round trip's ending barrier is left out (other threads' copies land in bytes a
thread still reads) or when the copies start before the round trip in the same bytes.
"""

import os
import re
import sys
import textwrap

import numpy as np
import pytest

os.environ.setdefault("TRITIUM_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import emulated_gpu as eg  # noqa: E402

pytestmark = pytest.mark.skipif(not eg.available(), reason="needs llc (LLVM) and a C compiler")

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def db_like(x_ptr, d_ptr, b_ptr, out_ptr, rows_ptr, nheads, M, N, K, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr):
        # mamba's dB: acc = sum over heads of x_h @ d_h; each head's row sums of (x_h @ d_h) * b
        # with b loaded once, widened to f32 (rows past M masked to zero).
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BM + tl.arange(0, BM)
        offs_n = pid_n * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        x_ptrs = x_ptr + offs_m[:, None] * K + offs_k[None, :]
        d_ptrs = d_ptr + offs_k[:, None] * N + offs_n[None, :]
        b = tl.load(b_ptr + offs_m[:, None] * N + offs_n[None, :], mask=offs_m[:, None] < M, other=0.0).to(tl.float32)
        rows_ptrs = rows_ptr + pid_n * nheads * M + offs_m
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for h in range(nheads):
            x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
            d = tl.load(d_ptrs)
            db = tl.dot(x, d)
            tl.store(rows_ptrs, tl.sum(db * b, axis=1), mask=offs_m < M)
            acc += db
            x_ptrs += M * K
            d_ptrs += K * N
            rows_ptrs += M
        tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=offs_m[:, None] < M)
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("early_invariant_kernels")
    (folder / "early_invariant_kernels.py").write_text(KERNELS)
    sys.path.insert(0, str(folder))
    import early_invariant_kernels
    yield early_invariant_kernels
    sys.path.remove(str(folder))


def run_db(kernels, monkeypatch, *, sm, warps, stages, BM, BN, BK, heads, M, experiment, defer):
    """The kernel on the emulated GPU, checked exactly against numpy; its LLVM IR and PTX."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    monkeypatch.setattr(eg, "DEFER_COPIES", defer)
    N = 2 * BN
    rng = np.random.default_rng(BM + BN + BK + warps + stages + heads + M)
    x = rng.integers(-3, 4, (heads, M, BK))
    d = rng.integers(-3, 4, (heads, BK, N))
    b = rng.integers(-3, 4, (M, N))
    out = np.full((M, N), -7, dtype=np.float32)
    rows = np.full((N // BN, heads, M), -7, dtype=np.float32)
    db = np.einsum("hmk,hkn->hmn", x, d)
    ref_out = db.sum(axis=0)
    ref_rows = np.stack([(db[:, :, j * BN:(j + 1) * BN] * b[None, :, j * BN:(j + 1) * BN]).sum(axis=2)
                         for j in range(N // BN)])
    grid = ((M + BM - 1) // BM, N // BN)
    handle = eg.run(kernels.db_like, grid, x.astype(np.float16), d.astype(np.float16), b.astype(np.float16), out, rows,
                    heads, M, N, BK, BM=BM, BN=BN, BK=BK, sm=sm, num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(out, ref_out.astype(np.float32))
    np.testing.assert_array_equal(rows, ref_rows.astype(np.float32))
    return eg.emit_llvm(handle, sm), eg.emit_llvm(handle, sm, "ptx")


def stage_bytes(BM, BN, BK, stages):
    """The stage buffers of x (BM x BK) and d (BK x BN), fp16."""
    return stages * (BM * BK + BK * BN) * 2


# dB's pick (64 x 128 x 64 at 4 warps, 3 stages) on wgmma; a smaller one on mma.sync.
CONFIGS = [
    dict(sm=90, warps=4, stages=3, BM=64, BN=128, BK=64, heads=3, M=60),
    dict(sm=80, warps=4, stages=2, BM=64, BN=64, BK=32, heads=3, M=64),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"sm{c['sm']}_{c['BM']}x{c['BN']}x{c['BK']}s{c['stages']}")
@pytest.mark.parametrize("defer", [True, False], ids=["copies_at_wait", "copies_at_issue"])
def test_early_invariant_copy(kernels, monkeypatch, cfg, defer):
    ll, ptx = run_db(kernels, monkeypatch, experiment="", defer=defer, **cfg)
    stages = stage_bytes(cfg["BM"], cfg["BN"], cfg["BK"], cfg["stages"])
    # The round trip of b (BM x BN f32) lies in the stage buffers: what is left above them is
    # the row sums' exchange (at most a KiB), not b's rows.
    shared = eg.shared_bytes(ll)
    assert stages <= shared < stages + cfg["BM"] * cfg["BN"] * 4 // 4, shared
    first_copy = ptx.index("cp.async")
    assert re.search(r"st\.shared\.v\d", ptx[:first_copy]), "b's round trip is not made before the prologue"


@pytest.mark.parametrize("cfg", CONFIGS[:1], ids=lambda c: f"sm{c['sm']}_{c['BM']}x{c['BN']}x{c['BK']}s{c['stages']}")
def test_without_early_invariant_copy(kernels, monkeypatch, cfg):
    # As before: b's round trip after the prologue, in bytes above the stage buffers.
    ll, ptx = run_db(kernels, monkeypatch, experiment="noearlyinv", defer=False, **cfg)
    stages = stage_bytes(cfg["BM"], cfg["BN"], cfg["BK"], cfg["stages"])
    assert eg.shared_bytes(ll) >= stages + cfg["BM"] * cfg["BN"] * 4
    first_copy = ptx.index("cp.async")
    assert not re.search(r"st\.shared\.v\d", ptx[:first_copy])

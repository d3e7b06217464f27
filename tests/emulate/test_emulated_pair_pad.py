"""fp32 dot results on their way between the fragments and the flat layout (an epilogue's
store: mamba's `_bmm_chunk_fwd_kernel`; a loaded accumulator going into the fragments) run
on the emulated GPU (emulated_gpu.py) against numpy, and the padding of the buffer they go
through.

The round trip writes each thread's column pairs (8 bytes of fp32) into rows padded after
their last element and reads the rows back in the flat layout. Shared memory checks 8-byte
accesses for bank conflicts by half-warps, four rows of four lanes: rows 16 bytes apart in
banks (`n + 4` words a row) put two of them in the same banks, two wavefronts a store where
one does; Emitter::round_trip_stride pads 32 bytes (`n + 8` words) where that costs fewer
wavefronts on both sides (experiment "pairpad", the default; "nopairpad": 16 bytes, as
before session 39). Results are exact (small integers: exact fp32 sums) for wgmma (sm_90) and
mma.sync (sm_80), the block shapes of mamba's autotuner at 4 warps, masked rows and K tails;
the stride is checked in the PTX (the store of the fragments' rows 8 below).
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
    def bmm_chunk(a_ptr, b_ptr, out_ptr, chunk_size, limit, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, LOADED: tl.constexpr):
        # One chunk's A @ B^T (chunk_size x chunk_size, fp32 out) as mamba's _bmm_chunk_fwd_kernel:
        # rows past `limit` masked to zero, a K tail masked. LOADED: the accumulator starts from
        # the output block as loaded (flat into the fragments).
        num_pid_n = tl.cdiv(chunk_size, BN)
        pid_m = tl.program_id(0) // num_pid_n
        pid_n = tl.program_id(0) % num_pid_n
        offs_m = pid_m * BM + tl.arange(0, BM)
        offs_n = pid_n * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] + offs_n[None, :] * K
        out_ptrs = out_ptr + offs_m[:, None] * chunk_size + offs_n[None, :]
        out_mask = (offs_m[:, None] < chunk_size) & (offs_n[None, :] < chunk_size)
        if LOADED:
            acc = tl.load(out_ptrs, mask=out_mask, other=0.0)
        else:
            acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < limit) & (offs_k[None, :] < K - k * BK), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK) & (offs_n[None, :] < limit), other=0.0)
            acc += tl.dot(a, b)
            a_ptrs += BK
            b_ptrs += BK
        tl.store(out_ptrs, acc, mask=out_mask)
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pair_pad_kernels")
    (folder / "pair_pad_kernels.py").write_text(KERNELS)
    sys.path.insert(0, str(folder))
    import pair_pad_kernels
    yield pair_pad_kernels
    sys.path.remove(str(folder))


def run_bmm(kernels, monkeypatch, *, sm, warps, stages, BM, BN, BK, K, chunk, limit, loaded=False, experiment=""):
    """The chunk's product on the emulated GPU, checked exactly against numpy; its PTX."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(BM * 7 + BN * 3 + K + warps + stages + chunk + limit)
    a = rng.integers(-4, 5, (chunk, K))
    b = rng.integers(-4, 5, (chunk, K))
    out0 = rng.integers(-50, 50, (chunk, chunk)).astype(np.float32)
    out = out0.copy() if loaded else np.full((chunk, chunk), -7, dtype=np.float32)
    am, bm = a.copy(), b.copy()
    am[limit:] = 0
    bm[limit:] = 0
    ref = am.astype(np.int64) @ bm.astype(np.int64).T + (out0.astype(np.int64) if loaded else 0)
    programs = ((chunk + BM - 1) // BM * ((chunk + BN - 1) // BN),)
    handle = eg.run(kernels.bmm_chunk, programs, a.astype(np.float16), b.astype(np.float16), out, chunk, limit, K, BM=BM,
                    BN=BN, BK=BK, LOADED=loaded, sm=sm, num_warps=warps, num_stages=stages)
    np.testing.assert_array_equal(out, ref.astype(np.float32))
    return eg.emit_llvm(handle, sm, "ptx")


def row8_offsets(ptx):
    """The immediate byte offsets of the 8-byte shared stores (the fragments' column pairs)."""
    return {int(m) for m in re.findall(r"st\.shared\.v2\.b32\s+\[%r[d]?\d+\+(\d+)\]", ptx)}


# (BM, BN, BK, stages): mamba's 4-warp configs (64x128x32 tritium's pick, 128x128x32 Triton's).
CONFIGS = [(128, 128, 32, 4), (64, 128, 32, 4), (128, 64, 32, 4), (64, 64, 32, 2)]


@pytest.mark.parametrize("BM,BN,BK,stages", CONFIGS)
@pytest.mark.parametrize("sm", [90, 80])
def test_fp32_epilogue_rows_padded_by_32_bytes(kernels, monkeypatch, sm, BM, BN, BK, stages):
    """Right with either padding (K of 4 trips and a masked tail of 3, rows past the limit);
    the default's rows 8 below are (BN + 8) * 4 * 8 bytes on, nopairpad's (BN + 4) * 4 * 8."""
    chunk = 2 * max(BM, BN)
    for experiment, pad in (("", 8), ("nopairpad", 4)):
        for K, limit in ((128, chunk), (72, chunk - 40)):
            ptx = run_bmm(kernels, monkeypatch, sm=sm, warps=4, stages=stages, BM=BM, BN=BN, BK=BK, K=K, chunk=chunk,
                          limit=limit, experiment=experiment)
            # Past the columns of the thread's first row, the first store is 8 rows below it.
            below = min(o for o in row8_offsets(ptx) if o >= BN * 4)
            assert below == (BN + pad) * 4 * 8, (experiment, below)


@pytest.mark.parametrize("sm,stages", [(90, 3), (80, 2)])
def test_loaded_fp32_accumulator_through_the_padded_rows(kernels, monkeypatch, sm, stages):
    """An accumulator loaded flat goes into the fragments through the same rows (read as
    column pairs), then out again for the store: right with either padding."""
    for experiment in ("", "nopairpad"):
        run_bmm(kernels, monkeypatch, sm=sm, warps=4, stages=stages, BM=64, BN=128, BK=32, K=72, chunk=128, limit=100,
                loaded=True, experiment=experiment)

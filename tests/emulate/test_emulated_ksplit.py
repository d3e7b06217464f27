"""Thread-block clusters on the emulated GPU (emulated_gpu.py: a cluster's 2, 4 or 8 CTAs run at
once, each with its own shared memory; %cluster_ctarank, mapa, ld.shared::cluster and the
cluster barrier), and the K loop of a matmul split over a cluster of 2, 4 or 8
(gpu/split_k_cluster.h, TRITIUM_REDUCE_EXPERIMENT=ksplit, TRITIUM_KSPLIT=4|8): each rank runs
its share of the K iterations, ranks > 0 from a zero accumulator, and the accumulators are
summed into rank 0's by a tree through distributed shared memory, in chunks. Results must
equal numpy's exactly (small integers: exact fp32 and int32 sums) for even, odd and uneven
trip counts (ranks with fewer iterations, or none), masked K tails, one trip and none, and a
user-initialised accumulator; kernels the analysis rejects (a store in the loop, an
accumulator scaled each iteration) are left alone and say why (TRITIUM_KSPLIT_DEBUG=1)."""

import os
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
    def tutorial_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                        stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr, INIT: tl.constexpr):
        # Triton's tutorial matmul (benchmarks/kernels_matmul.py), accumulating in C's type;
        # INIT: the accumulator starts from C's values instead of zeros.
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        if INIT:
            accumulator = tl.load(c_ptrs, mask=c_mask, other=0)
        else:
            accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0)
            accumulator = tl.dot(a, b, accumulator, out_dtype=c_ptr.dtype.element_ty)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptrs, accumulator, mask=c_mask)


    @tritium.jit
    def matmul_store_in_loop(a_ptr, b_ptr, c_ptr, p_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
            acc = tl.dot(a, b, acc)
            tl.store(p_ptr + k0 // BK, tl.sum(tl.sum(acc, 1), 0))
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def matmul_scaled_acc(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
            acc = tl.dot(a, b, acc * 0.5)
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


    @tritium.jit
    def matmul_steps_used_after(a_ptr, b_ptr, c_ptr, t_ptr, n_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                                BK: tl.constexpr):
        # The K offset and A's pointers, moved each iteration, used after the loop: A's block
        # just past K (A is K + BK wide) and the offset reached.
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a_ptr + rm[:, None] * (K + BK) + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        offset = 0
        for k0 in range(0, K, BK):
            acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
            a_ptrs += BK
            b_ptrs += BK * BN
            offset += BK
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
        tl.store(t_ptr + rm[:, None] * BK + rk[None, :], tl.load(a_ptrs))
        tl.store(n_ptr, offset)


    @tritium.jit
    def axpy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n)
        tl.store(y_ptr + i, 2.0 * x + 1.0, mask=i < n)
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ksplit_kernels")
    (folder / "ksplit_kernels.py").write_text(KERNELS)
    sys.path.insert(0, str(folder))
    import ksplit_kernels
    yield ksplit_kernels
    sys.path.remove(str(folder))


def test_num_ctas_two_runs_its_programs_on_the_first_cta(kernels):
    """num_ctas=2: each program a cluster whose first CTA works (emitter.cpp); both CTAs run,
    each with its own shared memory, and the results are num_ctas=1's."""
    rng = np.random.default_rng(1)
    n = 300
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, dtype=np.float32)
    handle = eg.run(kernels.axpy, (3,), x, y, n, BLOCK=128, num_ctas=2)
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)
    assert eg.cluster_size(eg.emit_llvm(handle, 90)) == 2


def _matmul(kernels, monkeypatch, M, N, K, dtype, acc, init, warps, stages, BM=64, BN=64, BK=32, split=True, size=None,
            experiments=""):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", ("ksplit" if split else "noksplit") + experiments)
    if size is None:
        monkeypatch.delenv("TRITIUM_KSPLIT", raising=False)
    else:
        monkeypatch.setenv("TRITIUM_KSPLIT", str(size))
    rng = np.random.default_rng(M * 7 + K)
    a = rng.integers(-4, 5, (M, K)).astype(dtype)
    b = rng.integers(-4, 5, (K, N)).astype(dtype)
    out = np.int32 if acc == "int32" else np.float32
    c0 = rng.integers(-50, 50, (M, N)).astype(out) if init else np.full((M, N), 7, dtype=out)
    c = c0.copy()
    grid = (((M + BM - 1) // BM) * ((N + BN - 1) // BN),)
    handle = eg.run(kernels.tutorial_matmul, grid, a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=BM, BLOCK_N=BN,
                    BLOCK_K=BK, GROUP_M=8, INIT=init, num_warps=warps, num_stages=stages)
    ref = a.astype(np.int64) @ b.astype(np.int64) + (c0.astype(np.int64) if init else 0)
    np.testing.assert_array_equal(c, ref.astype(out))
    return eg.emit_llvm(handle, 90)


# K / BK trips: 6 (even), 5 (odd), 4 with a masked tail (100), 3 with a masked tail (70), 1
# (rank 1 runs none), 0 (neither: the accumulator as it began).
@pytest.mark.parametrize("K", [192, 160, 100, 70, 20, 0])
def test_split_k_fp16_tutorial_matmul(kernels, monkeypatch, K):
    ll = _matmul(kernels, monkeypatch, 128, 64, K, np.float16, "fp32", False, 4, 3)
    assert eg.cluster_size(ll) == 2
    assert "llvm.nvvm.mapa.shared.cluster" in ll and "llvm.nvvm.barrier.cluster.wait" in ll
    # The trip count for the launch's choice of the cluster size: parameter 5 (K) + 32 - 1,
    # / 32, from 0 by 1 (split_k_cluster.h's trip formula; runtime/kernel_gpu.cpp reads it).
    assert "// tritium.ksplit.trips 5 0 1 1 32 2 1 5 32" in ll


@pytest.mark.parametrize("K,warps", [(160, 4), (100, 8), (96, 4)])
def test_split_k_user_initialised_accumulator(kernels, monkeypatch, K, warps):
    """acc starts from C (rank 0 from it, rank 1 from zeros: C is added once), one stage and
    pipelined."""
    for stages in (1, 3):
        ll = _matmul(kernels, monkeypatch, 64, 128, K, np.float16, "fp32", True, warps, stages)
        assert eg.cluster_size(ll) == 2


@pytest.mark.parametrize("split", [False, True])
def test_loaded_accumulator_of_a_pipelined_wgmma_loop(kernels, monkeypatch, split):
    """An accumulator loaded before a pipelined (3-stage) wgmma K loop: the loop carries it in
    the dot's fragments (converted once where it is loaded, experiment "accfrag" since
    session 38) and the dot stays in flight; carried flat (noaccfrag), converted back from
    the dot's fragments each iteration, the dot may not stay in flight into the next one
    (async_copy.cpp; session 37 found that wrong from the third column of each fragment row
    on main, ksplit or not). tests/emulate/test_emulated_loaded_accumulator.py covers both."""
    _matmul(kernels, monkeypatch, 64, 64, 64, np.float16, "fp32", True, 4, 3, split=split)


@pytest.mark.parametrize("K", [192, 160, 100])
def test_split_k_int8_matmul(kernels, monkeypatch, K):
    ll = _matmul(kernels, monkeypatch, 64, 64, K, np.int8, "int32", False, 4, 3)
    assert eg.cluster_size(ll) == 2


# Clusters of 4 and 8 (TRITIUM_KSPLIT; at most 1024 emulated threads a cluster: 8 CTAs of 4
# warps, 4 of 8). K / BK trips: 10 (4 ranks: 3, 3, 3, 1; 8 ranks: 2 each, the last three none),
# 6 (2, 2, 2, 0; 1 each, two none), 5 with a masked tail (150), 1 (rank 0 alone), 0 (none:
# the accumulator as it began).
# The tiles hold 64 accumulators a thread (128x128 at 8 warps, 64x128 at 4): the hand-over
# goes in two chunks.
@pytest.mark.parametrize("size,warps,BM", [(4, 8, 128), (8, 4, 64)])
@pytest.mark.parametrize("K", [320, 192, 150, 20, 0])
def test_split_k_over_4_and_8_ctas(kernels, monkeypatch, size, warps, BM, K):
    ll = _matmul(kernels, monkeypatch, 128, 128, K, np.float16, "fp32", False, warps, 3, BM=BM, BN=128, size=size)
    assert eg.cluster_size(ll) == size
    assert "cvt.rzi.s32.f32" in ll  # the chunks' dependence (emit_control.cpp's cluster_sum)


@pytest.mark.parametrize("size,warps", [(4, 8), (8, 4)])
def test_split_k_over_4_and_8_ctas_int8_and_loaded_accumulator(kernels, monkeypatch, size, warps):
    """int8 -> int32 (the chunks' dependence through an integer min), and C += A @ B (rank 0
    from C, the others from zeros: C added once), one stage and pipelined."""
    ll = _matmul(kernels, monkeypatch, 128, 128, 224, np.int8, "int32", False, warps, 3, BM=128 if warps == 8 else 64,
                 BN=128, size=size)
    assert eg.cluster_size(ll) == size and "cvt.rzi.s32.f32" in ll
    for stages in (1, 3):
        ll = _matmul(kernels, monkeypatch, 64, 128, 288, np.float16, "fp32", True, warps, stages, BN=128, size=size)
        assert eg.cluster_size(ll) == size


def test_split_k_hand_over_whole(kernels, monkeypatch):
    """Experiment ksplitwhole: the hand-over reads all registers, then adds (no chunks)."""
    ll = _matmul(kernels, monkeypatch, 64, 128, 192, np.float16, "fp32", False, 4, 3, BN=128, size=4,
                 experiments=",ksplitwhole")
    assert eg.cluster_size(ll) == 4 and "cvt.rzi.s32.f32" not in ll


@pytest.mark.parametrize("size,K", [(2, 96), (4, 160), (8, 96), (8, 0)])
def test_split_k_stepped_values_used_after_the_loop(kernels, monkeypatch, size, K):
    """A pointer block and an integer moved each iteration and used after the loop: rank 0
    (which alone runs on after it) gets them as the whole loop ends them (init + n * step),
    not as its own share does."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "ksplit")
    monkeypatch.setenv("TRITIUM_KSPLIT", str(size))
    BM, BN, BK = 64, 64, 32
    rng = np.random.default_rng(K + size)
    a = rng.integers(-4, 5, (BM, K + BK)).astype(np.float16)
    b = rng.integers(-4, 5, (max(K, 1), BN)).astype(np.float16)
    c = np.zeros((BM, BN), dtype=np.float32)
    tail = np.zeros((BM, BK), dtype=np.float16)
    n = np.full(1, -1, dtype=np.int32)
    handle = eg.run(kernels.matmul_steps_used_after, (1,), a, b, c, tail, n, K, BM=BM, BN=BN, BK=BK)
    np.testing.assert_array_equal(c, a[:, :K].astype(np.float64) @ b[:K].astype(np.float64))
    np.testing.assert_array_equal(tail, a[:, K:K + BK])
    assert n[0] == K
    assert eg.cluster_size(eg.emit_llvm(handle, 90)) == size


def test_split_k_off_without_the_experiment(kernels, monkeypatch):
    ll = _matmul(kernels, monkeypatch, 64, 64, 160, np.float16, "fp32", False, 4, 3, split=False)
    assert eg.cluster_size(ll) == 1 and "cluster" not in ll.split("attributes #")[0].split("define")[1]


def test_ineligible_kernels_are_left_alone(kernels, monkeypatch, capfd):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "ksplit")
    monkeypatch.setenv("TRITIUM_KSPLIT_DEBUG", "1")
    rng = np.random.default_rng(5)
    BM, BN, BK, K = 64, 32, 32, 128
    a = rng.integers(-3, 4, (BM, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, BN)).astype(np.float16)
    exact = a.astype(np.float64) @ b.astype(np.float64)

    c = np.zeros((BM, BN), dtype=np.float32)
    partial = np.zeros(K // BK, dtype=np.float32)
    handle = eg.run(kernels.matmul_store_in_loop, (1,), a, b, c, partial, K, BM=BM, BN=BN, BK=BK)
    np.testing.assert_array_equal(c, exact)
    for i in range(K // BK):
        s = a[:, :(i + 1) * BK].astype(np.float64) @ b[:(i + 1) * BK].astype(np.float64)
        assert partial[i] == s.sum()
    assert eg.cluster_size(eg.emit_llvm(handle, 90)) == 1
    assert "not split: a side effect in the loop (store)" in capfd.readouterr().err

    c = np.zeros((BM, BN), dtype=np.float32)
    handle = eg.run(kernels.matmul_scaled_acc, (1,), a, b, c, K, BM=BM, BN=BN, BK=BK)
    ref = np.zeros((BM, BN))
    for i in range(K // BK):
        ref = ref * 0.5 + a[:, i * BK:(i + 1) * BK].astype(np.float64) @ b[i * BK:(i + 1) * BK].astype(np.float64)
    np.testing.assert_array_equal(c, ref)
    assert eg.cluster_size(eg.emit_llvm(handle, 90)) == 1
    assert "not split: the accumulator is not the dot's own" in capfd.readouterr().err

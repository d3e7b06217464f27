"""A K loop whose dot accumulator is loaded before it (a GEMM's `C += A @ B`: `acc =
tl.load(C)`, then `acc = tl.dot(a, b, acc)` or `acc += tl.dot(a, b)`), run on the emulated
GPU (emulated_gpu.py) against numpy, and the code its loop gets.

The fragment plan (fragment_layout.h's plan_fragments, experiment "accfrag", the default)
carries such an accumulator in the dot's fragments, the loaded block converted to them once
before the loop, as a zero one is; TRITIUM_REDUCE_EXPERIMENT=noaccfrag carries it flat, the
body converting it to the fragments before each dot and back after it through shared memory
(st.shared, bar.sync, ld.shared), and the wgmma dot waiting for itself every iteration
(async_copy.cpp keeps a dot in flight only with its accumulator in fragments). Results are
exact (small integers: exact fp32 and int32 sums) for wgmma (sm_90, f16/bf16) and mma.sync
(sm_80; int8 on both), 4 and 8 warps, 1 to 4 stages, odd trip counts and a masked K tail,
the accumulator stored and also reduced after the loop.

Experiment "accload" (the default on sm_90 since session 39; sm_80 keeps it off: an fp32 C
costs registers) loads the loaded block in the fragments (FragmentPlan::loads_fragment), each
thread's elements from global memory, column pairs as one 2-element load, no round trip before
the loop; "noaccload" (sm_80's default) loads it flat and converts it once through shared memory
(as Triton 3.6 does). `addmm_edge` checks it at masked tile edges, with
`other`, for fp32, int32 and an fp16 C upcast by `.to(tl.float32)`."""

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
    def addmm(a_ptr, b_ptr, c_ptr, r_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              ADD: tl.constexpr, REDUCE: tl.constexpr, MASK_K: tl.constexpr):
        # C += A @ B of one BM x BN block a program; REDUCE: also the rows' sums of the result.
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
        c_mask = (rm[:, None] < M) & (rn[None, :] < N)
        acc = tl.load(c_ptrs, mask=c_mask, other=0)
        a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
        for k in range(0, tl.cdiv(K, BK)):
            if MASK_K:
                a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0)
                b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0)
            else:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            if ADD:
                acc += tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
            else:
                acc = tl.dot(a, b, acc, out_dtype=c_ptr.dtype.element_ty)
            a_ptrs += BK
            b_ptrs += BK * N
        tl.store(c_ptrs, acc, mask=c_mask)
        if REDUCE:
            tl.store(r_ptr + rm, tl.sum(acc, 1), mask=rm < M)


    @tritium.jit
    def state_recurrence_from_h0(k_ptr, v_ptr, w_ptr, vn_ptr, h_ptr, h0_ptr, ht_ptr, T, V: tl.constexpr,
                                 BT: tl.constexpr):
        # fla's chunk_gated_delta_rule_fwd_kernel_h_blockdim64 at K = 128 with an initial
        # state (USE_INITIAL_STATE: `b_h1 += tl.load(h0)`) and its final state stored
        # (STORE_FINAL_STATE): the state in two blocks of 64 rows, each stored every chunk and
        # the B of a dot; the new values stored and the B of the two dots that update them.
        o_k = tl.arange(0, 64)
        o_v = tl.arange(0, V)
        b_h1 = tl.zeros([64, V], dtype=tl.float32)
        b_h2 = tl.zeros([64, V], dtype=tl.float32)
        b_h1 += tl.load(h0_ptr + o_k[:, None] * V + o_v[None, :])
        b_h2 += tl.load(h0_ptr + 64 * V + o_k[:, None] * V + o_v[None, :])
        for i_t in range(tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            m_t = o_t < T
            p_h = h_ptr + i_t * 128 * V + o_k[:, None] * V + o_v[None, :]
            tl.store(p_h, b_h1.to(tl.float16))
            tl.store(p_h + 64 * V, b_h2.to(tl.float16))
            b_w = tl.load(w_ptr + o_t[:, None] * 128 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_v = tl.dot(b_w, b_h1.to(tl.float16))
            b_w = tl.load(w_ptr + o_t[:, None] * 128 + 64 + o_k[None, :], mask=m_t[:, None], other=0.0)
            b_v = tl.dot(b_w, b_h2.to(tl.float16), b_v)
            b_v = tl.load(v_ptr + o_t[:, None] * V + o_v[None, :], mask=m_t[:, None], other=0.0) - b_v
            b_v = b_v.to(tl.float16)
            tl.store(vn_ptr + o_t[:, None] * V + o_v[None, :], b_v, mask=m_t[:, None])
            b_k1 = tl.load(k_ptr + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_k2 = tl.load(k_ptr + 64 + o_k[:, None] + o_t[None, :] * 128, mask=m_t[None, :], other=0.0)
            b_h1 = tl.dot(b_k1, b_v, b_h1)
            b_h2 = tl.dot(b_k2, b_v, b_h2)
        p_ht = ht_ptr + o_k[:, None] * V + o_v[None, :]
        tl.store(p_ht, b_h1)
        tl.store(p_ht + 64 * V, b_h2)


    @tritium.jit
    def addmm_edge(a_ptr, b_ptr, c_ptr, r_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   OTHER: tl.constexpr, UPCAST: tl.constexpr):
        # C += A @ B with C's rows and columns masked at the tile's edge, `other` where masked
        # (it reaches the rows' sums of the masked columns); UPCAST: C fp16, `.to(tl.float32)`.
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
        c_mask = (rm[:, None] < M) & (rn[None, :] < N)
        acc = tl.load(c_ptrs, mask=c_mask, other=OTHER)
        if UPCAST:
            acc = acc.to(tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            ok = k * BK + rk
            a = tl.load(a_ptr + rm[:, None] * K + ok[None, :], mask=(rm[:, None] < M) & (ok[None, :] < K), other=0)
            b = tl.load(b_ptr + ok[:, None] * N + rn[None, :], mask=(ok[:, None] < K) & (rn[None, :] < N), other=0)
            acc = tl.dot(a, b, acc, out_dtype=acc.dtype)
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)
        tl.store(r_ptr + rm, tl.sum(acc, 1), mask=rm < M)
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loaded_accumulator_kernels")
    (folder / "loaded_accumulator_kernels.py").write_text(KERNELS)
    sys.path.insert(0, str(folder))
    import loaded_accumulator_kernels
    yield loaded_accumulator_kernels
    sys.path.remove(str(folder))


def typed(array, dtype):
    """A numpy array as the kernel's `dtype` ("bf16": the float32 values, exact in bf16, as
    uint16 bits seen as tl.bfloat16)."""
    if dtype != "bf16":
        return array
    import tritium
    import tritium.language as tl
    bits = (np.asarray(array, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return tritium.reinterpret(bits, tl.bfloat16)


def run_addmm(kernels, monkeypatch, *, sm, warps, stages, dtype, BM, BN, BK, K, add=False, reduce=False,
              mask_k=True, experiment="", programs=(2, 1)):
    """C += A @ B (and C's row sums) on the emulated GPU, checked exactly against numpy;
    returns the kernel's PTX."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    M, N = BM * programs[0], BN * programs[1]
    rng = np.random.default_rng(M * 7 + N * 3 + K + warps + stages)
    a = rng.integers(-4, 5, (M, K))
    b = rng.integers(-4, 5, (K, N))
    out = np.int32 if dtype == "i8" else np.float32
    c0 = rng.integers(-50, 50, (M, N)).astype(out)
    c = c0.copy()
    sums = np.full(M, -1, dtype=out)
    inputs = {"i8": np.int8, "f16": np.float16, "bf16": np.float32}[dtype]
    handle = eg.run(kernels.addmm, programs, typed(a.astype(inputs), dtype), typed(b.astype(inputs), dtype), c, sums, M,
                    N, K, BM=BM, BN=BN, BK=BK, ADD=add, REDUCE=reduce, MASK_K=mask_k, sm=sm, num_warps=warps,
                    num_stages=stages)
    ref = a.astype(np.int64) @ b.astype(np.int64) + c0.astype(np.int64)
    np.testing.assert_array_equal(c, ref.astype(out))
    if reduce:
        np.testing.assert_array_equal(sums, ref.sum(1).astype(out))
    return eg.emit_llvm(handle, sm, "ptx")


# Block shapes per warps: 4 warps one warpgroup of 64 rows; 8 warps 128 rows (two warpgroups
# along m) or 64 rows (side by side along n on sm_90).
SHAPES = {4: [(64, 64, 32)], 8: [(128, 64, 32), (64, 128, 32)]}


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["f16", "bf16", "i8"])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("sm", [90, 80])
def test_loaded_accumulator_k_loop(kernels, monkeypatch, sm, warps, dtype, stages):
    """5 trips (odd), and 3 with a masked tail (K = 70); 8 warps in both shapes."""
    for BM, BN, BK in SHAPES[warps]:
        for K in (160, 70):
            run_addmm(kernels, monkeypatch, sm=sm, warps=warps, stages=stages, dtype=dtype, BM=BM, BN=BN, BK=BK, K=K)


@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("sm", [90, 80])
def test_loaded_accumulator_stored_and_reduced(kernels, monkeypatch, sm, warps, stages, add):
    """The accumulator used twice after the loop (stored, and its rows summed), as
    `tl.dot(a, b, acc)` and `acc += tl.dot(a, b)`; also K = 0 (no trip: C as loaded)."""
    BM, BN, BK = SHAPES[warps][-1]
    for K in (96, 100, 0):
        for dtype in ("f16", "i8"):
            run_addmm(kernels, monkeypatch, sm=sm, warps=warps, stages=stages, dtype=dtype, BM=BM, BN=BN, BK=BK, K=K,
                      add=add, reduce=True)


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("sm", [90, 80])
def test_loaded_accumulator_flat_without_the_experiment(kernels, monkeypatch, sm, stages):
    """noaccfrag (the A/B knob) carries the accumulator flat, still right."""
    for K in (160, 70):
        run_addmm(kernels, monkeypatch, sm=sm, warps=4, stages=stages, dtype="f16", BM=64, BN=64, BK=32, K=K,
                  reduce=True, experiment="noaccfrag")


def dot_loop_spans(ptx):
    """(lines, [(first, last)]): the PTX lines and each loop (a label to the branch back to
    it) that holds a dot, by line index."""
    lines = ptx.splitlines()
    labels, spans = {}, []
    for i, line in enumerate(lines):
        m = re.match(r"^(\$L__\w+):", line)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if m and m.group(1) in labels:
            body = "\n".join(lines[labels[m.group(1)]:i + 1])
            if "wgmma.mma_async" in body or "mma.sync" in body:
                spans.append((labels[m.group(1)], i))
    return lines, spans


def loop_bodies(ptx):
    """The PTX lines of each loop that holds a dot."""
    lines, spans = dot_loop_spans(ptx)
    return ["\n".join(lines[first:last + 1]) for first, last in spans]


@pytest.mark.parametrize("sm,stages", [(90, 1), (90, 3), (80, 1), (80, 3)])
def test_loop_carries_loaded_accumulator_in_fragments(kernels, monkeypatch, sm, stages):
    """The K loop's body (unmasked operands) reads nothing back from shared memory: no
    ld.shared (the flat accumulator's way back to the fragments, under noaccfrag), fewer
    barriers; on sm_90 pipelined, the wgmma stays in flight (wait_group 1, no wait_group 0
    in the loop), where noaccfrag waits for it every iteration."""
    counts = {}
    for experiment in ("", "noaccfrag"):
        ptx = run_addmm(kernels, monkeypatch, sm=sm, warps=4, stages=stages, dtype="f16", BM=64, BN=64, BK=32, K=160,
                        mask_k=False, experiment=experiment)
        loops = loop_bodies(ptx)
        assert loops, "no K loop found in the PTX"
        counts[experiment] = [(body.count("ld.shared"), body.count("bar.sync"),
                               re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+)", body)) for body in loops]
    for (loads, bars, waits), (flat_loads, flat_bars, flat_waits) in zip(counts[""], counts["noaccfrag"]):
        assert loads == 0 and flat_loads > 0, counts
        assert bars <= flat_bars - 2, counts
        if sm == 90 and stages > 1:
            assert waits == ["1"] and flat_waits == ["0"], counts
        elif sm == 90:
            assert waits == ["0"], counts


@pytest.mark.parametrize("experiment", ["", "noaccfrag", "accload", "noaccload"])
@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 4, 1), (90, 8, 2), (80, 4, 2), (80, 2, 3)])
def test_state_recurrence_from_an_initial_state(kernels, monkeypatch, sm, warps, stages, experiment):
    """fla's delta-rule state recurrence started from a loaded state (h0) and its final state
    stored: w and k signed one-hot rows, v and h0 small integers, so every sum is exact and
    each stored state an fp16 integer; the last chunk masked (T = 3 * 64 + 20)."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    V, BT, T = 32, 64, 3 * 64 + 20
    rng = np.random.default_rng(61)

    def one_hot_rows(rows, cols):
        m = np.zeros((rows, cols))
        m[np.arange(rows), rng.integers(0, cols, rows)] = rng.choice([-1.0, 1.0], rows)
        return m.astype(np.float16)

    w, k = one_hot_rows(T, 128), one_hot_rows(T, 128)
    v = rng.integers(-3, 4, (T, V)).astype(np.float16)
    h0 = rng.integers(-3, 4, (128, V)).astype(np.float32)
    nt = -(-T // BT)
    vn = np.full((T, V), np.nan, dtype=np.float16)
    h = np.full((nt, 128, V), np.nan, dtype=np.float16)
    ht = np.full((128, V), np.nan, dtype=np.float32)
    eg.run(kernels.state_recurrence_from_h0, (1,), k, v, w, vn, h, h0, ht, T, V=V, BT=BT, sm=sm, num_warps=warps,
           num_stages=stages)
    state = h0.astype(np.float64)
    want_h, want_vn = np.zeros((nt, 128, V)), np.zeros((T, V))
    for i in range(nt):
        t = slice(i * BT, min(T, (i + 1) * BT))
        want_h[i] = state
        want_vn[t] = v[t].astype(np.float64) - w[t].astype(np.float64) @ state
        state = state + k[t].astype(np.float64).T @ want_vn[t]
    assert np.abs(want_h).max() < 2048 and np.abs(want_vn).max() < 2048
    np.testing.assert_array_equal(h.astype(np.float64), want_h)
    np.testing.assert_array_equal(vn.astype(np.float64), want_vn)
    np.testing.assert_array_equal(ht.astype(np.float64), state)


def run_addmm_edge(kernels, monkeypatch, *, sm, warps, stages, c_dtype, M, N, K, BM, BN, BK, other, experiment=""):
    """C += A @ B on one column of programs, C masked at M rows and N (< BN) columns, checked
    exactly; the rows' sums hold `other` for each masked column. Returns the PTX."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    rng = np.random.default_rng(M * 5 + N * 3 + K + warps + stages)
    integer = c_dtype == "i32"
    inputs = np.int8 if integer else np.float16
    a = rng.integers(-4, 5, (M, K))
    b = rng.integers(-4, 5, (K, N))
    c0 = rng.integers(-50, 50, (M, N))
    stored = {"i32": np.int32, "f32": np.float32, "f16": np.float16}[c_dtype]
    c = c0.astype(stored)
    sums = np.full(-(-M // BM) * BM, -1, dtype=np.int32 if integer else np.float32)
    handle = eg.run(kernels.addmm_edge, (-(-M // BM), 1), a.astype(inputs), b.astype(inputs), c, sums, M, N, K, BM=BM,
                    BN=BN, BK=BK, OTHER=other, UPCAST=c_dtype == "f16", sm=sm, num_warps=warps, num_stages=stages)
    ref = a.astype(np.int64) @ b.astype(np.int64) + c0
    np.testing.assert_array_equal(c.astype(np.int64), ref)
    np.testing.assert_array_equal(sums[:M].astype(np.int64), ref.sum(1) + other * (BN - N))
    return eg.emit_llvm(handle, sm, "ptx")


def before_k_loop(ptx):
    """The PTX lines before the first loop that holds a dot (its label)."""
    lines, spans = dot_loop_spans(ptx)
    if not spans:
        raise AssertionError("no K loop found in the PTX")
    return "\n".join(lines[:spans[0][0]])


# (M, N): rows masked at the last program's edge, N a multiple of 16 (each thread's column
# pairs loaded as one, under one mask bit); N odd: one element at a time.
EDGES = [(2 * 64 - 5, 48), (64 + 7, 61)]


@pytest.mark.parametrize("experiment", ["accload", "noaccload"])
@pytest.mark.parametrize("c_dtype", ["f32", "i32", "f16"])
@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 8, 1), (80, 4, 2), (80, 8, 3)])
def test_loaded_accumulator_masked_at_the_edge(kernels, monkeypatch, sm, warps, stages, c_dtype, experiment):
    """C loaded with its mask and `other` (7: the masked columns' part of the rows' sums),
    fp32, int32 and fp16 upcast by `.to(tl.float32)`, rows and columns masked at the edge; 3
    trips with a masked K tail."""
    BM, BN, BK = (64, 64, 32) if warps == 4 else (128, 64, 32)
    for M, N in EDGES:
        run_addmm_edge(kernels, monkeypatch, sm=sm, warps=warps, stages=stages, c_dtype=c_dtype, M=M, N=N, K=70, BM=BM,
                       BN=BN, BK=BK, other=7, experiment=experiment)


@pytest.mark.parametrize("c_dtype", ["f32", "i32"])
@pytest.mark.parametrize("sm,warps,stages", [(90, 4, 3), (90, 8, 2), (80, 4, 2)])
def test_loaded_accumulator_loaded_late(kernels, monkeypatch, sm, warps, stages, c_dtype):
    """accloadlate (opt-in): the fragment load made where the loop begins, after its prologue
    copies; still right, and still no round trip before the loop."""
    BM, BN, BK = (64, 64, 32) if warps == 4 else (128, 64, 32)
    for M, N in EDGES:
        ptx = run_addmm_edge(kernels, monkeypatch, sm=sm, warps=warps, stages=stages, c_dtype=c_dtype, M=M, N=N, K=70,
                             BM=BM, BN=BN, BK=BK, other=7, experiment="accload,accloadlate")
        assert before_k_loop(ptx).count("ld.shared") == 0


@pytest.mark.parametrize("c_dtype", ["f32", "i32", "f16"])
@pytest.mark.parametrize("sm,stages", [(90, 3), (90, 1), (80, 3)])
def test_loaded_accumulator_loaded_in_fragments(kernels, monkeypatch, sm, stages, c_dtype):
    """With experiment "accload" the loaded C reaches the fragments straight from global
    memory: before the K loop no ld.shared and fewer barriers than under "noaccload" (its
    round trip: st.shared, bar.sync, ld.shared, bar.sync, the last one shared with the
    loop's prologue on sm_80's fp16), C's column pairs loaded as one
    2-element load (8 bytes of fp32 / int32, 4 of fp16) where N is a multiple of 16."""
    found = {}
    for experiment in ("accload", "noaccload"):
        ptx = run_addmm_edge(kernels, monkeypatch, sm=sm, warps=4, stages=stages, c_dtype=c_dtype, M=2 * 64 - 5, N=48,
                             K=70, BM=64, BN=64, BK=32, other=7, experiment=experiment)
        before = before_k_loop(ptx)
        pairs = re.findall(r"ld\.global(?:\.\w+)*\.v2\.(?:b32|f32|s32|u32)\b", before)
        half_pairs = re.findall(r"ld\.global(?:\.\w+)*\.(?:b32|u32)\b", before)
        found[experiment] = (before.count("ld.shared"), before.count("bar.sync"), len(pairs), len(half_pairs))
    (loads, bars, pairs, words), (flat_loads, flat_bars, _, _) = found["accload"], found["noaccload"]
    assert loads == 0 and flat_loads > 0, found
    assert bars < flat_bars, found
    if c_dtype == "f16":
        assert words >= 16, found  # 32 fp16 elements a thread (64 x 64 / 128), 2 a load
    else:
        assert pairs == 16, found

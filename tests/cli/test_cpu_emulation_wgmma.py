"""Hopper's wgmma on the host (sm_90 PTX), through test_cpu_emulation_mma16.py's driver and
emu_tensor_core.c: wgmma.mma_async m64nNk16 (f16, bf16), k32 (fp8 e4m3/e5m2) and k8 (tf32) runs the
warpgroup's product when all 128 threads have called it, reading A and B through their 64-bit
matrix descriptors (start address, leading and stride byte offsets, swizzle none/32/64/128
bytes, imm-trans-a/b as M/N-major) or A from the warps' registers; the accumulators (f32, or
packed f16) are wgmma's fragment layout, returned as NaN tags that the wait_group retiring them
swaps for the values. wgmma.fence and fence.proxy.async order nothing on the host; each wait
also checks that no shared byte a retired wgmma read was overwritten while it was in flight.
Small-integer inputs: exact results."""

import re
import subprocess
import textwrap

import numpy as np
import pytest

import test_cpu_emulation_mma16 as mma16

pytestmark = mma16.pytestmark


def assert_wgmma(ptx, ty):
    kind = {"fp16": "f16.f16", "bf16": "bf16.bf16"}.get(ty)
    if kind is None:  # fp8: native k32 (B K-major, pipelined), or widened to f16 on k16
        assert re.search(r"k32\.f32\.e[45]m[23]\.e[45]m[23]", ptx) or "k16.f32.f16.f16" in ptx
    else:
        assert f"k16.f32.{kind}" in ptx or f"k16.f16.{kind}" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n" in ptx and "wgmma.wait_group" in ptx


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("layout", mma16.LAYOUTS)
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((128, 128, 64), 8, 128), ((64, 32, 16), 4, 48)])
def test_matmul_on_emulated_wgmma(tmp_path, ty, layout, stages, tile, warps, K):
    """Loops over K on wgmma (one or two warpgroups), pipelined or not, every operand layout
    (M-major A: imm-trans-a; row-major B: imm-trans-b; K-major B: neither)."""
    ptx = mma16.check_matmul(tmp_path, "matmul", ty, "fp32", layout, tile, warps, K, stages, 90,
                             defer_copies=stages > 1)
    assert_wgmma(ptx, ty)
    assert ("cp.async" in ptx) == (stages > 1)


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 128), ((64, 128, 64), 4, 128)])
def test_wgmma_pipeline_with_copies_landing_at_once(tmp_path, ty, tile, warps, K):
    """A wgmma kept in flight (wait_group 1) while the next copies land as they issue: the
    stage it reads must not be the one being refilled."""
    ptx = mma16.check_matmul(tmp_path, "matmul", ty, "fp32", "row-major", tile, warps, K, 3, 90)
    assert "wgmma.wait_group.sync.aligned 1" in ptx


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("layout", mma16.LAYOUTS)
@pytest.mark.parametrize("tile,warps,K,stages", [((128, 128, 128), 8, 384, 3), ((128, 256, 64), 8, 320, 4)])
def test_wgmma_in_flight_without_the_extra_buffer(tmp_path, ty, layout, tile, warps, K, stages):
    """A wgmma kept in flight with its stage buffers alone (the next copies issued after its
    wait and a barrier) where the extra buffer would not fit: 128x128x128 fp16 at 3 stages
    (192 KiB, 256 with the extra) and 128x256x64 at 4 (192 KiB, 240); before, such loops
    waited for every wgmma (wait_group 0), where Triton keeps one in flight. The emulator's
    waits check that no copy overwrote a buffer an unfinished wgmma reads."""
    ptx = mma16.check_matmul(tmp_path, "matmul", ty, "fp32", layout, tile, warps, K, stages, 90, defer_copies=True)
    assert "wgmma.wait_group.sync.aligned 1" in ptx


@pytest.mark.parametrize("ty", ["fp8e4nv", "fp8e5"])
@pytest.mark.parametrize("layout", ["k-major-b", "both", "row-major", "m-major-a"])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 64), 4, 128), ((128, 128, 64), 8, 192)])
def test_fp8_matmul_on_emulated_wgmma(tmp_path, ty, layout, stages, tile, warps, K):
    """fp8 in a pipelined loop: native wgmma k32 (e4m3/e5m2, both operands K-major in shared
    memory: an M-major A copied transposed) where B is K-major, else widened to f16
    (cvt.rn.f16x2) on k16 by the dot's own staging. Staging a row-major B K-major byte by byte
    (A still copied) ran at 0.66 / 0.58 / 0.28 of the widened loop on an H100 (session 27,
    benchmarks/RESULTS.md), so the widened loop stays."""
    ptx = mma16.check_matmul(tmp_path, "matmul", ty, "fp32", layout, tile, warps, K, stages, 90,
                             defer_copies=stages > 1)
    assert_wgmma(ptx, ty)
    kind = "e4m3" if ty == "fp8e4nv" else "e5m2"
    native = f"k32.f32.{kind}.{kind}" in ptx
    assert native == (stages > 1 and layout in ("k-major-b", "both"))
    assert ("cp.async" in ptx) == native and ("cvt.rn.f16x2" in ptx) != native


# check_matmul's loop with its store masked to the first MM rows and NN columns.
MASKED_KERNELS = mma16.KERNELS.replace("ACC: tl.constexpr):", "ACC: tl.constexpr, MM: tl.constexpr, NN: tl.constexpr):", 1).replace(
    "acc.to(out_ptr.dtype.element_ty))", "acc.to(out_ptr.dtype.element_ty), mask=(m[:, None] < MM) & (n[None, :] < NN))", 1)


@pytest.mark.parametrize("ty,out,tile,warps,K", [("fp8e4nv", "fp16", (128, 128, 128), 8, 256),
                                                 ("fp8e5", "fp16", (64, 64, 64), 4, 128),
                                                 ("fp16", "fp32", (64, 64, 64), 4, 128),
                                                 ("bf16", "fp32", (128, 64, 64), 8, 128)])
def test_dot_result_stored_in_16_byte_runs(tmp_path, ty, out, tile, warps, K):
    """A dot's result whose flat layout would give each thread more than 16 bytes of a row (an
    fp8 A as large as the fp16 result: 16 elements a thread; fp16 operands, an fp32 result) is
    stored in 16-byte runs with the lanes along the row (gpu/coalesce.cpp), converted from the
    dot's fragments in one round trip: pairs written, each run read back as one vector. Before,
    each thread's two 16-byte stores left half of every 32-byte sector to the other (session
    28's ncu: the L2 took every sector twice; fp8 128x128x128 at 0.89 of Triton)."""
    BM, BN, BK = tile
    values = mma16.small_integers(BM * K + K * BN, 2, seed=BM + BN + K)
    constexprs = mma16.matmul_constexprs("matmul", "fp32", "k-major-b")
    got, ptx = mma16.run_kernel(tmp_path, "matmul", ty, out, values, BM * BN, tile, warps, 3, 90, K, constexprs,
                                defer_copies=True)
    a, b = mma16.operands(values, BM, BN, K, True, False)
    np.testing.assert_array_equal(got.reshape(BM, BN).astype(np.float64), a @ b)
    gpu_ir = mma16.emitter(tmp_path, "matmul", ty, out, tile, warps, 3, 90, constexprs)("gpu-ir")
    run = 16 // (2 if out == "fp16" else 4)
    store = re.search(r"convert_layout %\d+ \{shared_offsets[^\n]*", gpu_ir)
    assert store is not None and f"spt = [1, {run}], tpw = [{32 * run // BN}, {BN // run}]" in store.group(0)
    assert re.search(r"ld\.shared\.v4\.b32", ptx) and re.search(r"st\.global\.v4\.b32", ptx)
    # Masked to MM rows and NN columns (16-byte runs: NN a multiple of 8 fp16 / 4 fp32): the
    # mask is computed where each run is; elements outside keep the driver's NaN bytes.
    MM, NN = BM - 3, BN - 16
    got, ptx = mma16.run_kernel(tmp_path, "matmul", ty, out, values, BM * BN, tile, warps, 3, 90, K,
                                constexprs + f", MM={MM}, NN={NN}", defer_copies=True, kernels=MASKED_KERNELS)
    c = got.reshape(BM, BN).astype(np.float64)
    np.testing.assert_array_equal(c[:MM, :NN], (a @ b)[:MM, :NN])
    assert np.isnan(c[MM:]).all() and np.isnan(c[:, NN:]).all()
    assert re.search(r"st\.global\.v4\.b32", ptx)


@pytest.mark.parametrize("layout", mma16.LAYOUTS)
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((128, 64, 16), 8, 64)])
def test_tf32_matmul_on_emulated_wgmma(tmp_path, layout, stages, tile, warps, K):
    """tf32 (fp32 inputs) on wgmma m64nNk8, both operands K-major: a row-major B staged
    transposed, or copied by 4-byte cp.async per element; an M-major A likewise."""
    ptx = mma16.check_matmul(tmp_path, "matmul", "fp32", "fp32", layout, tile, warps, K, stages, 90,
                             defer_copies=stages > 1)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32", ptx)


@pytest.mark.parametrize("layout", mma16.LAYOUTS + ["both"])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((128, 128, 64), 8, 128), ((64, 32, 64), 4, 128),
                                          ((64, 128, 64), 8, 128), ((128, 256, 64), 8, 128)])
def test_int8_matmul_on_emulated_wgmma(tmp_path, layout, stages, tile, warps, K):
    """int8 on wgmma m64nNk32 .s32.s8.s8 (gpu/int8_wgmma.h): both operands K-major, B copied
    K-major or staged transposed, an M-major A staged as it is; in a pipelined loop where A
    runs down M or B along N (copies only mma.sync reads), mma.sync m16n8k32 instead."""
    if stages > 1 and layout != "k-major-b":  # mma.sync: its int8 form is test_cpu_emulation_mma.py's
        ptx = mma16.compile_ptx(tmp_path, "matmul", "i8", "i32", layout, tile, warps, stages, 90, K)
        assert "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32" in ptx and "wgmma" not in ptx
        return
    ptx = mma16.check_matmul(tmp_path, "matmul", "i8", "i32", layout, tile, warps, K, stages, 90,
                             defer_copies=stages > 1)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.s32\.s8\.s8", ptx)
    assert "mma.sync" not in ptx
    if stages > 1:  # A and B copied (B K-major), the wgmma kept in flight
        assert "cp.async" in ptx and "wgmma.wait_group.sync.aligned 1" in ptx


# TRITIUM_INT8_ROWB_WGMMA=1 (nvptx TargetOptions::int8_row_major_wgmma): a pipelined int8 dot
# with a row-major B on wgmma, A copied by cp.async, B staged K-major by the dot from the
# registers it was loaded into. A knob for timing it against mma.sync; it must compute the same.
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((128, 128, 64), 8, 128), ((64, 128, 64), 8, 128),
                                          ((128, 64, 32), 4, 160)])
def test_int8_row_major_b_on_emulated_wgmma(tmp_path, monkeypatch, stages, tile, warps, K):
    monkeypatch.setenv("TRITIUM_INT8_ROWB_WGMMA", "1")
    ptx = mma16.check_matmul(tmp_path, "matmul", "i8", "i32", "row-major", tile, warps, K, stages, 90,
                             defer_copies=True)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.s32\.s8\.s8", ptx)
    assert "mma.sync" not in ptx
    assert "cp.async.cg.shared.global" in ptx  # A's copies
    assert "st.shared.b8" in ptx  # B's bytes into its K-major tile


@pytest.mark.parametrize("layout", mma16.LAYOUTS + ["both"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((64, 16, 64), 4), ((128, 64, 32), 8)])
def test_one_shot_int8_dot_on_emulated_wgmma(tmp_path, layout, tile, warps):
    """An int8 dot outside loops stages both operands itself, B transposed: always wgmma."""
    ptx = mma16.check_matmul(tmp_path, "dot_once", "i8", "i32", layout, tile, warps, tile[2], 1, 90)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.s32\.s8\.s8", ptx)


@pytest.mark.parametrize("ty", ["fp16", "bf16"])
@pytest.mark.parametrize("layout", mma16.LAYOUTS + ["both"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((64, 16, 64), 4), ((128, 64, 16), 8)])
def test_one_shot_dot_on_emulated_wgmma(tmp_path, ty, layout, tile, warps):
    ptx = mma16.check_matmul(tmp_path, "dot_once", ty, "fp32", layout, tile, warps, tile[2], 1, 90)
    assert_wgmma(ptx, ty)


@pytest.mark.parametrize("ty", ["fp8e4nv", "fp8e5"])
@pytest.mark.parametrize("layout", mma16.LAYOUTS + ["both"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((128, 32, 64), 8)])
def test_one_shot_fp8_dot_on_emulated_wgmma(tmp_path, ty, layout, tile, warps):
    """An fp8 dot outside loops reads its operands as fp8 (k32), B staged transposed to K-major
    byte by byte, whatever the layouts in memory."""
    ptx = mma16.check_matmul(tmp_path, "dot_once", ty, "fp32", layout, tile, warps, tile[2], 1, 90)
    kind = "e4m3" if ty == "fp8e4nv" else "e5m2"
    assert f"k32.f32.{kind}.{kind}" in ptx and "cvt.rn.f16x2" not in ptx


# check_matmul's loop with tl.dot(..., max_num_imprecise_acc=IMPRECISE).
IMPRECISE_KERNELS = mma16.KERNELS.replace("ACC: tl.constexpr):", "ACC: tl.constexpr, IMPRECISE: tl.constexpr):", 1).replace(
    "acc = tl.dot(a, b, acc, out_dtype=ACC)", "acc = tl.dot(a, b, acc, out_dtype=ACC, max_num_imprecise_acc=IMPRECISE)", 1)


@pytest.mark.parametrize("ty", ["fp8e4nv", "fp8e5"])
@pytest.mark.parametrize("imprecise,run", [(None, None), (0, None), (32, 1), (48, 2), (64, 2), (128, 4)])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 128), 4, 256), ((128, 64, 64), 8, 128)])
def test_fp8_partial_accumulators_on_emulated_wgmma(tmp_path, ty, imprecise, run, tile, warps, K):
    """max_num_imprecise_acc on native fp8 wgmma, as Triton's: each run of that many elements of
    K (one k32 instruction at least, rounded up to whole instructions) accumulates in partial
    accumulators of their own, waited for and added into the result (one add.f32 per
    accumulator register and run); not given, wgmma accumulates all of K; 0 asks for exact
    f32 accumulation: widened to f16 (k16), as Triton 3.6 does. Exact on the emulator, whose
    wait checks that nothing reads the partials before it."""
    BM, BN, BK = tile
    if imprecise is not None and imprecise > BK:
        pytest.skip("max_num_imprecise_acc > K is an error (tests/errors/dot_imprecise_acc_gt_k.py)")
    values = mma16.small_integers(BM * K + K * BN, 4, seed=BM + BN + K)
    constexprs = mma16.matmul_constexprs("matmul", "fp32", "k-major-b", False) + f", IMPRECISE={imprecise}"
    out, ptx = mma16.run_kernel(tmp_path, "matmul", ty, "fp32", values, BM * BN, tile, warps, 3, 90, K, constexprs,
                                defer_copies=True, kernels=IMPRECISE_KERNELS)
    a, b = mma16.operands(values, BM, BN, K, True, False)
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), a @ b)
    if imprecise == 0:
        assert "k16.f32.f16.f16" in ptx and "add.f32" not in ptx
        return
    kind = "e4m3" if ty == "fp8e4nv" else "e5m2"
    instructions = ptx.count(f"k32.f32.{kind}.{kind}")
    assert instructions > 0 and "cvt.rn.f16x2" not in ptx
    per_dot = (BK // 32) * (BM // (16 * warps))  # k steps x m64 tiles of a warpgroup
    dots = instructions // per_dot
    regs = BM * BN // (32 * warps)
    runs = 0 if run is None else -(-(BK // 32) // run)
    assert ptx.count("add.f32") == dots * regs * runs
    # A dot with partial accumulators is never left in flight across iterations.
    assert ("wgmma.wait_group.sync.aligned 1" in ptx) == (run is None)


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("layout", mma16.LAYOUTS)
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 128), ((128, 128, 64), 8, 128)])
def test_wgmma_with_f16_accumulators(tmp_path, stages, layout, tile, warps, K):
    """out_dtype=float16: wgmma .f16.f16.f16 (packed f16 accumulators), sums exact in f16."""
    ptx = mma16.check_matmul(tmp_path, "matmul", "fp16", "fp16", layout, tile, warps, K, stages, 90,
                             defer_copies=stages > 1)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f16\.f16\.f16", ptx)
    assert ".f32.f16.f16" not in ptx


@pytest.mark.parametrize("ty", ["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("tile,warps", [((64, 64, 32), 4), ((64, 128, 64), 4), ((128, 64, 16), 8)])
def test_chained_dots_on_wgmma(tmp_path, ty, tile, warps):
    """P @ V with P the first dot's accumulators: wgmma with A from registers (fp32: tf32 k8,
    A's four registers n-tile j's c0, c2, c1, c3 and V's tile in that K order)."""
    BM, BN, BK = tile
    values = mma16.small_integers(BM * BK + BK * BN + BN * BK, 4, seed=BM + BN + BK)
    out, ptx = mma16.run_kernel(tmp_path, "chained", ty, "fp32", values, BM * BK, tile, warps, 1, 90, 0,
                                ", A_MAJOR=True, B_MAJOR=True, ACC=tl.float32")
    a = values[:BM * BK].reshape(BM, BK)
    b = values[BM * BK:BM * BK + BK * BN].reshape(BK, BN)
    v = values[BM * BK + BK * BN:].reshape(BN, BK)
    p = a @ b if ty == "fp32" else mma16.round_to(a @ b, ty)  # fp32: small integers, exact in tf32
    np.testing.assert_array_equal(out.reshape(BM, BK).astype(np.float64), p @ v)
    if ty == "fp32":
        assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r", ptx)
    else:
        assert_wgmma(ptx, ty)


@pytest.mark.parametrize("kernel,stages", [("matmul", 3), ("dot_once", 1)])
@pytest.mark.parametrize("layout", mma16.LAYOUTS)
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 96), ((128, 128, 64), 8, 128), ((64, 32, 16), 4, 48),
                                          ((64, 128, 32), 8, 64)])
def test_fragments_to_rows_by_stmatrix(tmp_path, monkeypatch, kernel, stages, layout, tile, warps, K):
    """TRITIUM_REDUCE_EXPERIMENT=stmatrix (opt-in until timed): a 16-bit dot result read in the
    flat layout (here the f16 accumulators' store) goes to shared memory by stmatrix on sm_90
    (four 8 x 8 matrices an instruction; the emulator's stmatrix is ldmatrix's inverse), exact
    on every warp grid."""
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "stmatrix")
    ptx = mma16.check_matmul(tmp_path, kernel, "fp16", "fp16", layout, tile, warps, K if kernel == "matmul" else tile[2],
                             stages, 90, defer_copies=stages > 1)
    assert "stmatrix.sync.aligned.m8n8.x" in ptx


def test_stmatrix_with_its_matrices_swapped_is_caught(tmp_path, monkeypatch):
    """The emulation can fail: with stmatrix's first two registers swapped (rows 0-7 and 8-15
    of a tile exchanged), the product comes out wrong. (Without the experiment: no stmatrix.)"""
    ptx = mma16.check_matmul(tmp_path, "dot_once", "fp16", "fp16", "row-major", (64, 64, 32), 4, 32, 1, 90)
    assert "stmatrix" not in ptx
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "stmatrix")
    def swapped(ll):  # the call's arguments (address, w0, w1, ...): w0 and w1 exchanged
        ll, count = re.subn(r'(stmatrix\.sync[^"]*", "[^"]*"\(i32 [^,]+, )(i32 [^,]+), (i32 [^,)]+)',
                            r"\1\3, \2", ll)
        assert count > 0
        return ll
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        mma16.check_matmul(tmp_path, "dot_once", "fp16", "fp16", "row-major", (64, 64, 32), 4, 32, 1, 90,
                           mutate=swapped)


def test_an_operand_overwritten_in_flight_is_caught(tmp_path):
    """With the pipelined loop's wgmma.wait_group 1 made 3, a wgmma is still in flight when the
    copies refill the stage it reads: its wait_group reports the overwritten bytes."""
    def later_waits(ll):
        ll, count = re.subn(r"wgmma\.wait_group\.sync\.aligned 1;", "wgmma.wait_group.sync.aligned 3;", ll)
        assert count > 0
        return ll
    with pytest.raises(AssertionError, match="wgmma operand overwritten in flight"):
        mma16.check_matmul(tmp_path, "matmul", "fp16", "fp32", "row-major", (64, 64, 32), 4, 192, 3, 90,
                           mutate=later_waits)


@pytest.mark.parametrize("broken", ["swizzle", "stride"])
def test_emulator_catches_a_misread_descriptor(tmp_path, monkeypatch, broken):
    """The emulation can fail: a descriptor read with the swizzle's rows taken one bit off, or
    with the stride byte offset ignored, gives a wrong product."""
    source = open(mma16.EMU_C).read()
    if broken == "swizzle":
        patched = source.replace("if (swizzle) a ^= ((a >> 7) & (swizzle / 16 - 1)) << 4;",
                                 "if (swizzle) a ^= ((a >> 8) & (swizzle / 16 - 1)) << 4;")
    else:
        patched = source.replace("start + (mn % 8) * swizzle + (mn / 8) * stride + kb;",
                                 "start + (mn % 8) * swizzle + (mn / 8) * 8 * swizzle * 2 + kb;")
    assert patched != source
    (tmp_path / "broken.c").write_text(patched)
    monkeypatch.setattr(mma16, "EMU_C", str(tmp_path / "broken.c"))
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        mma16.check_matmul(tmp_path, "matmul", "fp16", "fp32", "row-major", (64, 64, 64), 4, 128, 1, 90)


def test_accumulators_read_before_their_wait_are_caught(tmp_path):
    """With its wgmma.wait_group 0 made 1, a one-shot dot's accumulators are still in flight
    when they are stored: they read as NaN tags, not values."""
    def waits_one_short(ll):
        ll, count = re.subn(r"wgmma\.wait_group\.sync\.aligned 0;", "wgmma.wait_group.sync.aligned 1;", ll)
        assert count > 0
        return ll
    mma16.check_matmul(tmp_path, "dot_once", "fp16", "fp32", "row-major", (64, 64, 32), 4, 32, 1, 90)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        mma16.check_matmul(tmp_path, "dot_once", "fp16", "fp32", "row-major", (64, 64, 32), 4, 32, 1, 90,
                           mutate=waits_one_short)


SCALED_KERNELS = mma16.KERNELS + textwrap.dedent('''

    @tritium.jit
    def scaled_fp4(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   B_FMT: tl.constexpr):
        # tl.dot_scaled e2m1 (two values a byte along K) x B_FMT (e2m1 likewise, or e4m3) with
        # e8m0 scales in a loop over K = stride; x holds A's bytes (BM x K/2), B's (K/2 or K
        # rows x BN), A's scales (BM x K/32) and B's (BN x K/32), in that order, row-major.
        PB: tl.constexpr = 2 if B_FMT == "e2m1" else 1
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        ka = tl.arange(0, BK // 2)
        kb = tl.arange(0, BK // PB)
        g = tl.arange(0, BK // 32)
        b_base = BM * (stride // 2)
        sa_base = b_base + (stride // PB) * BN
        sb_base = sa_base + BM * (stride // 32)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, stride, BK):
            a = tl.load(x_ptr + m[:, None] * (stride // 2) + (k0 // 2 + ka)[None, :]).to(tl.uint8, bitcast=True)
            b = tl.load(x_ptr + b_base + (k0 // PB + kb)[:, None] * BN + n[None, :]).to(tl.uint8, bitcast=True)
            sa = tl.load(x_ptr + sa_base + m[:, None] * (stride // 32) + (k0 // 32 + g)[None, :])
            sb = tl.load(x_ptr + sb_base + n[:, None] * (stride // 32) + (k0 // 32 + g)[None, :])
            acc = tl.dot_scaled(a, sa.to(tl.uint8, bitcast=True), "e2m1", b, sb.to(tl.uint8, bitcast=True), B_FMT,
                                acc)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)
''')

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def e4m3_values(codes):
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp, man = (codes >> 3) & 15, codes & 7
    return sign * np.where(exp == 0, man / 8 * 2.0**-6, (1 + man / 8) * np.ldexp(1.0, exp - 7))


@pytest.mark.parametrize("b_fmt", ["e2m1", "e4m3"])
@pytest.mark.parametrize("tile,warps,K,sm", [((64, 64, 128), 4, 256, 90), ((128, 64, 64), 8, 128, 90),
                                             ((64, 32, 64), 2, 128, 80)])
def test_scaled_fp4_dot_on_emulated_wgmma(tmp_path, b_fmt, tile, warps, K, sm):
    """tl.dot_scaled e2m1 x e2m1 packed along K (its two dots of K / 2, low nibbles then high)
    and e2m1 x e4m3 (the e2m1 side scaled on its bytes' shape, then interleaved) on wgmma, with
    e8m0 scales spread over 16 bytes and a 0xFF scale's NaN: every e2m1 byte, e4m3 values of
    magnitude 0.5 to 3.75, scales 2^-1..2^1 (exact sums). Also on sm_80's mma.sync, 2 warps
    (e2m1 only: e4m3 is fp8e4nv, which needs sm_89 as in Triton 3.6; that case pins the error)."""
    if sm < 89 and b_fmt == "e4m3":
        with pytest.raises(subprocess.CalledProcessError) as e:
            mma16.run_kernel(tmp_path, "scaled_fp4", "i8", "fp32", np.zeros(1), 1, tile, warps, 1, sm, K,
                             f", B_FMT='{b_fmt}'", kernels=SCALED_KERNELS)
        assert "type fp8e4nv not supported in this architecture" in e.value.stderr + e.value.stdout
        return
    BM, BN, BK = tile
    rng = np.random.default_rng(BM + BN + K)
    a = rng.integers(0, 256, (BM, K // 2))
    if b_fmt == "e2m1":
        b = rng.integers(0, 256, (K // 2, BN))
        bv = np.stack([E2M1[b & 15], E2M1[b >> 4]], axis=1).reshape(K, BN)
    else:
        b = rng.integers(0, 2, (K, BN)) << 7 | rng.integers(6, 9, (K, BN)) << 3 | rng.integers(0, 8, (K, BN))
        bv = e4m3_values(b)
    sa = rng.integers(126, 129, (BM, K // 32))
    sb = rng.integers(126, 129, (BN, K // 32))
    sa[3, 1] = 255
    sb[5, K // 32 - 1] = 255
    raw = np.concatenate([x.ravel() for x in (a, b, sa, sb)])
    values = np.where(raw > 127, raw - 256, raw).astype(np.float64)  # the bytes as int8
    out, ptx = mma16.run_kernel(tmp_path, "scaled_fp4", "i8", "fp32", values, BM * BN, tile, warps, 1, sm, K,
                                f", B_FMT='{b_fmt}'", kernels=SCALED_KERNELS)
    if sm == 90:
        assert_wgmma(ptx, "bf16")
    else:
        assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    av = np.stack([E2M1[a & 15], E2M1[a >> 4]], axis=2).reshape(BM, K)  # low nibble first
    fa = np.where(sa == 255, np.nan, np.ldexp(1.0, sa - 127))
    fb = np.where(sb == 255, np.nan, np.ldexp(1.0, sb - 127))
    want = (av * np.repeat(fa, 32, axis=1)) @ (bv * np.repeat(fb, 32, axis=1).T)
    c = out.reshape(BM, BN).astype(np.float64)
    assert np.isnan(c[3]).all() and np.isnan(c[:, 5]).all()
    np.testing.assert_array_equal(c, want)


INT8_KEYS_KERNELS = mma16.KERNELS + textwrap.dedent('''

    @tritium.jit
    def int8_keys(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # SageAttention's Q @ K^T in int8: Q (BM x BK) loaded once before the loop, then the
        # key blocks of K (stride x BK, row-major: trans(K_j) is a K-major B), summed in int32.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        q = tl.load(x_ptr + m[:, None] * BK + k[None, :])
        acc = tl.zeros((BM, BN), dtype=tl.int32)
        for j in range(0, stride, BN):
            kb = tl.load(x_ptr + BM * BK + (j + n)[:, None] * BK + k[None, :])
            acc += tl.dot(q, tl.trans(kb))
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)
''')


@pytest.mark.parametrize("tile,warps,stages", [((64, 64, 64), 4, 3), ((128, 64, 128), 8, 4)])
def test_int8_loop_invariant_a_written_once(tmp_path, tile, warps, stages):
    """A loop-invariant int8 A on wgmma (SageAttention's Q) is written into its own buffer once
    before the loop, K-major as wgmma reads it, and the K-major B is copied by cp.async. Before,
    an int8 dot whose A was not copied staged both operands itself in every iteration: Q held
    in registers through the loop and each key block loaded a byte at a time (SageAttention's
    head-128 forward: 253 registers, Triton 3.6 172)."""
    BM, BN, BK = tile
    L = 3 * BN
    gpu_ir = mma16.emitter(tmp_path, "int8_keys", "i8", "i32", tile, warps, stages, 90, "",
                           INT8_KEYS_KERNELS)("gpu-ir")
    assert re.search(r"wgmma m64n\d+k32 s8.*A written once before the loop", gpu_ir), gpu_ir
    assert "16-byte copies along K, held transposed (K-major)" in gpu_ir, gpu_ir
    values = mma16.small_integers(BM * BK + L * BK, 7, seed=BM + BK)
    out, ptx = mma16.run_kernel(tmp_path, "int8_keys", "i8", "i32", values, BM * BN, tile, warps, stages, 90, L, "",
                                defer_copies=True, kernels=INT8_KEYS_KERNELS)
    q = values[:BM * BK].reshape(BM, BK)
    keys = values[BM * BK:].reshape(L, BK)
    want = sum(q @ keys[j:j + BN].T for j in range(0, L, BN))
    np.testing.assert_array_equal(out.reshape(BM, BN).astype(np.float64), want)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.s32\.s8\.s8", ptx) and "cp.async" in ptx

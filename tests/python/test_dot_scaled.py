"""tl.dot_scaled in the interpreter (issue 9) against the numpy reference of
dot_scaled_kernels.py: every pair of the five formats (e2m1 packed two a byte along K, e4m3,
e5m2 as uint8 or as fp8, bf16 as uint16, fp16), scales on either side or none, e2m1 packed
along M / N (k_pack=False), the unpacking order (low nibble first), batched 3-D, acc, the
e8m0 edge values (0 gives 0, 254, 0xFF gives NaN unless fast_math), and the compute type
(fp16 when either side is fp16, which rounds a bf16 operand)."""

import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

import tritium
import tritium.language as tl

import dot_scaled_kernels as dsk
from dot_scaled_kernels import operand, packed_shape, scales

FORMATS = ["e2m1", "e4m3", "e5m2", "bf16", "fp16"]


def run(a, sa, fa, b, sb, fb, M, N, K, acc=None, a_k_pack=True, b_k_pack=True, fast_math=False):
    c = np.full((M, N), np.float32(7.0))
    dsk.dot_scaled_kernel[(1,)](a, sa, b, sb, acc, c, M=M, N=N, K=K, A_ROWS=a.shape[0], A_COLS=a.shape[1],
                                B_ROWS=b.shape[0], B_COLS=b.shape[1], A_FORMAT=fa, B_FORMAT=fb, A_K_PACK=a_k_pack,
                                B_K_PACK=b_k_pack, HAS_ACC=acc is not None, FAST_MATH=fast_math)
    return c


def check(c, want, bound):
    with np.errstate(over="ignore"):
        want = want.astype(np.float32).astype(np.float64)  # an fp32 result overflows where float64 does not
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(c), nan)
    got = c.astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.where(got == want, 0.0, np.abs(got - want))[~nan]
    assert (err <= 2e-6 * bound[~nan] + 1e-30).all(), f"max error {err.max():.3g}"


@pytest.mark.parametrize("fa", FORMATS)
@pytest.mark.parametrize("fb", FORMATS)
def test_every_format_pair(rng, fa, fb):
    M, N, K = 16, 32, 64
    compute = dsk.compute_type(fa, fb)
    a = operand(rng, fa, packed_shape(fa, M, K, 1, True), compute)
    b = operand(rng, fb, packed_shape(fb, K, N, 0, True), compute)
    # Scales on both sides, one side, or none, spread over the 25 pairs.
    which = (FORMATS.index(fa) + FORMATS.index(fb)) % 4
    sa = scales(rng, M, K, compute) if which in (0, 1) else None
    sb = scales(rng, N, K, compute) if which in (0, 2) else None
    check(run(a, sa, fa, b, sb, fb, M, N, K), *dsk.reference(a, sa, fa, b, sb, fb))


def test_e2m1_unpacking_order_and_values():
    # One byte per row of a: low nibble = element 2j, high nibble = element 2j + 1; every
    # one of the 16 codes appears; b picks single K positions (identity-like), so c shows
    # the decoded values themselves.
    M, N, K = 16, 32, 32
    a = np.zeros((M, K // 2), np.uint8)
    codes = np.arange(16, dtype=np.uint8)
    a[:, 0] = codes | (((codes + 5) % 16) << 4)
    b = np.zeros((K, N), np.float16)
    b[0, 0] = 1.0  # c[:, 0] = element 0 (low nibble)
    b[1, 1] = 1.0  # c[:, 1] = element 1 (high nibble)
    c = run(a, None, "e2m1", b, None, "fp16", M, N, K)
    values = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
    np.testing.assert_array_equal(c[:, 0], np.array(values, np.float32))
    np.testing.assert_array_equal(c[:, 1], np.array([values[(i + 5) % 16] for i in range(16)], np.float32))


@pytest.mark.parametrize("side", ["lhs", "rhs"])
def test_e2m1_packed_along_m_or_n(rng, side):
    M, N, K = 32, 32, 64
    if side == "lhs":
        a = operand(rng, "e2m1", packed_shape("e2m1", M, K, 1, False))  # [M / 2, K]
        b = operand(rng, "e4m3", (K, N))
        sa, sb = scales(rng, M, K, "bf16"), scales(rng, N, K, "bf16")
        c = run(a, sa, "e2m1", b, sb, "e4m3", M, N, K, a_k_pack=False)
        want = dsk.reference(a, sa, "e2m1", b, sb, "e4m3", a_k_pack=False)
    else:
        a = operand(rng, "bf16", (M, K))
        b = operand(rng, "e2m1", packed_shape("e2m1", K, N, 0, False))  # [K, N / 2]
        sa, sb = None, scales(rng, N, K, "bf16")
        c = run(a, sa, "bf16", b, sb, "e2m1", M, N, K, b_k_pack=False)
        want = dsk.reference(a, sa, "bf16", b, sb, "e2m1", b_k_pack=False)
    check(c, *want)


def test_e2m1_packed_along_n_pairs_columns():
    # b packed along N: byte [k, j] holds columns 2j (low) and 2j + 1 (high).
    M, N, K = 16, 32, 32
    a = np.zeros((M, K), np.float16)
    a[0, 3] = 1.0  # c[0, :] = row 3 of the unpacked b
    b = np.zeros((K, N // 2), np.uint8)
    b[3, :] = np.arange(16, dtype=np.uint8) | (np.uint8(2) << 4)  # low: codes 0..15, high: 1.0
    c = run(a, None, "fp16", b, None, "e2m1", M, N, K, b_k_pack=False)
    np.testing.assert_array_equal(c[0, 0::2], dsk.E2M1.astype(np.float32))
    np.testing.assert_array_equal(c[0, 1::2], np.ones(16, np.float32))


def test_scale_edge_values_and_nan(rng):
    M, N, K = 16, 16, 64
    a = operand(rng, "e4m3", (M, K))
    b = operand(rng, "e5m2", (K, N))
    sa = np.full((M, K // 32), 127, np.uint8)
    sa[0, 0] = 0      # the whole group is multiplied by 0
    sa[1, 1] = 254    # 2^127: overflows to inf in the products unless the value is 0
    sa[2, 0] = 255    # NaN: row 2 of c is NaN
    sb = np.full((N, K // 32), 127, np.uint8)
    sb[5, 1] = 255    # NaN: column 5 of c is NaN
    a[1, 32:64] = 0   # one nonzero value in the 2^127 group: no order-dependent overflow
    a[1, 40] = 0x38   # 1.0
    c = run(a, sa, "e4m3", b, sb, "e5m2", M, N, K)
    want, bound = dsk.reference(a, sa, "e4m3", b, sb, "e5m2")
    assert np.isnan(c[2]).all() and np.isnan(c[:, 5]).all()
    assert not np.isnan(c[0]).all()
    check(c, want, bound)


def test_fast_math_skips_the_nan_select(rng):
    # With fast_math, 0xFF is just 2^128 (inf in bf16): a zero value times it is NaN, any
    # other value +-inf; without it, the whole group is NaN.
    M, N, K = 16, 16, 32
    a = np.zeros((M, K), np.uint8)
    a[0, :] = 0x38  # e4m3 1.0
    b = np.zeros((K, N), np.uint8)
    b[:, 0] = 0x38
    sa = np.full((M, K // 32), 127, np.uint8)
    sa[0, 0] = 255
    c = run(a, sa, "e4m3", b, None, "e4m3", M, N, K, fast_math=True)
    assert c[0, 0] == np.inf
    assert np.isnan(c[0, 1])  # 0 * inf in the scaled operand, then in the sum
    assert c[1, 0] == 0.0
    c = run(a, sa, "e4m3", b, None, "e4m3", M, N, K, fast_math=False)
    assert np.isnan(c[0]).all() and (c[1:] == 0).all()


def test_acc_is_added(rng):
    M, N, K = 16, 16, 64
    a = operand(rng, "e5m2", (M, K))
    b = operand(rng, "e2m1", (K // 2, N))
    sa, sb = scales(rng, M, K, "bf16"), scales(rng, N, K, "bf16")
    acc = rng.standard_normal((M, N)).astype(np.float32)
    check(run(a, sa, "e5m2", b, sb, "e2m1", M, N, K, acc=acc), *dsk.reference(a, sa, "e5m2", b, sb, "e2m1", acc))


def test_fp16_compute_type_rounds_bf16(rng):
    # bf16 x fp16: both upcast to fp16, so bf16 values outside fp16's range change: 2^17
    # overflows to inf, 2^-20 * (1 + 2^-7) rounds to the fp16 subnormal 2^-20.
    M, N, K = 16, 16, 32
    a = np.zeros((M, K), np.uint16)
    a[0, 0] = dsk.bf16_bits(np.array([2.0 ** 17]))[0]
    a[1, 0] = dsk.bf16_bits(np.array([2.0 ** -20 * (1 + 2 ** -7)]))[0]
    a[2, 0] = dsk.bf16_bits(np.array([1 + 2 ** -7]))[0]
    b = np.zeros((K, N), np.float16)
    b[0, 0] = 1.0
    c = run(a, None, "bf16", b, None, "fp16", M, N, K)
    assert c[0, 0] == np.inf
    assert c[1, 0] == np.float32(2.0 ** -20)
    assert c[2, 0] == np.float32(1 + 2 ** -7)
    # bf16 x bf16 computes in bf16: nothing is lost.
    b16 = np.zeros((K, N), np.uint16)
    b16[0, 0] = dsk.bf16_bits(np.array([1.0]))[0]
    c = run(a, None, "bf16", b16, None, "bf16", M, N, K)
    assert c[0, 0] == np.float32(2.0 ** 17)
    assert c[1, 0] == np.float32(2.0 ** -20 * (1 + 2 ** -7))


def test_fp8_typed_operands_and_int8_scales(rng):
    # e4m3 / e5m2 passed as fp8 tensors (no bitcast) and scales as int8: the same bytes.
    M, N, K = 16, 16, 64
    a = operand(rng, "e4m3", (M, K))
    b = operand(rng, "e5m2", (K, N))
    sa, sb = scales(rng, M, K, "bf16"), scales(rng, N, K, "bf16")
    c = np.zeros((M, N), np.float32)
    dsk.dot_scaled_kernel[(1,)](tritium.reinterpret(a, tl.float8e4nv), sa.view(np.int8),
                                tritium.reinterpret(b, tl.float8e5), sb.view(np.int8), None, c, M=M, N=N, K=K,
                                A_ROWS=M, A_COLS=K, B_ROWS=K, B_COLS=N, A_FORMAT="e4m3", B_FORMAT="e5m2",
                                A_K_PACK=True, B_K_PACK=True, HAS_ACC=False, FAST_MATH=False)
    check(c, *dsk.reference(a, sa, "e4m3", b, sb, "e5m2"))


def test_batched_3d(rng):
    B, M, N, K = 2, 16, 16, 64
    a = operand(rng, "e2m1", (B, M, K // 2))
    b = operand(rng, "e4m3", (B, K, N))
    sa = rng.integers(120, 135, (B, M, K // 32), dtype=np.uint8)
    sb = rng.integers(120, 135, (B, N, K // 32), dtype=np.uint8)
    c = np.zeros((B, M, N), np.float32)
    dsk.dot_scaled_3d_kernel[(1,)](a, sa, b, sb, c, B=B, M=M, N=N, K=K, A_COLS=K // 2, B_ROWS=K, A_FORMAT="e2m1",
                                   B_FORMAT="e4m3")
    check(c, *dsk.reference(a, sa, "e2m1", b, sb, "e4m3"))


def test_batched_e2m1_pair_with_nan_scales(rng):
    # Both sides e2m1 packed along K: taken as two dots (low nibbles, then high), each scale
    # group spread over 16 bytes; a 0xFF scale still makes its row / column NaN.
    B, M, N, K = 2, 16, 16, 64
    a = operand(rng, "e2m1", (B, M, K // 2))
    b = operand(rng, "e2m1", (B, K // 2, N))
    sa = rng.integers(120, 135, (B, M, K // 32), dtype=np.uint8)
    sb = rng.integers(120, 135, (B, N, K // 32), dtype=np.uint8)
    sa[1, 3, 1] = 255
    sb[0, 5, 0] = 255
    c = np.zeros((B, M, N), np.float32)
    dsk.dot_scaled_3d_kernel[(1,)](a, sa, b, sb, c, B=B, M=M, N=N, K=K, A_COLS=K // 2, B_ROWS=K // 2,
                                   A_FORMAT="e2m1", B_FORMAT="e2m1")
    assert np.isnan(c[1, 3]).all() and np.isnan(c[0, :, 5]).all()
    check(c, *dsk.reference(a, sa, "e2m1", b, sb, "e2m1"))


@tritium.jit
def fp4_loop(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # tests/triton_suite/gpu_sweep_repro/scaled_fp4_spills.py's K-packed form.
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    a_offs = rows[:, None] * (K // 2) + tl.arange(0, BK // 2)[None, :]
    b_offs = tl.arange(0, BK // 2)[:, None] * BN + cols[None, :]
    sa_offs = rows[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    sb_offs = cols[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + a_offs)
        b = tl.load(b_ptr + b_offs)
        sa = tl.load(sa_ptr + sa_offs)
        sb = tl.load(sb_ptr + sb_offs)
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc)
        a_offs += BK // 2
        b_offs += (BK // 2) * BN
        sa_offs += BK // 32
        sb_offs += BK // 32
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


def test_e2m1_pair_upcast_needs_few_shared_memory_round_trips():
    # 64x64x128 at 4 warps for sm_90: the interleave of the nibbles (join + reshape, then a
    # transpose for B) moved every upcast value through shared memory before the dots' own
    # staging: 236 st.shared, 340 ld.shared and 23 barriers in the PTX, and ptxas spilled
    # 760 bytes. As two dots on the bytes' own shapes: 36 / 31 / 9, 160 registers and no
    # spills (Triton 3.6: 115 / 56 / 10, 204 registers, no spills).
    ptx = fp4_loop.emit("ptx", signature="*u8:16, *u8:16, *u8:16, *u8:16, *fp32:16, i32:16, BM=64, BN=64, BK=128",
                        num_warps=4, arch=90)
    stores, loads = ptx.count("st.shared"), ptx.count("ld.shared")
    barriers = len(re.findall(r"\bbar\.sync|\bbarrier\.sync", ptx))
    assert "wgmma.mma_async" in ptx
    assert stores + loads <= 160 and barriers <= 16, (stores, loads, barriers)
    from tritium.compiled import _find_ptxas
    ptxas = _find_ptxas()
    if ptxas is None:
        return  # the PTX counts above are the check without NVIDIA's assembler
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        info = subprocess.run([ptxas, "-arch=sm_90a", "-v", path, "-o", os.devnull], capture_output=True,
                              text=True).stderr
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill stores", info)]
    assert spills and max(spills) == 0, info

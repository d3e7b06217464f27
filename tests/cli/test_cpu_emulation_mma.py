"""mma.sync and cp.async on the host: test_cpu_emulation.py's driver (each thread of the CTA a
host thread) with the inline PTX of tf32 and int8 matmuls made calls. `cp.async` copies at once (its
commit and wait groups then order nothing and are dropped; the barriers stay), with shared
addresses read as offsets from the shared array; `cvt.rna.tf32.f32` rounds to nearest, ties
away; `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` (and int8's m16n8k32) exchanges the warp's fragments
through per-warp slots between two warp barriers (PTX ISA's fragment layouts: A a0..a3 at
(g | g+8, t | t+4), B b0, b1 at (t | t+4, g), C at (g | g+8, 2t | 2t+1), g = lane / 4,
t = lane % 4). The driver's inputs are small integers, exact in tf32 and in fp32 sums, so
the kernels' results must equal numpy's exactly: the fragment reads, the stage buffers and
their rotation, the copies' addresses and masks are checked without a GPU."""

import os
import re
import subprocess
import textwrap

import numpy as np
import pytest

import test_cpu_emulation as emu

pytestmark = emu.pytestmark

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def matmul(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               A_MAJOR: tl.constexpr, B_MAJOR: tl.constexpr, ACC: tl.constexpr):
        # C (BM x BN) = A (BM x K) @ B (K x BN), K = stride; A at x (row-major, or M-major with
        # A_MAJOR 0), B after it (row-major, or K-major with B_MAJOR 0); ACC the accumulator
        # (int32 for int8, stored wrapped to int8: the driver has one element type).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k0 in range(0, stride, BK):
            if A_MAJOR:
                a = tl.load(x_ptr + m[:, None] * stride + (k0 + k)[None, :])
            else:
                a = tl.load(x_ptr + m[:, None] + (k0 + k)[None, :] * BM)
            if B_MAJOR:
                b = tl.load(x_ptr + BM * stride + (k0 + k)[:, None] * BN + n[None, :])
            else:
                b = tl.load(x_ptr + BM * stride + (k0 + k)[:, None] + n[None, :] * stride)
            acc = tl.dot(a, b, acc, out_dtype=ACC)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc.to(out_ptr.dtype.element_ty))


    @tritium.jit
    def state_update(x_ptr, out_ptr, T, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # A chunked state update (flash-linear-attention's chunk_fwd_kernel_h, launched at 1
        # warp): h (BM x BN) = sum over chunks of k^T (BM x BK) @ v (BK x BN); k (T x BM) at x,
        # read transposed (contiguous along BM), v (T x BN) after it (T a multiple of BK: this
        # driver has no predicated loads; test_cpu_emulation_mma16.py masks the last chunk).
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        h = tl.zeros((BM, BN), dtype=tl.float32)
        for chunk in range(tl.cdiv(T, BK)):
            t = chunk * BK + tl.arange(0, BK)
            kt = tl.load(x_ptr + rows[:, None] + t[None, :] * BM)
            vt = tl.load(x_ptr + T * BM + t[:, None] * BN + cols[None, :])
            h += tl.dot(kt, vt)
        tl.store(out_ptr + rows[:, None] * BN + cols[None, :], h)


    @tritium.jit
    def gated_state_update(x_ptr, out_ptr, T, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # state_update with fla's gate (chunk_fwd_kernel_h with USE_GK: `b_k * exp2(b_gk_last[:,
        # None] - b_gk)`, here without the exp2): h = sum over chunks of (k^T * (g^T - c[:, None]))
        # @ v; k (T x BM) at x, g (T x BM) after it, both read transposed (contiguous along BM), c
        # a per-row constant, v (T x BN) last.
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        h = tl.zeros((BM, BN), dtype=tl.float32)
        for chunk in range(tl.cdiv(T, BK)):
            t = chunk * BK + tl.arange(0, BK)
            kt = tl.load(x_ptr + rows[:, None] + t[None, :] * BM)
            gt = tl.load(x_ptr + T * BM + rows[:, None] + t[None, :] * BM)
            vt = tl.load(x_ptr + 2 * T * BM + t[:, None] * BN + cols[None, :])
            h += tl.dot(kt * (gt - (rows % 3).to(tl.float32)[:, None]), vt)
        tl.store(out_ptr + rows[:, None] * BN + cols[None, :], h)


    @tritium.jit
    def scaled_b(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # A dequantizing matmul's shape: C = A @ (B * s[None, :]), B scaled per column inside
        # the loop; A (BM x K, K = stride) at x, B (K x BN) after it, s (BN) after B.
        # `s[None, :]` is the same in every iteration (gpu/hoist_invariants moves it out).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        k = tl.arange(0, BK)
        s = tl.load(x_ptr + BM * stride + stride * BN + n)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, stride, BK):
            a = tl.load(x_ptr + m[:, None] * stride + (k0 + k)[None, :])
            b = tl.load(x_ptr + BM * stride + (k0 + k)[:, None] * BN + n[None, :])
            acc = tl.dot(a, b * s[None, :], acc)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)
''')

DRIVER_MMA = r'''
extern char __tritium_shared[];
void emu_cp_async(unsigned dst, long source, int bytes, int from_source) {
  char* to = __tritium_shared + dst;  // dst: an offset (host_ir_mma)
  const char* src = (const char*)source;
  for (int i = 0; i < bytes; ++i) to[i] = i < from_source ? src[i] : 0;
}
unsigned emu_cvt_tf32(float x) {  // round to 10 mantissa bits, ties away from zero
  unsigned u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0x7f800000u) return u & 0xffffe000u;
  return (u + 0x1000u) & 0xffffe000u;
}
static unsigned mma_a[1024][4], mma_b[1024][2];
static float tf32_value(unsigned bits) { float f; memcpy(&f, &bits, 4); return f; }
void emu_mma_tf32(unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1,
                  float c0, float c1, float c2, float c3, float* d) {
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  mma_a[emu_tid][0] = a0, mma_a[emu_tid][1] = a1, mma_a[emu_tid][2] = a2, mma_a[emu_tid][3] = a3;
  mma_b[emu_tid][0] = b0, mma_b[emu_tid][1] = b1;
  pthread_barrier_wait(&warp[w]);
  int g = lane / 4, t = lane % 4;
  float c[4] = {c0, c1, c2, c3};
  for (int r = 0; r < 4; ++r) {
    int row = g + (r >= 2 ? 8 : 0), col = 2 * t + (r & 1);
    float sum = c[r];
    for (int k = 0; k < 8; ++k) {
      float a = tf32_value(mma_a[base + (row % 8) * 4 + k % 4][(row >= 8) + 2 * (k >= 4)]);
      float b = tf32_value(mma_b[base + col * 4 + k % 4][k >= 4]);
      sum += a * b;
    }
    d[r] = sum;
  }
  pthread_barrier_wait(&warp[w]);
}
// m16n8k32 s8: a0..a3 four bytes along k at (g | g+8, 4t | 16+4t), b0, b1 at (4t | 16+4t, g);
// int32 sums saturated at the limits (.satfinite).
void emu_mma_s8(unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1,
                int c0, int c1, int c2, int c3, int* d) {
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  mma_a[emu_tid][0] = a0, mma_a[emu_tid][1] = a1, mma_a[emu_tid][2] = a2, mma_a[emu_tid][3] = a3;
  mma_b[emu_tid][0] = b0, mma_b[emu_tid][1] = b1;
  pthread_barrier_wait(&warp[w]);
  int g = lane / 4, t = lane % 4;
  int c[4] = {c0, c1, c2, c3};
  for (int r = 0; r < 4; ++r) {
    int row = g + (r >= 2 ? 8 : 0), col = 2 * t + (r & 1);
    long sum = c[r];
    for (int k = 0; k < 32; ++k) {
      unsigned aw = mma_a[base + (row % 8) * 4 + (k % 16) / 4][(row >= 8) + 2 * (k >= 16)];
      unsigned bw = mma_b[base + col * 4 + (k % 16) / 4][k >= 16];
      sum += (long)(signed char)(aw >> (8 * (k % 4))) * (signed char)(bw >> (8 * (k % 4)));
    }
    d[r] = sum > 2147483647L ? 2147483647 : sum < -2147483648L ? (int)-2147483648L : (int)sum;
  }
  pthread_barrier_wait(&warp[w]);
}
'''

def mma_wrapper(name, t):
    """An IR function returning mma's four accumulators as a struct, around the driver's C
    function that writes them through a pointer (the C ABI of a struct return differs)."""
    c = ", ".join(f"{t} %c{i}" for i in range(4))
    loads = "".join(f"  %p{i} = getelementptr {t}, ptr %d, i64 {i}\n  %d{i} = load {t}, ptr %p{i}\n" for i in range(4))
    struct = f"{{ {t}, {t}, {t}, {t} }}"
    inserts, prev = "", "poison"
    for i in range(4):
        inserts += f"  %r{i} = insertvalue {struct} {prev}, {t} %d{i}, {i}\n"
        prev = f"%r{i}"
    return (f"declare void @{name}(i32, i32, i32, i32, i32, i32, {t}, {t}, {t}, {t}, ptr)\n"
            f"define {struct} @{name}_ir(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, {c}) {{\n"
            f"  %d = alloca [4 x {t}], align 16\n"
            f"  call void @{name}(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, {c}, ptr %d)\n"
            f"{loads}{inserts}  ret {struct} %r3\n}}\n")


MMA_WRAPPER = mma_wrapper("emu_mma_tf32", "float") + mma_wrapper("emu_mma_s8", "i32") + '''
declare void @emu_cp_async(i32, i64, i32, i32)
declare i32 @emu_cvt_tf32(float)
'''


def host_ir_mma(ll):
    """emu.host_ir, then the inline PTX of tf32 and int8 mma.sync loops as calls (see the
    docstring)."""
    ll = ll.replace("ptrtoint (ptr addrspace(3) @__tritium_shared to i32)", "0")
    ll = re.sub(r'(tail )?call void asm sideeffect "cp\.async\.(?:commit|wait)_group[^"]*", ""\(\)[^\n]*', "", ll)
    # cp.async.{ca,cg}.shared.global [dst], [src], bytes, size (a source size, or ignore-src).
    def copy(m):
        bytes_, constraint, dst, src, last = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        if constraint == "b":  # ignore-src: the predicate set means zeros
            size = f"%emu.size.{abs(hash(m.group(0))) % 10**9}"
            return (f"{size} = select {last}, i32 0, i32 {bytes_}\n  "
                    f"call void @emu_cp_async(i32 {dst}, i64 {src}, i32 {bytes_}, i32 {size})")
        return f"call void @emu_cp_async(i32 {dst}, i64 {src}, i32 {bytes_}, {last})"
    ll = re.sub(r'(?:tail )?call void asm sideeffect "cp\.async\.c[ag]\.shared\.global \[\$0\], \[\$1\], (\d+), \$2;", '
                r'"r,l,([rb])"\(i32 ([^,]+), i64 ([^,]+), (i(?:32|1) [^)]+)\)[^\n]*', copy, ll)
    ll = re.sub(r'(?:tail )?call i32 asm "cvt\.rna\.tf32\.f32 \$0, \$1;", "=r,f"\(', "call i32 @emu_cvt_tf32(", ll)
    ll = re.sub(r'(?:tail )?call \{ float, float, float, float \} asm "mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32'
                r'\.tf32\.f32[^"]*", "[^"]*"\(', "call { float, float, float, float } @emu_mma_tf32_ir(", ll)
    ll = re.sub(r'(?:tail )?call \{ i32, i32, i32, i32 \} asm "mma\.sync\.aligned\.m16n8k32\.row\.col\.satfinite\.s32'
                r'\.s8\.s8\.s32[^"]*", "[^"]*"\(', "call { i32, i32, i32, i32 } @emu_mma_s8_ir(", ll)
    return emu.host_ir(ll) + MMA_WRAPPER


def run_mma(tmp_path, kernel, tile, warps, stages, sm, nin, nout, stride, constexprs, ty="fp32"):
    """The kernel through the host driver (`ty` data: fp32 or i8); returns input, output and
    the PTX."""
    source = tmp_path / "kernels.py"
    source.write_text(KERNELS)
    BM, BN, BK = tile
    signature = f"*{ty}:16, *{ty}:16, i32:16, BM={BM}, BN={BN}, BK={BK}{constexprs}"
    def emit(what):
        return subprocess.run([emu.CLI, "compile", str(source), "--kernel", kernel, "--signature", signature,
                               "--num-warps", str(warps), "--num-stages", str(stages), "--arch", f"sm_{sm}",
                               "--emit", what], capture_output=True, text=True, check=True).stdout
    ll = emit("llvm")
    host = host_ir_mma(ll)
    assert " asm " not in host, "inline PTX left: " + re.search(r' asm [^\n]*', host).group(0)[:200]
    (tmp_path / "k.ll").write_text(host)
    subprocess.run([emu.LLC, "-O1", "-relocation-model=pic", "-filetype=obj", str(tmp_path / "k.ll"), "-o",
                    str(tmp_path / "k.o")], check=True)
    driver = emu.DRIVER.replace("void KERNEL(", DRIVER_MMA + "void KERNEL(", 1)
    ctype, nptype = emu.TYPES[ty]
    (tmp_path / "driver.c").write_text(driver.replace("KERNEL", kernel).replace("CTYPE", ctype))
    subprocess.run([emu.CC, "-O1", str(tmp_path / "driver.c"), str(tmp_path / "k.o"), "-o", str(tmp_path / "run"),
                    "-lpthread", "-lm"], check=True)
    raw = subprocess.run([str(tmp_path / "run"), str(nin), str(nout), str(32 * warps), str(stride)],
                         capture_output=True, check=True).stdout
    data = np.frombuffer(raw, dtype=nptype)
    return data[:nin], data[nin:nin + nout], emit("ptx")


@pytest.mark.parametrize("ty", ["fp32", "i8"])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("layout", ["row-major", "k-major-b", "m-major-a"])
@pytest.mark.parametrize("tile,warps,K", [((64, 64, 32), 4, 128), ((32, 64, 64), 2, 64), ((64, 32, 32), 1, 96)])
def test_matmul_on_emulated_mma(tmp_path, ty, stages, sm, layout, tile, warps, K):
    """fp32 in tf32 (m16n8k8) and int8 (m16n8k32, int32 sums) against numpy, exactly."""
    if ty == "fp32" and sm == 90 and warps % 4 == 0:
        pytest.skip("tf32 on sm_90 with whole warpgroups runs on wgmma (k8), not mma.sync: "
                    "test_cpu_emulation_wgmma.py")
    if ty == "i8" and sm == 90 and warps % 4 == 0 and (stages == 1 or layout == "k-major-b"):
        pytest.skip("int8 on sm_90 runs on wgmma (k32 .s32.s8.s8) where its operands reach shared memory "
                    "K-major (gpu/int8_wgmma.h): test_cpu_emulation_wgmma.py")
    BM, BN, BK = tile
    a_major, b_major = layout != "m-major-a", layout != "k-major-b"
    nin, nout = BM * K + K * BN, BM * BN
    acc = "tl.int32" if ty == "i8" else "tl.float32"
    x, out, ptx = run_mma(tmp_path, "matmul", tile, warps, stages, sm, nin, nout, K,
                          f", A_MAJOR={a_major}, B_MAJOR={b_major}, ACC={acc}", ty=ty)
    a = x[:BM * K].reshape(BM, K) if a_major else x[:BM * K].reshape(K, BM).T
    b = x[BM * K:].reshape(K, BN) if b_major else x[BM * K:].reshape(BN, K).T
    if ty == "i8":
        expected = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int8)  # wrapped, as stored
        assert "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32" in ptx
    else:
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx
    np.testing.assert_array_equal(out.reshape(BM, BN), expected)
    # num_stages 3 pipelines every operand (cp.async, no global load left in the loop).
    assert ("cp.async" in ptx) == (stages > 1)
    if stages > 1:
        assert "ld.global" not in ptx


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("tile,warps,T", [((16, 16, 64), 1, 128), ((16, 32, 64), 1, 192), ((32, 16, 32), 2, 96)])
def test_transposed_operand_at_small_warps(tmp_path, sm, tile, warps, T):
    """A dot at 1 and 2 warps whose A is loaded transposed (contiguous along M) and staged by the dot from its coalesced slot (num_stages 1): exact against numpy. The
    slot's stores share a few base registers ([base+offset]), as stage_slot computes one
    per-thread base: before, each of the 16 x 64 operand's elements had its own address
    (25 distinct registers at 1 warp, hoisted out of the loop and live through it: 128
    registers where Triton needs 66)."""
    BM, BN, BK = tile
    nin, nout = T * BM + T * BN, BM * BN
    x, out, ptx = run_mma(tmp_path, "state_update", tile, warps, 1, sm, nin, nout, T, "")
    k = x[:T * BM].reshape(T, BM)
    v = x[T * BM:].reshape(T, BN)
    expected = (k.T.astype(np.float64) @ v.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out.reshape(BM, BN), expected)
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx
    bases = set(re.findall(r"st\.shared(?:\.v\d)?\.b32\s+\[(%rd?\d+)", ptx))
    assert 0 < len(bases) <= 4, sorted(bases)


def to_tf32(x):
    """fp32 values rounded as cvt.rna.tf32.f32 rounds them (to nearest, ties away)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("tile,warps,T", [((16, 16, 64), 1, 128), ((32, 16, 32), 2, 96)])
def test_transposed_operand_gated_by_a_second_load(tmp_path, sm, stages, tile, warps, T):
    """fla's gated state update: kᵀ times a function of a second load of its shape, also
    contiguous along M (its gate), before the dot. Both loads are made along M in 16-byte runs
    (gpu/coalesce.cpp's chain_to_dots takes the gate as the chain's other load; before, the
    chain was refused and both were loaded an element at a time), the product computed there
    and staged by the dot. Against numpy, the product rounded to tf32 as the dot rounds it."""
    BM, BN, BK = tile
    nin, nout = 2 * T * BM + T * BN, BM * BN
    x, out, ptx = run_mma(tmp_path, "gated_state_update", tile, warps, stages, sm, nin, nout, T, "")
    k = x[:T * BM].reshape(T, BM)
    g = x[T * BM:2 * T * BM].reshape(T, BM)
    v = x[2 * T * BM:].reshape(T, BN)
    a = to_tf32(k.T * (g.T - (np.arange(BM) % 3).astype(np.float32)[:, None]))
    expected = a.astype(np.float64) @ to_tf32(v).astype(np.float64)
    np.testing.assert_allclose(out.reshape(BM, BN), expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx
    signature = f"*fp32:16, *fp32:16, i32:16, BM={BM}, BN={BN}, BK={BK}"
    ir = subprocess.run([emu.CLI, "compile", str(tmp_path / "kernels.py"), "--kernel", "gated_state_update",
                         "--signature", signature, "--num-warps", str(warps), "--num-stages", str(stages), "--arch",
                         f"sm_{sm}", "--emit", "gpu-ir"], capture_output=True, text=True, check=True).stdout
    loads = [line for line in ir.splitlines() if "= load" in line and f"{BM}x{BK}xfp32" in line]
    assert len(loads) == 2 and all("spt = [4, 1]" in line and "order = [0, 1]" in line for line in loads), loads
    # k's and g's elements four to a load: 2 x BM x BK / 4 vector loads in all, no scalar one.
    per_thread = BM * BK // (32 * warps)
    assert len(re.findall(r"ld\.global(?:\.nc)?\.v4\.b32", ptx)) >= 2 * per_thread // 4
    assert not re.search(r"ld\.global(?:\.nc)?\.b32", ptx)


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("stages", [1, 3])
def test_loop_invariant_scale_of_an_operand(tmp_path, sm, stages):
    """B scaled per column by a vector loaded before the loop (a dequantizing matmul): exact
    against numpy, and the scale's broadcast, a round trip through shared memory between two
    barriers, is made once before the loop instead of in every iteration (hoist_invariants).
    With 3 stages B's load, which reaches the dot through the multiply, is pipelined: copied
    ahead by cp.async and read back into registers by each thread (AsyncOperand::read_back)."""
    # One warp: the scale load is not replicated (no predicated loads here); B's tile 16 x 32,
    # so the broadcast is 64 bytes a thread, as much as hoist_invariants moves.
    BM, BN, BK, K, warps = 32, 32, 16, 96, 1
    nin, nout = BM * K + K * BN + BN, BM * BN
    x, out, ptx = run_mma(tmp_path, "scaled_b", (BM, BN, BK), warps, stages, sm, nin, nout, K, "")
    a = x[:BM * K].reshape(BM, K)
    b = x[BM * K:BM * K + K * BN].reshape(K, BN)
    s = x[BM * K + K * BN:]
    # The scaled B (exact in fp32) rounds to tf32 (to nearest, ties away: cvt.rna) for the dot.
    scaled = (b * s[None, :]).astype(np.float32).view(np.uint32)
    scaled = ((scaled + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)
    expected = a.astype(np.float64) @ scaled.astype(np.float64)
    np.testing.assert_allclose(out.reshape(BM, BN), expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
    signature = f"*fp32:16, *fp32:16, i32:16, BM={BM}, BN={BN}, BK={BK}"
    ir = subprocess.run([emu.CLI, "compile", str(tmp_path / "kernels.py"), "--kernel", "scaled_b", "--signature",
                         signature, "--num-warps", str(warps), "--num-stages", str(stages), "--arch", f"sm_{sm}",
                         "--emit", "gpu-ir"], capture_output=True, text=True, check=True).stdout
    # Pipelined, B (which reaches the dot through the multiply) is copied by cp.async and read
    # back by the threads that copied it (AsyncOperand::read_back), not loaded in the loop.
    assert ("read back into its registers" in ir) == (stages > 1), ir
    loop = ir.index(" = for ")
    broadcasts = [m.start() for m in re.finditer(rf"= broadcast %\d+[^\n]*: block<{BK}x{BN}xfp32", ir)]
    assert broadcasts and all(at < loop for at in broadcasts), ir


REPRO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "triton_suite", "gpu_sweep_repro",
                     "realk_state_update.py")


@pytest.mark.parametrize("ty", ["fp32", "bf16"])
def test_state_update_gk_addresses_at_one_warp(ty):
    """fla's gated state update at 1 warp (kᵀ and its decays loaded into registers along a
    column, then staged by the dot): PTX only. No run-time contiguity test of the column loads
    (64-bit compares of their addresses: 41 in fp32 before VectorWidths::untested), and the
    flat layout's per-register coordinates are the thread's plus constants (delinearize), not
    a shift of each register's own sum (30 shr.u32 in fp32 before; ptxas then counted 240
    registers, 122 after, Triton 3.6 72). Since session 34 the bf16 kᵀ is copied down its
    columns by cp.async and its gated chain computed in A's fragments on mma.sync too
    (achainmma: 8 -> 3 barriers, 90 -> 96 registers): the register path is checked with
    TRITIUM_REDUCE_EXPERIMENT=noachainmma there. Since session 35 the register path meets 6
    barriers, not 8 (late_passes.h's elide_barriers: the body's ending barrier, which the next
    iteration's decision barrier or the exit's drain covers, and the epilogue's ending one;
    8 with noelidebar)."""
    signature = f"*{ty}:16, *{ty}:16, *fp32:16, *fp32:16, i32, BT=64, BK=16, BV=16"

    def compile_ptx(experiment=""):
        env = dict(os.environ, TRITIUM_REDUCE_EXPERIMENT=experiment) if experiment else None
        return subprocess.run([emu.CLI, "compile", REPRO, "--kernel", "state_update_gk", "--signature", signature,
                               "--num-warps", "1", "--num-stages", "2", "--emit", "ptx", "--arch", "sm_90"],
                              capture_output=True, text=True, check=True, env=env).stdout
    ptx = compile_ptx()
    assert "mma.sync.aligned.m16n8k" in ptx
    assert ptx.count("bar.sync") == (3 if ty == "bf16" else 6)
    assert compile_ptx("noelidebar").count("bar.sync") == (3 if ty == "bf16" else 8)
    if ty == "bf16":
        assert "cp.async" in ptx
        ptx = compile_ptx("noachainmma")
        assert ptx.count("bar.sync") == 6
    assert len(re.findall(r"setp\.(?:eq|ne)\.b64", ptx)) <= 2
    assert len(re.findall(r"\bshr\.u32\b", ptx)) <= 8

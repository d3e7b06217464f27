"""tl.inline_asm_elementwise with pack > 1 on the host: test_cpu_emulation.py's driver (each
thread of the CTA a host thread) with each packed asm call replaced by an LLVM function that
computes what the PTX computes on the packed registers. So the grouping is checked without a
GPU: which elements of a thread share one asm call (Triton's: `pack` consecutive ones), how
elements narrower than 32 bits share a register (4 x i8 or 2 x f16 in a b32) and wider ones
take one each, the order of several outputs' registers, and a thread whose registers are fewer
than `pack` (its group filled with zeros)."""

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
    def shift_bytes(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        # Triton's test_inline_asm_packed: four bytes in one register, each shifted by 3.
        y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x],
                                      dtype=tl.int8, is_pure=True, pack=4)
        tl.store(out_ptr + offs, y)


    @tritium.jit
    def widen_and_flip(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        # Two outputs: four i32 registers (each byte zero-extended), then one b32 of the four
        # bytes with their top bits flipped; then the packed argument.
        c, d = tl.inline_asm_elementwise("widen-and-flip $0, $1, $2, $3, $4, $5;", "=r,=r,=r,=r,=r,r", [x],
                                         dtype=(tl.int32, tl.int8), is_pure=True, pack=4)
        tl.store(out_ptr + offs, (c * 3).to(tl.int8) + d)


    @tritium.jit
    def negate_halves(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        y = tl.inline_asm_elementwise("neg.f16x2 $0, $1;", "=r,r", [x], dtype=tl.float16, is_pure=True, pack=2)
        tl.store(out_ptr + offs, y)


    @tritium.jit
    def scale_by_slot(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        # fp32: one register per element; the asm multiplies its k-th element by k + 1, so the
        # result shows which elements shared a call.
        y = tl.inline_asm_elementwise("scale-by-slot $0, $1, $2, $3, $4, $5, $6, $7;", "=f,=f,=f,=f,f,f,f,f", [x],
                                      dtype=tl.float32, is_pure=True, pack=4)
        tl.store(out_ptr + offs, y)
''')

# What each asm computes, as LLVM functions the calls are redirected to.
EMULATION = '''
define i32 @emu_shift_bytes(i32 %x) {
  %a = and i32 %x, 522133279
  %b = shl i32 %a, 3
  ret i32 %b
}
define { i32, i32, i32, i32, i32 } @emu_widen_and_flip(i32 %x) {
  %b0 = and i32 %x, 255
  %s1 = lshr i32 %x, 8
  %b1 = and i32 %s1, 255
  %s2 = lshr i32 %x, 16
  %b2 = and i32 %s2, 255
  %b3 = lshr i32 %x, 24
  %f = xor i32 %x, -2139062144
  %r0 = insertvalue { i32, i32, i32, i32, i32 } poison, i32 %b0, 0
  %r1 = insertvalue { i32, i32, i32, i32, i32 } %r0, i32 %b1, 1
  %r2 = insertvalue { i32, i32, i32, i32, i32 } %r1, i32 %b2, 2
  %r3 = insertvalue { i32, i32, i32, i32, i32 } %r2, i32 %b3, 3
  %r4 = insertvalue { i32, i32, i32, i32, i32 } %r3, i32 %f, 4
  ret { i32, i32, i32, i32, i32 } %r4
}
define i32 @emu_negate_halves(i32 %x) {
  %r = xor i32 %x, -2147450880
  ret i32 %r
}
define { float, float, float, float } @emu_scale_by_slot(float %a, float %b, float %c, float %d) {
  %b2 = fmul float %b, 2.0
  %c3 = fmul float %c, 3.0
  %d4 = fmul float %d, 4.0
  %r0 = insertvalue { float, float, float, float } poison, float %a, 0
  %r1 = insertvalue { float, float, float, float } %r0, float %b2, 1
  %r2 = insertvalue { float, float, float, float } %r1, float %c3, 2
  %r3 = insertvalue { float, float, float, float } %r2, float %d4, 3
  ret { float, float, float, float } %r3
}
'''

ASM_CALLS = [
    (r'call i32 asm "and\.b32 \$0, \$1, 0x1F1F1F1F; shl\.b32 \$0, \$0, 3;", "=r,r"\(', "call i32 @emu_shift_bytes("),
    (r'call \{ i32, i32, i32, i32, i32 \} asm "widen-and-flip[^"]*", "[^"]*"\(',
     "call { i32, i32, i32, i32, i32 } @emu_widen_and_flip("),
    (r'call i32 asm "neg\.f16x2 \$0, \$1;", "=r,r"\(', "call i32 @emu_negate_halves("),
    (r'call \{ float, float, float, float \} asm "scale-by-slot[^"]*", "[^"]*"\(',
     "call { float, float, float, float } @emu_scale_by_slot("),
]


def run_asm(tmp_path, kernel, ty, tile, warps, n):
    source = tmp_path / "kernels.py"
    source.write_text(KERNELS)
    signature = f"*{ty}:16, *{ty}:16, i32:16, BM={tile[0]}, BN={tile[1]}"
    def emit(what):
        return subprocess.run([emu.CLI, "compile", str(source), "--kernel", kernel, "--signature", signature,
                               "--num-warps", str(warps), "--emit", what], capture_output=True, text=True,
                              check=True).stdout
    ll = emit("llvm")
    calls = 0
    for pattern, replacement in ASM_CALLS:
        ll, count = re.subn(r"(?:tail )?" + pattern, replacement, ll)
        calls += count
    host = emu.host_ir(ll) + EMULATION
    assert " asm " not in host, "inline PTX left: " + re.search(r" asm [^\n]*", host).group(0)[:200]
    (tmp_path / "k.ll").write_text(host)
    subprocess.run([emu.LLC, "-O1", "-relocation-model=pic", "-filetype=obj", str(tmp_path / "k.ll"), "-o",
                    str(tmp_path / "k.o")], check=True)
    ctype, nptype = emu.TYPES[ty]
    (tmp_path / "driver.c").write_text(emu.DRIVER.replace("KERNEL", kernel).replace("CTYPE", ctype))
    subprocess.run([emu.CC, "-O1", str(tmp_path / "driver.c"), str(tmp_path / "k.o"), "-o", str(tmp_path / "run"),
                    "-lpthread", "-lm"], check=True)
    raw = subprocess.run([str(tmp_path / "run"), str(n), str(n), str(32 * warps), "0"], capture_output=True,
                         check=True).stdout
    data = np.frombuffer(raw, dtype=nptype)
    return data[:n], data[n:2 * n], calls, emit("ptx")


# (tile, warps): 4 or more elements a thread, and fewer than pack (2, and 1: zeros fill the group).
SHAPES = [((4, 128), 4), ((1, 512), 4), ((2, 64), 2), ((1, 64), 2)]


@pytest.mark.parametrize("tile,warps", SHAPES)
def test_four_bytes_share_a_register(tmp_path, tile, warps):
    n = tile[0] * tile[1]
    x, out, calls, ptx = run_asm(tmp_path, "shift_bytes", "i8", tile, warps, n)
    assert np.array_equal(out, ((x.view(np.uint8) & 0x1F) << 3).astype(np.uint8).view(np.int8))
    per_thread = max(1, n // (32 * warps))
    assert ptx.count("and.b32 %r") == -(-per_thread // 4)  # one asm per 4 elements (or fewer) of a thread
    assert calls >= 1


@pytest.mark.parametrize("tile,warps", SHAPES)
def test_two_outputs_of_different_widths(tmp_path, tile, warps):
    n = tile[0] * tile[1]
    x, out, calls, ptx = run_asm(tmp_path, "widen_and_flip", "i8", tile, warps, n)
    u = x.view(np.uint8).astype(np.int64)
    expected = ((u * 3) % 256 + (u ^ 0x80)) % 256
    assert np.array_equal(out.view(np.uint8), expected.astype(np.uint8))
    assert ptx.count("widen-and-flip") == -(-max(1, n // (32 * warps)) // 4)  # the asm once for both outputs


@pytest.mark.parametrize("tile,warps", [((4, 64), 2), ((1, 64), 2)])
def test_two_halves_share_a_register(tmp_path, tile, warps):
    n = tile[0] * tile[1]
    x, out, calls, ptx = run_asm(tmp_path, "negate_halves", "fp16", tile, warps, n)
    assert np.array_equal(out.view(np.uint16), x.view(np.uint16) ^ 0x8000)


@pytest.mark.parametrize("tile,warps", [((4, 128), 4), ((8, 64), 1)])
def test_a_call_takes_consecutive_elements(tmp_path, tile, warps):
    # Runs of 4 or more consecutive elements per thread (vector_widths asks for them): the
    # k-th element of each aligned run of 4 is the call's k-th.
    n = tile[0] * tile[1]
    x, out, calls, ptx = run_asm(tmp_path, "scale_by_slot", "fp32", tile, warps, n)
    assert np.array_equal(out, x * (np.arange(n) % 4 + 1).astype(np.float32))

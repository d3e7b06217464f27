"""tl.inline_asm_elementwise: arguments broadcast with their own dtypes (pointers pass addresses),
one or several outputs, the asm in the PTX, is_pure=False asm kept, pack > 1 (narrow elements
share 32-bit registers); the interpreter runs one PTX f32 instruction only; bad constraints/packs are errors.
The GPU runs these kernels in tests/gpu/test_gpu_inline_asm.py."""

import importlib.util
import os
import tempfile

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def funnel_shift(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r", [x, y, n],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(z_ptr + offs, z)


@tritium.jit
def two_outputs(x_ptr, y_ptr, s_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    s, d = tl.inline_asm_elementwise("add.s32 $0, $2, $3;\n\tsub.s32 $1, $2, $3;", "=r,=r,r,r", [x, y],
                                     dtype=(tl.int32, tl.int32), is_pure=True, pack=1)
    tl.store(s_ptr + offs, s)
    tl.store(d_ptr + offs, d)


@tritium.jit
def mixed_types(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)                      # fp32
    k = offs.to(tl.int32)                          # int32
    y = tl.inline_asm_elementwise("cvt.rn.f32.s32 $0, $2;\n\tadd.f32 $0, $0, $1;", "=f,f,r", [x, k],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


def test_the_asm_reaches_the_ptx():
    ptx = funnel_shift.emit("ptx", signature="*i32:16, *i32:16, *i32:16, i32, BLOCK=128", arch=90)
    assert "shf.l.wrap.b32" in ptx
    ptx = two_outputs.emit("ptx", signature="*i32:16, *i32:16, *i32:16, *i32:16, BLOCK=128", arch=90)
    assert "add.s32" in ptx and "sub.s32" in ptx
    ptx = mixed_types.emit("ptx", signature="*fp32:16, *fp32:16, BLOCK=128", arch=90)
    assert "cvt.rn.f32.s32" in ptx
    ir = two_outputs.emit("ir", signature="*i32:16, *i32:16, *i32:16, *i32:16, BLOCK=128")
    assert 'symbol = "inline_asm"' in ir and 'result_types = "i32,i32"' in ir


def test_the_interpreter_says_it_cannot_run_assembly():
    x = np.arange(128, dtype=np.int32)
    with pytest.raises(tritium.CompilationError, match="runs only on the GPU") as info:
        funnel_shift[(1,)](x, x, x.copy(), 3, BLOCK=128)
    assert "test_inline_asm.py:22:" in str(info.value)  # the call's line


def emit_error(src, signature, match):
    path = os.path.join(tempfile.mkdtemp(), "k_asm.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_asm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tritium.CompilationError, match=match) as info:
        module.kernel.emit("ptx", signature=signature, arch=90)
    assert "k_asm.py:" in str(info.value)


def test_errors():
    emit_error('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x],
                                                                 dtype=tl.int32, is_pure=True, pack=1))
''', "*i32:16", r"the constraints '=r,r,r' of tl.inline_asm_elementwise do not match")
    # (this pinned "pack=4 is not supported by tritium yet" until pack > 1 was built; pack
    # is now a power of two, and its registers are checked against the constraints)
    emit_error('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x],
                                                                 dtype=tl.int32, is_pure=True, pack=3))
''', "*i32:16", "pack of tl.inline_asm_elementwise must be a power of two from 1 to 16, got 3")
    emit_error('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x],
                                                                 dtype=tl.int32, is_pure=True, pack=2))
''', "*i32:16", r"do not match its 2 result register\(s\) and 2 argument register\(s\) \(pack=2")
    emit_error('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x],
                                                                 dtype=tl.pointer_type(tl.int32), is_pure=True, pack=1))
''', "*i32:16", "must be a scalar dtype or a tuple of them")


@tritium.jit
def effect_only(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    # is_pure=False: the asm's effect is what matters; its result is never read, and the
    # second, identical asm is a second effect, not a copy of the first.
    tl.inline_asm_elementwise("red.global.add.u32 [$1], 1; // effect A", "=r,l", [x.to(tl.int64)],
                              dtype=tl.int32, is_pure=False, pack=1)
    tl.inline_asm_elementwise("red.global.add.u32 [$1], 1; // effect A", "=r,l", [x.to(tl.int64)],
                              dtype=tl.int32, is_pure=False, pack=1)
    # is_pure=True and unused: removed.
    tl.inline_asm_elementwise("mov.b32 $0, $1; // pure B", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)


def test_impure_asm_is_kept_and_not_merged():
    # The kernel holds 2 of the 128 elements per thread (4 warps): each impure asm appears
    # once per element, twice over; the unused pure one not at all.
    ptx = effect_only.emit("ptx", signature="*i64:16, BLOCK=256", arch=90)
    assert ptx.count("// effect A") == 2 * 2
    assert "// pure B" not in ptx


@tritium.jit
def through_pointers(src_ptr, dst_ptr, BLOCK: tl.constexpr):
    # The asm gets each element's address in a 64-bit register ("l") and does its own memory
    # access; nothing reads its result.
    tl.inline_asm_elementwise("ld.global.b8 $0, [$1];\n\tst.global.b8 [$2], $0;", "=r,l,l",
                              [src_ptr + tl.arange(0, BLOCK), dst_ptr + tl.arange(0, BLOCK)],
                              dtype=tl.int8, is_pure=False, pack=1)


def test_pointer_arguments():
    # 512 elements over 128 threads: 4 copies per thread, the second one 128 bytes on.
    ptx = through_pointers.emit("ptx", signature="*u8:16, *u8:16, BLOCK=512", arch=90)
    assert ptx.count("ld.global.b8") == 4
    first = ptx.index("ld.global.b8")
    assert ".param .u64" in ptx and "[%rd" in ptx[first:first + 40]


@tritium.jit
def two_outputs_one_effect(addr_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(addr_ptr + offs)
    c, d = tl.inline_asm_elementwise("atom.global.add.u32 $0, [$2], 1;\n\tadd.u32 $1, $0, 1;", "=r,=r,l", [a],
                                     dtype=(tl.int32, tl.int32), is_pure=False, pack=1)
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)


def test_several_outputs_run_the_asm_once():
    # 256 elements over 128 threads: the asm once per element (2), not once per output (4).
    ptx = two_outputs_one_effect.emit("ptx", signature="*i64:16, *i32:16, *i32:16, BLOCK=256", arch=90)
    assert ptx.count("atom.global.add.u32") == 2
    ptx = two_outputs.emit("ptx", signature="*i32:16, *i32:16, *i32:16, *i32:16, BLOCK=256", arch=90)
    assert ptx.count("// begin inline asm") == 2  # pure ones too


@tritium.jit
def packed_bytes(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F;\n\tshl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.int8, is_pure=True, pack=4)  # LINE: packed_bytes
    tl.store(y_ptr + tl.arange(0, BLOCK), y)


@tritium.jit
def packed_two_outputs(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    # After Triton's test_inline_asm_packed_multiple_outputs: per call four i32 and four f32
    # output registers, one b32 of four bytes of `a`, four f32 of `b`.
    a = tl.load(a_ptr + tl.arange(0, BLOCK))
    b = tl.load(b_ptr + tl.arange(0, BLOCK))
    c, d = tl.inline_asm_elementwise(
        """
        {
            .reg .b8 t<4>;
            mov.b32 {t0, t1, t2, t3}, $8;
            cvt.u32.u8 $0, t0;
            cvt.u32.u8 $1, t1;
            cvt.u32.u8 $2, t2;
            cvt.u32.u8 $3, t3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """, "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", [a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + tl.arange(0, BLOCK), c)
    tl.store(d_ptr + tl.arange(0, BLOCK), d)


@tritium.jit
def packed_halves(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $2;", "=r,r,r", [x, x], dtype=tl.float16, is_pure=True,
                                  pack=2)
    tl.store(y_ptr + tl.arange(0, BLOCK), y)


def assembled(ptx, tmp_path):
    import subprocess
    from helpers import ptxas
    tool = ptxas()
    if tool is None:
        return
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    result = subprocess.run([tool, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("block, warps, calls", [(512, 4, 1), (1024, 4, 2), (128, 4, 1), (64, 2, 1)])
def test_packed_bytes_share_one_register(tmp_path, block, warps, calls):
    """pack=4 on int8 (Triton's test_inline_asm_packed): four elements of a thread in one b32,
    one asm call per four (a thread with fewer calls it once, the rest of its register zero)."""
    import re
    ptx = packed_bytes.emit("ptx", signature=f"*i8:16, *i8:16, BLOCK={block}", num_warps=warps, arch=90)
    assert ptx.count("shl.b32") == calls
    if block // (32 * warps) >= 4:
        assert re.search(r"ld\.global(\.v\d)?\.b32", ptx)  # the four bytes are loaded as one word
    assembled(ptx, tmp_path)


def test_packed_outputs_and_halves_assemble(tmp_path):
    ptx = packed_two_outputs.emit("ptx", signature="*u8:16, *fp32:16, *i32:16, *fp32:16, BLOCK=512", arch=90)
    assert ptx.count("cvt.u32.u8") == 4  # one call for both outputs, four elements each
    assembled(ptx, tmp_path)
    ptx = packed_halves.emit("ptx", signature="*fp16:16, *fp16:16, BLOCK=256", num_warps=1, arch=90)
    assert ptx.count("add.rn.f16x2") == 4  # 8 halves a thread, 2 a call
    assembled(ptx, tmp_path)


def test_the_interpreter_says_it_cannot_run_packed_assembly():
    from helpers import marked_line
    line, _ = marked_line(__file__, "packed_bytes")
    x = np.arange(512, dtype=np.int8)
    with pytest.raises(tritium.CompilationError, match="runs only on the GPU") as info:
        packed_bytes[(1,)](x, x.copy(), BLOCK=512)
    assert info.value.line == line - 1  # the call's first line


# One PTX f32 instruction a kernel writes for an instruction Triton has no function for
# (mamba-ssm's Mamba-3 `tanh.approx.f32`, fla's softplus `ex2.approx.ftz.f32`): the
# interpreter evaluates it (approximations exactly, rounded to nearest; .ftz flushes).

@tritium.jit
def one_instruction(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    t = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)
    e = tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)
    f = tl.inline_asm_elementwise("fma.rn.ftz.f32 $0, $1, $2, 0f3f000000;", "=f,f,f", [x, y],
                                  dtype=tl.float32, is_pure=True, pack=1)
    r = tl.inline_asm_elementwise("rcp.approx.ftz.f32 $0,$1;", "=f,f", [y], dtype=tl.float32, is_pure=True, pack=1)
    m = tl.inline_asm_elementwise("max.ftz.f32 $0, $2, $1;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, t)
    tl.store(out_ptr + BLOCK + offs, e)
    tl.store(out_ptr + 2 * BLOCK + offs, f)
    tl.store(out_ptr + 3 * BLOCK + offs, r)
    tl.store(out_ptr + 4 * BLOCK + offs, m)


def test_the_interpreter_evaluates_one_f32_instruction():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(64).astype(np.float32) * 3
    y = rng.standard_normal(64).astype(np.float32) + 4
    x[0] = np.nan
    out = np.zeros(5 * 64, np.float32)
    one_instruction[(1,)](x, y, out, BLOCK=64)
    t, e, f, r, m = out.reshape(5, 64)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_array_equal(t, np.tanh(xd).astype(np.float32))
    np.testing.assert_array_equal(e, np.exp2(xd).astype(np.float32))
    np.testing.assert_array_equal(f, (xd * yd + 0.5).astype(np.float32))  # one rounding
    np.testing.assert_array_equal(r, np.float32(1) / y)
    np.testing.assert_array_equal(m, np.fmax(y, x))  # NaN gives the other operand
    assert m[0] == y[0]


@tritium.jit
def rounded_add(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    a = tl.inline_asm_elementwise("add.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    b = tl.inline_asm_elementwise("add.rm.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    c = tl.inline_asm_elementwise("add.rp.ftz.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    d = tl.inline_asm_elementwise("mul.rz.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    e = tl.inline_asm_elementwise("mul.ftz.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, a)
    tl.store(out_ptr + BLOCK + offs, b)
    tl.store(out_ptr + 2 * BLOCK + offs, c)
    tl.store(out_ptr + 3 * BLOCK + offs, d)
    tl.store(out_ptr + 4 * BLOCK + offs, e)


def test_the_interpreter_rounds_as_the_instruction_says():
    tiny = np.float32(2.0 ** -30)
    sub = np.float32(1e-40)  # subnormal
    x = np.array([1, 1, -1, 3, sub, 3e38, 1, 1], np.float32)
    y = np.array([tiny, -tiny, -tiny, 0.1, 1, 3e38, 0, sub], np.float32)
    out = np.zeros(5 * 8, np.float32)
    rounded_add[(1,)](x, y, out, BLOCK=8)
    a, b, c, d, e = out.reshape(5, 8)
    one = np.float32(1)
    assert a[0] == 1 and b[0] == 1 and c[0] == np.nextafter(one, np.float32(2))
    assert a[1] == 1 and b[1] == np.nextafter(one, np.float32(0)) and c[1] == 1
    assert b[2] == -1 - 2 * np.finfo(np.float32).epsneg and c[2] == -1
    # 3 * fp32(0.1) = 0.30000000447: nearest is above it, toward zero the float below
    assert d[3] == np.nextafter(np.float32(3) * np.float32(0.1), np.float32(0))
    assert c[4] == 1  # .ftz: the subnormal is flushed before the add (else rp gives 1 + ulp)
    assert b[4] == 1 and a[4] == 1
    assert np.isinf(a[5]) and b[5] == np.finfo(np.float32).max  # rm does not overflow to inf
    assert e[7] == 0 and np.signbit(e[7]) == False  # noqa: E712 - mul.ftz flushes 1 * 1e-40


def test_the_interpreter_names_assembly_it_does_not_evaluate():
    x = np.arange(128, dtype=np.int32)
    with pytest.raises(tritium.CompilationError, match="not fp32") as info:
        funnel_shift[(1,)](x, x, x.copy(), 3, BLOCK=128)
    assert "one PTX f32 instruction" in str(info.value)


@tritium.jit
def signed_magnitudes(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    # triton_kernels' flexpoint: one instruction in braces, f32 values passed as b32
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    hi = tl.inline_asm_elementwise("{\n    max.NaN.xorsign.abs.f32 $0, $1, $2;\n    }", "=r,r,r", [x, y],
                                   dtype=tl.float32, is_pure=True, pack=1)
    lo = tl.inline_asm_elementwise("{ min.xorsign.abs.f32 $0, $1, $2; }", "=r,r,r", [x, y],
                                   dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, hi)
    tl.store(out_ptr + BLOCK + offs, lo)


def test_the_interpreter_evaluates_max_min_xorsign_abs():
    x = np.array([1, -3, 2, -0.5, np.nan, 4, 0, -0.0], np.float32)
    y = np.array([-2, -1, 5, 0.25, 1, np.nan, -0.0, -0.0], np.float32)
    out = np.zeros(16, np.float32)
    signed_magnitudes[(1,)](x, y, out, BLOCK=8)
    hi, lo = out[:8], out[8:]
    sign = np.where(np.signbit(x) ^ np.signbit(y), -1, 1).astype(np.float32)
    np.testing.assert_array_equal(hi[:4], sign[:4] * np.maximum(abs(x[:4]), abs(y[:4])))
    np.testing.assert_array_equal(lo[:4], sign[:4] * np.minimum(abs(x[:4]), abs(y[:4])))
    assert np.isnan(hi[4]) and np.isnan(hi[5])  # .NaN propagates
    assert lo[4] == 1 and lo[5] == 4  # without .NaN the other operand (sign: xor with the NaN's, +)
    assert hi[6] == 0 and np.signbit(hi[6]) and np.signbit(lo[7]) is np.False_

"""The debugging builtins in the interpreter: tl.device_print (and print) writes Triton's
per-element lines to stdout, tl.device_assert (and assert) fails at the kernel's file:line
only when the kernel has debug=True, tl.debug_barrier runs, tl.static_print prints at
compile time, and tl.fma rounds once (whatever TRITIUM_DEFAULT_FP_FUSION says)."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def prints(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.device_print("n=", n)
    tl.device_print("both", offs, x, hex=True)
    print("py", n + 1)
    tl.device_print("done")
    tl.debug_barrier()


def test_device_print_lines(capfd):
    x = np.array([1.5, -2.0, 0.25, 8.0], np.float32)
    prints[(2,)](x, 7, BLOCK=4)
    out = capfd.readouterr().out.splitlines()
    expected = []
    for pid in range(2):
        p = f"pid ({pid}, 0, 0)"
        expected += [f"{p} idx ({i}) x: {v:f}" for i, v in enumerate(x)]
        expected += [f"{p} idx () n=: 7"]
        expected += [f"{p} idx ({i}) both: (operand 0) 0x{i:08x}" for i in range(4)]
        bits = x.view(np.uint32)
        expected += [f"{p} idx ({i}) both: (operand 1) 0x{b:08x}" for i, b in enumerate(bits)]
        expected += [f"{p} idx () py: 8", f"{p} done"]
    assert out == expected


@tritium.jit
def prints_2d(x_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    tl.device_print("v", tl.load(x_ptr + r * C + c))


def test_device_print_pads_indices_to_the_dimension(capfd):
    x = np.arange(32, dtype=np.int64) - 5
    prints_2d[(1,)](x, R=2, C=16)
    out = capfd.readouterr().out.splitlines()
    assert len(out) == 32
    assert out[0] == "pid (0, 0, 0) idx (0,  0) v: -5"
    assert out[17] == "pid (0, 0, 0) idx (1,  1) v: 12"


@tritium.jit
def checks(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x < n, "x must stay below n")  # LINE: device_assert
    assert offs < n  # LINE: assert statement


checks_debug = tritium.jit(checks.fn, debug=True)


def test_device_assert_needs_debug():
    x = np.array([0, 5, 9, 3], np.int32)
    checks[(1,)](x, 2, BLOCK=4)  # no debug: both asserts are dropped, as in Triton


def test_device_assert_fails_at_the_kernel_line():
    line, text = marked_line(__file__, "device_assert")
    x = np.array([0, 5, 9, 3], np.int32)
    with pytest.raises(tritium.CompilationError) as info:
        checks_debug[(3,)](x, 4, BLOCK=4)
    error = info.value
    assert error.file == __file__
    assert error.line == line
    assert "device_assert failed: x must stay below n" in error.message
    assert "pid (0, 0, 0) idx (1)" in error.message


def test_assert_statement_with_debug():
    line, _ = marked_line(__file__, "assert statement")
    x = np.array([0, 1, 2, 3], np.int32)
    checks_debug[(1,)](x, 4, BLOCK=4)  # passes: every x < 4 and every offset < 4
    with pytest.raises(tritium.CompilationError) as info:
        checks_debug[(1,)](x, 3, BLOCK=4)  # x passes? 3 < 3 is false: the first assert fails
    assert info.value.line == line - 1
    x = np.array([0, 0, 0, 0], np.int32)
    with pytest.raises(tritium.CompilationError) as info:
        checks_debug[(1,)](x, 3, BLOCK=4)  # offset 3 is not < 3
    assert info.value.line == line
    assert "idx (3)" in info.value.message


def test_debug_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "1")
    from_env = tritium.jit(checks.fn)
    with pytest.raises(tritium.CompilationError, match="device_assert failed"):
        from_env[(1,)](np.array([9, 0, 0, 0], np.int32), 4, BLOCK=4)


@tritium.jit
def masked_assert(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_assert(tl.load(x_ptr + offs) > 0, "positive", mask=offs < 2)


def test_device_assert_mask():
    kernel = tritium.jit(masked_assert.fn, debug=True)
    kernel[(1,)](np.array([1, 1, 0, -3], np.int32), BLOCK=4)  # masked-off lanes pass
    with pytest.raises(tritium.CompilationError, match=r"positive \(pid \(0, 0, 0\) idx \(1\)\)"):
        kernel[(1,)](np.array([1, 0, 0, -3], np.int32), BLOCK=4)


@tritium.jit
def static_prints(x_ptr, BLOCK: tl.constexpr):
    tl.static_print("BLOCK is", BLOCK)
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.zeros([BLOCK], tl.float32))


def test_static_print_at_compile_time_only(capfd):
    x = np.ones(8, np.float32)
    static_prints[(4,)](x, BLOCK=8)
    static_prints[(4,)](x, BLOCK=8)  # cached: compiled once, printed once
    assert capfd.readouterr().out == "BLOCK is 8\n"
    assert np.all(x == 0)


@tritium.jit
def fused(a_ptr, b_ptr, c_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = tl.load(c_ptr + offs)
    tl.store(out_ptr + offs, tl.fma(a, b, c))


@pytest.mark.parametrize("fusion", ["0", "1"])
def test_fma_rounds_once(monkeypatch, rng, fusion):
    monkeypatch.setenv("TRITIUM_DEFAULT_FP_FUSION", fusion)
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the 2^-24 is lost when the product is rounded to fp32.
    a = np.full(4, 1 + 2.0 ** -12, np.float32)
    c = np.full(4, -(1 + 2.0 ** -11), np.float32)
    out = np.zeros(4, np.float32)
    fused[(1,)](a, a, c, out, BLOCK=4)
    assert np.all(out == np.float32(2.0 ** -24))
    x, y, z = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
    out = np.zeros(64, np.float32)
    fused[(1,)](x, y, z, out, BLOCK=64)
    exact = (x.astype(np.float64) * y + z).astype(np.float32)
    assert np.array_equal(out, exact)

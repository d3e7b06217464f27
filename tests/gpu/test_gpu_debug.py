"""The debugging builtins on the GPU (tests/python/test_debug_builtins.py's kernels):
device_print through the driver's vprintf prints the interpreter's lines (in another order),
a failed device_assert with debug=True prints the kernel's file:line and traps (in a child
process: a trap ends the CUDA context), asserts without debug cost nothing, debug_barrier
synchronizes, and tl.fma rounds once."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

import test_debug_builtins as kernels  # noqa: E402  (tests/python)
from helpers import marked_line  # noqa: E402


def test_device_print_matches_the_interpreter(capfd):
    x = torch.tensor([1.5, -2.0, 0.25, 8.0], device="cuda")
    kernels.prints[(2,)](x, 7, BLOCK=4)
    torch.cuda.synchronize()
    out = capfd.readouterr().out.splitlines()
    xs = x.cpu().numpy()
    expected = []
    for pid in range(2):
        p = f"pid ({pid}, 0, 0)"
        expected += [f"{p} idx ({i}) x: {v:f}" for i, v in enumerate(xs)]
        expected += [f"{p} idx () n=: 7"]
        expected += [f"{p} idx ({i}) both: (operand 0) 0x{i:08x}" for i in range(4)]
        expected += [f"{p} idx ({i}) both: (operand 1) 0x{b:08x}" for i, b in enumerate(xs.view(np.uint32))]
        expected += [f"{p} idx () py: 8", f"{p} done"]
    assert sorted(out) == sorted(expected)


def test_fma_rounds_once_on_the_gpu():
    a = torch.full((4,), 1 + 2.0 ** -12, device="cuda")
    c = torch.full((4,), -(1 + 2.0 ** -11), device="cuda")
    out = torch.zeros(4, device="cuda")
    kernels.fused[(1,)](a, a, c, out, BLOCK=4)
    assert torch.all(out == 2.0 ** -24)


def test_assert_without_debug_is_dropped():
    x = torch.tensor([0, 5, 9, 3], device="cuda", dtype=torch.int32)
    kernels.checks[(1,)](x, 2, BLOCK=4)
    torch.cuda.synchronize()


def test_assert_with_debug_passes_when_true():
    x = torch.tensor([0, 1, 2, 3], device="cuda", dtype=torch.int32)
    kernels.checks_debug[(1,)](x, 4, BLOCK=4)
    torch.cuda.synchronize()


def test_failed_assert_prints_the_kernel_line_and_traps():
    line, _ = marked_line(kernels.__file__, "device_assert")
    script = textwrap.dedent("""
        import sys, torch
        sys.path.insert(0, {tests!r})
        import test_debug_builtins as k
        x = torch.tensor([0, 5, 9, 3], device="cuda", dtype=torch.int32)
        k.checks_debug[(1,)](x, 4, BLOCK=4)
        torch.cuda.synchronize()
        print("NO TRAP")
    """).format(tests=os.path.dirname(kernels.__file__))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "NO TRAP" not in output
    assert f"{kernels.__file__}:{line}: checks: block: [0, 0, 0]" in output
    assert "Assertion `x must stay below n` failed." in output

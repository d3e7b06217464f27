"""`import triton` resolving to tritium: `python -m tritium SCRIPT`, tritium.use_as_triton(),
and the Triton module names a program imports (issue 10, item 1)."""

import os
import pathlib
import subprocess
import sys
import warnings

import pytest

import tritium
from tritium import triton_alias

HERE = pathlib.Path(__file__).resolve().parent


def test_python_m_tritium_runs_an_unmodified_triton_program():
    env = dict(os.environ, TRITIUM_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(tritium.__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "tritium", str(HERE / "triton_programs" / "vector_add.py"), "4099"],
        capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "triton.jit is tritium.jit max difference 0.0" in result.stdout
    assert "TritonError caught: CompilationError" in result.stdout


def test_python_m_tritium_usage():
    result = subprocess.run([sys.executable, "-m", "tritium"], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 2
    assert "usage: python -m tritium SCRIPT.py" in result.stderr


def test_triton_modules_resolve_to_tritium(as_triton):
    import triton
    import triton.language as tl
    import triton.language.extra.libdevice as libdevice
    import triton.language.math as tlmath
    import triton.runtime
    import triton.testing
    from triton.language.extra import libdevice as libdevice2
    from triton.runtime.jit import JITFunction, TensorWrapper, reinterpret

    # `triton` reads every attribute from tritium but reports the Triton version tritium
    # follows (it was tritium itself, whose "0.1.0" sent version-gated libraries down
    # their pre-3.0 paths: unsloth's import failed).
    assert triton.jit is tritium.jit and triton.Config is tritium.Config and triton.cdiv is tritium.cdiv
    assert triton.__version__ == triton_alias.TRITON_VERSION == "3.6.0" != tritium.__version__
    assert "jit" in dir(triton) and triton.__tritium__
    assert tl is tritium.language
    assert libdevice is libdevice2 and hasattr(libdevice, "tanh") and hasattr(libdevice, "erfinv")
    assert hasattr(tlmath, "div_rn") and hasattr(tlmath, "umulhi")
    assert triton.runtime.jit.TensorWrapper is TensorWrapper is tritium.TensorWrapper
    assert reinterpret is tritium.reinterpret
    assert JITFunction is tritium.JITFunction
    assert triton.testing.do_bench is tritium.testing.do_bench
    assert issubclass(triton.CompilationError, triton.TritonError)


def test_unknown_triton_module_is_a_clear_error(as_triton):
    with pytest.raises(ModuleNotFoundError, match="triton.backends.*no counterpart"):
        import triton.backends.nvidia.driver  # noqa: F401


def test_real_triton_already_imported_changes_nothing(monkeypatch):
    fake = type(sys)("triton")
    fake.__file__ = "/site-packages/triton/__init__.py"
    monkeypatch.setitem(sys.modules, "triton", fake)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tritium.use_as_triton() is False
    assert any("the real Triton is already imported" in str(w.message) for w in caught)
    assert sys.modules["triton"] is fake
    assert not any(isinstance(f, triton_alias._TritonFinder) for f in sys.meta_path)


def test_tensor_wrapper_and_reinterpret(rng):
    import numpy as np
    import tritium.language as tl

    @tritium.jit
    def copy_bits(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)

    x = rng.integers(-2**31, 2**31, size=100, dtype=np.int32)
    # No NaN bit patterns: the interpreter holds floats as doubles and quiets signaling NaNs.
    x = np.where((x & 0x7F800000) == 0x7F800000, x ^ 0x00800000, x).astype(np.int32)
    out = np.zeros(100, dtype=np.float32)
    wrapped = tritium.reinterpret(x, tl.float32)
    assert isinstance(wrapped, tritium.TensorWrapper) and wrapped.dtype == tl.float32
    assert tritium.reinterpret(wrapped, tl.float32) is not x  # still a wrapper: numpy dtype differs
    copy_bits[(1,)](wrapped, out, 100, BLOCK=128)
    assert np.array_equal(out.view(np.int32), x)
    assert "*fp32" in copy_bits.signature(wrapped, out, 100, BLOCK=128)
    with pytest.raises(TypeError, match="cannot reinterpret"):
        tritium.reinterpret(3, tl.float32)

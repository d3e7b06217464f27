"""The compiled-kernel handle that kernel[grid](...), run and warmup return (issue 10, item 2):
Triton's CompiledKernel attributes, stages produced lazily, one object per specialization."""

import importlib.util

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def test_launch_returns_a_handle_with_triton_attributes(rng):
    x = rng.random(300, dtype=np.float32)
    out = np.zeros_like(x)
    h = scale[(3,)](x, out, 300, 2.5, BLOCK=128, num_warps=2)
    np.testing.assert_allclose(out, x * np.float32(2.5), rtol=1e-6)
    assert isinstance(h, tritium.CompiledKernel)
    assert h.name == "scale"
    assert h.metadata.name == "scale"
    assert h.metadata.num_warps == 2
    assert h.metadata.num_ctas == 1
    assert h.metadata.num_stages == 3
    assert h.metadata.cluster_dims == (1, 1, 1)
    assert "shared" in h.metadata._asdict()
    assert set(h.asm) == {"ir", "gpu-ir", "llir", "ptx", "cubin"}  # gpu-ir: tritium's own stage
    assert "ttir" not in h.asm and "ttgir" not in h.asm
    assert h.backend == "interpreter"
    assert h.n_regs is None and h.n_spills is None  # no registers in the interpreter
    assert h.signature == scale.signature(x, out, 300, 2.5, BLOCK=128)


def test_handle_is_the_same_object_on_a_cache_hit(rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros_like(x)
    first = scale[(1,)](x, out, 64, 1.5, BLOCK=64)
    again = scale[(1,)](x, out, 64, 3.0, BLOCK=64)
    assert again is first
    other_options = scale[(1,)](x, out, 64, 3.0, BLOCK=64, num_warps=8)
    assert other_options is not first and other_options.metadata.num_warps == 8
    other_specialization = scale[(1,)](x, out, 64, 3.0, BLOCK=32)
    assert other_specialization is not first
    assert scale[(1,)](x, out, 64, 3.0, BLOCK=64) is first


def test_stages_are_produced_on_first_access(rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros_like(x)
    h = scale.run(x, out, 64, 2.0, BLOCK=64, grid=(1,))
    assert not h.asm._done  # nothing compiled beyond what the launch needed
    ir = h.asm["ir"]
    assert "scale" in ir and "load" in ir
    assert list(h.asm._done) == ["ir"]
    assert h.asm["ir"] is ir  # kept
    if importlib.util.find_spec("tritium._C") is not None:
        gpu = h.asm["gpu-ir"]  # no GPU needed: the passes and the plans, no LLVM
        assert gpu.startswith("// gpu-ir: sm_") and "func @scale" in gpu


def test_ptx_stage_follows_the_options():
    pytest.importorskip("tritium._C")
    x = np.zeros(64, dtype=np.float32)
    h = scale.warmup(x, x, 64, 2.0, BLOCK=64, grid=(1,), maxnreg=64)
    assert isinstance(h, tritium.CompiledKernel)
    try:
        ptx = h.asm["ptx"]
    except tritium.CompilationError as e:  # a build without the LLVM NVPTX target
        pytest.skip(str(e))
    assert ".maxnreg 64" in ptx
    assert ".entry scale" in ptx
    assert h.metadata.maxnreg == 64

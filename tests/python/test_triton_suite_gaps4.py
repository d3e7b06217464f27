"""Gaps found by running Triton 3.6's test_matmul.py, test_mxfp.py, test_pipeliner.py and
smaller files under tritium (tests/triton_suite/RESULTS.md, session 15), each pinned here in
tritium's own words. Kernels run in the interpreter or compile to text: no GPU needed."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


# ---- triton.tools.mxfp: e8m0 special values, the packing dimension ----

def test_mx_scale_tensor_encodes_what_e8m0_cannot_hold_as_nan():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXScaleTensor
    values = torch.tensor([0.0, -0.0, -1.0, -8.0, float("nan"), float("inf"), float("-inf"), 4.0, 2.0 ** -127])
    assert MXScaleTensor(values).data.tolist() == [255, 255, 255, 255, 255, 255, 255, 129, 0]


def test_mxfp4_packing_dimension_must_exist():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXFP4Tensor
    t = MXFP4Tensor(size=(4, 6)).random()
    for bad in (2, 5, -1):
        with pytest.raises(AssertionError, match="dim"):
            t.to_packed_tensor(dim=bad)
    assert t.to_packed_tensor(dim=1).shape == (4, 3)
    assert t.to_packed_tensor(dim=0).shape == (2, 6)


# ---- triton.compile(..., target=GPUTarget("cuda", arch, 32)) compiles for that architecture ----

@tritium.jit
def add_for_target(a, b, c):
    idx = tl.arange(0, 32)
    tl.store(c + idx, tl.load(a + idx) + tl.load(b + idx))


@tritium.jit
def to_fp8e5_for_target(src, dst):
    idx = tl.arange(0, 64)
    tl.store(dst + idx, tl.load(src + idx).to(tl.float8e5))


def _ast(fn, signature):
    from tritium.compiler import ASTSource
    return ASTSource(fn=fn, signature=signature, constexprs={})


@pytest.mark.parametrize("arch", [80, 90, 100])
def test_compile_for_a_cuda_target_writes_that_architectures_ptx(arch):
    from tritium.compiler import GPUTarget
    k = tritium.compile(_ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"}),
                        target=GPUTarget("cuda", arch, 32))
    ptx = k.asm["ptx"]
    assert f".target sm_{arch}" in ptx and ".address_size 64" in ptx
    assert k.backend == "cuda" and k.device is None
    assert k.metadata.target == GPUTarget("cuda", arch, 32)


def test_compile_for_cuda_targets_in_sequence_keeps_each_architecture():
    # fp8 conversions are native from sm_90 and emulated before: each target its own PTX.
    from tritium.compiler import GPUTarget
    src = _ast(to_fp8e5_for_target, {"src": "*fp32", "dst": "*fp8e5"})
    k90 = tritium.compile(src, target=GPUTarget("cuda", 90, 32))
    k80 = tritium.compile(src, target=GPUTarget("cuda", 80, 32))
    assert ".target sm_90" in k90.asm["ptx"] and ".target sm_80" in k80.asm["ptx"]
    assert "cvt.rn.satfinite.e5m2x2.f32" in k90.asm["ptx"]
    assert "e5m2x2" not in k80.asm["ptx"]


def test_compile_without_a_target_is_the_active_drivers():
    # Triton's default: the GPU present; with none (or TRITIUM_INTERPRET=1), the interpreter.
    current = tritium.runtime.driver.active.get_current_target()
    k = tritium.compile(_ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"}))
    if current.backend == "cuda" and current.arch:
        assert k.backend == "cuda" and k.metadata.target == current
    else:
        assert k.backend == "interpreter" and k.metadata.target is None


@tritium.jit
def full_of_dtype(dtype: tl.constexpr):
    _ = tl.full((256,), 0.0, dtype)  # unused: the optimizer deletes it, the check still sees it


@pytest.mark.parametrize("dtype,arch,ok", [
    ("float8e5", 80, True), ("float8e4b15", 80, True), ("float8e4nv", 80, False), ("float8e4nv", 89, True),
    ("float8e4nv", 90, True), ("float8e4b8", 90, False), ("float8e5b16", 90, False), ("float8e5b16", 80, False)])
def test_fp8_types_per_cuda_target_as_triton(dtype, arch, ok):
    # Triton 3.6's NVIDIA backend: fp8e5 and fp8e4b15 everywhere, fp8e4nv from sm_89, the
    # AMD "fnuz" types never; the interpreter takes them all.
    from tritium.compiler import ASTSource, GPUTarget
    src = ASTSource(fn=full_of_dtype, signature={"dtype": "constexpr"}, constexprs={"dtype": getattr(tl, dtype)})
    tritium.compile(src, target=GPUTarget("cpu", 0, 32))
    if ok:
        tritium.compile(src, target=GPUTarget("cuda", arch, 32))
        return
    with pytest.raises(tritium.CompilationError, match="not supported in this architecture") as e:
        tritium.compile(src, target=GPUTarget("cuda", arch, 32))
    supported = "('fp8e4b15', 'fp8e4nv', 'fp8e5')" if arch >= 89 else "('fp8e4b15', 'fp8e5')"
    assert f"type {getattr(tl, dtype)!s} not supported in this architecture. The supported fp8 dtypes are {supported}" in str(e.value)
    assert "_ = tl.full((256,), 0.0, dtype)" in str(e.value)  # the kernel line, shown


def test_compile_for_a_target_tritium_cannot_generate_code_for_is_a_value_error():
    from tritium.compiler import GPUTarget
    src = _ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"})
    with pytest.raises(ValueError, match="NVIDIA GPUs .* not supported"):
        tritium.compile(src, target=GPUTarget("hip", "gfx942", 64))
    with pytest.raises(ValueError, match="arch must be an int"):
        tritium.compile(src, target=GPUTarget("cuda", "sm_90", 32))


def test_compile_for_a_target_reports_back_end_errors_at_the_call(monkeypatch):
    # The PTX is made inside compile(): what the back end raises is raised there.
    from tritium.compiler import GPUTarget
    calls = []
    original = tritium.compiled.CompiledKernel._emit_stage

    def spy(self, stage):
        calls.append(stage)
        return original(self, stage)

    monkeypatch.setattr(tritium.compiled.CompiledKernel, "_emit_stage", spy)
    tritium.compile(_ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"}),
                    target=GPUTarget("cuda", 90, 32))
    assert calls == ["ptx"]


def _ptxas():
    from tritium.compiled import _find_ptxas
    return _find_ptxas()


def test_cubin_without_a_device_comes_from_ptxas():
    if _ptxas() is None:
        pytest.skip("no ptxas here (TRITON_PTXAS_PATH, PATH, CUDA_HOME)")
    from tritium import driver
    if driver.driver.active.get_current_target().arch != 0:
        pytest.skip("a GPU is present: the driver makes the cubin")
    from tritium.compiler import GPUTarget
    k = tritium.compile(_ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"}),
                        target=GPUTarget("cuda", 80, 32))
    cubin = k.asm["cubin"]
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"


def test_cubin_without_a_device_or_ptxas_says_what_is_missing(monkeypatch, tmp_path):
    from tritium import driver
    if driver.driver.active.get_current_target().arch != 0:
        pytest.skip("a GPU is present: the driver makes the cubin")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("TRITON_PTXAS_PATH", raising=False)
    from tritium.compiler import GPUTarget
    k = tritium.compile(_ast(add_for_target, {"a": "*fp32", "b": "*fp32", "c": "*fp32"}),
                        target=GPUTarget("cuda", 90, 32))
    with pytest.raises(tritium.errors.LaunchError, match="no ptxas .*TRITON_PTXAS_PATH"):
        k.asm["cubin"]


def test_ptxas_rejection_is_a_located_launch_error(tmp_path):
    from tritium.compiled import _assemble
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas fatal: something is wrong' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(tritium.errors.LaunchError, match="kernel 'k': ptxas .* sm_90a: ptxas fatal"):
        _assemble(str(fake), ".version 8.0\n.target sm_90a\n", "k")


def test_triton_backends_compiler_gives_gpu_target():
    import subprocess
    import sys
    code = ("import tritium; tritium.use_as_triton()\n"
            "from triton.backends.compiler import GPUTarget\n"
            "import tritium.compiled\n"
            "assert GPUTarget is tritium.compiled.GPUTarget\n"
            "print(GPUTarget('cuda', 90, 32))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "GPUTarget(backend='cuda', arch=90, warp_size=32)"


# ---- tl.dot_scaled with float8e4nv scales (NVFP4: one e4m3 scale per 16 elements along K) ----

_E2M1_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
# e4m3 bytes with their values: 1.0, 2.0, 0.5, 1.5, 3.0, -1.0, 0.25
_E4M3 = {0x38: 1.0, 0x40: 2.0, 0x30: 0.5, 0x3C: 1.5, 0x44: 3.0, 0xB8: -1.0, 0x28: 0.25}


@tritium.jit
def nvfp4_dot(a_ptr, b_ptr, sa_ptr, sb_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              GROUP: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + n[None, :])
    sa = tl.load(sa_ptr + m[:, None] * (K // GROUP) + tl.arange(0, K // GROUP)[None, :]).to(tl.float8e4nv, bitcast=True)
    sb = tl.load(sb_ptr + n[:, None] * (K // GROUP) + tl.arange(0, K // GROUP)[None, :]).to(tl.float8e4nv, bitcast=True)
    c = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")
    tl.store(out_ptr + m[:, None] * N + n[None, :], c)


def _e2m1(code):
    value = _E2M1_VALUES[code & 7]
    return -value if code & 8 else value


def test_dot_scaled_with_e4m3_scales_scales_groups_of_16():
    rng = np.random.default_rng(7)
    M, N, K = 16, 16, 64
    a_codes = rng.integers(0, 16, (M, K))
    b_codes = rng.integers(0, 16, (K, N))
    keys = np.array(list(_E4M3))
    sa = rng.choice(keys, (M, K // 16)).astype(np.uint8)
    sb = rng.choice(keys, (N, K // 16)).astype(np.uint8)
    a = (a_codes[:, 0::2] | (a_codes[:, 1::2] << 4)).astype(np.uint8)       # packed along K
    b = (b_codes[0::2, :] | (b_codes[1::2, :] << 4)).astype(np.uint8)
    out = np.zeros((M, N), np.float32)
    nvfp4_dot[(1,)](a, b, sa, sb, out, M, N, K, 16)
    av = np.vectorize(_e2m1)(a_codes) * np.vectorize(_E4M3.get)(np.repeat(sa, 16, axis=1))
    bv = np.vectorize(_e2m1)(b_codes) * np.vectorize(_E4M3.get)(np.repeat(sb, 16, axis=1)).T
    np.testing.assert_array_equal(out, (av @ bv).astype(np.float32))


def test_dot_scaled_e4m3_scale_must_cover_16_elements():
    with pytest.raises(tritium.CompilationError, match=r"scale factor \(16\)"):
        nvfp4_dot.warmup(np.zeros((16, 32), np.uint8), np.zeros((32, 16), np.uint8), np.zeros((16, 2), np.uint8),
                         np.zeros((16, 2), np.uint8), np.zeros((16, 16), np.float32), 16, 16, 64, 32, grid=(1,))


@pytest.mark.parametrize("arch", ["sm_90", "sm_89"])
def test_dot_scaled_with_e4m3_scales_compiles_for_the_gpu(arch):
    ptx = nvfp4_dot.emit("ptx", signature="*u8:16, *u8:16, *u8:16, *u8:16, *fp32:16, M=64, N=64, K=128, GROUP=16",
                         arch=int(arch[3:]))
    assert f".target {arch}" in ptx
    assert "mma" in ptx
    from tritium.compiled import _assemble, _find_ptxas
    if _find_ptxas() is not None:
        assert _assemble(_find_ptxas(), ptx, "nvfp4_dot")[:4] == b"\x7fELF"


def test_dot_scaled_with_e4m3_scales_is_refused_before_sm_89():
    # The scales' fp8e4nv needs sm_89 as in Triton 3.6 (this test compiled sm_80 before).
    with pytest.raises(tritium.CompilationError, match="type fp8e4nv not supported in this architecture"):
        nvfp4_dot.emit("ptx", signature="*u8:16, *u8:16, *u8:16, *u8:16, *fp32:16, M=64, N=64, K=128, GROUP=16",
                       arch=80)


def test_import_triton_makes_triton_tools_an_attribute():
    # Triton's `import triton` imports triton.tools: programs reach triton.tools.<module> after
    # importing that module only (test_pipeliner does), and `triton.tools` itself must be there.
    import subprocess
    import sys
    code = ("import tritium; tritium.use_as_triton()\n"
            "import triton\n"
            "print(triton.tools.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "tritium.tools"


@tritium.jit
def e4b15_dot(a_ptr, b_ptr, c_ptr):
    i = tl.arange(0, 16)
    a = tl.load(a_ptr + i[:, None] * 16 + i[None, :])
    b = tl.load(b_ptr + i[:, None] * 16 + i[None, :])
    tl.store(c_ptr + i[:, None] * 16 + i[None, :], tl.dot(a, b))


@pytest.mark.parametrize("arch,warns", [(90, True), (80, False)])
def test_fp8e4b15_dot_is_deprecated_from_sm_90(arch, warns):
    # Triton 3.6 warns at tl.dot of fp8e4b15 operands on Hopper and later (it widens them).
    import warnings
    from tritium.compiler import ASTSource, GPUTarget
    src = ASTSource(fn=e4b15_dot, signature={"a_ptr": "*fp8e4b15", "b_ptr": "*fp8e4b15", "c_ptr": "*fp32"},
                    constexprs={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tritium.compile(src, target=GPUTarget("cuda", arch, 32))
    found = [w for w in caught if "fp8e4b15 is deprecated on Hopper and later architectures" in str(w.message)]
    assert len(found) == (1 if warns else 0)
    if warns:  # at the kernel's tl.dot line
        lines = open(__file__).read().splitlines()
        assert found[0].filename == __file__
        assert "tl.dot(a, b)" in lines[found[0].lineno - 1]

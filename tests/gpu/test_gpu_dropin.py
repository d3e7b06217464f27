"""The drop-in surface on the GPU (issue 10): the compiled-kernel handle with the driver's
facts, every launch option (num_ctas as a real cluster launch with results identical to
num_ctas=1, maxnreg, cooperative launch), fp8 casts against the brute-force reference of
tests/python/test_fp8.py (cvt on sm_90, software elsewhere), torch fp8 tensors as
arguments, and `python -m tritium` running an unmodified Triton program on the GPU."""

import math
import re
import os
import pathlib
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import test_fp8 as fp8  # noqa: E402  (tests/python)
import test_launch_options as opts  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def sm():
    major, minor = torch.cuda.get_device_capability()
    return 10 * major + minor


def test_handle_has_driver_facts():
    x = torch.randn(1000, device="cuda")
    y = torch.randn(1000, device="cuda")
    out = torch.empty_like(x)
    h = opts.axpy[(8,)](x, y, out, 1000, 2.0, BLOCK=128)
    torch.testing.assert_close(out, 2.0 * x + y)
    assert h.backend == "cuda"
    assert h.n_regs > 0 and h.n_spills >= 0 and h.n_max_threads >= 128
    assert h.metadata.target.arch == sm() and h.metadata.target.backend == "cuda"
    assert h.hash and len(h.hash) == 64
    assert isinstance(h.asm["cubin"], bytes) and ".entry axpy" in h.asm["ptx"]
    assert opts.axpy[(8,)](x, y, out, 1000, 3.0, BLOCK=128) is h


@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_num_ctas_cluster_launch_matches(num_ctas):
    if num_ctas > 1 and sm() < 90:
        pytest.skip("clusters need sm_90")
    n = 100_000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    grid = (triton_cdiv(n, 256),)
    h = opts.axpy[grid](x, y, out, n, 1.5, BLOCK=256, num_ctas=num_ctas)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 1.5 * x + y)
    assert h.metadata.cluster_dims == (num_ctas, 1, 1)
    if num_ctas > 1:
        assert ".reqnctapercluster" in h.asm["ptx"]


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_maxnreg_and_cooperative_and_fp_fusion():
    x = torch.randn(4096, device="cuda")
    y = torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    h = opts.axpy[(16,)](x, y, out, 4096, 0.5, BLOCK=256, maxnreg=32)
    assert h.n_regs <= 32 and ".maxnreg 32" in h.asm["ptx"]
    opts.axpy[(16,)](x, y, out, 4096, 0.5, BLOCK=256, launch_cooperative_grid=True)
    torch.testing.assert_close(out, 0.5 * x + y)
    h = opts.axpy[(16,)](x, y, out, 4096, 0.5, BLOCK=256, enable_fp_fusion=False)
    assert "fma.rn.f32" not in h.asm["ptx"]
    torch.testing.assert_close(out, 0.5 * x + y)


@tritium.jit
def abs_codes(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


# The fp8 formats an NVIDIA GPU compiles (Triton 3.6: not AMD's fnuz fp8e4b8 / fp8e5b16, whose
# refusal test_fp8_types_the_gpu_lacks_are_a_compile_error checks; fp8e4nv from sm_89).
NVIDIA_FP8 = [name for name in fp8.FORMATS if name not in ("float8e4b8", "float8e5b16")]


@pytest.mark.parametrize("name", NVIDIA_FP8)
def test_fp8_abs_clears_the_sign_bit_of_every_code(name):
    # Triton's test_abs_fp8: abs on the fp8 bits (NaN codes stay NaN, -0 becomes +0).
    dtype = getattr(tl, name)
    codes = torch.arange(256, dtype=torch.int32, device="cuda").to(torch.uint8)
    out = torch.zeros(256, dtype=torch.uint8, device="cuda")
    abs_codes[(1,)](tritium.reinterpret(codes, dtype), tritium.reinterpret(out, dtype), BLOCK=256)
    assert out.cpu().tolist() == [c & 0x7F for c in range(256)]


@pytest.mark.parametrize("name", NVIDIA_FP8)
@pytest.mark.parametrize("rtz", [False, True])
def test_fp8_casts_on_gpu_match_the_reference(name, rtz):
    rng = __import__("numpy").random.default_rng(0)
    x = torch.tensor(fp8.interesting_float32(rng, name), device="cuda")
    n = x.numel()
    out = torch.zeros(n, dtype=torch.uint8, device="cuda")
    dtype = getattr(tl, name)
    fp8.to_fp8[(1,)](x, tritium.reinterpret(out, dtype), n, DTYPE=dtype, RTZ=rtz,
                     BLOCK=tritium.next_power_of_2(n))
    got = out.cpu().tolist()
    expected = [fp8.encode_reference(float(v), name, rtz) for v in x.cpu().tolist()]
    bad = [(v, g, e) for v, g, e in zip(x.cpu().tolist(), got, expected)
           if e is None and not math.isnan(fp8.decode(g, name)) or e is not None and g != e]
    assert not bad, bad[:5]
    codes = torch.arange(256, dtype=torch.int32, device="cuda").to(torch.uint8)
    back = torch.zeros(256, dtype=torch.float32, device="cuda")
    fp8.from_fp8[(1,)](tritium.reinterpret(codes, dtype), back, 256, BLOCK=256)
    exp = torch.tensor([fp8.decode(c, name) for c in range(256)], dtype=torch.float32)
    torch.testing.assert_close(back.cpu(), exp, equal_nan=True, atol=0, rtol=0)


def test_torch_fp8_tensors_as_arguments():
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("this torch has no fp8 dtypes")
    x = torch.randn(512, device="cuda")
    out = torch.empty(512, dtype=torch.float8_e4m3fn, device="cuda")
    fp8.to_fp8[(1,)](x, out, 512, DTYPE=tl.float8e4nv, RTZ=False, BLOCK=512)
    torch.testing.assert_close(out.float(), x.to(torch.float8_e4m3fn).float(), atol=0, rtol=0)


def test_python_m_tritium_on_the_gpu(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def k(x, y, n, B: tl.constexpr):\n"
        "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
        "    tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)\n"
        "x = torch.randn(5000, device='cuda'); y = torch.empty_like(x)\n"
        "h = k[(triton.cdiv(5000, 1024),)](x, y, 5000, B=1024)\n"
        "triton.testing.assert_close(y, 2 * x)\n"
        "print('ok', h.n_regs > 0, triton.testing.do_bench(lambda: k[(5,)](x, y, 5000, B=1024)) > 0)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, "-m", "tritium", str(program)], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "ok True True" in result.stdout


def test_libdevice_math_on_the_gpu():
    import test_math as tm  # tests/python
    x = torch.randn(64, device="cuda")
    y = torch.randn(64, device="cuda") + 3
    out = torch.empty_like(x)
    hi = torch.empty(64, dtype=torch.int32, device="cuda")
    tm.mixed[(1,)](x, y, out, tritium.reinterpret(hi, tl.uint32), BLOCK=64)
    xd, yd = x.double(), y.double()
    expected = (2 * torch.erf(xd) + torch.tanh(yd) + 2 * xd / yd + torch.sqrt(xd.abs()) + xd.abs() ** 1.5
                + xd.clamp(-0.5, 0.5) + torch.atan2(xd, yd) + xd * yd + xd)
    torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-5)
    for dtype in (torch.float32, torch.float64):
        v = (torch.rand(100, device="cuda", dtype=dtype) * 1.8 - 0.9)
        o = torch.empty_like(v)
        tm.make_unary("tanh")[(1,)](v, o, 100, BLOCK=128)
        torch.testing.assert_close(o, torch.tanh(v))


@tritium.jit
def scale_shift(data, out):
    offs = tl.arange(0, 128)
    tl.store(out + offs, tl.load(data + offs) * 1.5 + 1.0)


@pytest.mark.parametrize("arch", [70, 80, 90])
@pytest.mark.parametrize("how", ["option", "TRITON_OVERRIDE_ARCH", "TRITIUM_OVERRIDE_ARCH"])
def test_arch_option_compiles_for_an_older_target(monkeypatch, arch, how):
    """Triton's `arch` launch option (and TRITON_OVERRIDE_ARCH): the kernel is compiled for
    that target (its PTX's .target) and runs on this GPU, the driver compiling the PTX for it;
    the option beats the variables. Each case a fresh kernel: the variables are read when a
    specialization is compiled, not at every launch."""
    if arch > sm():
        pytest.skip(f"sm_{arch} code cannot run on this sm_{sm()} GPU")
    kernel = tritium.jit(scale_shift.fn)
    data = torch.randn(128, device="cuda")
    out = torch.empty_like(data)
    if how == "option":
        monkeypatch.setenv("TRITON_OVERRIDE_ARCH", "sm999")  # ignored: the option is given
        h = kernel[(1,)](data, out, arch=f"sm{arch}")
    else:
        monkeypatch.setenv(how, f"sm{arch}")
        h = kernel[(1,)](data, out)
    torch.testing.assert_close(out, data * 1.5 + 1.0)
    assert h.metadata.target.arch == arch and h.backend == "cuda"
    assert re.search(rf"\.target sm_{arch}a?\b", h.asm["ptx"])


def test_arch_newer_than_the_gpu_or_malformed_is_an_error(monkeypatch):
    data = torch.randn(128, device="cuda")
    out = torch.empty_like(data)
    with pytest.raises(tritium.LaunchError, match=r"kernel 'scale_shift': launch option arch asks for sm_999, "
                                                  r"newer than device 0 \(.*\), which cannot run its code"):
        scale_shift[(1,)](data, out, arch="sm999")
    kernel = tritium.jit(scale_shift.fn)
    monkeypatch.setenv("TRITON_OVERRIDE_ARCH", "ampere")
    with pytest.raises(tritium.LaunchError, match="TRITON_OVERRIDE_ARCH='ampere' must have the form sm<NN>"):
        kernel[(1,)](data, out)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8"])
def test_sm80_matmul_runs_on_a_newer_gpu(dtype):
    """arch='sm80' on an sm_90 GPU compiles the sm_80 tensor-core path (cp.async pipeline,
    ldmatrix, mma.sync) and the GPU runs it: the sm_80 code is checked on Hopper hardware."""
    import dot_kernels
    if sm() < 80:
        pytest.skip("needs sm_80 or newer")
    mod = dot_kernels.load("tritium")
    M, N, K = 256, 192, 320
    if dtype == "int8":
        a = torch.randint(-8, 8, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-8, 8, (K, N), device="cuda", dtype=torch.int8)
        c = torch.empty((M, N), device="cuda", dtype=torch.int32)
        acc, ref = mod.tl.int32, (a.cpu().long() @ b.cpu().long()).int()
    else:
        a = torch.randn((M, K), device="cuda", dtype=getattr(torch, dtype))
        b = torch.randn((K, N), device="cuda", dtype=getattr(torch, dtype))
        c = torch.empty((M, N), device="cuda", dtype=torch.float32)
        acc, ref = mod.tl.float32, (a.double() @ b.double()).cpu()
    h = mod.matmul_kernel[dot_kernels.matmul_grid(M, N, 64, 64)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACC_IN_DOT=True, PREC=None,
        OUT_FP16=False, ACC_DTYPE=acc, IMPRECISE=None, num_warps=4, num_stages=3, arch="sm80")
    torch.cuda.synchronize()
    ptx = h.asm["ptx"]
    assert ".target sm_80" in ptx and "mma.sync.aligned" in ptx and "cp.async" in ptx and "wgmma" not in ptx
    if dtype == "int8":
        assert torch.equal(c.cpu(), ref)
    else:
        torch.testing.assert_close(c.cpu().double(), ref, rtol=1e-2, atol=1e-2 * K ** 0.5)


@tritium.jit
def fp8_to_fp32(src, out):
    offs = tl.arange(0, 128)
    tl.store(out + offs, tl.load(src + offs).to(tl.float32))


def test_fp8_types_the_gpu_lacks_are_a_compile_error():
    # Triton 3.6's NVIDIA backend: AMD's fnuz types never, fp8e4nv from sm_89 (here through
    # the arch option); the error names the kernel line and the supported types.
    out = torch.empty(128, device="cuda")
    fnuz = torch.zeros(128).to(torch.float8_e4m3fnuz).cuda()
    with pytest.raises(tritium.CompilationError, match=r"type fp8e4b8 not supported in this architecture\. "
                                                       r"The supported fp8 dtypes are \('fp8e4b15', 'fp8e4nv', 'fp8e5'\)"):
        fp8_to_fp32[(1,)](fnuz, out)
    e4m3 = (torch.arange(128, device="cuda") / 16).to(torch.float8_e4m3fn)
    with pytest.raises(tritium.CompilationError, match=r"type fp8e4nv not supported in this architecture"):
        fp8_to_fp32[(1,)](e4m3, out, arch="sm80")
    fp8_to_fp32[(1,)](e4m3, out)  # the H100's own target takes it
    torch.testing.assert_close(out, e4m3.float())

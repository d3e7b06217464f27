"""The drop-in surface on the GPU (issue 10): the compiled-kernel handle with the driver's
facts, every launch option (num_ctas as a real cluster launch with results identical to
num_ctas=1, maxnreg, cooperative launch), fp8 casts against the brute-force reference of
tests/python/test_fp8.py (cvt on sm_90, software elsewhere), torch fp8 tensors as
arguments, and `python -m tritium` running an unmodified Triton program on the GPU."""

import math
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


@pytest.mark.parametrize("name", list(fp8.FORMATS))
def test_fp8_abs_clears_the_sign_bit_of_every_code(name):
    # Triton's test_abs_fp8: abs on the fp8 bits (NaN codes stay NaN, -0 becomes +0).
    dtype = getattr(tl, name)
    codes = torch.arange(256, dtype=torch.int32, device="cuda").to(torch.uint8)
    out = torch.zeros(256, dtype=torch.uint8, device="cuda")
    abs_codes[(1,)](tritium.reinterpret(codes, dtype), tritium.reinterpret(out, dtype), BLOCK=256)
    assert out.cpu().tolist() == [c & 0x7F for c in range(256)]


@pytest.mark.parametrize("name", list(fp8.FORMATS))
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

"""The GPU runtime around the kernels: streams (given, and torch's current stream), CUDA
graphs (warmup before capture; compiling during capture is an error), launch errors that
name the kernel and the argument and launch nothing, the disk cache seen from new processes
(a warm start compiles nothing; a corrupted entry is rebuilt with a warning), one compile
when many threads ask at once, CuPy and __cuda_array_interface__ arrays, cubin emission,
kernels compiled as whole programs (registers as ptxas without -c gives)."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import test_vector_add as vadd  # noqa: E402  (tests/python)

ROOT = pathlib.Path(__file__).resolve().parents[2]
add_kernel = vadd.add_kernel


def poisoned(like):
    return torch.full_like(like, float("nan"))


@tritium.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


# ---- streams and graphs ---------------------------------------------------------------


def test_explicit_stream(gen):
    n = 1 << 20
    x, y = torch.randn(2, n, device="cuda", generator=gen)
    out = poisoned(x)
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    add_kernel[(tritium.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024, stream=stream)
    stream.synchronize()
    assert torch.equal(out, x + y)
    out2 = poisoned(x)
    torch.cuda.synchronize()  # the NaN fill ran on torch's stream, not on `stream`
    add_kernel[(tritium.cdiv(n, 1024),)](x, y, out2, n, BLOCK_SIZE=1024,
                                         stream=stream.cuda_stream)  # a raw handle
    stream.synchronize()
    assert torch.equal(out2, x + y)


def test_torch_current_stream_and_graph_capture(gen):
    # Capture works only if the launch goes to torch's current (capturing) stream, and only
    # if nothing is compiled or loaded during capture: warmup does that beforehand.
    n = 4096
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(x)
    scale_kernel.warmup(x, out, n, 3.0, BLOCK=256, grid=(16,))
    torch.cuda.synchronize()
    assert out.isnan().all()  # warmup launches nothing
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        scale_kernel[(16,)](x, out, n, 3.0, BLOCK=256)
    assert out.isnan().all()  # captured, not run
    for _ in range(2):
        x.copy_(torch.randn(n, device="cuda", generator=gen))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, x * 3.0)


def test_compiling_while_capturing_is_an_error(gen):
    x = torch.randn(512, device="cuda", generator=gen)
    out = poisoned(x)
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(tritium.LaunchError, match="capturing a CUDA graph.*warmup"):
        with torch.cuda.graph(graph):
            scale_kernel[(2,)](x, out, 512, 5.0, BLOCK=512)  # a new specialization
    torch.cuda.synchronize()
    scale_kernel[(1,)](x, out, 512, 5.0, BLOCK=512)  # outside capture: fine
    torch.cuda.synchronize()
    assert torch.equal(out, x * 5.0)


# ---- errors name the kernel and the argument; nothing is launched --------------------


def test_host_pointer_to_a_gpu_launch(gen):
    x = torch.randn(64, device="cuda", generator=gen)
    host = torch.zeros(64)  # CPU memory
    out = poisoned(x)
    with pytest.raises(tritium.LaunchError, match=r"kernel 'add_kernel': argument 'y_ptr'.*host"):
        add_kernel[(1,)](x, host, out, 64, BLOCK_SIZE=64)
    torch.cuda.synchronize()
    assert out.isnan().all()


def test_wrong_argument_count(gen):
    x = torch.randn(64, device="cuda", generator=gen)
    out = poisoned(x)
    with pytest.raises(tritium.LaunchError, match="add_kernel"):
        add_kernel[(1,)](x, x, out, 64, 64, 99)
    with pytest.raises(tritium.LaunchError, match="add_kernel.*'n_elements'.*missing"):
        add_kernel[(1,)](x, x, out, BLOCK_SIZE=64)
    torch.cuda.synchronize()
    assert out.isnan().all()


@pytest.mark.parametrize("grid, what", [((2**31,), "grid dimension 0"),
                                        ((1, 65536), "grid dimension 1"),
                                        ((1, 1, 70000), "grid dimension 2"),
                                        ((-1,), "grid dimension 0")])
def test_grid_out_of_range(gen, grid, what):
    x = torch.randn(64, device="cuda", generator=gen)
    out = poisoned(x)
    with pytest.raises(tritium.LaunchError, match=f"kernel 'add_kernel': {what}"):
        add_kernel[grid](x, x, out, 64, BLOCK_SIZE=64)
    torch.cuda.synchronize()
    assert out.isnan().all()


@tritium.jit
def big_matmul(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_over_the_shared_memory_is_out_of_resources(gen):
    """A 128x256x64 fp32 matmul with 3 stages holds 288 KiB of stage buffers (one of mamba's
    configs): more than the device lets a block have. As in Triton, loading it raises
    OutOfResources (which autotuners catch); nothing is launched; an autotuner passes over it."""
    a = torch.randn(128, 128, device="cuda", generator=gen)
    b = torch.randn(128, 256, device="cuda", generator=gen)
    c = poisoned(torch.empty(128, 256, device="cuda"))
    with pytest.raises(tritium.OutOfResources, match=r"kernel 'big_matmul': out of resource: shared memory, "
                                                      r"Required: \d+, Hardware limit: \d+") as e:
        big_matmul[(1,)](a, b, c, 128, BM=128, BN=256, BK=64, num_warps=8, num_stages=3)
    assert e.value.required > e.value.limit > 0
    torch.cuda.synchronize()
    assert c.isnan().all()
    tuned = tritium.autotune([tritium.Config({"BK": 64}, num_warps=8, num_stages=3),
                              tritium.Config({"BK": 32}, num_warps=4, num_stages=2)], key=[])(big_matmul)
    tuned[(1,)](a, b, c, 128, BM=128, BN=256)
    torch.testing.assert_close(c, a @ b, rtol=1e-2, atol=1e-1)  # tf32
    assert tuned.best_config.kwargs["BK"] == 32


# ---- the disk cache from new processes ------------------------------------------------

CHILD = textwrap.dedent("""
    import json, sys
    import torch, tritium
    sys.path.insert(0, {tests!r})
    import test_vector_add as vadd
    n = 100003
    x = torch.randn(n, device="cuda"); y = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    vadd.add_kernel[(tritium.cdiv(n, 512),)](x, y, out, n, BLOCK_SIZE=512)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y), "wrong result"
    print(json.dumps(tritium.cache_stats()))
""")


def run_child(cache_dir):
    env = dict(os.environ, TRITIUM_CACHE_DIR=str(cache_dir), TRITIUM_CACHE_LOG="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    program = CHILD.format(tests=str(ROOT / "tests" / "python"))
    result = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def test_second_process_compiles_nothing(tmp_path):
    first, log1 = run_child(tmp_path)
    assert first["compiles"] == 1 and first["disk_misses"] == 1 and first["disk_writes"] == 1
    assert "disk miss" in log1 and "compiled" in log1
    entries = list(tmp_path.glob("*.tritium"))
    assert len(entries) == 1 and len(entries[0].stem) == 64  # one file per entry, full key
    second, log2 = run_child(tmp_path)
    assert second["compiles"] == 0 and second["disk_hits"] == 1
    assert second["lower_seconds"] == 0 and second["ptx_seconds"] == 0
    assert second["cubin_seconds"] == 0
    assert "disk hit" in log2 and "compiled" not in log2


def test_corrupted_entry_is_rebuilt_with_a_warning(tmp_path):
    run_child(tmp_path)
    (entry,) = tmp_path.glob("*.tritium")
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) - 100])  # truncated
    stats, log = run_child(tmp_path)
    assert "warning" in log and "is bad" in log and "recompiling" in log
    assert stats["bad_entries"] == 1 and stats["compiles"] == 1
    again, _ = run_child(tmp_path)
    assert again["compiles"] == 0 and again["disk_hits"] == 1


def test_cache_cli(tmp_path):
    cli = os.environ.get("TRITIUM_CLI")
    if not cli:
        pytest.skip("TRITIUM_CLI (the tritium executable) is not set")
    run_child(tmp_path)
    env = dict(os.environ, TRITIUM_CACHE_DIR=str(tmp_path))
    listed = subprocess.run([cli, "cache", "list"], env=env, capture_output=True, text=True)
    assert listed.returncode == 0 and "add_kernel" in listed.stdout and "sm_90" in listed.stdout
    key = listed.stdout.split()[0]
    shown = subprocess.run([cli, "cache", "show", key[:10]], env=env, capture_output=True,
                           text=True)
    assert shown.returncode == 0 and ".visible .entry add_kernel" in shown.stdout
    cleared = subprocess.run([cli, "cache", "clear"], env=env, capture_output=True, text=True)
    assert "removed 1 entry" in cleared.stdout and not list(tmp_path.glob("*.tritium"))


# ---- many threads, one compile -------------------------------------------------------


@tritium.jit
def offset_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 7.0, mask=mask)


def test_many_threads_compile_once(gen):
    n = 10000
    x = torch.randn(n, device="cuda", generator=gen)
    outs = [poisoned(x) for _ in range(8)]
    before = tritium.cache_stats()
    barrier = threading.Barrier(len(outs))
    errors = []

    def work(out):
        try:
            barrier.wait()
            offset_kernel[(tritium.cdiv(n, 128),)](x, out, n, BLOCK=128)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(out,)) for out in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    torch.cuda.synchronize()
    assert not errors, errors
    after = tritium.cache_stats()
    assert after["compiles"] - before["compiles"] == 1
    for out in outs:
        assert torch.equal(out, x + 7.0)


# ---- other array kinds and the cubin -------------------------------------------------


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    n = 3000
    x = cupy.random.standard_normal(n, dtype=cupy.float32)
    y = cupy.random.standard_normal(n, dtype=cupy.float32)
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    assert add_kernel.signature(x, y, out, n, 256) == \
        "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK_SIZE=256"
    add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)
    cupy.cuda.runtime.deviceSynchronize()
    assert bool((out == x + y).all())


class CudaArray:
    """Device memory seen only through __cuda_array_interface__ (the device is not said)."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def test_cuda_array_interface(gen):
    n = 777
    x, y = torch.randn(2, n, device="cuda", generator=gen)
    out = poisoned(x)
    add_kernel[(tritium.cdiv(n, 128),)](CudaArray(x), CudaArray(y), CudaArray(out), n,
                                        BLOCK_SIZE=128)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)


def test_emit_cubin_and_ptx():
    signature = "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK_SIZE=1024"
    cubin = add_kernel.emit("cubin", signature=signature)
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    ptx = add_kernel.emit("ptx", signature=signature)
    assert ".target sm_90" in ptx
    assert ".target sm_80" in add_kernel.emit("ptx", signature=signature, arch=80)


@tritium.jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    tl.store(Y + row * stride + cols, xc * rstd * w + b, mask=mask)


def test_kernels_are_compiled_as_whole_programs(monkeypatch):
    """By default (TRITIUM_LOAD_PTX unset or 1) the driver compiles the PTX at load as a whole
    program (ptxas without -c, as Triton's cubins): benchmarks/kernels_reduce.py's layer norm
    at 1024 / 4 warps takes 32 registers (16 CTAs of 128 threads per SM). Through the
    driver's JIT linker (cuLinkAddData, TRITIUM_LOAD_PTX=0, the default until session 25)
    PTX is relocatable code: 40 registers statically, 12 CTAs per SM, and layer norm at 0.89
    of Triton's bandwidth on an H200 (RESULTS.md, helper lnorm)."""
    monkeypatch.delenv("TRITIUM_LOAD_PTX", raising=False)
    n = 1024
    x = torch.randn(4, n, device="cuda", dtype=torch.float16)
    w, b = torch.randn(2, n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(2, 4, device="cuda")
    handle = layer_norm_kernel.warmup(x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK=n,
                                      num_warps=4, grid=(4,))
    assert handle.n_regs <= 32, f"{handle.n_regs} registers: compiled as relocatable code?"
    layer_norm_kernel[(4,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK=n, num_warps=4)
    ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
    torch.testing.assert_close(y.float(), ref, rtol=1e-2, atol=1e-2)


# ---- the same kernels through the C++ API ---------------------------------------------


def test_cpp_api():
    program = os.environ.get("TRITIUM_GPU_CPP_TEST")
    if not program:
        pytest.skip("TRITIUM_GPU_CPP_TEST (tests/gpu/cpp/gpu_api_test built) is not set")
    env = dict(os.environ, TRITIUM_TESTS_PYTHON=str(ROOT / "tests" / "python"))
    result = subprocess.run([program], env=env, capture_output=True, text=True, timeout=300)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    assert result.returncode == 0
    assert "FAILED" not in result.stdout and "C++ API: all" in result.stdout

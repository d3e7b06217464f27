"""Two GPUs (issue 13; DESIGN: Devices, streams, graphs): a launch runs on its arguments'
device, not the current one, and leaves the current device alone; one loaded module per
device from one compile; launches alternating between devices and from one thread per
device; arguments on two devices refused by name with nothing compiled or launched; warmup
and CUDA-graph capture on device 1; the C++ API with the device stated and left to the
driver; autotuning timed on the device the kernel runs on. Skipped, saying so, with fewer
than two GPUs."""

import os
import pathlib
import secrets
import subprocess
import sys
import threading

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.autotuner as autotuner  # noqa: E402
import tritium.language as tl  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

if torch.cuda.is_available() and torch.cuda.device_count() < 2:
    pytest.skip(f"two GPUs needed: torch sees {torch.cuda.device_count()} CUDA device(s)",
                allow_module_level=True)

# A global the kernels read: part of the cache key, so every run of this file starts with
# nothing compiled (memory or disk) and the compile counts below are exact.
SALT = tl.constexpr(secrets.randbelow(1000) + 1)


@tritium.jit
def salted_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + SALT, mask=mask)


@tritium.jit
def salted_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SALT, mask=mask)


@tritium.jit
def salted_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) - SALT, mask=mask)


def delta(before, after, *names):
    return tuple(after[name] - before[name] for name in names)


@pytest.fixture(autouse=True)
def device_0_current():
    torch.cuda.set_device(0)
    yield
    for d in range(2):
        torch.cuda.synchronize(d)


def test_runs_on_the_arguments_device_not_the_current_one():
    n = 100_000
    torch.zeros(1, device="cuda:0")  # device 0's context exists before the measurement
    torch.cuda.synchronize(0)
    free_before, _ = torch.cuda.mem_get_info(0)
    allocated_before = torch.cuda.memory_allocated(0)
    x = torch.randn(n, device="cuda:1")
    out = torch.full_like(x, float("nan"))
    before = tritium.cache_stats()
    assert torch.cuda.current_device() == 0
    handle = salted_add[(tritium.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(1)
    assert torch.equal(out, x + SALT.value)
    assert handle.device == 1  # the module is loaded on device 1
    assert delta(before, tritium.cache_stats(), "compiles", "memory_misses") == (1, 1)
    # Nothing allocated or loaded on device 0 (a module load there takes device memory).
    torch.cuda.synchronize(0)
    assert torch.cuda.memory_allocated(0) == allocated_before
    assert torch.cuda.mem_get_info(0)[0] == free_before
    # The current device is the caller's still: torch allocates its next tensors there.
    assert torch.empty(1, device="cuda").device.index == 0


def test_alternating_devices_share_the_caches():
    n = 5000
    xs = [torch.randn(n, device=f"cuda:{d}") for d in (0, 1)]
    before = tritium.cache_stats()
    handles = {}
    for step in range(6):
        d = step % 2
        out = torch.full_like(xs[d], float("nan"))
        handles.setdefault(d, []).append(
            salted_scale[(tritium.cdiv(n, 256),)](xs[d], out, n, BLOCK=256))
        torch.cuda.synchronize(d)
        assert torch.equal(out, xs[d] * SALT.value), f"step {step} on device {d}"
    after = tritium.cache_stats()
    # One compile; a load per device (the second from the disk entry); hits afterwards.
    assert delta(before, after, "compiles", "memory_misses", "memory_hits", "disk_hits") == \
        (1, 2, 4, 1)
    for d in (0, 1):
        assert len({id(h) for h in handles[d]}) == 1  # one loaded module per device
        assert handles[d][0].device == d
    assert handles[0][0] is not handles[1][0]
    assert handles[0][0].hash == handles[1][0].hash  # from one disk entry


def test_two_threads_one_per_device_each_on_its_own_stream():
    n = 1 << 18
    rounds = 20
    xs = [torch.randn(n, device=f"cuda:{d}") for d in (0, 1)]
    outs = [torch.full_like(x, float("nan")) for x in xs]
    streams = [torch.cuda.Stream(device=d) for d in (0, 1)]
    before = tritium.cache_stats()
    barrier = threading.Barrier(2)
    errors = []

    def work(d):
        try:
            barrier.wait()
            for _ in range(rounds):
                salted_copy[(tritium.cdiv(n, 512),)](xs[d], outs[d], n, BLOCK=512,
                                                     stream=streams[d])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in streams:
        s.synchronize()
    assert not errors, errors
    for x, out in zip(xs, outs):
        assert torch.equal(out, x - SALT.value)
    after = tritium.cache_stats()
    assert delta(before, after, "compiles", "memory_misses", "memory_hits") == \
        (1, 2, 2 * rounds - 2)
    assert torch.cuda.current_device() == 0


def test_arguments_on_two_devices_are_refused_before_anything_runs():
    n = 256
    x = torch.randn(n, device="cuda:0")
    out = torch.full((n,), float("nan"), device="cuda:1")
    before = tritium.cache_stats()
    with pytest.raises(tritium.LaunchError,
                       match=r"kernel 'salted_add': argument 'out_ptr': is on device 1 but "
                             r"argument 'x_ptr' is on device 0"):
        salted_add[(1,)](x, out, n, BLOCK=256)
    with pytest.raises(tritium.LaunchError, match=r"argument 'out_ptr'.*argument 'x_ptr'"):
        salted_add.warmup(x, out, n, BLOCK=256, grid=(1,))
    torch.cuda.synchronize(1)
    assert out.isnan().all()  # nothing launched
    after = tritium.cache_stats()
    assert delta(before, after, "compiles", "memory_misses", "memory_hits") == (0, 0, 0)


@tritium.jit
def salted_axpy(x_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + SALT, mask=mask)


def test_warmup_then_graph_capture_on_device_1():
    n = 4096
    x = torch.randn(n, device="cuda:1")
    out = torch.full_like(x, float("nan"))
    handle = salted_axpy.warmup(x, out, n, 2.0, BLOCK=256, grid=(16,))
    assert handle.device == 1
    assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(1)
    assert out.isnan().all()  # warmup launches nothing
    before = tritium.cache_stats()
    with torch.cuda.device(1):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            salted_axpy[(16,)](x, out, n, 2.0, BLOCK=256)
    assert delta(before, tritium.cache_stats(), "compiles", "memory_misses") == (0, 0)
    torch.cuda.synchronize(1)
    assert out.isnan().all()  # captured, not run
    for _ in range(2):
        x.copy_(torch.randn(n, device="cuda:1"))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize(1)
        assert torch.equal(out, 2.0 * x + SALT.value)
    assert torch.cuda.current_device() == 0


def test_cpp_api_two_devices():
    program = os.environ.get("TRITIUM_GPU_CPP_TEST")
    if not program:
        pytest.skip("TRITIUM_GPU_CPP_TEST (tests/gpu/cpp/gpu_api_test built) is not set")
    result = subprocess.run([program], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ))
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    lines = [line for line in result.stdout.splitlines() if "two devices" in line]
    assert len(lines) == 3, result.stdout
    assert all(line.startswith("PASS two devices") for line in lines), "\n".join(lines)
    assert result.returncode == 0


@tritium.autotune(configs=[tritium.Config({"BLOCK": 128}, num_warps=4),
                           tritium.Config({"BLOCK": 1024}, num_warps=8)],
                  key=["n"], warmup=5, rep=20, cache_results=False)
@tritium.jit
def tuned_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + SALT, mask=mask)


def test_autotuning_times_on_the_device_it_runs_on(monkeypatch):
    n = 1 << 20
    x = torch.randn(n, device="cuda:1")
    out = torch.full_like(x, float("nan"))
    seen = []  # (device asked for, torch's current device during each timed call)
    real = autotuner.gpu_do_bench

    def spying_do_bench(call, device=None, **kwargs):
        def timed():
            seen.append((device, torch.cuda.current_device()))
            call()
        return real(timed, device=device, **kwargs)

    monkeypatch.setattr(autotuner, "gpu_do_bench", spying_do_bench)
    for d in range(2):
        torch.cuda.synchronize(d)
        torch.cuda.reset_peak_memory_stats(d)
    base = [torch.cuda.memory_allocated(d) for d in range(2)]
    tuned_add[lambda meta: (tritium.cdiv(n, meta["BLOCK"]),)](x, out, n)
    torch.cuda.synchronize(1)
    assert torch.equal(out, x + SALT.value)
    assert seen and set(seen) == {(1, 1)}, set(seen)
    assert len(tuned_add.configs_timings) == 2
    # The 256 MiB L2 flush buffer, and everything else timing made, lived on device 1.
    assert torch.cuda.max_memory_allocated(0) == base[0]
    assert torch.cuda.max_memory_allocated(1) >= base[1] + 256 * 1024 * 1024
    assert torch.cuda.current_device() == 0

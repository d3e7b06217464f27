"""@tritium.autotune, @tritium.heuristics and tritium.Config through the interpreter: config
choice (first config without a timer, fastest with a do_bench), stacking with heuristics in
both orders, hooks (reset_to_zero, restore_value), pruning, parallel compilation, configs
that do not compile, and the choice kept on disk for a new process."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import types

import numpy as np
import pytest

import tritium
import tritium.language as tl

ROOT = pathlib.Path(__file__).resolve().parents[2]

CONFIGS = [
    tritium.Config({"BLOCK": 64, "SCALE": 1}),
    tritium.Config({"BLOCK": 128, "SCALE": 2}, num_warps=8),
    tritium.Config({"BLOCK": 256, "SCALE": 3}, num_stages=2),
]

# The "time" of a config, known from what its run wrote (out = x * SCALE): SCALE 2 is fastest.
FAKE_MS = {1: 3.0, 2: 1.0, 3: 2.0, 4: 2.5}


def grid(meta):
    return (tritium.cdiv(meta["n"], meta["BLOCK"]),)


@tritium.jit
def scaled_copy_body(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


def make_kernel(**autotune_options):
    """A fresh autotuned kernel (each test tunes from scratch)."""

    # (Applied by hand: the kernel's decorators are part of its source, and tritium's
    # parser does not take `**options` there.)
    @tritium.jit
    def scaled_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)

    return tritium.autotune(configs=CONFIGS, key=["n"], **autotune_options)(scaled_copy)


class FakeBench:
    """A do_bench that runs the call and reports the time FAKE_MS gives its config."""

    def __init__(self, x, out):
        self.x, self.out, self.calls = x, out, 0

    def __call__(self, kernel_call, quantiles=None):
        self.calls += 1
        self.out.fill(np.nan)
        kernel_call()
        scale = int(round(float(self.out[0] / self.x[0])))
        np.testing.assert_array_equal(self.out, self.x * np.float32(scale))
        return [FAKE_MS[scale]] * 3


@pytest.fixture(autouse=True)
def fresh_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITIUM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRITIUM_PRINT_AUTOTUNING", raising=False)
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    monkeypatch.delenv("TRITIUM_AUTOTUNE_CACHE", raising=False)


def inputs(rng, n=1000):
    x = (rng.integers(1, 50, n)).astype(np.float32)  # nonzero: out/x names the SCALE
    return x, np.full(n, np.nan, np.float32)


def test_config_has_tritons_attributes():
    hook = lambda nargs: None  # noqa: E731
    c = tritium.Config({"BLOCK": 32}, num_warps=2, num_stages=4, num_ctas=2, maxnreg=128,
                       pre_hook=hook)
    assert (c.kwargs, c.num_warps, c.num_stages, c.num_ctas, c.maxnreg, c.pre_hook) == \
        ({"BLOCK": 32}, 2, 4, 2, 128, hook)
    assert c.all_kwargs() == {"BLOCK": 32, "num_warps": 2, "num_ctas": 2, "num_stages": 4,
                              "maxnreg": 128}
    assert str(c) == "BLOCK: 32, num_warps: 2, num_ctas: 2, num_stages: 4, maxnreg: 128"
    assert tritium.Config({"BLOCK": 32}).launch_options() == {"num_warps": 4, "num_stages": 3}
    assert c == tritium.Config({"BLOCK": 32}, 2, 4, 2, 128, hook)
    assert c != tritium.Config({"BLOCK": 32}, 2, 4, 2, 128)


def test_a_triton_config_object_is_accepted(rng):
    # Anything with Triton's Config attributes (e.g. a real triton.Config).
    foreign = [types.SimpleNamespace(kwargs={"BLOCK": 128, "SCALE": 5}, num_warps=4,
                                     num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None)]

    @tritium.autotune(configs=foreign, key=[])
    @tritium.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    x, out = inputs(rng)
    k[grid](x, out, x.size)
    np.testing.assert_array_equal(out, x * np.float32(5))
    assert isinstance(k.best_config, tritium.Config) and k.best_config.kwargs["SCALE"] == 5


def test_interpreter_without_a_timer_uses_the_first_config(rng, capsys, monkeypatch):
    monkeypatch.setenv("TRITIUM_PRINT_AUTOTUNING", "1")
    kernel = make_kernel()
    x, out = inputs(rng)
    kernel[grid](x, out, x.size)
    np.testing.assert_array_equal(out, x)  # SCALE 1: the first config
    assert kernel.best_config is CONFIGS[0]
    assert kernel.bench_runs == 0
    assert "nothing is timed and the first config is used" in capsys.readouterr().out
    assert not (pathlib.Path(os.environ["TRITIUM_CACHE_DIR"]) / "autotune").exists()


def test_do_bench_picks_the_fastest_and_tunes_once_per_key(rng, capsys, monkeypatch):
    monkeypatch.setenv("TRITIUM_PRINT_AUTOTUNING", "1")
    x, out = inputs(rng)
    bench = FakeBench(x, out)
    kernel = make_kernel(do_bench=bench)
    kernel[grid](x, out, x.size)
    assert bench.calls == 3 and kernel.bench_runs == 3
    assert kernel.best_config is CONFIGS[1]
    np.testing.assert_array_equal(out, x * np.float32(2))
    printed = capsys.readouterr().out
    for i in (1, 2, 3):
        assert f"timing config {i}/3" in printed
    assert "best config selected: BLOCK: 128, SCALE: 2, num_warps: 8" in printed
    assert [t[0] for t in kernel.configs_timings.values()] == [3.0, 1.0, 2.0]

    out.fill(np.nan)
    kernel[grid](x, out, x.size)  # the same key: no timing
    assert bench.calls == 3
    np.testing.assert_array_equal(out, x * np.float32(2))

    x2, out2 = inputs(rng, 500)  # a new value of `n`: tuned again
    bench.x, bench.out = x2, out2
    kernel[grid](x2, out2, x2.size)
    assert bench.calls == 6


def test_the_key_includes_dtypes(rng):
    x, out = inputs(rng)
    bench = FakeBench(x, out)
    kernel = make_kernel(do_bench=bench)
    kernel[grid](x, out, x.size)
    x64, out64 = x.astype(np.float64), out.astype(np.float64)
    bench.x, bench.out = x64, out64
    kernel[grid](x64, out64, x.size)
    assert bench.calls == 6
    assert len(kernel.cache) == 2


def test_heuristics_alone_and_stacked_both_ways(rng):
    x, out = inputs(rng, 300)

    @tritium.heuristics({"BLOCK": lambda args: tritium.next_power_of_2(args["n"])})
    @tritium.jit
    def alone(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    seen = []
    alone[lambda meta: (seen.append(meta["BLOCK"]) or 1,)](x, out, x.size, SCALE=4)
    assert seen == [512]
    np.testing.assert_array_equal(out, x * np.float32(4))

    bench = FakeBench(x, out)
    scale_configs = [tritium.Config({"SCALE": s}) for s in (1, 2, 3)]

    @tritium.autotune(configs=scale_configs, key=["n"], do_bench=bench)
    @tritium.heuristics({"BLOCK": lambda args: 32 * 2 ** args["SCALE"]})
    @tritium.jit
    def tune_outside(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    tune_outside[grid](x, out, x.size)
    assert bench.calls == 3 and tune_outside.best_config.kwargs == {"SCALE": 2}
    np.testing.assert_array_equal(out, x * np.float32(2))

    bench = counting_bench()

    @tritium.heuristics({"SCALE": lambda args: 3 if args["n"] > 100 else 1})
    @tritium.autotune(configs=[tritium.Config({"BLOCK": b}) for b in (64, 128)], key=["n"],
                      do_bench=bench)
    @tritium.jit
    def tune_inside(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    out.fill(np.nan)
    tune_inside[grid](x, out, x.size)
    assert len(bench.calls) == 2 and tune_inside.fn.best_config.kwargs == {"BLOCK": 64}
    np.testing.assert_array_equal(out, x * np.float32(3))


def test_heuristics_inside_autotune_see_the_config(rng):
    x, out = inputs(rng, 300)
    bench = FakeBench(x, out)

    @tritium.heuristics({"SCALE": lambda args: args["BLOCK"] // 64})
    @tritium.jit
    def inner(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    tuned = tritium.autotune(configs=[tritium.Config({"BLOCK": b}) for b in (64, 128, 256)],
                             key=["n"], do_bench=bench)(inner)
    tuned[grid](x, out, x.size)
    assert tuned.best_config.kwargs == {"BLOCK": 128}  # SCALE = 2 is the fastest
    np.testing.assert_array_equal(out, x * np.float32(2))


@tritium.jit
def accumulate(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(acc_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@tritium.jit
def increment(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def counting_bench():
    calls = []

    def bench(kernel_call, quantiles=None):
        kernel_call()
        kernel_call()  # twice: a timer runs a kernel many times
        calls.append(1)
        return [float(len(calls))] * 3  # the first config is the fastest

    bench.calls = calls
    return bench


def test_reset_to_zero_and_restore_value(rng):
    configs = [tritium.Config({"BLOCK": b}) for b in (64, 128)]
    x, _ = inputs(rng, 200)
    acc = rng.standard_normal(200).astype(np.float32)  # garbage the autotuner must zero

    summed = tritium.autotune(configs, key=["n"], reset_to_zero=["acc_ptr"],
                              do_bench=counting_bench())(accumulate)
    summed[grid](x, acc, x.size)
    np.testing.assert_array_equal(acc, x)  # zeroed after timing, then one real launch

    y = rng.integers(-1000, 1000, 200).astype(np.float32)  # exact sums
    y0 = y.copy()
    bumped = tritium.autotune(configs, key=["n"], restore_value=["x_ptr"],
                              do_bench=counting_bench())(increment)
    bumped[grid](y, y.size)
    np.testing.assert_array_equal(y, y0 + np.float32(1))

    # Without restore_value the timing runs add 4 more (2 configs, 2 runs each). Not kept on
    # disk: the choice `bumped` stored there would otherwise be reused without timing.
    z = y0.copy()
    unguarded = tritium.autotune(configs, key=["n"], do_bench=counting_bench(),
                                 cache_results=False)(increment)
    unguarded[grid](z, z.size)
    np.testing.assert_array_equal(z, y0 + np.float32(5))

    w = y0.copy()
    reused = tritium.autotune(configs, key=["n"], do_bench=counting_bench())(increment)
    reused[grid](w, w.size)
    assert reused.bench_runs == 0  # `bumped`'s choice, from the disk
    np.testing.assert_array_equal(w, y0 + np.float32(1))


def test_pruning(rng):
    x, out = inputs(rng)
    bench = FakeBench(x, out)
    seen = {}

    def early(configs, named_args, **kwargs):
        seen["named"] = sorted(named_args)
        return [c for c in configs if c.kwargs["SCALE"] != 2]

    kernel = make_kernel(do_bench=bench, prune_configs_by={"early_config_prune": early})
    kernel[grid](x, out, x.size)
    assert seen["named"] == ["n", "out_ptr", "x_ptr"]
    assert bench.calls == 2 and kernel.best_config.kwargs["SCALE"] == 3

    bench.calls = 0
    model = lambda **meta: -meta["BLOCK"]  # noqa: E731  (predicts BLOCK 256 fastest)
    kernel = make_kernel(do_bench=bench, prune_configs_by={"perf_model": model, "top_k": 2})
    kernel[grid](x, out, x.size)
    assert bench.calls == 2 and kernel.best_config.kwargs["SCALE"] == 2

    kernel = make_kernel(do_bench=bench, prune_configs_by={"early_config_prune": lambda c, a, **kw: []})
    with pytest.raises(ValueError, match="at least one"):
        kernel[grid](x, out, x.size)


def test_configs_compile_in_parallel_threads_before_timing(rng):
    x, out = inputs(rng)
    events = []
    bench = FakeBench(x, out)

    def timed(kernel_call, quantiles=None):
        events.append(("time", threading.current_thread().name))
        return bench(kernel_call, quantiles)

    kernel = make_kernel(do_bench=timed)
    jit_fn = kernel.fn
    original = jit_fn.warmup

    def recording_warmup(*args, **kwargs):
        events.append(("compile", threading.current_thread().name))
        return original(*args, **kwargs)

    jit_fn.warmup = recording_warmup
    kernel[grid](x, out, x.size)
    kinds = [kind for kind, _ in events]
    assert kinds == ["compile"] * 3 + ["time"] * 3
    assert all(name != threading.main_thread().name for kind, name in events
               if kind == "compile")


def test_a_config_that_does_not_compile_is_skipped(rng, capsys, monkeypatch):
    monkeypatch.setenv("TRITIUM_PRINT_AUTOTUNING", "1")
    x, out = inputs(rng)
    bench = FakeBench(x, out)
    configs = [tritium.Config({"BLOCK": 100, "SCALE": 2}),  # arange needs a power of 2
               tritium.Config({"BLOCK": 64, "SCALE": 3}), tritium.Config({"BLOCK": 64, "SCALE": 1})]

    @tritium.autotune(configs=configs, key=["n"], do_bench=bench)
    @tritium.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    k[grid](x, out, x.size)
    assert bench.calls == 2 and k.best_config.kwargs["SCALE"] == 3
    assert "does not compile" in capsys.readouterr().out

    @tritium.autotune(configs=[configs[0], tritium.Config({"BLOCK": 96, "SCALE": 1})],
                      key=["n"], do_bench=bench)
    @tritium.jit
    def broken(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        scaled_copy_body(x_ptr, out_ptr, n, BLOCK, SCALE)

    with pytest.raises(tritium.CompilationError):
        broken[grid](x, out, x.size)


def test_bad_arguments_are_named(rng):
    with pytest.raises(ValueError, match="'m' is not a parameter"):
        tritium.autotune(configs=CONFIGS, key=["n"], reset_to_zero=["m"])(make_kernel().fn)
    with pytest.raises(ValueError, match="'m' is not a parameter"):
        tritium.autotune(configs=CONFIGS, key=["n"], restore_value=["m"])(make_kernel().fn)
    with pytest.raises(TypeError, match="tritium.Config"):
        tritium.autotune(configs=[{"BLOCK": 64}], key=[])(make_kernel().fn)
    x, out = inputs(rng)
    kernel = make_kernel(do_bench=FakeBench(x, out))
    with pytest.raises(ValueError, match="conflicting meta-parameters BLOCK"):
        kernel[grid](x, out, x.size, BLOCK=64)


SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tritium
    import tritium.language as tl

    calls = []

    def bench(kernel_call, quantiles=None):
        out.fill(np.nan)
        kernel_call()
        calls.append(1)
        return [{1: 3.0, 2: 1.0, 3: 2.0}[int(round(float(out[0] / x[0])))]] * 3

    CONFIGS = [tritium.Config({"BLOCK": 64, "SCALE": 1}),
               tritium.Config({"BLOCK": 128, "SCALE": 2}, num_warps=8),
               tritium.Config({"BLOCK": 256, "SCALE": 3})][:int(sys.argv[1])]

    @tritium.autotune(configs=CONFIGS, key=["n"], do_bench=bench)
    @tritium.jit
    def scaled_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)

    x = np.arange(1, 1001, dtype=np.float32)
    out = np.full_like(x, np.nan)
    scaled_copy[lambda m: (tritium.cdiv(m["n"], m["BLOCK"]),)](x, out, x.size)
    print(json.dumps({"calls": len(calls), "scale": float(out[0] / x[0]),
                      "runs": scaled_copy.bench_runs}))
""")


def run_script(tmp_path, configs=3, **env):
    script = tmp_path / "tuned.py"
    script.write_text(SCRIPT)
    environment = {**os.environ, **env}
    result = subprocess.run([sys.executable, str(script), str(configs)], env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    return json.loads(lines[-1]), result.stdout


def test_the_choice_is_kept_on_disk_for_a_new_process(tmp_path):
    first, _ = run_script(tmp_path)
    assert first == {"calls": 3, "scale": 2.0, "runs": 3}
    stored = list((pathlib.Path(os.environ["TRITIUM_CACHE_DIR"]) / "autotune").glob("*.json"))
    assert len(stored) == 1
    assert json.loads(stored[0].read_text())["config"].startswith("BLOCK: 128, SCALE: 2")

    second, printed = run_script(tmp_path, TRITIUM_PRINT_AUTOTUNING="1")
    assert second == {"calls": 0, "scale": 2.0, "runs": 0}  # nothing timed
    assert "loaded from" in printed and "nothing timed" in printed

    # Other configs are another tuning problem; and the knob turns the store off.
    assert run_script(tmp_path, configs=2)[0]["calls"] == 2
    assert run_script(tmp_path, TRITIUM_AUTOTUNE_CACHE="0")[0]["calls"] == 3


def test_a_damaged_stored_choice_is_ignored(tmp_path):
    run_script(tmp_path)
    (stored,) = (pathlib.Path(os.environ["TRITIUM_CACHE_DIR"]) / "autotune").glob("*.json")
    stored.write_text("{not json")
    again, _ = run_script(tmp_path)
    assert again == {"calls": 3, "scale": 2.0, "runs": 3}
    assert json.loads(stored.read_text())["best"] == 1  # rewritten whole


def test_gpu_timer_flushes_l2_before_every_timed_run(fake_gpu_timing):
    """gpu_do_bench's protocol, with a fake clock for the CUDA events: the flush buffer is
    zeroed right before every timed run, and the quantiles come from the timed runs."""
    from tritium import autotuner

    log, kernel_call = fake_gpu_timing
    result = autotuner.gpu_do_bench(kernel_call, warmup=4, rep=10, quantiles=(0.5, 0.0, 1.0))
    timed = log[log.index("record", 2):]  # after the estimate's two records
    runs_timed = [i for i in range(len(timed) - 2) if timed[i:i + 3] == ["record", "run", "record"]]
    assert runs_timed and all(timed[i - 1] == "flush" for i in runs_timed)
    assert result[1] <= result[0] <= result[2]
    assert result[0] in (1.0, 2.0, 3.0, 4.0, 5.0)


def test_a_config_pre_hook_runs_before_its_compile(rng):
    # As in Triton's fused-attention tutorial: the host descriptor's block shape is a
    # placeholder until the config's pre_hook sets it, so the config must not be compiled
    # (in parallel, ahead of the timed runs) with the placeholder.
    from tritium.tools.tensor_descriptor import TensorDescriptor

    def set_block(nargs):
        nargs["x_desc"].block_shape = [nargs["BLOCK"]]

    configs = [tritium.Config({"BLOCK": b}, pre_hook=set_block) for b in (32, 64)]

    @tritium.autotune(configs=configs, key=["n"], do_bench=counting_bench())
    @tritium.jit
    def tile_sums(x_desc, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        tile = tl.reshape(x_desc.load([pid * BLOCK]), [BLOCK])  # [1] would not reshape
        tl.store(out_ptr + pid, tl.sum(tile, axis=0))

    x = rng.standard_normal(256).astype(np.float32)
    out = np.zeros(256 // 32, np.float32)
    tile_sums[lambda meta: (256 // meta["BLOCK"],)](TensorDescriptor(x, [256], [1], [1]), out, 256)
    assert tile_sums.best_config is configs[0]
    np.testing.assert_allclose(out, x.reshape(-1, 32).sum(1), rtol=1e-5, atol=1e-5)


def test_device_memory_is_found_inside_descriptors_and_tuples(monkeypatch):
    """A kernel whose only device arguments are host TensorDescriptors (tutorial 09's
    matmul_tma) or tuples must be timed on the GPU, not take the first config as if it ran in
    the interpreter: found on the GPU, each autotuned config ran 3-9x slower than the best."""
    from tritium import autotuner
    from tritium.tools.tensor_descriptor import TensorDescriptor

    class DeviceArray:  # what cupy / numba device arrays look like to the autotuner
        __cuda_array_interface__ = {"shape": (64, 64), "typestr": "<f2", "data": (1 << 20, False), "version": 3}

    monkeypatch.delenv("TRITIUM_INTERPRET", raising=False)
    device = DeviceArray()
    desc = types.SimpleNamespace(base=device, shape=[64, 64], strides=[64, 1], block_shape=[16, 16])
    assert autotuner._gpu_argument([desc, 64]) is device
    assert autotuner._gpu_argument([(1, (desc,)), 2]) is device
    assert autotuner._gpu_argument([(device, 3)]) is device
    host = TensorDescriptor(np.zeros((64, 64), np.float16), [64, 64], [64, 1], [16, 16])
    assert autotuner._gpu_argument([host, (np.zeros(4), 1), 64]) is None
    monkeypatch.setenv("TRITIUM_INTERPRET", "1")
    assert autotuner._gpu_argument([desc]) is None

"""tritium.testing, which stands in for triton.testing (issue 10, item 9)."""

import time

import numpy as np
import pytest

import tritium
from tritium import testing


def test_do_bench_times_the_function():
    calls = []

    def work():
        calls.append(1)
        time.sleep(0.002)

    ms = testing.do_bench(work, warmup=5, rep=20)
    assert 1.5 < ms < 50
    assert len(calls) > 5
    low, mid, high = testing.do_bench(work, warmup=1, rep=10, quantiles=[0.2, 0.5, 0.8])
    assert low <= mid <= high
    assert isinstance(testing.do_bench(work, warmup=1, rep=10, return_mode="all"), list)
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench(work, warmup=1, rep=5, return_mode="average")


def test_do_bench_on_the_gpu_times_like_the_autotuner(fake_gpu_timing):
    """On a GPU do_bench is the autotuner's timer (one protocol, _timing.py): every timed
    run between its own two events, right after an L2 flush."""
    log, kernel_call = fake_gpu_timing
    times = testing.do_bench(kernel_call, warmup=4, rep=10, return_mode="all")
    timed = log[log.index("record", 2):]  # after the estimate's two records
    runs_timed = [i for i in range(len(timed) - 2) if timed[i:i + 3] == ["record", "run", "record"]]
    assert len(runs_timed) == len(times) > 1
    assert all(timed[i - 1] == "flush" for i in runs_timed)
    assert set(times) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    median = testing.do_bench(kernel_call, warmup=4, rep=10, quantiles=[0.5])
    assert median in (1.0, 2.0, 3.0, 4.0, 5.0)


@pytest.mark.skipif(testing._torch_cuda() is not None,
                    reason="torch has a GPU here: do_bench_cudagraph times a graph, not host calls")
def test_do_bench_cudagraph_without_a_gpu_still_times():
    assert testing.do_bench_cudagraph(lambda: time.sleep(0.001), rep=5) > 0.5


def test_assert_close(rng):
    x = rng.random(100).astype(np.float32)
    testing.assert_close(x, x + 1e-3)
    with pytest.raises(AssertionError):
        testing.assert_close(x, x + 0.1)
    testing.assert_close(x, x + 0.1, atol=0.2)
    with pytest.raises(AssertionError):
        testing.assert_close(x, x * 1.1, atol=0, rtol=0.01)
    testing.assert_close(np.array([True, False]), np.array([True, False]))


def test_perf_report_runs_the_benchmark(tmp_path, capsys):
    seen = []

    @testing.perf_report(testing.Benchmark(
        x_names=["size"], x_vals=[1, 2, 4], line_arg="provider", line_vals=["a", "b"],
        line_names=["A", "B"], plot_name="sizes", args={"scale": 10}, ylabel="ms"))
    def bench(size, provider, scale):
        seen.append((size, provider, scale))
        return float(size * scale + (provider == "b"))

    table = bench.run(print_data=True, save_path=str(tmp_path), return_df=True)
    assert seen == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10),
                    (4, "b", 10)]
    csv = (tmp_path / "sizes.csv").read_text().splitlines()
    assert csv[0] == "size,A,B" and csv[3] == "4,40.0,41.0"
    assert "sizes:" in capsys.readouterr().out
    assert table is not None


def test_package_exports_the_triton_names():
    for name in ("TritonError", "CompilationError", "OutOfResources", "CompiledKernel",
                 "TensorWrapper", "reinterpret", "testing", "runtime", "use_as_triton"):
        assert hasattr(tritium, name), name
    assert issubclass(tritium.CompilationError, tritium.TritonError)
    assert issubclass(tritium.LaunchError, tritium.TritonError)
    assert issubclass(tritium.LaunchError, RuntimeError)

"""``triton.testing`` under tritium: do_bench, do_bench_cudagraph, assert_close, Benchmark
and perf_report, so the benchmark sections of Triton's tutorials run unchanged.

Timing uses CUDA events through torch when a CUDA device is there, else the host clock
(kernels then run in the interpreter: the numbers are the interpreter's). Plots are drawn
only when matplotlib is installed, tables use pandas when it is installed.
"""

import os
import statistics

from . import _timing

__all__ = ["Benchmark", "Mark", "assert_close", "do_bench", "do_bench_cudagraph", "get_dram_gbps",
           "get_max_simd_tflops", "get_max_tensorcore_tflops", "nvsmi", "perf_report", "set_gpu_clock"]


def _torch_cuda():
    """torch, when it is importable and sees a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        out = _timing.quantiles_of(times, quantiles)
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return list(times)
    modes = {"min": min, "max": max, "mean": statistics.fmean, "median": statistics.median}
    if return_mode not in modes:
        raise ValueError(f"return_mode must be one of min, max, mean, median, all; "
                         f"got {return_mode!r}")
    return modes[return_mode](times)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of `fn`: about `warmup` ms of calls first, then about `rep` ms
    of timed calls (each after an L2 flush on the GPU). Returns `return_mode` ("min",
    "max", "mean", "median", "all") of the times, or the given `quantiles`. The protocol is
    the autotuner's (both in _timing.py)."""
    timing = _timing.gpu_backend(torch_only=True) if _torch_cuda() is not None else _timing.HostTiming()
    times = _timing.time_runs(fn, warmup, rep, timing, grad_to_none=grad_to_none)
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """do_bench with the calls captured in a CUDA graph and replayed (no launch overhead in
    the time). Needs torch with CUDA; without a GPU it times plain calls on the host."""
    torch = _torch_cuda()
    if torch is None:
        return do_bench(fn, warmup=1, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                        return_mode=return_mode)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()  # compiles and loads before capture (capture must see launches only)
        if grad_to_none is not None:
            for x in grad_to_none:
                x.detach_()
                x.requires_grad_(True)
                x.grad = None
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        start.record()
        for _ in range(5):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        estimate = start.elapsed_time(end) / 5 or 1e-3
        n_repeat = max(1, int(rep / estimate))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                if grad_to_none is not None:
                    for x in grad_to_none:
                        x.grad = None
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return _summarize(times, quantiles, return_mode)


def _to_numpy(x):
    import numpy as np
    if hasattr(x, "detach"):  # torch
        x = x.detach().cpu()
        if str(x.dtype) in ("torch.bfloat16", "torch.float16") or "float8" in str(x.dtype):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Raises AssertionError unless `x` and `y` (arrays, tensors or scalars) are equal
    within `atol` (default 1e-2) + `rtol` (default 0) * |y|, elementwise; callables for
    atol/rtol get the dtype of `x`."""
    import numpy as np
    if callable(atol):
        atol = atol(getattr(x, "dtype", None))
    if callable(rtol):
        rtol = rtol(getattr(x, "dtype", None))
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    a = _to_numpy(x)
    b = _to_numpy(y)
    if a.dtype == np.bool_ or b.dtype == np.bool_:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)


class Benchmark:
    """One benchmark of perf_report: `x_names`/`x_vals` are the swept arguments, `line_arg`
    the argument whose `line_vals` become the lines (named `line_names`), `args` the fixed
    ones; `plot_name` names the output files."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None, color=None):
        self.x_names = x_names
        self.x_vals = x_vals
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = args


class _Table:
    """The results of one benchmark: rows of x values then one value per line (a pandas
    DataFrame when pandas is installed)."""

    def __init__(self, columns, rows):
        self.columns = columns
        self.rows = rows

    def to_frame(self):
        try:
            import pandas
        except ImportError:
            return self
        return pandas.DataFrame(self.rows, columns=self.columns)

    def __str__(self):
        widths = [max(len(str(c)), *(len(f"{r[i]:.6g}" if isinstance(r[i], float) else str(r[i]))
                                     for r in self.rows)) if self.rows else len(str(c))
                  for i, c in enumerate(self.columns)]
        def fmt(values):
            return "  ".join((f"{v:.6g}" if isinstance(v, float) else str(v)).rjust(w)
                             for v, w in zip(values, widths))
        return "\n".join([fmt(self.columns)] + [fmt(r) for r in self.rows])


class Mark:
    """What perf_report returns: ``.run(show_plots, print_data, save_path, return_df)``."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data, **kwargs):
        x_names = list(bench.x_names)
        columns = x_names + [name for name in bench.line_names]
        rows = []
        for x in bench.x_vals:
            values = x if isinstance(x, (list, tuple)) else [x] * len(x_names)
            x_args = dict(zip(x_names, values))
            row = []
            for line in bench.line_vals:
                result = self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs)
                row.append(result[0] if isinstance(result, (list, tuple)) else result)
            rows.append(list(values) + row)
        table = _Table(columns, rows)
        if bench.plot_name:
            plt = None
            try:
                import matplotlib
                if not show_plots:
                    matplotlib.use("Agg")
                import matplotlib.pyplot as plt
            except ImportError:
                pass
            if plt is not None:
                fig, ax = plt.subplots()
                xs = [r[0] for r in rows]
                for i, name in enumerate(bench.line_names):
                    style = bench.styles[i] if bench.styles else None
                    kwargs_style = {"color": style[0], "ls": style[1]} if style else {}
                    ax.plot(xs, [r[len(x_names) + i] for r in rows], label=name, **kwargs_style)
                ax.legend()
                ax.set_xlabel(bench.xlabel or x_names[0])
                ax.set_ylabel(bench.ylabel)
                if bench.x_log:
                    ax.set_xscale("log")
                if bench.y_log:
                    ax.set_yscale("log")
                if show_plots:
                    plt.show()
                if save_path:
                    fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
                plt.close(fig)
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_frame())
        if save_path:
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w") as f:
                f.write(",".join(map(str, columns)) + "\n")
                for r in rows:
                    f.write(",".join(map(str, r)) + "\n")
        return table.to_frame()

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        frames = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benchmarks]
        if return_df:
            return frames[0] if len(frames) == 1 else frames
        return None


def perf_report(benchmarks):
    """Decorator: ``@perf_report(Benchmark(...))`` on a function of the benchmark's
    arguments returning a time (or a (value, min, max) tuple) gives a Mark to ``.run()``."""
    return lambda fn: Mark(fn, benchmarks)


# ---- the device's figures (Triton's helpers for roofline numbers in benchmarks) ----

def nvsmi(attrs):
    """`nvidia-smi --query-gpu=<attrs>` of GPU 0, as integers (e.g. ["clocks.max.sm"])."""
    import subprocess
    import sys
    out = subprocess.check_output(["nvidia-smi", "-i", "0", "--query-gpu=" + ",".join(attrs),
                                   "--format=csv,noheader,nounits"])
    return [int(x) for x in out.decode(sys.stdout.encoding or "utf-8").split(",")]


def _properties(device):
    from .driver import driver
    if device is None:
        device = driver.active.get_current_device()
    return driver.active.utils.get_device_properties(device)


def get_dram_gbps(device=None):
    """The DRAM bandwidth in GB/s, from the memory clock (kHz) and bus width (bits): two
    transfers per clock."""
    p = _properties(device)
    return p["mem_clock_rate"] * p["mem_bus_width"] * 2 / 1e6 / 8


def _capability(device):
    import torch
    return torch.cuda.get_device_capability(device)


_SHORT_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}


def _dtype_name(dtype):
    """torch's name of a torch or tritium.language dtype (float16, int8, float8e4nv, ...)."""
    name = getattr(dtype, "name", None) if not str(dtype).startswith("torch.") else None
    name = name or str(dtype).replace("torch.", "")
    return _SHORT_NAMES.get(name, name)


def get_max_tensorcore_tflops(dtype, clock_rate, device=None):
    """Peak tensor-core TFLOP/s at `clock_rate` (kHz): four tensor cores per SM, each doing
    256 (fp32/tf32, int32), 512 (fp16, bf16, int16) or 1024 (int8, fp8) operations a clock
    from sm_80 on; before it fp16 only, 256."""
    p = _properties(device)
    subcores = p["multiprocessor_count"] * 4
    name = _dtype_name(dtype)
    if _capability(device)[0] < 8:
        if name != "float16":
            raise AssertionError("before sm_80 only float16 is counted")
        per_subcore = 256
    elif name in ("float32", "int32"):
        per_subcore = 256
    elif name in ("float16", "bfloat16", "int16"):
        per_subcore = 512
    elif name in ("int8", "fp8e4nv", "fp8e4b15", "fp8e5"):
        per_subcore = 1024
    else:
        raise RuntimeError("dtype not supported")
    return subcores * clock_rate * per_subcore * 1e-9


def get_max_simd_tflops(dtype, clock_rate, device=None):
    """Peak CUDA-core TFLOP/s at `clock_rate` (kHz): 32 fp32 or 64 fp16/bf16 operations a
    clock per SM quarter (fp16 only before sm_80)."""
    p = _properties(device)
    subcores = p["multiprocessor_count"] * 4
    name = _dtype_name(dtype)
    if name == "float32":
        per_subcore = 32
    elif name == "float16" or (name == "bfloat16" and _capability(device)[0] >= 8):
        per_subcore = 64
    else:
        raise RuntimeError("dtype not supported")
    return subcores * clock_rate * per_subcore * 1e-9


def set_gpu_clock(ref_sm_clock=1350, ref_mem_clock=1215):
    """A context manager locking GPU 0's SM and memory clocks (MHz) with nvidia-smi (it needs
    the rights to), yielding Triton's nominal (TFLOP/s, GB/s) at them; unlocked on exit."""
    import contextlib
    import subprocess

    @contextlib.contextmanager
    def locked():
        try:
            subprocess.check_output(["nvidia-smi", "-i", "0", "-pm", "1"])
            subprocess.check_output(["nvidia-smi", "-i", "0", f"--lock-gpu-clocks={ref_sm_clock},{ref_sm_clock}"])
            subprocess.check_output(["nvidia-smi", "-i", "0", f"--lock-memory-clocks={ref_mem_clock},{ref_mem_clock}"])
            sm, mem = nvsmi(["clocks.current.sm"])[0], nvsmi(["clocks.current.memory"])[0]
            assert abs(sm - ref_sm_clock) < 10, f"GPU SMs must run at {ref_sm_clock} MHz"
            assert abs(mem - ref_mem_clock) < 10, f"GPU memory must run at {ref_mem_clock} MHz"
            yield 1e-6 * 2 * 108 * 4 * 256 * ref_sm_clock, 640 * 2 * ref_mem_clock * 1e-3
        finally:
            subprocess.check_output(["nvidia-smi", "-i", "0", "-pm", "0"])
            subprocess.check_output(["nvidia-smi", "-i", "0", "-rgc"])
            subprocess.check_output(["nvidia-smi", "-i", "0", "-rmc"])

    return locked()

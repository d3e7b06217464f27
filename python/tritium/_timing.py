"""Timing of repeated calls, shared by tritium.testing.do_bench and the autotuner: Triton's
do_bench protocol (an estimate from five runs, about `warmup` ms of untimed runs, then about
`rep` ms of runs each timed by its own pair of events after an L2 flush, one synchronization
at the end) over a backend: CUDA events through torch or CuPy, or the host clock."""

import contextlib
import time

FLUSH_BYTES = 256 * 1024 * 1024  # larger than any current L2
MAX_TIMED_RUNS = 10000  # an estimate near zero must not ask for millions of event pairs


class HostTiming:
    """The host clock, for runs without a GPU (kernels then run in the interpreter)."""

    context = contextlib.nullcontext()

    class _Event:
        def record(self):
            self.at = time.perf_counter()

    def buffer(self, size):
        return None

    def zero(self, buffer):
        pass

    def event(self):
        return self._Event()

    def synchronize(self):
        pass

    @staticmethod
    def elapsed(start, end):
        return (end.at - start.at) * 1e3


class TorchTiming:
    def __init__(self, device):
        import torch
        self.torch = torch
        self.context = torch.cuda.device(device if device is not None
                                         else torch.cuda.current_device())

    def buffer(self, size):
        return self.torch.empty(size, dtype=self.torch.int8, device="cuda")

    def zero(self, buffer):
        buffer.zero_()

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def synchronize(self):
        self.torch.cuda.synchronize()

    @staticmethod
    def elapsed(start, end):
        return start.elapsed_time(end)


class CupyTiming:
    def __init__(self, device):
        import cupy
        self.cupy = cupy
        self.context = cupy.cuda.Device(device if device is not None else 0)

    def buffer(self, size):
        return self.cupy.empty(size, dtype=self.cupy.int8)

    def zero(self, buffer):
        buffer.fill(0)

    def event(self):
        return self.cupy.cuda.Event()

    def synchronize(self):
        self.cupy.cuda.get_current_stream().synchronize()
        self.cupy.cuda.Device().synchronize()

    def elapsed(self, start, end):
        return self.cupy.cuda.get_elapsed_time(start, end)


def gpu_backend(device=None, torch_only=False):
    """CUDA events through torch, else CuPy (unless `torch_only`)."""
    try:
        return TorchTiming(device)
    except ImportError:
        if torch_only:
            raise
    try:
        return CupyTiming(device)
    except ImportError:
        raise RuntimeError("tritium: timing on the GPU needs torch or CuPy; pass "
                           "do_bench= to time another way") from None


def time_runs(fn, warmup, rep, timing, grad_to_none=None):
    """Milliseconds of each timed run of `fn` (a list), by Triton's do_bench protocol."""
    with timing.context:
        flush = timing.buffer(FLUSH_BYTES)
        fn()
        timing.synchronize()
        start, end = timing.event(), timing.event()
        start.record()
        for _ in range(5):
            timing.zero(flush)
            fn()
        end.record()
        timing.synchronize()
        estimate = max(timing.elapsed(start, end) / 5, 1e-3)
        for _ in range(max(1, int(warmup / estimate))):
            fn()
        count = max(1, min(int(rep / estimate), MAX_TIMED_RUNS))
        starts = [timing.event() for _ in range(count)]
        ends = [timing.event() for _ in range(count)]
        for i in range(count):
            if grad_to_none is not None:
                for x in grad_to_none:
                    x.grad = None
            timing.zero(flush)
            starts[i].record()
            fn()
            ends[i].record()
        timing.synchronize()
        return [timing.elapsed(s, e) for s, e in zip(starts, ends)]


def quantiles_of(times, quantiles):
    """The given quantiles of `times` (a list), by linear interpolation between the closest
    ranks (torch.quantile's default)."""
    ordered = sorted(times)
    picked = []
    for q in quantiles:
        position = q * (len(ordered) - 1)
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        picked.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return picked

"""Triton 3.6's tl.extra.cuda utilities through the interpreter: num_warps() and
num_threads() are compile-time constants of the launch's num_warps (usable as a block size),
smid() is 0 (one SM runs every program here) and globaltimer() reads the host's monotonic
clock in nanoseconds, anew at each call. tests/gpu/test_gpu_extra_cuda.py runs them on the
GPU."""

import time

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.libdevice_extra import globaltimer, num_threads


@tritium.jit
def fill_threads(out_ptr):
    n: tl.constexpr = tl.extra.cuda.num_threads()
    tl.store(out_ptr + tl.arange(0, n), 1)


@tritium.jit
def warps_and_threads(out_ptr):
    tl.store(out_ptr, tl.extra.cuda.num_warps())
    tl.store(out_ptr + 1, num_threads())  # imported by name


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
def test_num_threads_is_a_block_size(num_warps):
    # Triton's test_num_threads: an arange as long as the program's threads.
    out = np.zeros(512, dtype=np.int32)
    fill_threads[(1,)](out, num_warps=num_warps)
    assert out.sum() == 32 * num_warps
    assert out[:32 * num_warps].all()


def test_num_warps_and_num_threads_follow_each_launch():
    out = np.zeros(2, dtype=np.int32)
    for warps in (4, 2, 8, 4):
        warps_and_threads[(1,)](out, num_warps=warps)
        assert out.tolist() == [warps, 32 * warps]


@tritium.jit
def sm_ids(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.extra.cuda.smid())


def test_smid_is_zero_in_the_interpreter():
    out = np.full(16, -1, dtype=np.int32)
    sm_ids[(16,)](out)
    assert (out == 0).all()


@tritium.jit
def timed(out1, out2, ITERS: tl.constexpr):
    start = globaltimer()
    off = tl.arange(0, 128)
    for i in range(ITERS):
        tl.store(out1 + off, tl.load(out1 + off) + 1)
    end = tl.extra.cuda.globaltimer()
    tl.store(out2, start)
    tl.store(out2 + 1, end)


def test_globaltimer_reads_a_nanosecond_clock_at_each_call():
    out1 = np.zeros(128, dtype=np.int64)
    out2 = np.zeros(2, dtype=np.int64)
    before = time.monotonic_ns()
    timed[(1,)](out1, out2, ITERS=200)
    after = time.monotonic_ns()
    assert (out1 == 200).all()
    start, end = out2.tolist()
    assert start < end  # read twice, not merged
    assert before <= start and end <= after  # the host's monotonic clock, in ns


def test_the_utilities_take_no_arguments():
    src = '''
@tritium.jit
def kernel(x_ptr):
    tl.store(x_ptr, tl.extra.cuda.smid(1))
'''
    import test_newer_language as helpers
    helpers.compile_error(src, r"smid\(\) takes no arguments", np.zeros(1, dtype=np.int32))


def test_outside_a_kernel():
    with pytest.raises(RuntimeError, match="inside a @tritium.jit kernel"):
        tl.extra.cuda.num_threads()

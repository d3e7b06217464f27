"""Triton 3.6's tl.extra.cuda utilities on the GPU, as Triton's test_core.py checks them
(test_num_threads, test_globaltimer, test_smid), with the kernels of
tests/python/test_extra_cuda.py: num_threads() as a block size at 1-8 warps, smid() within the
device's SMs, globaltimer() read twice around a loop."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_extra_cuda as ref  # noqa: E402  (tests/python)


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
def test_num_threads_on_gpu(num_warps):
    out = torch.zeros(512, dtype=torch.int32, device="cuda")
    ref.fill_threads[(1,)](out, num_warps=num_warps)
    assert int(out.sum()) == 32 * num_warps
    assert bool(out[:32 * num_warps].all())


def test_num_warps_and_num_threads_on_gpu():
    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    for warps in (4, 2, 8):
        ref.warps_and_threads[(1,)](out, num_warps=warps)
        assert out.tolist() == [warps, 32 * warps]


def test_smid_on_gpu():
    out = torch.full((1024,), -1, dtype=torch.int32, device="cuda")
    h = ref.sm_ids[(1024,)](out)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert int(out.min()) >= 0 and int(out.max()) < sms
    assert len(torch.unique(out)) > 1  # 1024 programs are spread over several SMs
    assert h.asm["ptx"].count("%smid") == 1


def test_globaltimer_on_gpu():
    out1 = torch.zeros(128, dtype=torch.int64, device="cuda")
    out2 = torch.zeros(2, dtype=torch.int64, device="cuda")
    h = ref.timed[(1,)](out1, out2, ITERS=10000)
    assert bool((out1 == 10000).all())
    start, end = out2.tolist()
    assert 0 < start < end
    assert h.asm["ptx"].count("%globaltimer") == 2

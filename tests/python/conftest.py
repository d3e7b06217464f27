"""pytest setup for tritium's Python API tests.

The package comes from, in order: an installed tritium (`pip install .`), PYTHONPATH (CTest
points it at <build>/python), or python/ of this checkout (after a CMake build copied
_C*.so there). Kernels run in the CPU interpreter on numpy arrays: TRITIUM_INTERPRET=1
unless the caller set it, so the suite means the same on a machine with a GPU.

Inputs are fresh random values each run; the seed is printed (shown for failing tests)
and TRITIUM_TEST_SEED=<n> replays it.
"""

import importlib.util
import os
import pathlib
import secrets
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

if importlib.util.find_spec("tritium") is None:
    sys.path.insert(0, str(ROOT / "python"))

os.environ.setdefault("TRITIUM_INTERPRET", "1")
# The soundness oracle: every claim of the analyses is checked on every interpreted value.
os.environ.setdefault("TRITIUM_CHECK_AXIS", "1")


@pytest.fixture
def as_triton():
    """`import triton` answered by tritium for the test (skipped where a real Triton is already
    imported), then the alias removed and the active driver restored."""
    if any(n == "triton" or n.startswith("triton.") for n in sys.modules):
        pytest.skip("a real triton is imported in this process")
    import tritium
    from tritium import driver, triton_alias
    assert tritium.use_as_triton() is True
    yield
    driver.driver.reset_active()
    triton_alias.stop_using_as_triton()


@pytest.fixture
def rng():
    seed = int(os.environ.get("TRITIUM_TEST_SEED", secrets.randbits(32)))
    print(f"TRITIUM_TEST_SEED={seed}")
    return np.random.default_rng(seed)



@pytest.fixture
def fake_gpu_timing(monkeypatch):
    """A GPU for tritium's timing (_timing.py) with a fake clock: the CUDA events read a
    clock that each run of the returned call advances (2 ms for the first six runs, then
    1, 3, 2, 5, 4 ms in turn); `log` records every run, event record and L2 flush."""
    from tritium import _timing, testing

    log = []
    clock = [0.0]

    class Event:
        def record(self):
            self.at = clock[0]
            log.append("record")

    class FakeTiming:
        context = _timing.HostTiming.context

        def buffer(self, size):
            assert size >= 128 * 1024 * 1024  # larger than any L2
            return bytearray(1)

        def zero(self, buffer):
            log.append("flush")

        def event(self):
            return Event()

        def synchronize(self):
            pass

        @staticmethod
        def elapsed(start, end):
            return end.at - start.at

    fake = FakeTiming()
    monkeypatch.setattr(_timing, "gpu_backend", lambda device=None, torch_only=False: fake)
    monkeypatch.setattr(testing, "_torch_cuda", lambda: object())  # "a CUDA device is there"
    durations = iter([2.0] * 6 + [1.0, 3.0, 2.0, 5.0, 4.0] * 100)

    def kernel_call():
        log.append("run")
        clock[0] += next(durations)

    return log, kernel_call

"""GPU tests (DESIGN: Testing layers): the kernels of the interpreter suite (tests/python) and
more, run on the GPU with torch CUDA tensors, CuPy arrays and through the C++ API.

Without a GPU (or without torch) every test here is skipped, and the session ends with a
line that counts the skips and says why: never silently. The package comes from an installed
tritium, PYTHONPATH, or python/ of this checkout. The interpreter is never forced here
(TRITIUM_INTERPRET is removed), and the session gets a fresh disk cache directory unless
TRITIUM_CACHE_DIR is set, so cache tests start cold. TRITIUM_TEST_SEED=<n> replays inputs;
TRITIUM_GPU_SAMPLE=<n> runs every n-th test of each file.
"""

import importlib.util
import os
import pathlib
import secrets
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

if importlib.util.find_spec("tritium") is None:
    sys.path.insert(0, str(ROOT / "python"))
# The interpreter suite's modules: the GPU tests launch the very same kernels.
sys.path.insert(0, str(ROOT / "tests" / "python"))

os.environ.pop("TRITIUM_INTERPRET", None)
os.environ.setdefault("TRITIUM_CACHE_DIR", tempfile.mkdtemp(prefix="tritium-gpu-cache-"))


def _no_gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


NO_GPU = _no_gpu_reason()


def pytest_collection_modifyitems(config, items):
    # TRITIUM_GPU_SAMPLE=N keeps every N-th test of each file (its first always), for slow
    # runs such as compute-sanitizer's: a spread over each file's parameter grid.
    sample = int(os.environ.get("TRITIUM_GPU_SAMPLE", "1"))
    if sample > 1:
        kept, dropped, index = [], [], {}
        for item in items:
            path = str(item.path) if hasattr(item, "path") else str(item.fspath)  # pytest 7+ / older
            n = index[path] = index.get(path, -1) + 1
            (kept if n % sample == 0 else dropped).append(item)
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    if NO_GPU is None:
        return
    marker = pytest.mark.skip(reason=f"no GPU: {NO_GPU}")
    for item in items:
        item.add_marker(marker)


def pytest_terminal_summary(terminalreporter):
    skipped = len(terminalreporter.stats.get("skipped", []))
    passed = len(terminalreporter.stats.get("passed", []))
    if NO_GPU is not None:
        terminalreporter.write_line(
            f"tests/gpu: {skipped} GPU tests SKIPPED (no GPU: {NO_GPU}); nothing ran on a GPU")
    else:
        terminalreporter.write_line(
            f"tests/gpu: {passed} passed on the GPU, {skipped} skipped")


@pytest.fixture
def seed():
    value = int(os.environ.get("TRITIUM_TEST_SEED", secrets.randbits(32)))
    print(f"TRITIUM_TEST_SEED={value}")
    return value


@pytest.fixture
def gen(seed):
    """A torch CUDA generator seeded from the printed seed."""
    import torch
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return g


@pytest.fixture
def rng(seed):
    import numpy as np
    return np.random.default_rng(seed)


def pytest_sessionfinish(session, exitstatus):
    # Without torch the modules themselves are skipped and pytest reports "no tests ran"
    # (status 5); that is the expected, printed outcome on a machine without a GPU.
    if NO_GPU is not None and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK

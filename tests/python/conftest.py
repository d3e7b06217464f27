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
def rng():
    seed = int(os.environ.get("TRITIUM_TEST_SEED", secrets.randbits(32)))
    print(f"TRITIUM_TEST_SEED={seed}")
    return np.random.default_rng(seed)


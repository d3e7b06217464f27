"""pytest plugin that runs Triton's own unit tests with `triton` answered by tritium.

Loaded by run_triton_suite.py (`-p triton_suite_plugin`); it is not a tritium test. It

* installs the alias (`tritium.use_as_triton()`) before any test module imports triton;
* answers `triton._internal_testing` (Triton's test helpers, not part of tritium) with the
  copy next to the tests, else the file of the installed Triton;
* adds `--device` and the `device` fixture, and registers Triton's `interpreter` marker;
* provides the fixtures of Triton's python/test/conftest.py the language tests ask for
  (`with_allocator`, `fresh_triton_cache`, `fresh_knobs`), and the old names of renamed
  `_internal_testing` helpers (`is_hip_mi300`, ...) that older test files import;
* gives every test a wall-clock limit (`--suite-timeout`, SIGALRM), so a slow or stuck
  test fails instead of stopping the run;
* with `--gpu-compile sm_90[,sm_80]`, compiles every specialization a test launched to PTX
  for those architectures and runs ptxas on it, each in a forked process (gpu_compile.py),
  logging one `gpu` record per kernel;
* appends one JSON line per test outcome to `--suite-log` (the runner's table is made from
  it), and a `start` line before each test, so the runner can tell which test hung if the
  process has to be killed; `--suite-skip-done` deselects tests already in a log.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import signal
import sys
import time

import gpu_compile
import pytest
import suite_log

import tritium

tritium.use_as_triton(quiet=True)


def _internal_testing_file(tests_dir):
    """Triton's _internal_testing.py: the copy stored with the tests (from the wheel of the
    Triton release the tests come from), else the installed Triton's (found without
    importing it)."""
    candidate = pathlib.Path(tests_dir) / "_internal_testing.py"
    if candidate.is_file():
        return candidate
    spec = importlib.machinery.PathFinder.find_spec("triton")
    if spec is not None and spec.submodule_search_locations:
        for root in spec.submodule_search_locations:
            candidate = pathlib.Path(root) / "_internal_testing.py"
            if candidate.is_file():
                return candidate
    return None


class _InternalTestingFinder(importlib.abc.MetaPathFinder):
    def __init__(self, path):
        self._path = path

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton._internal_testing":
            return None
        return importlib.util.spec_from_file_location(fullname, str(self._path))


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")
    parser.addoption("--suite-timeout", action="store", type=float, default=120.0,
                     help="seconds one test may run (0: no limit)")
    parser.addoption("--suite-log", action="store", default=None)
    parser.addoption("--suite-skip-done", action="store", default=None)
    parser.addoption("--suite-tests-dir", action="store", default=None)
    parser.addoption("--gpu-compile", action="store", default=None,
                     help="also compile every launched specialization for these archs "
                          "(sm_90,sm_80) and run ptxas on it (gpu_compile.py)")
    parser.addoption("--pretend-cuda", action="store", default=None,
                     help="cpu: the tests see a CUDA target of this arch (sm_90)")
    parser.addoption("--gpu-compile-timeout", action="store", type=float, default=120.0)
    parser.addoption("--gpu-compile-mem", action="store", type=float, default=6.0,
                     help="GB of resident memory one GPU compile may use")


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter: Triton's mark for tests that run in its interpreter")
    tests_dir = config.getoption("--suite-tests-dir") or str(config.rootpath)
    found = _internal_testing_file(tests_dir)
    if found is not None:
        sys.meta_path.insert(0, _InternalTestingFinder(found))
    if config.getoption("--device") == "cpu" and os.environ.get("TRITON_INTERPRET", "0") != "1":
        # tritium's interpreter compiles the kernel like the GPU path does, so the tests run
        # their compiled-kernel paths (patch_kernel edits the JITFunction's source); with no
        # GPU there is no GPU target: the driver names the backend "cpu", so the helpers'
        # is_cuda()/is_hip() are False (no PTX or AMD checks, no torch.cuda queries).
        from tritium import driver
        active = driver.driver.active
        cpu_target = driver.GPUTarget("cpu", 0, 32)
        pretend = config.getoption("--pretend-cuda")
        if pretend:
            # The GPU compile sweep's second mode: the tests take their CUDA branches (PTX
            # checks on the handle's asm["ptx"], which compiles for that arch on the CPU,
            # CUDA-only kernels) while the kernels still run in the interpreter.
            sm = int(pretend.replace("sm_", "").rstrip("a"))
            cpu_target = driver.GPUTarget("cuda", sm, 32)
            _pretend_capability(sm)
        else:
            _no_gpu_capability()
        active.get_current_target = lambda: cpu_target
    if found is not None:
        _add_old_helper_names()
    if config.getoption("--gpu-compile"):
        gpu_compile.install()


def _no_gpu_capability():
    """With no CUDA device, torch.cuda.get_device_capability() raises; several test files
    (test_matmul.py, test_pipeliner.py) call it in module-level `skipif` conditions, which
    then fail collection of the whole file. It answers (0, 0) here: no GPU capability, so
    those conditions read "not this architecture" and skip."""
    import torch
    if not torch.cuda.is_available():
        torch.cuda.get_device_capability = lambda *a, **k: (0, 0)


def _pretend_capability(sm):
    """torch.cuda's capability and name queries answer as a GPU of `sm` would."""
    import torch
    torch.cuda.get_device_capability = lambda *a, **k: (sm // 10, sm % 10)
    torch.cuda.get_device_name = lambda *a, **k: f"pretend sm_{sm}"


# Triton renamed some helpers of _internal_testing (the AMD chips by architecture, not by
# product); test files fetched from older commits import the old names.
_OLD_HELPER_NAMES = {"is_hip_mi200": "is_hip_cdna2", "is_hip_mi300": "is_hip_cdna3",
                     "is_hip_mi350": "is_hip_cdna4"}


def _add_old_helper_names():
    import triton._internal_testing as helpers
    for old, new in _OLD_HELPER_NAMES.items():
        if not hasattr(helpers, old) and hasattr(helpers, new):
            setattr(helpers, old, getattr(helpers, new))


@pytest.fixture
def device(request):
    return request.config.getoption("--device")


# The fixtures of Triton's python/test/conftest.py that the language tests ask for.

@pytest.fixture
def with_allocator():
    """A global-scratch allocator for the test (tensor descriptors made in kernels need one),
    removed afterwards."""
    import triton
    from triton._internal_testing import default_alloc_fn
    triton.set_allocator(default_alloc_fn)
    try:
        yield
    finally:
        triton.set_allocator(_no_allocator)


def _no_allocator(size, alignment, stream):
    raise RuntimeError("no allocator was set (triton.set_allocator)")


@pytest.fixture
def fresh_triton_cache(tmp_path, monkeypatch):
    """An empty kernel cache for the test: a new cache directory, the in-memory caches of
    the JIT left alone (tritium keys them by source and specialization)."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITIUM_CACHE_DIR", str(tmp_path))
    yield str(tmp_path)


@pytest.fixture
def fresh_knobs(monkeypatch):
    """The knobs as a fresh process sees them (tritium's knobs read the environment)."""
    from triton import knobs
    yield knobs


def pytest_collection_modifyitems(config, items):
    done_file = config.getoption("--suite-skip-done")
    if not done_file or not os.path.exists(done_file):
        return
    done = {rec["nodeid"] for rec in suite_log.records(done_file) if rec.get("event") in ("result", "killed")}
    keep = [it for it in items if it.nodeid not in done]
    dropped = [it for it in items if it.nodeid in done]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


class _Timeout(Exception):
    pass


def _log(config, rec):
    path = config.getoption("--suite-log")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")
            f.flush()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _log(item.config, {"event": "start", "nodeid": item.nodeid, "t": time.time()})
    gpu_compile.take_pending()  # handles made outside any test (module level) are not swept
    yield
    if item.config.getoption("--gpu-compile"):
        gpu_compile.sweep(item.config, item.nodeid, lambda rec: _log(item.config, rec))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = item.config.getoption("--suite-timeout")
    use_alarm = limit and limit > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        def on_alarm(signum, frame):
            raise _Timeout(f"test ran past the suite's limit of {limit:g} s")
        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _first_line(report):
    """The exception's type and first message line, without addresses or long values."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.strip().splitlines()[0][:300]
    text = str(report.longrepr).strip().splitlines()
    return text[-1][:300] if text else "?"


def pytest_runtest_logreport(report):
    config = _CONFIG[0]
    if config is None:
        return
    outcome = None
    if report.when == "setup":
        if report.skipped:
            outcome = "skipped"
        elif report.failed:
            outcome = "error"
    elif report.when == "call":
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"  # includes xfail
        else:
            outcome = "failed"
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    if outcome is None:
        return
    rec = {"event": "result", "nodeid": report.nodeid, "outcome": outcome,
           "duration": round(report.duration, 3)}
    if outcome in ("failed", "error"):
        rec["reason"] = _first_line(report)
        if "_Timeout" in rec["reason"]:
            outcome = rec["outcome"] = "timeout"
    elif outcome == "skipped" and isinstance(report.longrepr, tuple):
        rec["reason"] = str(report.longrepr[2])[:200]
    _log(config, rec)


_CONFIG = [None]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _CONFIG[0] = session.config

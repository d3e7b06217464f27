"""The disk cache under faults on the real GPU path (issue 11, item 4): processes that each
launch two kernels at two block sizes (four entries) and check every result, against one
cache directory that starts cold and is shared by many processes at once, whose entries are
bit-flipped, or corrupted and truncated while processes run, that is read-only or not a
directory, or that is full (RLIMIT_FSIZE stands in for a small tmpfs: no mount needed).
Always: right results, no crash, each fault reported once, and the cache recovers."""

import json
import os
import pathlib
import random
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENTRIES = 4  # two kernels x two block sizes

CHILD = textwrap.dedent("""
    import json, sys
    import torch, tritium
    import tritium.language as tl
    sys.path.insert(0, {tests!r})
    import test_vector_add as vadd

    @tritium.jit
    def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)

    n = 100003
    x = torch.randn(n, device="cuda"); y = torch.randn(n, device="cuda")
    for block in (256, 1024):
        out = torch.full_like(x, float("nan"))
        vadd.add_kernel[(tritium.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
        torch.cuda.synchronize()
        assert torch.equal(out, x + y), "wrong result: add_kernel"
        out = torch.full_like(x, float("nan"))
        scale_kernel[(tritium.cdiv(n, block),)](x, out, n, BLOCK=block)
        torch.cuda.synchronize()
        assert torch.equal(out, x * 3.0), "wrong result: scale_kernel"
    print(json.dumps(tritium.cache_stats()))
""")


@pytest.fixture
def child(tmp_path):
    """Starts a child process on a cache directory; `.result(p)` waits for it and returns
    (its cache_stats, its stderr), asserting it succeeded (so every result was right)."""
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(ROOT / "tests" / "python")))

    class Child:
        @staticmethod
        def start(cache_dir, preexec_fn=None, **extra_env):
            env = dict(os.environ, TRITIUM_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1", **extra_env)
            env.pop("TRITIUM_CACHE_LOG", None)
            env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
            return subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)

        @staticmethod
        def result(process):
            out, err = process.communicate(timeout=300)
            assert process.returncode == 0, f"exit {process.returncode}:\n{err}"
            return json.loads(out.strip().splitlines()[-1]), err

        @classmethod
        def run(cls, cache_dir, preexec_fn=None, **extra_env):
            return cls.result(cls.start(cache_dir, preexec_fn, **extra_env))

    return Child


def entries(cache_dir):
    return sorted(pathlib.Path(cache_dir).glob("*.tritium"))


def bad_warnings(err):
    return err.count("tritium: warning: cache entry")


def test_a_flipped_bit_anywhere_is_caught_and_recompiled(tmp_path, child):
    cache = tmp_path / "cache"
    child.run(cache)
    files = entries(cache)
    assert len(files) == ENTRIES
    # One bit per entry, at the checksum line, in the header, in the PTX, near the end.
    for path, where in zip(files, [0.0, 0.03, 0.5, 0.97]):
        data = bytearray(path.read_bytes())
        data[int(where * (len(data) - 1))] ^= 0x10
        path.write_bytes(bytes(data))
    stats, err = child.run(cache)
    assert stats["bad_entries"] == ENTRIES and stats["compiles"] == ENTRIES
    assert bad_warnings(err) == ENTRIES  # each fault reported once
    again, err = child.run(cache)
    assert again["compiles"] == 0 and again["disk_hits"] == ENTRIES and not bad_warnings(err)


def test_many_processes_share_one_cold_directory(tmp_path, child):
    cache = tmp_path / "cache"
    results = [child.result(p) for p in [child.start(cache) for _ in range(8)]]
    for stats, err in results:
        assert stats["bad_entries"] == 0 and "tritium: warning" not in err
    assert sum(stats["disk_writes"] for stats, _ in results) >= ENTRIES
    assert len(entries(cache)) == ENTRIES and not list(cache.glob(".tmp-*"))
    warm, _ = child.run(cache)
    assert warm["compiles"] == 0 and warm["disk_hits"] == ENTRIES


def test_entries_corrupted_and_truncated_while_processes_run(tmp_path, child):
    cache = tmp_path / "cache"
    child.run(cache)
    stop = threading.Event()
    faults = [0]

    def corrupt():
        rng = random.Random(11)
        while not stop.is_set():
            for path in entries(cache):
                try:
                    data = bytearray(path.read_bytes())
                    if not data:
                        continue
                    if rng.random() < 0.5:
                        data = data[:rng.randrange(len(data))]  # truncated
                    else:
                        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                    with open(path, "r+b") as f:  # in place: readers may see it half-written
                        f.truncate(0)
                        f.write(data)
                    faults[0] += 1
                except OSError:
                    pass  # deleted by a process that found it bad
            time.sleep(0.01)

    corrupter = threading.Thread(target=corrupt)
    corrupter.start()
    try:
        results = []
        for _ in range(3):
            results += [child.result(p) for p in [child.start(cache) for _ in range(4)]]
    finally:
        stop.set()
        corrupter.join()
    bad = sum(stats["bad_entries"] for stats, _ in results)
    assert faults[0] > 0 and bad > 0
    assert sum(bad_warnings(err) for _, err in results) == bad  # each detection reported once
    stats, err = child.run(cache)  # afterwards: each entry a hit, or found bad (or gone) and rebuilt
    assert stats["compiles"] == ENTRIES - stats["disk_hits"]
    assert bad_warnings(err) == stats["bad_entries"]


def unwritable(tmp_path, kind):
    if kind == "not a directory":
        (tmp_path / "file").write_text("a regular file")
        return tmp_path / "file" / "cache"
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    if os.access(cache, os.W_OK):
        pytest.skip("a read-only directory is writable here (root); 'not a directory' covers it")
    return cache


@pytest.mark.parametrize("kind", ["read-only", "not a directory"])
def test_a_directory_that_takes_no_entries(tmp_path, child, kind):
    cache = unwritable(tmp_path, kind)
    for _ in range(2):
        stats, err = child.run(cache)
        assert stats["compiles"] == ENTRIES and stats["disk_writes"] == 0
        assert err.count("tritium: warning: cannot write the cache entry") == 1, err


def test_a_full_disk(tmp_path, child):
    def small_files():  # every file of the child is limited to 2 KB: a full disk for entries
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed

    cache = tmp_path / "cache"
    # The driver's own JIT cache off: only tritium's files meet the limit.
    stats, err = child.run(cache, preexec_fn=small_files, CUDA_CACHE_DISABLE="1")
    assert stats["compiles"] == ENTRIES and stats["disk_writes"] == 0
    assert err.count("tritium: warning: cannot write the cache entry") == 1, err
    assert not entries(cache) and not list(cache.glob(".tmp-*"))  # no partial file stays
    stats, _ = child.run(cache)  # room again: the cache fills
    assert stats["disk_writes"] == ENTRIES and len(entries(cache)) == ENTRIES

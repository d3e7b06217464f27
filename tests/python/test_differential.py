"""The differential harness's own plumbing (tests/fuzz/differential.py) without a GPU: with
`--backend interp` the interpreter stands in for the GPU and for Triton, so a clean run has
0 mismatches, and the counts merged from several workers equal one process's. Findings
injected at chosen seeds (a mismatch, a Triton error of a known and of a new kind, a broken
CUDA context, a dead worker, a hung kernel) must each reach summary.md and findings.txt with
their seed, the workers must be replaced, and --max-seconds must stop the run in time.
"""
import collections
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fuzz" / "differential.py"


def fuzz_binary():
    """tritium_fuzz of the build whose package is imported (<build>/python/tritium)."""
    import tritium
    candidates = [os.environ.get("TRITIUM_FUZZ", ""),
                  str(pathlib.Path(tritium.__file__).parents[2] / "tests" / "tritium_fuzz"),
                  str(ROOT / "build" / "tests" / "tritium_fuzz")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    pytest.skip("no tritium_fuzz built (set TRITIUM_FUZZ)")


@pytest.fixture(scope="module")
def differential():
    spec = importlib.util.spec_from_file_location("differential", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def outcomes(differential):
    """Each of seeds 0..59 run in this process, one Worker: seed -> its counts."""
    fuzz = fuzz_binary()
    opts = differential.parse_options(["--fuzz", fuzz, "--backend", "interp", "--triton"])
    worker = differential.Worker(opts, pathlib.Path(tempfile.mkdtemp()))
    result = {}
    for seed, header, source in differential.emit(fuzz, 0, 60):
        counts, findings, broken = worker.run_seed(seed, header, source)
        assert not findings and not broken, (seed, findings)
        result[seed] = counts
    return result


def run(tmp_path, *args, timeout=120):
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp_path))  # killed workers' folders
    proc = subprocess.run([sys.executable, str(SCRIPT), "--fuzz", fuzz_binary(), "--backend", "interp",
                           "--out", str(out), *args], capture_output=True, text=True, timeout=timeout, env=env)
    summary = (out / "summary.md").read_text()
    findings = [line.split("\t") for line in (out / "findings.txt").read_text().splitlines()
                if line and not line.startswith("#")]
    row = summary.splitlines()[2].strip("| ").split(" | ")
    head = summary.splitlines()[0].strip("| ").split(" | ")
    return proc, dict(zip(head, map(int, row))), summary, findings, out


def test_range_emit_matches_single_seeds(differential):
    fuzz = fuzz_binary()
    many = differential.emit(fuzz, 40, 5)
    assert [seed for seed, _, _ in many] == [40, 41, 42, 43, 44]
    for seed, header, source in many:
        assert differential.emit(fuzz, seed) == [(seed, header, source)]
        assert "@triton.jit" in source and header["grid"].isdigit()


def test_compare_floats_ints_and_bf16(differential):
    import numpy as np
    a = np.array([1.0, np.nan, 0.0, 3.0], np.float32)
    b = a.copy()
    b[2] = -0.0
    assert differential.compare([("fp32", a)], [("fp32", b)], 4) is None
    b[3] = np.nextafter(np.nextafter(np.float32(3.0), np.float32(4)), np.float32(4))
    assert differential.compare([("fp32", a)], [("fp32", b)], 2) is None
    assert "element 3" in differential.compare([("fp32", a)], [("fp32", b)], 1)
    b[3], b[1] = 3.0, 1.0
    assert "element 1" in differential.compare([("fp32", a)], [("fp32", b)], 4)  # NaN vs a number
    x = differential.bf16_bits(np.array([1.5, -2.0]))
    assert list(x) == [0x3FC0, 0xC000]
    assert "(bf16) element 0" in differential.compare([None, ("bf16", x)], [None, ("bf16", x ^ 0x40)], 4)
    i = np.array([5, 127], np.int8)
    other = [("i8", np.array([5, -1], np.int8))]
    text = differential.compare([("i8", i)], other, 4, ("tritium", "Triton"), "*fp32, *i8\nv = x.to(tl.int8)")
    assert "tritium 127 vs Triton -1" in text
    assert differential.classify("Triton mismatches", text) == "float-to-int out of range"
    # No float in the kernel, or a value inside the range: not that class.
    text = differential.compare([("i8", i)], other, 4, ("tritium", "Triton"), "*i16, *i8\nv = x.to(tl.int8)")
    assert differential.classify("Triton mismatches", text) == "unclassified"
    i[1] = 126
    text = differential.compare([("i8", i)], other, 4, ("tritium", "Triton"), "*fp32, *i8")
    assert differential.classify("Triton mismatches", text) == "unclassified"


def test_fp64_holding_fp32_values_compares_in_fp32_ulps(differential):
    """A value computed in fp32 and stored to an fp64 buffer differs by fp32 ulps (seed 2549:
    sqrt.approx(6.0) vs sqrt(6.0), one fp32 ulp, 2^29 fp64 ulps); a true fp64 value does not."""
    import numpy as np
    exact = np.float32(np.sqrt(np.float32(6.0)))
    approx = np.nextafter(exact, np.float32(3))
    a, b = np.array([exact], np.float64), np.array([approx], np.float64)
    assert differential.compare([("fp64", a)], [("fp64", b)], 4) is None
    assert "element 0" in differential.compare([("fp64", a)], [("fp64", b)], 0)
    c = np.array([np.sqrt(6.0)])  # not fp32-exact: fp64 ulps
    assert "element 0" in differential.compare([("fp64", c)], [("fp64", c + 1e-12)], 4)
    assert differential.compare([("fp64", c)], [("fp64", np.nextafter(c, 3))], 4) is None


def test_likely_causes_are_tagged_and_classified(differential):
    import numpy as np
    x, y = [("u8", np.array([64], np.uint8))], [("u8", np.array([20], np.uint8))]
    text = differential.compare(x, y, 4, ("interpreter", "GPU"), "v = tl.exp(s.to(tl.float32)).to(tl.int64)")
    assert "[approximate fp32 math: exp]" in text
    assert differential.classify("GPU mismatches", text) == "approximate fp32 math"
    # `/` is div.full.f32 on the GPU (seed 85746: x / x = 0.99999994, then .to(tl.int8) is 0).
    text = differential.compare(x, y, 4, ("interpreter", "GPU"), "v5 = (tl.where(c, s, v0) / v0)")
    assert "[approximate fp32 math: /]" in text
    assert differential.classify("GPU mismatches", text) == "approximate fp32 math"
    plain = differential.compare(x, y, 4, ("interpreter", "GPU"), "v = (s + 1).to(tl.uint8)")
    assert differential.classify("GPU mismatches", plain) == "unclassified"
    assert differential.classify("GPU mismatches", plain + " [Triton's GPU result is tritium's]") == \
        "the GPU's arithmetic, as Triton's"
    # Triton's side: the interpreter's saturation count, the negative remainder, libdevice math.
    text = differential.compare(x, y, 4, ("tritium", "Triton"), "*fp32, *u8\nv = x + 1", saturated=True)
    assert differential.classify("Triton mismatches", text) == "float-to-int out of range"
    assert differential.classify("Triton mismatches", differential.compare(
        x, y, 4, ("tritium", "Triton"), "*fp32, *u8\nv = x + 1")) == "unclassified"
    text = differential.compare(x, y, 4, ("tritium", "Triton"), "*u8, *u8\nv = x << 9", wide=True)
    assert differential.classify("Triton mismatches", text) == "shift out of range"
    # A sum of bf16 values against Triton (seed 59564: the combine order rounds differently);
    # a sum of something else is not tagged.
    bf16_sum = "v1 = (v1 + v0).to(tl.bfloat16)\nv6 = (v6 + tl.sum(v1, 0)).to(tl.float32)\n"
    text = differential.compare(x, y, 4, ("tritium", "Triton"), bf16_sum)
    assert differential.classify("Triton mismatches", text) == "fp16/bf16 sum order"
    text = differential.compare(x, y, 4, ("tritium", "Triton"), bf16_sum.replace("bfloat16", "float32"))
    assert differential.classify("Triton mismatches", text) == "unclassified"
    # Triton's vectorized load at a negative remainder: lanes 1..15 of a program's first vector.
    load = "*u8, *u8, BLOCK=64\nv0 = tl.load(p0 + BLOCK + ((pid - 2) * BLOCK + tl.arange(0, BLOCK)) % BLOCK)"
    x2, y2 = [("u8", np.array([1, 2, 3], np.uint8))], [("u8", np.array([1, 5, 3], np.uint8))]
    text = differential.compare(x2, y2, 4, ("tritium", "Triton"), load)
    assert differential.classify("Triton mismatches", text) == "Triton: vectorized load at a negative remainder"
    text = differential.compare(x, y, 4, ("tritium", "Triton"), load)  # element 0: read right by Triton
    assert differential.classify("Triton mismatches", text) == "unclassified"
    text = differential.compare(x, y, 4, ("tritium", "Triton"), "v = tl.cos(tl.cos(v8))")
    assert differential.classify("Triton mismatches", text) == "Triton: libdevice log/sin/cos"
    # Approximate math alone does not explain a Triton mismatch (both compilers approximate alike).
    text = differential.compare(x, y, 4, ("tritium", "Triton"), "v = tl.exp(x)")
    assert differential.classify("Triton mismatches", text) == "unclassified"


def test_interpreter_counts_saturated_conversions(differential):
    """The count the harness reads around the interpreter's run: out-of-range and NaN float->int
    conversions only (Triton's result is undefined for exactly those)."""
    import numpy as np
    import tritium
    import tritium.language as tl

    @tritium.jit
    def convert(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.int8))

    def saturated(values):
        x = np.array(values, np.float32)
        y = np.zeros(4, np.int8)
        before = tritium._C._saturated_conversions()
        convert[(1,)](x, y, BLOCK=4)  # numpy arrays: the interpreter (conftest.py)
        return tritium._C._saturated_conversions() - before, list(y)

    assert saturated([1.5, -128.9, 127.9, -0.5]) == (0, [1, -128, 127, 0])
    assert saturated([300.0, -129.0, float("nan"), 2.0]) == (3, [127, -128, 0, 2])


def test_interpreter_counts_wide_shifts(differential):
    import numpy as np
    import tritium
    import tritium.language as tl

    @tritium.jit
    def shift(x_ptr, y_ptr, s, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) << s)

    def wide(amount):
        x, y = np.arange(1, 5, dtype=np.int32), np.zeros(4, np.int32)
        before = tritium._C._wide_shifts()
        shift[(1,)](x, y, amount, BLOCK=4)
        return tritium._C._wide_shifts() - before, list(y)

    assert wide(31) == (0, [-2147483648, 0, -2147483648, 0])
    assert wide(32) == (4, [0, 0, 0, 0])
    assert wide(-1) == (4, [0, 0, 0, 0])


def test_exception_text_and_classes(differential):
    class CompilationError(Exception):  # like Triton's: the source and a caret, the cause chained
        pass
    try:
        try:
            raise AttributeError("'dtype' object has no attribute 'numel'")
        except AttributeError as inner:
            raise CompilationError("at 3:4:\n    v = tl.flip(x, 0)\n        ^") from inner
    except CompilationError as error:
        text = differential.exception_text(error)
    assert differential.last_line(text) == "AttributeError: 'dtype' object has no attribute 'numel'"
    assert differential.classify("Triton-only errors", text) == "Triton: flip of one element"
    assert differential.classify("GPU errors", text) == "unclassified"  # classes are per kind
    assert differential.classify("Triton-only errors", "IndexError: list index out of range") == "unclassified"
    assert differential.classify("Triton-only errors", "CompilationError: AttributeError(\"'int' object has no "
                                 "attribute 'to'\")") == "Triton: an int argument of 1 is a constexpr"
    fault = "AcceleratorError: ... [the CUDA context broke; worker replaced]"
    assert differential.classify("Triton-only errors", fault) == "unclassified"
    assert differential.classify("Triton-only errors", fault + " [a shift by >= the bit width in the interpreter]") == \
        "Triton: a fault after undefined behaviour"


def test_workers_merge_like_one_process(tmp_path, outcomes):
    proc, counts, summary, findings, _ = run(tmp_path, "--count", "60", "--workers", "3", "--chunk", "7",
                                             "--triton")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = collections.Counter()
    for c in outcomes.values():
        expected.update(c)
    assert counts["kernels"] == 60 and expected["kernels"] == 60
    for key in ("compile errors", "interpreter refused", "compared", "atomics skipped", "Triton compared"):
        assert counts[key] == expected[key], (key, summary)
    assert counts["compared"] > 5 and counts["GPU mismatches"] == 0 and counts["Triton mismatches"] == 0
    assert findings == []
    assert "every seed below 60 done" in summary


def test_injected_findings_reach_the_summary(tmp_path, outcomes):
    compared = [s for s, c in outcomes.items() if c["Triton compared"]]
    assert len(compared) >= 5, outcomes
    a, b, c, d, e = compared[:5]
    others = [s for s in range(60) if s not in (a, b, c, d, e)]
    # Inside a chunk of 5 (not its last seed): the seeds after it must be run too.
    inside = [s for s in others if s % 5 in (1, 2)]
    fault, crash, hang = inside[1], inside[8], inside[14]
    proc, counts, summary, findings, out = run(
        # The timeout must outlast any kernel's run on a loaded machine, a replacement worker's
        # start included: with 4 s a clean-clone CI beside other jobs once found a tenth finding.
        tmp_path, "--count", "60", "--workers", "3", "--chunk", "5", "--triton", "--kernel-timeout", "12",
        "--inject", f"{a}:mismatch", "--inject", f"{b}:triton-mismatch",
        "--inject", f"{c}:triton-error:RuntimeError: PassManager::run failed",
        "--inject", f"{d}:triton-error:ValueError: a kind never seen before",
        "--inject", f"{e}:triton-crash",
        "--inject", f"{fault}:fault", "--inject", f"{crash}:crash", "--inject", f"{hang}:hang")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a GPU mismatch and GPU errors
    by_seed = {int(f[0]): f for f in findings}
    # The GPU's flipped element differs from the interpreter and from Triton alike.
    assert sorted(f[1] for f in findings if int(f[0]) == a) == ["GPU mismatches", "Triton mismatches"]
    assert by_seed[b][1:3] == ["Triton mismatches", "unclassified"]
    assert by_seed[c][1:3] == ["Triton-only errors", "Triton compiler failure"]
    assert by_seed[d][1:3] == ["Triton-only errors", "unclassified"]
    assert by_seed[d][3].endswith("ValueError: a kind never seen before")
    assert by_seed[fault][1] == "GPU errors" and "CUDA context broke" in by_seed[fault][3]
    assert by_seed[crash][1] == "GPU errors" and "died (exit code 7)" in by_seed[crash][3]
    assert by_seed[hang][1] == "GPU errors" and "--kernel-timeout" in by_seed[hang][3]
    # A crash under Triton is Triton's; tritium's part of that kernel was reported before it.
    assert by_seed[e][1:3] == ["Triton-only errors", "unclassified"]
    assert "under Triton: the worker process died (exit code 6)" in by_seed[e][3]
    assert len(findings) == 9, findings
    # Unclassified first, in findings.txt and in the summary's class table.
    assert [f[2] for f in findings].index("Triton compiler failure") == 8
    table = summary[summary.index("| finding | class"):]
    assert table.index("unclassified") < table.index("Triton compiler failure")
    # Every seed counted once, the workers replaced (fault, crashes, hang), the rest unchanged.
    assert counts["kernels"] == 60 and "every seed below 60 done" in summary
    assert "(4 lost and replaced)" in summary
    assert counts["GPU errors"] == 3 and counts["GPU mismatches"] == 1
    assert counts["Triton mismatches"] == 2 and counts["Triton-only errors"] == 3
    assert counts["compared"] == sum(c["compared"] for s, c in outcomes.items() if s not in (fault, crash, hang))
    samples = (out / "kernels.txt").read_text()
    assert samples.count("#### seed ") == 9
    kernel = samples.split(f"#### seed {d}: Triton-only errors (class: unclassified)\n")[1].split("#### seed")[0]
    assert "a kind never seen before" in kernel and "\ndef kernel(" in kernel
    compile(kernel, "kernel.py", "exec")  # the message is commented out: the kernel runs as it is


def test_max_seconds_stops_in_time(tmp_path):
    proc, counts, summary, findings, _ = run(
        tmp_path, "--count", "100000", "--workers", "2", "--max-seconds", "5", "--grace", "2",
        "--inject", "3:hang", "--kernel-timeout", "600", timeout=60)
    assert 3 < counts["kernels"] < 100000  # seed 3 hangs, the other worker goes on
    assert "continue with --first 3" in proc.stdout, proc.stdout + proc.stderr
    wall = float(summary.split(" kernels in ")[1].split(" s")[0])
    assert wall < 5 + 2 + 5, summary


def test_replay_prints_a_seed_and_its_buffers(tmp_path):
    """tests/fuzz/replay.py (a finding read on the GPU machine): here the interpreter alone."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp_path))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "fuzz" / "replay.py"), "2", "3", "--fuzz",
                           fuzz_binary()],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "#### seed 2\n# signature: " in proc.stdout and "#### seed 3\n# signature: " in proc.stdout
    assert "# tritium: " in proc.stdout and "error: " in proc.stdout  # seed 3: tritium refuses it
    assert "@triton.jit" in proc.stdout
    assert "elements differ; first 8: [" in proc.stdout

#!/usr/bin/env python3
"""Runs Triton's own language tests (python/test/unit/language/ of triton-lang/triton) with
`import triton` answered by tritium, and prints what passed, per test function.

This is a measurement, not one of tritium's tests: the Triton test files are Triton's code,
fetched into an ignored folder (default build-gpu/triton-tests/: test_core.py, the other
test_*.py files of that folder, and the _internal_testing.py of Triton 3.6's wheel, which the
plugin prefers to the installed Triton's) and never committed. See build-gpu/triton-tests/README (written by whoever fetched them) for the
commit they come from.

    python tests/triton_suite/run_triton_suite.py [--device cpu|cuda] [-k EXPR] [-x]
        [--timeout S] [--interpreter-only] [--files test_core.py ...] [--json OUT]

--device cpu   kernels get torch CPU tensors and run in tritium's interpreter
               (TRITIUM_INTERPRET=1). The tests take their compiled-kernel paths (tritium's
               interpreter compiles the kernel as the GPU path does): patch_kernel edits a
               JITFunction's source, and the plugin makes the driver's target backend
               "cpu", so is_cuda()/is_hip() are False and no PTX is checked.
               --triton-interpret also sets TRITON_INTERPRET=1: the tests' paths for
               Triton's interpreter (patch_kernel then exec()s the kernel text, which no
               source-compiling JIT can read back: those tests fail on `needs the source`).
--device cuda  torch CUDA tensors, tritium's GPU path; TRITON_INTERPRET is unset.
--interpreter-only  only tests Triton marks `interpreter` (what Triton runs on CPU).
               Python processes a test starts itself (test_subprocess.py) get the alias
               too: sitecustomize.py of this folder, with TRITIUM_SUITE_ALIAS=1.
--files F ...  the test files (default test_core.py; `all`: every test_*.py in --tests).
-k, -x         passed to pytest.  --timeout S: limit per test (default 120 s); a test
               that ignores the alarm (stuck in native code) is detected by a watchdog
               (no test finished for 2*S+60 s), the process is killed, that test is
               recorded as `timeout`, and the run resumes after it.

The table: per test function, passed / failed / error / skipped / timeout, then the most
common failure reasons (first line of the exception, numbers and hex masked, grouped).

On the GPU machine (torch 2.11 and Triton 3.6 installed; carry build-gpu/dist, the
prebuilt libtritium.so from `bash scripts/build_wheel.sh --device build-gpu/dist`, and
build-gpu/triton-tests) in one command:

    python3 tests/triton_suite/run_triton_suite.py --install build-gpu/dist --device cuda \
        --budget 480 --log build-gpu/suite.jsonl --json $OUT/suite.json > $OUT/suite.txt 2>&1; \
        tail -60 $OUT/suite.txt

--install DIR builds and installs tritium's wheel against DIR first (as
scripts/device_wheel.sh does, without its GPU test run). --budget S stops after S seconds
(the device tool allows 600 s a command); with --log on a path that survives between
commands (build-gpu/ does while the machine stays warm), running the same command again
resumes after the last finished test, and the table always covers the whole log:

    python3 tests/triton_suite/run_triton_suite.py --device cuda --budget 500 \
        --log build-gpu/suite.jsonl --json $OUT/suite.json > $OUT/suite.txt 2>&1; \
        tail -60 $OUT/suite.txt

(the first of these commands with --install build-gpu/dist added).

--gpu-compile sm_90[,sm_80]  (with --device cpu) the GPU compile sweep: every specialization
               a test launches in the interpreter is also compiled to PTX for those
               architectures and assembled by ptxas, each in a forked process (a crash, hang
               or runaway memory is recorded, not fatal); --gpu-compile-timeout S (120) and
               --gpu-compile-mem GB (6) limit one compile. A second table gives each test
               function's compiles by status (ok, user, unlocated, resources, internal,
               ptxas, crash, timeout, memory: gpu_compile.py's docstring) and the failures
               grouped by reason. ptxas: /usr/local/cuda/bin/ptxas, or $TRITIUM_SUITE_PTXAS.
--pretend-cuda sm_90  (with --device cpu) the tests see a CUDA target of that arch
               (is_cuda() True, torch.cuda.get_device_capability() (9, 0)): they take their
               CUDA branches (PTX checks read the handle's asm["ptx"], compiled for sm_90 on
               the CPU; CUDA-only kernels are launched) while kernels run in the interpreter.
               Their CPU outcomes are no measurement of the GPU; with --gpu-compile, the
               sweep sees the kernels of those branches too. The installed Triton is
left alone: the alias answers `import triton` with tritium, and `triton._internal_testing`
comes from build-gpu/triton-tests (else from the installed Triton's files).
"""

import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import suite_log

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def install(dist_dir):
    """Builds tritium's wheel against a prebuilt libtritium.so (DIR) and installs it."""
    dist = pathlib.Path(dist_dir).resolve()
    py = sys.executable
    if subprocess.call([py, "-c", "import scikit_build_core"], stderr=subprocess.DEVNULL):
        subprocess.check_call([py, "-m", "pip", "install", "-q", "--no-index", "--find-links",
                               str(dist / "wheelhouse"), "scikit-build-core"])
    out = pathlib.Path(tempfile.mkdtemp(prefix="tritium-wheel-"))
    subprocess.check_call([py, "-m", "pip", "wheel", str(ROOT), "-w", str(out), "-q",
                           "--no-build-isolation", "--no-deps",
                           f"-Ccmake.define.TRITIUM_PREBUILT_DIR={dist}",
                           f"-Cbuild-dir={out / 'build'}"])
    wheel = next(out.glob("tritium-*.whl"))
    subprocess.check_call([py, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps",
                           str(wheel)])


def pytest_command(args, files, log, skip_done):
    cmd = [sys.executable, "-m", "pytest", "-p", "triton_suite_plugin", "-p", "no:cacheprovider",
           "-q", "--no-header", "-rN", "--tb=line", f"--rootdir={args.tests}",
           f"--confcutdir={args.tests}", f"--device={args.device}",
           f"--suite-timeout={args.timeout}", f"--suite-log={log}",
           f"--suite-tests-dir={args.tests}", "-W", "ignore"]
    if skip_done:
        cmd.append(f"--suite-skip-done={log}")
    if args.pretend_cuda:
        cmd.append(f"--pretend-cuda={args.pretend_cuda}")
    if args.gpu_compile:
        cmd += [f"--gpu-compile={args.gpu_compile}",
                f"--gpu-compile-timeout={args.gpu_compile_timeout}",
                f"--gpu-compile-mem={args.gpu_compile_mem}"]
    if args.k:
        cmd += ["-k", args.k]
    if args.x:
        cmd.append("-x")
    if args.interpreter_only:
        cmd += ["-m", "interpreter"]
    cmd += [str(pathlib.Path(args.tests) / f) for f in files]
    return cmd


def read_log(log):
    results, started = {}, []
    for rec in suite_log.records(log):
        if rec["event"] == "start":
            started.append(rec["nodeid"])
        elif rec["event"] in ("result", "killed"):
            prev = results.get(rec["nodeid"])
            # a teardown error after a pass counts as an error
            if prev is None or rec["outcome"] in ("failed", "error", "timeout"):
                results[rec["nodeid"]] = rec
    return results, started


def run(args, files, log):
    """Runs pytest, restarting it after the last test that finished if it hangs."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.pop("TRITON_INTERPRET", None)
    # Processes the tests start (test_subprocess.py) get the alias too (sitecustomize.py).
    env["TRITIUM_SUITE_ALIAS"] = "1"
    if args.device == "cpu":
        env["TRITIUM_INTERPRET"] = "1"
        if args.triton_interpret:
            env["TRITON_INTERPRET"] = "1"
    watchdog = 2 * args.timeout + 60 if args.timeout > 0 else None
    deadline = time.time() + args.budget if args.budget else None
    # A log left by an earlier (stopped) run is resumed: its finished tests are not rerun.
    first = not os.path.exists(log)
    while True:
        proc = subprocess.Popen(pytest_command(args, files, log, skip_done=not first), env=env,
                                stdout=None if args.verbose else subprocess.DEVNULL,
                                stderr=None if args.verbose else subprocess.DEVNULL)
        first = False
        last_size, last_change = -1, time.time()
        while proc.poll() is None:
            time.sleep(1.0)
            size = os.path.getsize(log) if os.path.exists(log) else 0
            if size != last_size:
                last_size, last_change = size, time.time()
            if deadline and time.time() > deadline:
                # Out of time: stop here; the same --log resumes after the last finished test.
                proc.kill()
                proc.wait()
                print(f"# stopped after --budget {args.budget:g} s; run again with the same "
                      f"--log {log} to continue")
                return "budget"
            if watchdog and time.time() - last_change > watchdog:
                proc.kill()
                proc.wait()
                break
        if proc.returncode is not None and proc.returncode >= 0:
            return proc.returncode
        # killed (by the watchdog or a crash signal): the test started last did not finish
        results, started = read_log(log)
        stuck = next((n for n in reversed(started) if n not in results), None)
        if stuck is None:
            return proc.returncode
        with open(log, "a") as f:
            f.write(json.dumps({"event": "killed", "nodeid": stuck, "outcome": "timeout",
                                "reason": f"process killed (signal {-proc.returncode}): hang "
                                          "or crash inside this test"}) + "\n")
        if args.x:
            return 1


MASKS = [(re.compile(r"0x[0-9a-fA-F]+"), "0x?"), (re.compile(r"(?<![A-Za-z_])-?\d+(\.\d+)?(e[-+]?\d+)?"), "N"),
         (re.compile(r"'[^']{40,}'"), "'...'")]


def reason_key(text):
    for pat, rep in MASKS:
        text = pat.sub(rep, text)
    return text[:160]


def func_name(nodeid):
    name = nodeid.split("::")[-1]
    return name.split("[")[0]


def report(results, out=sys.stdout, top=25):
    per = collections.OrderedDict()
    kinds = ["passed", "failed", "error", "skipped", "timeout"]
    for nodeid, rec in results.items():
        per.setdefault(func_name(nodeid), collections.Counter())[rec["outcome"]] += 1
    w = max([len(n) for n in per] + [13])
    print(f"{'test function':<{w}} " + " ".join(f"{k:>7}" for k in kinds), file=out)
    total = collections.Counter()
    for name, c in per.items():
        total.update(c)
        print(f"{name:<{w}} " + " ".join(f"{c.get(k, 0):>7}" for k in kinds), file=out)
    print(f"{'TOTAL':<{w}} " + " ".join(f"{total.get(k, 0):>7}" for k in kinds), file=out)
    reasons = collections.Counter()
    where = collections.defaultdict(collections.Counter)
    for nodeid, rec in results.items():
        if rec["outcome"] in ("failed", "error", "timeout"):
            key = reason_key(rec.get("reason", "?"))
            reasons[key] += 1
            where[key][func_name(nodeid)] += 1
    if reasons:
        print(f"\ntop failure reasons ({sum(reasons.values())} failing tests):", file=out)
        for key, n in reasons.most_common(top):
            funcs = ", ".join(f"{f}({k})" for f, k in where[key].most_common(4))
            print(f"{n:6d}  {key}\n        in {funcs}", file=out)
    return total


GPU_KINDS = ["ok", "user", "unlocated", "resources", "internal", "ptxas", "crash", "timeout",
             "memory"]


def read_gpu_log(log):
    """The `gpu` records of a --gpu-compile run, one per (test, kernel, signature, options,
    arch); a resumed run's repeats are counted once."""
    seen = {}
    for rec in suite_log.records(log):
        if rec.get("event") == "gpu":
            key = (rec["nodeid"], rec["kernel"], rec["signature"],
                   json.dumps(rec.get("options"), sort_keys=True), rec["arch"])
            seen[key] = rec
    return list(seen.values())


def gpu_report(recs, out=sys.stdout, top=40):
    """Per test function and architecture: kernels compiled, by status; then the failures
    grouped by reason, and the slowest compiles."""
    if not recs:
        return
    per = collections.OrderedDict()
    for rec in recs:
        per.setdefault((func_name(rec["nodeid"]), rec["arch"]), collections.Counter())[rec["status"]] += 1
    w = max([len(f"{n} {a}") for n, a in per] + [13])
    print(f"\nGPU compile sweep: {len(recs)} kernel compiles", file=out)
    print(f"{'test function':<{w}} " + " ".join(f"{k[:7]:>7}" for k in GPU_KINDS), file=out)
    total = collections.Counter()
    for (name, arch), c in per.items():
        total.update(c)
        if any(k != "ok" for k in c):
            print(f"{name + ' ' + arch:<{w}} " + " ".join(f"{c.get(k, 0):>7}" for k in GPU_KINDS), file=out)
    print(f"{'TOTAL':<{w}} " + " ".join(f"{total.get(k, 0):>7}" for k in GPU_KINDS), file=out)
    tests = collections.defaultdict(set)
    for rec in recs:
        tests[rec["status"] == "ok"].add(rec["nodeid"])
    print(f"tests with kernels: {len(tests[True] | tests[False])}, with a failing compile: "
          f"{len(tests[False])}", file=out)
    reasons = collections.Counter()
    where = collections.defaultdict(collections.Counter)
    for rec in recs:
        if rec["status"] != "ok":
            key = f"[{rec['status']}] " + reason_key(rec.get("reason", "?"))
            reasons[key] += 1
            where[key][f"{func_name(rec['nodeid'])} {rec['arch']}"] += 1
    if reasons:
        print(f"\nGPU compile failures by reason ({sum(reasons.values())}):", file=out)
        for key, n in reasons.most_common(top):
            funcs = ", ".join(f"{f}({k})" for f, k in where[key].most_common(4))
            print(f"{n:6d}  {key}\n        in {funcs}", file=out)
    times = sorted(recs, key=lambda r: -(r.get("compile_s", 0) + r.get("ptxas_s", 0)))
    tot = sum(r.get("compile_s", 0) for r in recs), sum(r.get("ptxas_s", 0) for r in recs)
    print(f"\ncompile time: tritium {tot[0]:.0f} s, ptxas {tot[1]:.0f} s; slowest:", file=out)
    for r in times[:10]:
        print(f"  {r.get('compile_s', 0):7.2f} + {r.get('ptxas_s', 0):6.2f} s  {r.get('rss_mb', 0):5d} MB  "
              f"{r['status']:<8} {r['nodeid']} {r['kernel']} [{r['signature'][:80]}]", file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--tests", default=str(ROOT / "build-gpu" / "triton-tests"))
    ap.add_argument("--files", nargs="+", default=["test_core.py"])
    ap.add_argument("-k", default=None)
    ap.add_argument("-x", action="store_true")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--interpreter-only", action="store_true")
    ap.add_argument("--triton-interpret", action="store_true",
                    help="cpu: also set TRITON_INTERPRET=1 (the tests' interpreter paths)")
    ap.add_argument("--json", default=None, help="write every test's outcome here")
    ap.add_argument("--log", default=None, help="the JSON-lines log (default: a temp file)")
    ap.add_argument("--install", default=None, metavar="DIR")
    ap.add_argument("--budget", type=float, default=None, metavar="S",
                    help="stop after S seconds (a later run with the same --log resumes)")
    ap.add_argument("--gpu-compile", default=None, metavar="ARCHS",
                    help="also compile every launched specialization to PTX for these "
                         "architectures (sm_90,sm_80) and run ptxas on it (gpu_compile.py)")
    ap.add_argument("--pretend-cuda", default=None, metavar="ARCH",
                    help="cpu: the tests' is_cuda() is True and torch.cuda's capability that "
                         "of ARCH (sm_90): their CUDA branches run, kernels in the interpreter")
    ap.add_argument("--gpu-compile-timeout", type=float, default=120.0, metavar="S")
    ap.add_argument("--gpu-compile-mem", type=float, default=6.0, metavar="GB")
    ap.add_argument("-v", "--verbose", action="store_true", help="show pytest's own output")
    args = ap.parse_args()
    args.tests = str(pathlib.Path(args.tests).resolve())
    if args.files == ["all"]:
        args.files = sorted(p.name for p in pathlib.Path(args.tests).glob("test_*.py"))
    if args.install:
        install(args.install)
    log = args.log or tempfile.mktemp(prefix="triton-suite-", suffix=".jsonl")
    start = time.time()
    rc = run(args, args.files, log)
    results, _ = read_log(log)
    print(f"# Triton's {' '.join(args.files)} under tritium, device={args.device}, "
          f"{len(results)} tests in {time.time() - start:.0f} s (pytest exit {rc})")
    report(results)
    gpu_recs = read_gpu_log(log) if args.gpu_compile else []
    gpu_report(gpu_recs)
    if not results and rc not in (0, 5):
        print("no test ran: pytest failed before the first test (a collection error?); rerun "
              "with -v to see its output")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "gpu": gpu_recs} if args.gpu_compile else results,
                      f, indent=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tritium against Triton 3.6, side by side in one run on the GPU machine (DESIGN: Testing
layers): the same kernels (kernels.py) and inputs through both, printed as ratios.

    python3 benchmarks/bench.py [--cpp cpp_launch.json] [--json results.json] [--quick]

1. Launch overhead per call on a cache hit from Python, with 4 and with 16 arguments: a
   tight loop of launches of a one-program kernel, host time per call (median of repeats).
2. First call with a cold cache: a new process with empty cache directories (and the
   driver's own JIT cache off), the time of the first launch until it finished.
3. First call in a new process with a warm disk cache: the same, in a second process.
4. Vector add on 2^28 fp32 elements: bandwidth from triton.testing.do_bench's median.
The C++ row (tritium::Kernel::launch against raw cuLaunchKernel of the same cubin) comes
from benchmarks/bench_launch.cpp's JSON, given with --cpp.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def jits():
    import triton
    import tritium
    import kernels
    return {
        "tritium": {"add4": tritium.jit(kernels.add4), "add16": tritium.jit(kernels.add16)},
        "triton": {"add4": triton.jit(kernels.add4), "add16": triton.jit(kernels.add16)},
    }


def per_call_us(launch, calls):
    """Host time per call of `calls` back-to-back launches (then the device catches up)."""
    import torch
    start = time.perf_counter()
    for _ in range(calls):
        launch()
    stop = time.perf_counter()
    torch.cuda.synchronize()
    return (stop - start) / calls * 1e6


def launch_overhead(kernels, calls, repeats):
    import torch
    n = 1024
    bufs = [torch.randn(n, device="cuda") for _ in range(8)]
    x, y, out = bufs[0], bufs[1], bufs[7]
    launches = {}
    for name, k in kernels.items():
        add4, add16 = k["add4"], k["add16"]
        launches[(name, "launch4_us")] = lambda add4=add4: add4[(1,)](x, y, out, n, BLOCK=1024)
        launches[(name, "launch16_us")] = lambda add16=add16: add16[(1,)](
            *bufs[:7], out, n, 3, 5, 7, 9, 11, 13, 15, BLOCK=1024)
    for launch in launches.values():  # compile and warm up
        launch()
    torch.cuda.synchronize()
    # Interleaved repeats, so that a drift of the machine moves both sides alike.
    samples = {key: [] for key in launches}
    for _ in range(repeats):
        for key, launch in launches.items():
            samples[key].append(per_call_us(launch, calls))
    results = {}
    for (name, what), values in samples.items():
        results.setdefault(name, {})[what] = statistics.median(values)
        results[name][what + "_runs"] = values
    # Correctness of what was timed.
    for name, k in kernels.items():
        out.fill_(float("nan"))
        k["add16"][(1,)](*bufs[:7], out, n, 3, 5, 7, 9, 11, 13, 15, BLOCK=1024)
        torch.cuda.synchronize()
        expected = sum(bufs[:7]) + 63
        assert torch.allclose(out, expected, rtol=1e-5, atol=1e-5), name
    return results


def bandwidth(kernels, quick):
    import torch
    import triton.testing
    n = 1 << (24 if quick else 28)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    moved = 3 * 4 * n
    grid = (triton.cdiv(n, 1024),)
    results = {}
    runs = {name: (lambda k=k: k["add4"][grid](x, y, out, n, BLOCK=1024))
            for name, k in kernels.items()}
    runs["torch"] = lambda: torch.add(x, y, out=out)
    for order in range(2):  # twice, interleaved: the spread says what a ratio can claim
        for name, run in runs.items():
            out.fill_(float("nan"))
            ms = triton.testing.do_bench(run, warmup=25, rep=200, return_mode="median")
            torch.cuda.synchronize()
            assert torch.equal(out, x + y), name
            results.setdefault(name, []).append(moved / (ms * 1e-3) / 1e9)
    return {name: {"gbps": max(v), "gbps_runs": v} for name, v in results.items()}


CHILD = """
import json, os, sys, time
import torch
which = sys.argv[1]
sys.path.insert(0, {here!r})
t_import = time.perf_counter()
if which == "tritium":
    import tritium as jit_module
else:
    import triton as jit_module
imported = time.perf_counter() - t_import
import kernels
add4 = jit_module.jit(kernels.add4)
n = 1 << 20
x = torch.randn(n, device="cuda"); y = torch.randn(n, device="cuda")
out = torch.full_like(x, float("nan"))
torch.cuda.synchronize()
start = time.perf_counter()
add4[((n + 1023) // 1024,)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
first = time.perf_counter() - start
start = time.perf_counter()
add4[((n + 1023) // 1024,)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
second = time.perf_counter() - start
assert torch.equal(out, x + y)
result = {{"first_s": first, "second_s": second, "import_s": imported}}
if which == "tritium":
    result["stats"] = jit_module.cache_stats()
print(json.dumps(result))
"""


def first_calls(which, repeats):
    cold, warm, imports, stats = [], [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix=f"bench-{which}-") as cache:
            env = dict(os.environ, TRITIUM_CACHE_DIR=cache, TRITON_CACHE_DIR=cache,
                       CUDA_CACHE_DISABLE="1")
            env.pop("TRITIUM_INTERPRET", None)
            for bucket in (cold, warm):
                proc = subprocess.run(
                    [sys.executable, "-c", CHILD.format(here=str(HERE)), which], env=env,
                    capture_output=True, text=True, timeout=300)
                if proc.returncode != 0:
                    raise RuntimeError(f"{which} child failed:\n{proc.stderr}")
                result = json.loads(proc.stdout.strip().splitlines()[-1])
                bucket.append(result["first_s"] * 1e3)
                imports.append(result["import_s"] * 1e3)
                if "stats" in result:
                    stats.append(result["stats"])
    return {"cold_ms": statistics.median(cold), "warm_ms": statistics.median(warm),
            "cold_runs_ms": cold, "warm_runs_ms": warm,
            "import_ms": statistics.median(imports), "stats": stats[:2]}


def row(label, ours, theirs, unit, lower_is_better=True):
    ratio = ours / theirs if theirs else float("nan")
    better = "lower is better" if lower_is_better else "higher is better"
    return f"| {label} ({unit}, {better}) | {ours:.3g} | {theirs:.3g} | {ratio:.2f} |"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpp", help="JSON from bench_launch (C++ launch overhead)")
    parser.add_argument("--json", help="write every number here")
    parser.add_argument("--quick", action="store_true", help="fewer calls, smaller vector")
    parser.add_argument("--bandwidth-only", action="store_true",
                        help="only the vector-add bandwidth row (run it once with "
                             "TRITIUM_DISABLE_VECTORIZE=1 for the before/after of issue 4)")
    args = parser.parse_args()

    import torch
    import triton
    import tritium
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}, tritium {tritium.__version__}", flush=True)
    kernels = jits()
    if args.bandwidth_only:
        print("bandwidth:", json.dumps(bandwidth(kernels, args.quick)), flush=True)
        return
    calls, repeats = (2000, 3) if args.quick else (20000, 9)
    results = {"launch": launch_overhead(kernels, calls, repeats)}
    print("launch:", json.dumps(results["launch"]), flush=True)
    results["first_call"] = {w: first_calls(w, 1 if args.quick else 3)
                             for w in ("tritium", "triton")}
    print("first call:", json.dumps({w: {k: v for k, v in r.items() if k != "stats"}
                                     for w, r in results["first_call"].items()}), flush=True)
    results["bandwidth"] = bandwidth(kernels, args.quick)
    print("bandwidth:", json.dumps(results["bandwidth"]), flush=True)
    if args.cpp and pathlib.Path(args.cpp).exists():
        results["cpp"] = json.loads(pathlib.Path(args.cpp).read_text())
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))

    launch, first, bw = results["launch"], results["first_call"], results["bandwidth"]
    lines = ["| measure | tritium | Triton 3.6 | tritium / Triton |", "| --- | --- | --- | --- |"]
    lines.append(row("launch, cache hit, Python, 4 args", launch["tritium"]["launch4_us"],
                     launch["triton"]["launch4_us"], "us/call"))
    lines.append(row("launch, cache hit, Python, 16 args", launch["tritium"]["launch16_us"],
                     launch["triton"]["launch16_us"], "us/call"))
    lines.append(row("first call, cold cache, vector add", first["tritium"]["cold_ms"],
                     first["triton"]["cold_ms"], "ms"))
    lines.append(row("first call, new process, warm disk cache", first["tritium"]["warm_ms"],
                     first["triton"]["warm_ms"], "ms"))
    lines.append(row(f"vector add {'2^24' if args.quick else '2^28'} fp32",
                     bw["tritium"]["gbps"], bw["triton"]["gbps"], "GB/s", False))
    if "cpp" in results:
        cpp = results["cpp"]
        lines.append(f"| launch, cache hit, C++: tritium::Kernel::launch vs raw cuLaunchKernel "
                     f"(us/call) | {cpp['tritium_us']:.3g} | raw {cpp['raw_us']:.3g} | "
                     f"{cpp['tritium_us'] / cpp['raw_us']:.2f} (vs raw) |")
    lines.append(row("import of the package (after torch)", first["tritium"]["import_ms"],
                     first["triton"]["import_ms"], "ms"))
    lines.append(f"(torch.add on the same vectors: {bw['torch']['gbps']:.4g} GB/s)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

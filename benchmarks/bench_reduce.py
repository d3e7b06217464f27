"""Reductions and scans, tritium against Triton 3.6 side by side in one run on the GPU (issue
8): the same kernels (kernels_reduce.py) and inputs through both JITs, torch as a third
column, bandwidth in GB/s (bytes each kernel must move / median time of
triton.testing.do_bench) and the ratio tritium / Triton (>= 1.00: tritium as fast or
faster). Every output is checked against torch before it is timed.

Rows: row softmax at 128 / 1024 / 4096 / 16384 columns (4096 rows, fp32 and fp16), layer
norm forward (4096 rows, N = 1024 / 4096 / 8192, fp16), RMS norm (same sizes), cross-entropy
forward (4096 rows, vocabularies of 32000 / 50257 / 128256, fp32 logits), tl.sum of 2^28
fp32 (a grid of blocks and one atomic add each), tl.cumsum along rows (4096 x 1024 / 4096
fp32); then the first call of the softmax kernel in a new process with empty caches.

One command on the H200 (the GPU machine; tests/gpu/run_on_device.sh says how to build the
build-gpu/dist it carries), about 5 minutes:
    BENCH_REDUCE=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
(BENCH_REDUCE=1 QUICK_BENCH=1 ...: a quick pass), or, with tritium and Triton importable:
    python3 benchmarks/bench_reduce.py [--quick] [--json results.json] [--only softmax,sum]

A/B of code-generation settings (benchmarks/experiments.py; TRITIUM_REDUCE_EXPERIMENT's names
in nvptx/codegen.h): each setting in its own process (the variable is read when a kernel
compiles; it is part of the cache key), the chosen rows only, the settings interleaved over
--rounds rounds, then one table of tritium / Triton per row and setting (best of the rounds,
and the spread):
    python3 benchmarks/bench_reduce.py --experiments "default;chain;scanup;iv32;chain,scanup,iv32" \
        --only softmax,layer_norm,rms_norm,cross_entropy,cumsum_rows --rounds 2
A setting NAME=value[+NAME=value...] sets those environment variables instead
(--experiments "default;TRITIUM_LOAD_PTX=0;TRITIUM_LOAD_PTX=0+TRITIUM_REDUCE_EXPERIMENT=noiv32").
(--labels "layer_norm,x1024,vocab 50257": only rows whose label contains one of these.) On the
GPU machine: BENCH_REDUCE=1 REDUCE_LIMIT=590 REDUCE_ARGS='--experiments default;chain;...
--only ... --rounds 1' SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
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

NAMES = ["softmax", "layer_norm", "rms_norm", "cross_entropy", "sum_atomic", "cumsum_rows"]


def jits():
    import triton
    import tritium
    import kernels_reduce
    return {name: {"tritium": tritium.jit(getattr(kernels_reduce, name)),
                   "triton": triton.jit(getattr(kernels_reduce, name))} for name in NAMES}


def pow2(n):
    return 1 << (n - 1).bit_length()


def warps_for(block):
    return 4 if block <= 1024 else 8 if block <= 4096 else 16


def cases(quick):
    """(group, label, setup) where setup() gives (bytes, {jit: launch}, torch launch, check)."""
    import torch
    rows = 1024 if quick else 4096
    out = []

    for dtype in (torch.float32, torch.float16):
        for cols in (128, 1024, 4096, 16384):
            def setup(dtype=dtype, cols=cols):
                x = torch.randn(rows, cols, device="cuda", dtype=dtype) * 3
                y = torch.empty_like(x)
                block = pow2(cols)
                launches = {w: (lambda k=k: k[(rows,)](y, x, x.stride(0), y.stride(0), cols,
                                                      BLOCK=block, num_warps=warps_for(block)))
                            for w, k in K["softmax"].items()}
                ref = torch.softmax(x.float(), dim=1).to(dtype)
                tol = 1e-5 if dtype == torch.float32 else 2e-3
                return (2 * x.numel() * x.element_size(), launches,
                        lambda: torch.softmax(x, dim=1),
                        lambda: torch.testing.assert_close(y, ref, rtol=tol, atol=tol), y)
            out.append(("softmax", f"softmax {str(dtype)[6:]} {rows}x{cols}", setup))

    for name in ("layer_norm", "rms_norm"):
        for n in (1024, 4096, 8192):
            def setup(name=name, n=n):
                x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
                w = torch.randn(n, device="cuda", dtype=torch.float16)
                b = torch.randn(n, device="cuda", dtype=torch.float16)
                y = torch.empty_like(x)
                mean = torch.empty(rows, device="cuda")
                rstd = torch.empty(rows, device="cuda")
                block = pow2(n)
                nw = warps_for(block)
                if name == "layer_norm":
                    launches = {j: (lambda k=k: k[(rows,)](x, y, w, b, mean, rstd, x.stride(0), n,
                                                          1e-5, BLOCK=block, num_warps=nw))
                                for j, k in K[name].items()}
                    ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(),
                                                         1e-5).half()
                    torch_run = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)  # noqa: E731
                else:
                    launches = {j: (lambda k=k: k[(rows,)](x, y, w, x.stride(0), n, 1e-6,
                                                          BLOCK=block, num_warps=nw))
                                for j, k in K[name].items()}
                    xf = x.float()
                    ref = (xf * torch.rsqrt(xf.pow(2).mean(1, keepdim=True) + 1e-6)
                           * w.float()).half()
                    torch_run = (lambda: torch.nn.functional.rms_norm(x, (n,), w, 1e-6)) if hasattr(
                        torch.nn.functional, "rms_norm") else None
                return (2 * x.numel() * x.element_size(), launches, torch_run,
                        lambda: torch.testing.assert_close(y, ref, rtol=1e-2, atol=1e-2), y)
            out.append((name, f"{name} fp16 {rows}x{n}", setup))

    for vocab in (32000, 50257, 128256):
        def setup(vocab=vocab):
            r = rows // 4 if vocab > 60000 else rows
            logits = torch.randn(r, vocab, device="cuda") * 3
            targets = torch.randint(0, vocab, (r,), device="cuda")
            loss = torch.empty(r, device="cuda")
            launches = {j: (lambda k=k: k[(r,)](logits, targets, loss, logits.stride(0), vocab,
                                                BLOCK=4096, num_warps=8))
                        for j, k in K["cross_entropy"].items()}
            ref = torch.nn.functional.cross_entropy(logits, targets, reduction="none")
            return (logits.numel() * 4, launches,
                    lambda: torch.nn.functional.cross_entropy(logits, targets, reduction="none"),
                    lambda: torch.testing.assert_close(loss, ref, rtol=1e-4, atol=1e-4), loss)
        out.append(("cross_entropy", f"cross_entropy fp32 vocab {vocab}", setup))

    def setup_sum():
        n = 1 << (24 if quick else 28)
        x = torch.randn(n, device="cuda")
        z = torch.zeros(1, device="cuda")
        block, iters = 4096, 8
        grid = (triton_cdiv(n, block * iters),)

        def launch(k):
            z.zero_()
            k[grid](x, z, n, BLOCK=block, ITERS=iters, num_warps=8)
        launches = {j: (lambda k=k: launch(k)) for j, k in K["sum_atomic"].items()}
        ref = x.double().sum().float()
        return (n * 4, launches, lambda: torch.sum(x),
                lambda: torch.testing.assert_close(z[0], ref, rtol=1e-4, atol=1e-1), z)
    out.append(("sum_atomic", "tl.sum 2^28 fp32 (blocks + atomic_add)" if not quick
                else "tl.sum 2^24 fp32 (blocks + atomic_add)", setup_sum))

    for cols in (1024, 4096):
        def setup(cols=cols):
            x = torch.randn(rows, cols, device="cuda")
            z = torch.empty_like(x)
            block = pow2(cols)
            launches = {j: (lambda k=k: k[(rows,)](x, z, x.stride(0), cols, BLOCK=block,
                                                  num_warps=warps_for(block)))
                        for j, k in K["cumsum_rows"].items()}
            ref = torch.cumsum(x.double(), dim=1).float()
            return (2 * x.numel() * 4, launches, lambda: torch.cumsum(x, dim=1),
                    lambda: torch.testing.assert_close(z, ref, rtol=1e-4, atol=1e-3), z)
        out.append(("cumsum_rows", f"cumsum fp32 {rows}x{cols}", setup))
    return out


def triton_cdiv(a, b):
    return (a + b - 1) // b


def measure(label, setup, rep):
    """GB/s of each JIT and torch (best of two interleaved medians), or an error string."""
    import torch
    import triton.testing
    moved, launches, torch_run, check, result = setup()
    runs, errors = {}, {}
    for which, launch in launches.items():
        try:
            result.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            check()
            runs[which] = launch
        except Exception as e:  # noqa: BLE001 (reported in the table, the run goes on)
            errors[which] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    if torch_run is not None:
        try:
            torch_run()
            runs["torch"] = torch_run
        except Exception as e:  # noqa: BLE001 (an older torch without the op)
            errors["torch"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"

    gbps = {}
    for _ in range(2):
        for which, run in runs.items():
            ms = triton.testing.do_bench(run, warmup=25, rep=rep, return_mode="median")
            gbps.setdefault(which, []).append(moved / (ms * 1e-3) / 1e9)
    return {"label": label, "bytes": moved,
            "gbps": {w: max(v) for w, v in gbps.items()}, "gbps_runs": gbps, "errors": errors}


CHILD = """
import json, sys, time
import torch
which = sys.argv[1]
sys.path.insert(0, {here!r})
if which == "tritium":
    import tritium as jit_module
else:
    import triton as jit_module
import kernels_reduce
softmax = jit_module.jit(kernels_reduce.softmax)
x = torch.randn(4096, 1024, device="cuda")
y = torch.empty_like(x)
torch.cuda.synchronize()
start = time.perf_counter()
softmax[(4096,)](y, x, x.stride(0), y.stride(0), 1024, BLOCK=1024, num_warps=4)
torch.cuda.synchronize()
first = time.perf_counter() - start
torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-5)
print(json.dumps({{"first_s": first}}))
"""


def cold_compile(which, repeats):
    """Milliseconds of the first softmax launch in a new process with empty caches."""
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix=f"bench-reduce-{which}-") as cache:
            env = dict(os.environ, TRITIUM_CACHE_DIR=cache, TRITON_CACHE_DIR=cache,
                       CUDA_CACHE_DISABLE="1")
            env.pop("TRITIUM_INTERPRET", None)
            proc = subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE)), which],
                                  env=env, capture_output=True, text=True, timeout=300)
            if proc.returncode != 0:
                return {"error": proc.stderr.strip().splitlines()[-1][:200]}
            times.append(json.loads(proc.stdout.strip().splitlines()[-1])["first_s"] * 1e3)
    return {"cold_ms": statistics.median(times), "cold_runs_ms": times}


def fmt(v):
    return f"{v:.0f}" if v is not None else "-"


def main():
    global K
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rows, 2^24-element sum")
    parser.add_argument("--json", help="write every number here")
    parser.add_argument("--only", help="comma-separated groups: " + ",".join(NAMES) + ",cold")
    parser.add_argument("--rep", type=int, default=100, help="do_bench milliseconds per timing")
    parser.add_argument("--labels", help="comma-separated substrings: keep the rows whose label has one")
    parser.add_argument("--experiments", help="';'-separated settings (benchmarks/experiments.py: 'default', "
                        "a TRITIUM_REDUCE_EXPERIMENT value, or NAME=value[+NAME=value]), each in its own process")
    parser.add_argument("--rounds", type=int, default=1, help="with --experiments: rounds over the settings")
    args = parser.parse_args()
    unknown = set(args.only.split(",")) - set(NAMES) - {"cold"} if args.only else set()
    if unknown:
        parser.error(f"--only: no group {', '.join(sorted(unknown))} (groups: {','.join(NAMES)},cold)")
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"bench_reduce: skipped, no GPU: {reason}")
        return 0
    if args.experiments:
        return compare_experiments(args)

    import torch
    import triton
    import tritium
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}, tritium {tritium.__version__}", flush=True)
    K = jits()
    only = set(args.only.split(",")) if args.only else None
    results = {"rows": []}
    print("| kernel | tritium GB/s | Triton GB/s | tritium/Triton | torch GB/s |")
    print("|---|---|---|---|---|", flush=True)
    labels = args.labels.split(",") if args.labels else None
    for group, label, setup in cases(args.quick):
        if only and group not in only:
            continue
        if labels and not any(part in label for part in labels):
            continue
        r = measure(label, setup, args.rep)
        results["rows"].append(r)
        g = r["gbps"]
        ratio = (f"{g['tritium'] / g['triton']:.2f}" if "tritium" in g and "triton" in g
                 else "-")
        print(f"| {label} | {fmt(g.get('tritium'))} | {fmt(g.get('triton'))} | {ratio} | "
              f"{fmt(g.get('torch'))} |", flush=True)
        for which, err in r["errors"].items():
            print(f"|   {which} failed: {err} | | | | |", flush=True)
    if not only or "cold" in only:
        cold = {w: cold_compile(w, 1 if args.quick else 3) for w in ("tritium", "triton")}
        results["cold_compile"] = cold
        t, s = cold["tritium"].get("cold_ms"), cold["triton"].get("cold_ms")
        ratio = f"{t / s:.2f}" if t and s else "-"
        print(f"| softmax first call, cold caches (ms, lower is better) | {fmt(t)} | {fmt(s)} | "
              f"{ratio} | |", flush=True)
        for w, c in cold.items():
            if "error" in c:
                print(f"|   {w} cold call failed: {c['error']} | | | | |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))


def compare_experiments(args):
    """The rows chosen by --only/--labels (no cold-compile row) under each setting of
    --experiments, each in a child process of this script (benchmarks/experiments.py)."""
    import experiments
    child = ["--rep", str(args.rep), "--only", args.only or ",".join(NAMES)]
    if args.labels:
        child += ["--labels", args.labels]
    if args.quick:
        child.append("--quick")

    def ratios(result):
        for row in result["rows"]:
            g = row["gbps"]
            if "tritium" in g and "triton" in g:
                yield row["label"], g["tritium"] / g["triton"]
    experiments.compare(__file__, child, args.experiments, args.rounds, ratios, args.json)


if __name__ == "__main__":
    main()

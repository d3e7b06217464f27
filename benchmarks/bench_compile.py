"""Cold first-call compile time of the tl.dot kernels, tritium against Triton 3.6 (issue 9):
each measurement is a new Python process whose TRITIUM_CACHE_DIR / TRITON_CACHE_DIR point at
an empty temporary folder (and CUDA_CACHE_DISABLE=1, so the driver's JIT cache does not
help either); torch is imported and the inputs made before the clock starts, then the first
`kernel[grid](...)` until torch.cuda.synchronize() returns: parse, lower, optimize, PTX,
cubin, load and launch. The output is checked. Median of --repeats processes; for tritium
also where the time went (tritium.cache_stats(): lower, optimize, ptx, cubin, load, disk).

Kernels: the tutorial matmul of kernels_matmul.py (fp16, 128x128x64 blocks, 8 warps, 3
stages; fp8 e4m3 likewise) and the flash-attention forward of kernels_attention.py (head dim
64 and 128, causal, 128x64 blocks, 4 warps, 3 stages).

On the H200 (~1.5 minutes; QUICK_BENCH=1: one process each, ~30 s):
    BENCH_COMPILE=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or  python3 benchmarks/bench_compile.py [--repeats 3] [--json results.json]
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

CASES = {
    "matmul fp16 1024^3": "matmul:float16",
    "matmul fp8e4m3 1024^3": "matmul:float8_e4m3fn",
    "attention fwd d=64 causal": "attention:64",
    "attention fwd d=128 causal": "attention:128",
}

CHILD = r"""
import importlib, json, sys, time
import torch
sys.path.insert(0, {here!r})
which, case = sys.argv[1], sys.argv[2]
kind, arg = case.split(":")
if kind == "matmul":
    import kernels_matmul
    jit = importlib.import_module(which)
    tl = importlib.import_module(which + ".language")
    kernel = jit.jit(kernels_matmul.matmul_kernel)
    dtype = getattr(torch, arg)
    n = 1024
    a = torch.randn((n, n), device="cuda").to(dtype)
    b = torch.randn((n, n), device="cuda").to(dtype).T.contiguous().T  # K-major, as fp8 wgmma wants
    c = torch.empty((n, n), device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    start = time.perf_counter()
    kernel[(64,)](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                  BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, INPUT_PRECISION=None, ACC_DTYPE=tl.float32,
                  OUT_DTYPE=tl.float16, EVEN_K=True, num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    want = a.float() @ b.float()
    err = float((c.float() - want).abs().max() / (want.abs().max() + 1))
    assert err < 1e-2, f"wrong result: {{err}}"
else:
    import kernels_attention
    kernel = kernels_attention.load(which).attn_fwd
    d = int(arg)
    q, k, v = (torch.randn((1, 4, 1024, d), device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
    o = torch.empty_like(q)
    torch.cuda.synchronize()
    start = time.perf_counter()
    kernel[(1024 // 128, 4)](q, k, v, o, d ** -0.5, q.stride(0), q.stride(1), q.stride(2), 4, 1024,
                             HEAD_DIM=d, BLOCK_M=128, BLOCK_N=64, STAGE=3, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=d ** -0.5)
    err = float((o.float() - want.float()).abs().max())
    assert err < 2e-2, f"wrong result: {{err}}"
stages = {{}}
if which == "tritium":  # where tritium's cold call went (its own per-stage counters)
    import tritium
    stats = tritium.cache_stats()
    stages = {{k[:-len("_seconds")]: v * 1e3 for k, v in stats.items() if k.endswith("_seconds")}}
print(json.dumps({{"first_s": first, "stages_ms": stages}}))
"""


def cold(which, case, repeats):
    """Milliseconds of the first launch in new processes with empty caches, or an error."""
    times, stages = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix=f"bench-compile-{which}-") as cache:
            env = dict(os.environ, TRITIUM_CACHE_DIR=cache, TRITON_CACHE_DIR=cache, CUDA_CACHE_DISABLE="1")
            env.pop("TRITIUM_INTERPRET", None)
            try:
                proc = subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE)), which, case],
                                      env=env, capture_output=True, text=True, timeout=240)
            except subprocess.TimeoutExpired:
                return {"error": "no answer in 240 s"}
            if proc.returncode != 0:
                lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
                return {"error": lines[-1][:200] if lines else f"exit {proc.returncode}"}
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            times.append(result["first_s"] * 1e3)
            stages.append(result["stages_ms"])
    # The stages of the median run (the first of the two middle ones for an even count).
    median_run = sorted(range(len(times)), key=times.__getitem__)[(len(times) - 1) // 2]
    return {"ms": statistics.median(times), "runs_ms": times, "stages_ms": stages[median_run]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"bench_compile: skipped, no GPU: {reason}")
        return 0
    results = []
    print("| kernel (first call, cold caches) | tritium ms | Triton ms | tritium / Triton |")
    print("|---|---|---|---|", flush=True)
    for label, case in CASES.items():
        r = {"kernel": label, **{w: cold(w, case, args.repeats) for w in ("tritium", "triton")}}
        results.append(r)
        t, s = r["tritium"].get("ms"), r["triton"].get("ms")
        fmt = lambda v: f"{v:.0f}" if v is not None else "failed"  # noqa: E731
        ratio = f"{t / s:.3f}" if t and s else "-"
        print(f"| {label} | {fmt(t)} | {fmt(s)} | {ratio} |", flush=True)
        for w in ("tritium", "triton"):
            if "error" in r[w]:
                print(f"|   {w}: {r[w]['error']} | | | |", flush=True)
        if r["tritium"].get("stages_ms"):
            parts = ", ".join(f"{k} {v:.1f}" for k, v in r["tritium"]["stages_ms"].items() if v >= 0.05)
            print(f"|   tritium's stages (ms): {parts} | | | |", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

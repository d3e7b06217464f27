"""Triton's fused-attention tutorial as a user runs it: the forward of
tests/python/triton_programs/tutorial_06_fused_attention.py (host TensorDescriptor arguments,
its own autotune configs and pre_hook), unmodified, once under tritium (`triton` resolving
to tritium) and once under Triton 3.6, each in its own process. fp16, batch 4, 32 heads,
head dim 64 and 128, causal and not. Each JIT autotunes on the first call of a shape; then
`reps` calls back to back between two CUDA events give the time per call (host work of the
call included, as a user sees it). Prints TFLOP/s and tritium / Triton; the output of each
is checked against torch's scaled_dot_product_attention first.

One command on the H200:
    BENCH_TUTORIAL_ATTENTION=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium, Triton and torch importable:
    python3 benchmarks/bench_tutorial_attention.py [--quick] [--json results.json]
"""

import argparse
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = HERE.parent / "tests" / "python" / "triton_programs"
Z, H = 4, 32
SEQS, QUICK_SEQS = [2048, 8192], [4096]
sys.path.insert(0, str(HERE))
from bench_attention import no_gpu_reason  # noqa: E402  (torch, a GPU, triton and tritium)


def tritium_stats(jit):
    """Compiles so far (tritium only; 0 for Triton)."""
    if jit != "tritium":
        return 0
    import tritium
    return tritium.cache_stats()["compiles"]


def profiled(call):
    """The 12 costliest functions of one call (cumulative), as text."""
    import cProfile
    import io
    import pstats
    profile = cProfile.Profile()
    profile.runcall(call)
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(12)
    return out.getvalue()


def error_text(e):
    """An exception and its causes, each shortened, as one line."""
    chain, seen = [], e
    while seen is not None and len(chain) < 4:
        text = " / ".join(line.strip() for line in str(seen).splitlines() if line.strip() not in ("", "^"))
        chain.append(f"{type(seen).__name__}: {text[:200]} ... {text[-300:]}")
        seen = seen.__cause__ or seen.__context__
    return " <- ".join(chain)


def worker(jit, seqs, reps, profile=False):
    """Runs in a fresh process: one JIT, every shape; prints one JSON line per row."""
    if jit == "tritium":
        import tritium
        tritium.use_as_triton()
    sys.path.insert(0, str(PROGRAMS))
    import torch
    import tutorial_06_fused_attention as t6

    g = torch.Generator(device="cuda").manual_seed(0)
    for d in (64, 128):
        for n in seqs:
            q, k, v = (torch.randn((Z, H, n, d), device="cuda", dtype=torch.float16, generator=g) * 0.5
                       for _ in range(3))
            scale = d ** -0.5
            for causal in (False, True):
                row = {"d": d, "seq": n, "causal": causal}
                try:
                    o, _ = t6.forward(q, k, v, causal, scale)  # autotunes
                    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                    row["max_error"] = (o.float() - want.float()).abs().max().item()
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    for _ in range(3):
                        t6.forward(q, k, v, causal, scale)
                    torch.cuda.synchronize()
                    stats = tritium_stats(jit)
                    start.record()
                    for _ in range(reps):
                        t6.forward(q, k, v, causal, scale)
                    end.record()
                    end.synchronize()
                    row["compiles_while_timed"] = tritium_stats(jit) - stats
                    if profile:
                        row["profile"] = profiled(lambda: (t6.forward(q, k, v, causal, scale),
                                                           torch.cuda.synchronize()))
                    ms = start.elapsed_time(end) / reps
                    flops = 4 * Z * H * n * n * d * (0.5 if causal else 1.0)
                    row["tflops"] = flops / ms * 1e-9
                    best = t6.attention_forward.best_config
                    row["config"] = f"{best.kwargs['BLOCK_M']}x{best.kwargs['BLOCK_N']} w{best.num_warps} s{best.num_stages}"
                except Exception as e:  # noqa: BLE001 - a row says what went wrong
                    row["error"] = error_text(e)
                print(json.dumps(row), flush=True)


def run_workers(script, arguments, key, show=None):
    """Runs `script --worker J arguments` for tritium, then Triton, each in a fresh process,
    and gathers the JSON rows they print: {key(row): {jit: row}}. Says when a worker failed or
    compiled during its timed calls."""
    rows = {}
    for jit in ("tritium", "triton"):
        done = subprocess.run([sys.executable, script, "--worker", jit] + arguments, capture_output=True, text=True,
                              timeout=900)
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                row = json.loads(line)
                rows.setdefault(key(row), {})[jit] = row
                if show is not None:
                    show(jit, row)
                if row.get("compiles_while_timed"):
                    print(f"!! {jit} compiled {row['compiles_while_timed']} times during the timed calls of {row}")
        if done.returncode != 0:
            print(f"{jit} worker exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--worker", choices=["tritium", "triton"])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="cProfile one call per row (printed)")
    args = parser.parse_args()
    seqs = QUICK_SEQS if args.quick else SEQS
    if args.worker:
        worker(args.worker, seqs, args.reps, args.profile)
        return
    reason = no_gpu_reason()
    if reason:
        print(f"skipped, no GPU: {reason}")
        return
    def show(jit, row):
        if row.get("profile"):
            print(f"== {jit} d={row['d']} seq={row['seq']} causal={row['causal']}: one call\n{row['profile']}")

    rows = run_workers(__file__, ["--reps", str(args.reps)] + (["--quick"] if args.quick else [])
                       + (["--profile"] if args.profile else []),
                       lambda row: (row["d"], row["seq"], row["causal"]), show)

    def cell(row):
        if row is None:
            return "not run"
        if "error" in row:
            return row["error"]
        return f"{row['tflops']:.1f} ({row['config']}; err {row['max_error']:.1e})"

    print("| head dim | causal | seq | tritium TFLOP/s | Triton TFLOP/s | tritium / Triton |")
    print("|---|---|---|---|---|---|")
    for (d, n, causal), both in sorted(rows.items()):
        a, b = both.get("tritium"), both.get("triton")
        ratio = f"{a['tflops'] / b['tflops']:.2f}" if a and b and "tflops" in a and "tflops" in b else "-"
        print(f"| {d} | {causal} | {n} | {cell(a)} | {cell(b)} | {ratio} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps([{"key": list(k), **v} for k, v in rows.items()], indent=1))


if __name__ == "__main__":
    main()

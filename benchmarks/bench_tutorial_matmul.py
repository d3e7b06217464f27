"""Triton's persistent-matmul tutorial as a user runs it: the three fp16 kernels of
tests/python/triton_programs/tutorial_09_persistent_matmul.py (pointers; host
TensorDescriptor arguments; descriptors made in the kernel), unmodified, with their own
autotune configs and pre_hook, once under tritium (`triton` resolving to tritium) and once
under Triton 3.6, each in its own process. Each autotunes on the first call of a size; then
`reps` calls back to back between two CUDA events give the time per call. Each output is
checked against torch.matmul first. Prints TFLOP/s, tritium / Triton, and cuBLAS (torch).

One command on the H200:
    BENCH_TUTORIAL_MATMUL=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium, Triton and torch importable:
    python3 benchmarks/bench_tutorial_matmul.py [--quick] [--json results.json]
"""

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = HERE.parent / "tests" / "python" / "triton_programs"
SIZES, QUICK_SIZES = [2048, 4096, 8192], [4096]
KERNELS = ["matmul", "matmul_tma", "matmul_descriptor"]  # the tutorial's host functions
sys.path.insert(0, str(HERE))
from bench_attention import no_gpu_reason  # noqa: E402
from bench_tutorial_attention import error_text, run_workers, tritium_stats  # noqa: E402


def worker(jit, sizes, reps):
    """Runs in a fresh process: one JIT, every kernel and size; prints one JSON line per row."""
    if jit == "tritium":
        import tritium
        tritium.use_as_triton()
    sys.path.insert(0, str(PROGRAMS))
    import torch
    import tutorial_09_persistent_matmul as t9

    g = torch.Generator(device="cuda").manual_seed(0)
    for n in sizes:
        a = torch.randn((n, n), device="cuda", dtype=torch.float16, generator=g)
        b = torch.randn((n, n), device="cuda", dtype=torch.float16, generator=g)
        bt = b.T.contiguous()
        want = torch.matmul(a, b)
        calls = {"matmul": lambda: t9.matmul(a, b), "matmul_tma": lambda: t9.matmul_tma(a, bt),
                 "matmul_descriptor": lambda: t9.matmul_descriptor(a, bt)}
        if jit == "tritium":  # cuBLAS once per size, in the first process
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.matmul(a, b)
            start.record()
            for _ in range(reps):
                torch.matmul(a, b)
            end.record()
            end.synchronize()
            print(json.dumps({"kernel": "cublas", "size": n, "tflops": 2 * n ** 3 / (start.elapsed_time(end) / reps) * 1e-9}))
        for name in KERNELS:
            row = {"kernel": name, "size": n}
            try:
                c = calls[name]()  # autotunes
                row["max_error"] = (c.float() - want.float()).abs().max().item()
                for _ in range(3):
                    calls[name]()
                torch.cuda.synchronize()
                stats = tritium_stats(jit)
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(reps):
                    calls[name]()
                end.record()
                end.synchronize()
                row["compiles_while_timed"] = tritium_stats(jit) - stats
                row["tflops"] = 2 * n ** 3 / (start.elapsed_time(end) / reps) * 1e-9
            except Exception as e:  # noqa: BLE001 - a row says what went wrong
                row["error"] = error_text(e)
            print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--worker", choices=["tritium", "triton"])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    if args.worker:
        worker(args.worker, sizes, args.reps)
        return
    reason = no_gpu_reason()
    if reason:
        print(f"skipped, no GPU: {reason}")
        return
    rows = run_workers(__file__, ["--reps", str(args.reps)] + (["--quick"] if args.quick else []),
                       lambda row: (row["kernel"], row["size"]))

    def cell(row):
        if row is None:
            return "not run"
        if "error" in row:
            return row["error"]
        return f"{row['tflops']:.1f} (err {row['max_error']:.1e})"

    print("| kernel | size | tritium TFLOP/s | Triton TFLOP/s | tritium / Triton | cuBLAS |")
    print("|---|---|---|---|---|---|")
    for (name, n), both in sorted(rows.items()):
        if name == "cublas":
            continue
        a, b = both.get("tritium"), both.get("triton")
        ratio = f"{a['tflops'] / b['tflops']:.2f}" if a and b and "tflops" in a and "tflops" in b else "-"
        cublas = rows.get(("cublas", n), {}).get("tritium", {}).get("tflops")
        print(f"| {name} | {n} | {cell(a)} | {cell(b)} | {ratio} | {cublas:.1f} |" if cublas else
              f"| {name} | {n} | {cell(a)} | {cell(b)} | {ratio} | - |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps([{"key": list(k), **v} for k, v in rows.items()], indent=1))


if __name__ == "__main__":
    main()

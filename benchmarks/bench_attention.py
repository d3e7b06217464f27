"""Flash-attention forward, tritium against Triton 3.6 side by side in one run on the GPU
(issue 9): the tutorial-style kernel of kernels_attention.py (one source) through both JITs,
torch's scaled_dot_product_attention as a third column, TFLOP/s from the median time of
triton.testing.do_bench (4 * Z * H * N^2 * D flops, half of it when causal), and the ratio
tritium / Triton (>= 1.00: tritium as fast or faster). fp16, batch 4, 32 heads, head dim 64
and 128, sequence 1024 ... 16384, causal and not; each JIT takes its best block
configuration. A correctness check of both JITs against torch on small shapes runs first,
and every timed output is checked against SDPA's before it is timed; a configuration that
fails to compile, launch or check is a row saying so, not the end of the run.

One command on the H200 (tests/gpu/run_on_device.sh builds what it needs; ~3 minutes, more
if a JIT is slow, but rows after --max-seconds (400) are reported as not run; the quick pass
~1.5):
    BENCH_ATTENTION=1 [QUICK_BENCH=1] SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium, Triton and torch importable:
    python3 benchmarks/bench_attention.py [--quick] [--skip-check] [--json results.json]
    python3 benchmarks/bench_attention.py --experiments "default;nofence;TRITIUM_LOAD_PTX=0" [--rounds 2] [--quick]
(the second: each setting in its own process, without the check, then tritium / Triton per
row and setting; benchmarks/experiments.py)
"""

import argparse
import json
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

Z, H = 4, 32
SEQS = [1024, 2048, 4096, 8192, 16384]
QUICK_SEQS = [1024, 4096]
# (BLOCK_M, BLOCK_N, num_warps, num_stages): a spread of the tutorial's autotuning space.
BLOCKS = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3)]
QUICK_BLOCKS = [(128, 64, 4, 3)]


def no_gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    for name in ("triton", "tritium"):
        try:
            __import__(name)
        except ImportError as e:
            return f"{name} is not importable ({e})"
    return None


def kernels():
    import kernels_attention
    return {name: kernels_attention.load(name).attn_fwd for name in ("tritium", "triton")}


def launch(kernel, q, k, v, o, causal, block, sm_scale):
    bm, bn, warps, stages = block
    z, h, n, d = q.shape
    grid = (n // bm, z * h)
    kernel[grid](q, k, v, o, sm_scale, q.stride(0), q.stride(1), q.stride(2), h, n,
                 HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGE=3 if causal else 1, num_warps=warps, num_stages=stages)


def short(e):
    lines = [line for line in str(e).splitlines() if line.strip() and line.strip() != "^"]
    return f"{type(e).__name__}: {lines[-1][:160] if lines else ''}"


def make_inputs(z, h, n, d, seed=0):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    return [torch.randn((z, h, n, d), device="cuda", dtype=torch.float16, generator=g) * 0.5 for _ in range(3)]


def reference(q, k, v, causal, sm_scale):
    import torch
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale)


def check_sweep(jits):
    """Small shapes against softmax(q k^T) v computed in fp32 by torch; returns failures."""
    import torch
    failures, count = [], 0
    for d in (64, 128):
        for causal in (False, True):
            for n, block in ((256, (64, 64, 4, 3)), (384, (128, 64, 4, 3)), (512, (128, 128, 8, 3))):
                q, k, v = make_inputs(1, 3, n, d, seed=count)
                scale = d ** -0.5
                want = reference(q.float(), k.float(), v.float(), causal, scale)
                for name, kernel in jits.items():
                    o = torch.empty_like(q)
                    try:
                        launch(kernel, q, k, v, o, causal, block, scale)
                        torch.cuda.synchronize()
                    except Exception as e:  # noqa: BLE001 - reported per case
                        failures.append(f"{name} d={d} causal={causal} n={n} {block}: {short(e)}")
                        continue
                    err = float((o.float() - want).abs().max())
                    if not err <= 1e-2:
                        failures.append(f"{name} d={d} causal={causal} n={n} {block}: max error {err:.3g}")
                count += 1
    print(f"check: {count} cases x {len(jits)} JITs, {len(failures)} failures", flush=True)
    for f in failures:
        print("  FAIL", f, flush=True)
    return failures


def bench(jits, quick, rep, max_seconds):
    import torch
    import triton.testing
    rows = []
    deadline = time.time() + max_seconds
    blocks = QUICK_BLOCKS if quick else BLOCKS
    print("| head dim | causal | seq | tritium TFLOP/s (block) | Triton TFLOP/s (block) | tritium / Triton | "
          "torch SDPA TFLOP/s |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for d in (64, 128):
        for causal in (False, True):
            for n in (QUICK_SEQS if quick else SEQS):
                row = {"head_dim": d, "causal": causal, "seq": n, "errors": {}}
                if time.time() > deadline:  # a row, so a slow run still ends inside its timeout
                    row["errors"]["all"] = f"not run: past --max-seconds {max_seconds}"
                    rows.append(row)
                    print(f"| {d} | {causal} | {n} | not run: past --max-seconds {max_seconds} | | | |", flush=True)
                    continue
                try:
                    q, k, v = make_inputs(Z, H, n, d)
                except Exception as e:  # noqa: BLE001 (out of memory: a row, not the end)
                    row["errors"]["inputs"] = short(e)
                    rows.append(row)
                    print(f"| {d} | {causal} | {n} | inputs failed: {short(e)} | | | |", flush=True)
                    continue
                scale = d ** -0.5
                flops = 4.0 * Z * H * n * n * d * (0.5 if causal else 1.0)
                ref = reference(q, k, v, causal, scale)
                for name, kernel in jits.items():
                    best = None
                    for block in blocks:
                        o = torch.empty_like(q)
                        try:
                            launch(kernel, q, k, v, o, causal, block, scale)
                            torch.cuda.synchronize()
                        except Exception as e:  # noqa: BLE001
                            row["errors"][f"{name} {block}"] = short(e)
                            continue
                        err = float((o.float() - ref.float()).abs().max())
                        if not err <= 2e-2:
                            row["errors"][f"{name} {block}"] = f"WRONG (max error {err:.3g} against SDPA)"
                            continue
                        ms = triton.testing.do_bench(lambda: launch(kernel, q, k, v, o, causal, block, scale),
                                                     warmup=10, rep=rep)
                        if best is None or ms < best[0]:
                            best = (ms, block)
                    row[name] = flops / best[0] * 1e-9 if best else None
                    row[name + "_block"] = list(best[1]) if best else None
                try:
                    ms = triton.testing.do_bench(lambda: reference(q, k, v, causal, scale), warmup=10, rep=rep)
                    row["torch"] = flops / ms * 1e-9
                except Exception as e:  # noqa: BLE001
                    row["errors"]["torch"] = short(e)
                if row.get("tritium") and row.get("triton"):
                    row["ratio"] = row["tritium"] / row["triton"]
                rows.append(row)
                fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else "-"  # noqa: E731
                blk = lambda b: f" {tuple(b)}" if b else ""  # noqa: E731
                ratio = f"{row['ratio']:.2f}" if "ratio" in row else "-"
                print(f"| {d} | {causal} | {n} | {fmt(row.get('tritium'))}{blk(row.get('tritium_block'))} | "
                      f"{fmt(row.get('triton'))}{blk(row.get('triton_block'))} | {ratio} | "
                      f"{fmt(row.get('torch'))} |", flush=True)
                for what, err in row["errors"].items():
                    print(f"|   {what} failed: {err} | | | | | | |", flush=True)
                del q, k, v, ref
                torch.cuda.empty_cache()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="sequences 1024 and 4096, one block configuration")
    parser.add_argument("--skip-check", action="store_true", help="no small-shape sweep (timed runs still check)")
    parser.add_argument("--rep", type=int, default=50, help="do_bench milliseconds per timing")
    parser.add_argument("--max-seconds", type=float, default=400, help="rows after this are reported, not run")
    parser.add_argument("--json")
    parser.add_argument("--experiments", help="';'-separated settings (benchmarks/experiments.py: 'default', "
                        "a TRITIUM_REDUCE_EXPERIMENT value, or NAME=value[+NAME=value]), each in its own "
                        "process, then one table of tritium / Triton per row and setting")
    parser.add_argument("--rounds", type=int, default=1, help="with --experiments: rounds over the settings")
    args = parser.parse_args()
    reason = no_gpu_reason()
    if reason:
        print(f"bench_attention: skipped, no GPU: {reason}")
        return 0
    if args.experiments:
        import experiments
        child = ["--skip-check", "--rep", str(args.rep), "--max-seconds", str(args.max_seconds)]
        child += ["--quick"] if args.quick else []

        def ratios(result):
            for row in result["rows"]:
                if "ratio" in row:
                    yield f"d{row['head_dim']} {'causal' if row['causal'] else 'non-causal'} {row['seq']}", row["ratio"]
        experiments.compare(__file__, child, args.experiments, args.rounds, ratios, args.json)
        return 0
    import torch
    import triton
    import tritium
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}, tritium {tritium.__version__}", flush=True)
    jits = kernels()
    t = time.time()
    failures = [] if args.skip_check else check_sweep(jits)
    print(f"check took {time.time() - t:.1f} s", flush=True)
    rows = bench(jits, args.quick, args.rep, args.max_seconds - (time.time() - t))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"failures": failures, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

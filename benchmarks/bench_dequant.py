"""A weight-only int8 matmul (kernels_dequant.py: fp16 activations, int8 weights scaled per
column, fp32 accumulation), tritium against Triton 3.6 side by side in one run on the GPU:
the same function through both JITs, the same block configurations and stages, TFLOP/s from
the median time of triton.testing.do_bench, the best configuration of each JIT, and the ratio
tritium / Triton (>= 1.00: as fast or faster). Every output is checked against torch (fp64
reference) before it is timed. The loads of the int8 weights reach the dot through a cast and
a multiply: pipelined by both (tritium: AsyncOperand::read_back, DESIGN Pipelining).

On the H200:
    BENCH_DEQUANT=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium and Triton importable:
    python3 benchmarks/bench_dequant.py [--quick] [--json results.json]
"""

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# (BM, BN, BK, num_warps, num_stages)
CONFIGS = [(128, 128, 64, 4, 3), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="M = N = K = 4096 only")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"bench_dequant: skipped, no GPU: {reason}")
        return
    import torch
    import triton
    import triton.testing
    import tritium
    import kernels_dequant
    kernels = {"tritium": tritium.jit(kernels_dequant.w8a16_matmul), "triton": triton.jit(kernels_dequant.w8a16_matmul)}
    sizes = [4096] if args.quick else [(16, 4096, 4096), 2048, 4096, 8192]
    rows = []
    print("| M x N x K | tritium TFLOP/s (config) | Triton TFLOP/s (config) | tritium / Triton |")
    print("|---|---|---|---|")
    for size in sizes:
        M, N, K = size if isinstance(size, tuple) else (size, size, size)
        gen = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn((M, K), device="cuda", generator=gen).to(torch.float16)
        b = torch.randint(-127, 128, (K, N), device="cuda", generator=gen, dtype=torch.int8)
        s = (torch.rand((N,), device="cuda", generator=gen) * 0.01 + 0.001).to(torch.float16)
        ref = (a.double() @ (b.double() * s.double()[None, :])).float()
        row = {"M": M, "N": N, "K": K}
        row["configs"] = {}  # "tritium BM,BN,BK,warps,stages" -> TFLOP/s: every config timed
        for name, kernel in kernels.items():
            best = None
            for BM, BN, BK, warps, stages in CONFIGS:
                c = torch.empty((M, N), device="cuda", dtype=torch.float32)
                grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
                def run(c=c, grid=grid, BM=BM, BN=BN, BK=BK, warps=warps, stages=stages, kernel=kernel):
                    kernel[grid](a, b, s, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
                                 num_warps=warps, num_stages=stages)
                try:
                    run()
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    print(f"  {name} {(BM, BN, BK, warps, stages)}: {type(e).__name__}: {str(e)[:160]}")
                    continue
                if not torch.allclose(c, ref, rtol=1e-2, atol=1e-2 * float(ref.abs().max())):
                    print(f"  {name} {(BM, BN, BK, warps, stages)}: WRONG (max err {float((c - ref).abs().max()):.3g})")
                    continue
                ms = triton.testing.do_bench(run, warmup=10, rep=50)
                row["configs"][f"{name} {BM},{BN},{BK},{warps},{stages}"] = 2.0 * M * N * K / ms * 1e-9
                if best is None or ms < best[0]:
                    best = (ms, (BM, BN, BK, warps, stages))
            row[name] = 2.0 * M * N * K / best[0] * 1e-9 if best else None
            row[name + "_config"] = best[1] if best else None
        if row.get("tritium") and row.get("triton"):
            row["ratio"] = row["tritium"] / row["triton"]
        rows.append(row)
        fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else "-"  # noqa: E731
        print(f"| {M} x {N} x {K} | {fmt(row.get('tritium'))} {row.get('tritium_config')} | "
              f"{fmt(row.get('triton'))} {row.get('triton_config')} | {row.get('ratio', 0):.2f} |", flush=True)
        print("  per config: " + ", ".join(f"{k} {v:.1f}" for k, v in row["configs"].items()), flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

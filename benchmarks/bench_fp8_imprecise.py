"""fp8 matmul with tl.dot's max_num_imprecise_acc, tritium against Triton 3.6 side by side in
one run on the GPU: tests/python/dot_kernels.py's tutorial matmul (the accumulator in the dot,
`max_num_imprecise_acc=IMPRECISE`), e4m3 inputs, B K-major, fp32 out; TFLOP/s from
triton.testing.do_bench and the ratio tritium / Triton, per block configuration and value
(not given: wgmma accumulates all of K; 0 < v <= BLOCK_K: partial accumulators added in f32
every v elements of K; 0: exact f32, the dot widened to f16). Each output is checked against
fp64 sums of the same fp8 values first (relative error printed too).

    python3 benchmarks/bench_fp8_imprecise.py [--quick] [--size 4096] [--values None,64,32,0] [--json out.json]
On the GPU machine: BENCH_FP8_IMPRECISE=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
Without a GPU it says why and exits 0.
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "python"))

CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 3)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=4096, help="M = N = K")
    parser.add_argument("--values", default="None,64,32,0", help="max_num_imprecise_acc values, comma-separated")
    parser.add_argument("--quick", action="store_true", help="128x128x64 only, values None and 64")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.quick:
        args.values = "None,64"
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"bench_fp8_imprecise: skipped, no GPU: {reason}")
        return 0
    import torch
    import triton
    import tritium
    import dot_kernels
    mods = {"tritium": dot_kernels.load("tritium"), "triton": dot_kernels.load("triton")}
    values = [None if v.strip() == "None" else int(v) for v in args.values.split(",")]
    M = N = K = args.size
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda", generator=g).to(torch.float8_e4m3fn).T  # K-major
    ref = torch.matmul(a.double(), b.double())
    norm = torch.linalg.vector_norm(ref.flatten())
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}, "
          f"tritium {tritium.__version__}; fp8 e4m3 {M}^3, B K-major")
    print("| block | max_num_imprecise_acc | tritium TFLOP/s | Triton TFLOP/s | tritium / Triton | rel. error tritium / Triton |")
    print("|---|---|---|---|---|---|", flush=True)
    rows = []
    for BM, BN, BK, warps, stages in CONFIGS[1:] if args.quick else CONFIGS:
        for value in values:
            if value is not None and value > BK:
                continue
            row = {"block": [BM, BN, BK, warps, stages], "imprecise": value}
            for which, mod in mods.items():
                c = torch.empty(M, N, device="cuda")
                grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)

                def run():
                    mod.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                            c.stride(0), c.stride(1), BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN,
                                            BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, ACC_IN_DOT=True, PREC=None,
                                            OUT_FP16=False, IMPRECISE=value, num_warps=warps, num_stages=stages)
                run()
                torch.cuda.synchronize()
                row[which + "_error"] = float(torch.linalg.vector_norm((c.double() - ref).flatten()) / norm)
                ms = triton.testing.do_bench(run, rep=100)
                row[which] = 2 * M * N * K / ms / 1e9
            rows.append(row)
            print(f"| {BM}x{BN}x{BK} w{warps} s{stages} | {value} | {row['tritium']:.0f} | {row['triton']:.0f} | "
                  f"{row['tritium'] / row['triton']:.2f} | {row['tritium_error']:.2g} / {row['triton_error']:.2g} |",
                  flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

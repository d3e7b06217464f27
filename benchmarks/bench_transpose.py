"""Transposes and column-major reads (gpu/coalesce.h), tritium against Triton 3.6 side by
side in one run on the GPU: the same kernels (kernels_transpose.py) and inputs through both
JITs, torch's copy of the transposed view as a third column, GB/s (bytes read + written /
median time of triton.testing.do_bench) and the ratio tritium / Triton. Every output is
checked against torch before it is timed. Rows: 4096 x 4096 fp32 and fp16, tiles 64 x 64
and 32 x 128 (4 warps), transpose and column-major read.

One command on the H200 (tests/gpu/run_on_device.sh says how to build what it carries):
    BENCH_TRANSPOSE=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium and Triton importable:  python3 benchmarks/bench_transpose.py [--json out.json]
"""

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

NAMES = ["transpose", "column_read"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", help="write every number here")
    parser.add_argument("--rep", type=int, default=100, help="do_bench milliseconds per timing")
    args = parser.parse_args()
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no CUDA device")
        import triton
        import triton.testing
    except ImportError as e:
        print(f"skipped, no GPU: {e}")
        return
    import tritium
    import kernels_transpose
    k = {name: {"tritium": tritium.jit(getattr(kernels_transpose, name)),
                "triton": triton.jit(getattr(kernels_transpose, name))} for name in NAMES}
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}, tritium {tritium.__version__}", flush=True)
    print("| kernel | tritium GB/s | Triton GB/s | tritium/Triton | torch GB/s |")
    print("|---|---|---|---|---|", flush=True)
    rows = []
    M = N = 4096
    for dtype in (torch.float32, torch.float16):
        x = torch.randn(M, N, device="cuda").to(dtype)
        for name in NAMES:
            for bm, bn in ((64, 64), (32, 128)):
                if name == "transpose":
                    src, ref = x, x.t().contiguous()
                    out = torch.empty(N, M, device="cuda", dtype=dtype)
                    strides = (x.stride(0), out.stride(0))
                else:
                    src = x.t().contiguous().t()  # column-major M x N
                    ref = x
                    out = torch.empty(M, N, device="cuda", dtype=dtype)
                    strides = (src.stride(1), out.stride(0))
                grid = (M // bm, N // bn)
                moved = 2 * x.numel() * x.element_size()
                gbps, errors = {}, {}
                for which, kernel in k[name].items():
                    def run(kernel=kernel):
                        kernel[grid](src, out, M, N, *strides, BM=bm, BN=bn, num_warps=4)
                    try:
                        out.fill_(0)
                        run()
                        torch.cuda.synchronize()
                        assert torch.equal(out, ref), "wrong result"
                    except Exception as e:  # noqa: BLE001 (reported in the table, the run goes on)
                        errors[which] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
                        continue
                    ms = min(triton.testing.do_bench(run, warmup=25, rep=args.rep, return_mode="median")
                             for _ in range(2))
                    gbps[which] = moved / (ms * 1e-3) / 1e9
                scratch = torch.empty_like(ref)
                ms = triton.testing.do_bench(lambda: scratch.copy_(src.t() if name == "transpose" else src),
                                             warmup=25, rep=args.rep, return_mode="median")
                gbps["torch"] = moved / (ms * 1e-3) / 1e9
                label = f"{name} {str(dtype)[6:]} {M}x{N} tile {bm}x{bn}"
                ratio = f"{gbps['tritium'] / gbps['triton']:.2f}" if "tritium" in gbps and "triton" in gbps else "-"
                fmt = lambda v: f"{v:.0f}" if v is not None else "-"  # noqa: E731
                print(f"| {label} | {fmt(gbps.get('tritium'))} | {fmt(gbps.get('triton'))} | {ratio} | "
                      f"{fmt(gbps.get('torch'))} |", flush=True)
                for which, err in errors.items():
                    print(f"|   {which} failed: {err} | | | | |", flush=True)
                rows.append({"label": label, "gbps": gbps, "errors": errors})
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows}, indent=2))


if __name__ == "__main__":
    main()

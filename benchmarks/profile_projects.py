"""One row of bench_projects.py (a real project's entry point, unmodified) called a few times
under one JIT, for Nsight Compute on the GPU machine: `ncu --kernel-name regex:K --launch-skip 3
--launch-count 1` then profiles one warm launch of the kernel K of that row, under tritium and
under Triton side by side (tests/gpu/run_on_device.sh's PROFILE_PROJECTS=1 runs both and keeps
the CSVs). Without a GPU it says why and exits 0.

  python3 benchmarks/profile_projects.py --jit tritium --only delta_rule [--src build-gpu/realk/src]
"""
import argparse
import sys

import bench_attention
import bench_projects


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jit", choices=("tritium", "triton"), required=True)
    parser.add_argument("--only", required=True, help="the row (a part of its name, as bench_projects.py's --only)")
    parser.add_argument("--src", default=str(bench_projects.ROOT / "build-gpu" / "realk" / "src"))
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    # `triton` is answered by tritium only when nothing imported the real Triton before:
    # prepare() comes first (no_gpu_reason imports triton), and the answer is checked.
    bench_projects.prepare(args.src, args.jit)
    reason = bench_attention.no_gpu_reason()
    if reason is not None:
        print(f"skipped, no GPU: {reason}")
        return 0
    import torch
    import triton
    if bool(getattr(triton, "__tritium__", False)) != (args.jit == "tritium"):
        print(f"`import triton` gives {triton.__file__}, not the JIT asked for ({args.jit})")
        return 2
    rows = [(name, setup) for name, setup in bench_projects.ENTRIES if args.only in name]
    if len(rows) != 1:
        print(f"--only {args.only!r} names {len(rows)} rows; want one of: "
              + ", ".join(name for name, _ in bench_projects.ENTRIES))
        return 2
    call = rows[0][1](torch)
    for _ in range(args.calls):
        call()
    torch.cuda.synchronize()
    print(f"{rows[0][0]}: {args.calls} calls under {args.jit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

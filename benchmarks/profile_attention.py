"""One attention kernel launched a few times, for Nsight Compute (ncu) on the GPU machine: the
same source through tritium or Triton (--jit), one shape and block, so that `ncu
--kernel-name regex:attn_fwd --launch-skip 3 --launch-count 1` profiles one warm launch of
each side by side (tests/gpu/run_on_device.sh's PROFILE_ATTENTION=1 runs both and keeps the
CSVs). Without a GPU it says why and exits 0.

  python3 benchmarks/profile_attention.py --jit tritium --head-dim 64 [--causal] [--seq 4096]
"""
import argparse
import sys

import bench_attention as bench


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jit", choices=("tritium", "triton"), required=True)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--block", default="128,64,4,3", help="BLOCK_M,BLOCK_N,num_warps,num_stages")
    parser.add_argument("--launches", type=int, default=5)
    args = parser.parse_args()
    reason = bench.no_gpu_reason()
    if reason is not None:
        print(f"skipped, no GPU: {reason}")
        return 0
    import torch
    block = tuple(int(x) for x in args.block.split(","))
    kernel = bench.kernels()[args.jit]
    q, k, v = bench.make_inputs(bench.Z, bench.H, args.seq, args.head_dim)
    o = torch.empty_like(q)
    sm_scale = args.head_dim ** -0.5
    for _ in range(args.launches):
        bench.launch(kernel, q, k, v, o, args.causal, block, sm_scale)
    torch.cuda.synchronize()
    error = (o.float() - bench.reference(q, k, v, args.causal, sm_scale).float()).abs().max().item()
    print(f"{args.jit}: d={args.head_dim} causal={args.causal} seq={args.seq} block={block}: max error {error:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

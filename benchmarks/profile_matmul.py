"""One tutorial matmul (kernels_matmul.py, as bench_matmul.py launches it) launched a few times,
for Nsight Compute on the GPU machine: the same source through tritium or Triton (--jit), one
size, dtype and block, so that `ncu --kernel-name regex:matmul --launch-skip 3 --launch-count 1`
profiles one warm launch of each side by side (tests/gpu/run_on_device.sh's PROFILE_MATMUL=1
runs both and keeps the CSVs). Without a GPU it says why and exits 0.

  python3 benchmarks/profile_matmul.py --jit tritium --dtype float16 --size 4096 [--block 128,256,64,8]

--dtype fp8kb: fp8 e4m3 with a K-major B and an fp16 result (bench_matmul.py's per-block row).
"""
import argparse
import sys

import bench_attention
import bench_matmul as bench


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jit", choices=("tritium", "triton"), required=True)
    parser.add_argument("--dtype", default="float16", choices=("float16", "bfloat16", "fp8kb"))
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--block", default="128,256,64,8", help="BLOCK_M,BLOCK_N,BLOCK_K,num_warps")
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--launches", type=int, default=5)
    args = parser.parse_args()
    reason = bench_attention.no_gpu_reason()
    if reason is not None:
        print(f"skipped, no GPU: {reason}")
        return 0
    import torch
    block = tuple(int(x) for x in args.block.split(","))
    kernel = bench.jits()[args.jit]
    n = args.size
    fp8 = args.dtype == "fp8kb"
    a, b = bench.inputs(torch.float8_e4m3fn if fp8 else getattr(torch, args.dtype), n, n, n)
    if fp8:
        b = b.T.contiguous().T
    c = torch.empty((n, n), device="cuda", dtype=torch.float16)
    for _ in range(args.launches):
        bench.launch(kernel, a, b, c, block, even_k=fp8, num_stages=args.stages)
    torch.cuda.synchronize()
    error = (c.double() - a.double() @ b.double()).abs().max().item() / (n ** 0.5 if fp8 else 1)
    print(f"{args.jit}: {args.dtype} {n}^3 block={block} stages={args.stages}: max error {error:.3g}"
          + (" (over sqrt(K))" if fp8 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

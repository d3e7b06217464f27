"""Matmul with tl.dot, tritium against Triton 3.6 and torch (cuBLAS) side by side in one run
on the GPU (issue 9): the tutorial kernel of kernels_matmul.py through both JITs with the
same block configuration, TFLOP/s from the median time of triton.testing.do_bench, and the
ratio tritium / Triton (>= 1.00: tritium as fast or faster). Every output is checked
against torch before it is timed; --check runs only the correctness sweep (every input
dtype and precision, several block shapes and warp counts, ragged sizes).

One command on the H200 (tests/gpu/run_on_device.sh builds what it needs):
    BENCH_MATMUL=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium and Triton importable:
    python3 benchmarks/bench_matmul.py [--quick] [--check | --skip-check] [--json results.json]
    python3 benchmarks/bench_matmul.py --blocks "64,64,32,8;64,128,64,8" [--sizes 2048,4096] [--stages 3]
        [--dtypes fp16,bf16,tf32,int8,int8kb,fp8,fp8kb] [--accumulate]
      (--accumulate: C += A @ B, the K loop's accumulator loaded from C)
      (each configuration timed alone, both JITs; MATMUL_ARGS='--blocks ...' on the device)
    python3 benchmarks/bench_matmul.py --experiments "default;TRITIUM_PTXAS=@triton-ptxas" [--rounds 2] ...
      (each setting in its own process, one table of tritium / Triton ratios; experiments.py)
Columns: TFLOP/s of tritium, of Triton, of torch; each with the best of the block
configurations and num_stages=3 (Triton's default). Rows: fp16 and bf16 at M=N=K = 512 ...
8192 (--quick: 1024, 4096), then fp8 e4m3 (torch.float8_e4m3fn inputs, B K-major as in
Triton's fp8 tutorial, fp32 accumulation, fp16 out) at 4096 and 8192 (--quick: 4096), whose
torch column is cuBLAS's fp8 GEMM (torch._scaled_mm with unit scales).
"""

import argparse
import json
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def jits():
    import triton
    import tritium
    import kernels_matmul
    import triton.language
    import tritium.language
    fn = kernels_matmul.matmul_kernel
    out = {"tritium": tritium.jit(fn), "triton": triton.jit(fn)}
    out["tritium"].__tl__ = tritium.language
    out["triton"].__tl__ = triton.language
    return out


def launch(kernel, a, b, c, block, precision=None, acc="float32", out="float16", even_k=False, num_stages=3,
           hinted=False, accumulate=False):
    """acc and out are dtype names, taken from the kernel's own language module."""
    import triton
    tl = kernel.__tl__
    bm, bn, bk, warps = block
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, INPUT_PRECISION=precision,
                 ACC_DTYPE=getattr(tl, acc), OUT_DTYPE=getattr(tl, out), EVEN_K=even_k, HINTED=hinted,
                 ACCUMULATE=accumulate,
                 num_warps=warps, num_stages=num_stages)


def inputs(dtype, M, N, K, seed=0):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype == torch.int8:
        a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8, generator=g)
        b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8, generator=g)
        return a, b
    a = torch.randn((M, K), device="cuda", generator=g)
    b = torch.randn((K, N), device="cuda", generator=g)
    return a.to(dtype), b.to(dtype)


def check_sweep(kernels):
    """Every dtype x precision x block shape x warps, against torch in fp64; returns failures."""
    import torch
    cases = [
        (torch.float16, None, "float32", "float16", 2e-2),
        (torch.bfloat16, None, "float32", "float32", 2e-2),
        (torch.float32, "tf32", "float32", "float32", 2e-2),
        (torch.float32, "tf32x3", "float32", "float32", 1e-4),
        (torch.float32, "ieee", "float32", "float32", 1e-4),
        (torch.int8, None, "int32", "int32", 0),
        (torch.float8_e4m3fn, None, "float32", "float32", 1e-3),
        (torch.float8_e5m2, None, "float32", "float32", 1e-3),
    ]
    blocks = [(16, 16, 16, 1), (32, 64, 32, 2), (64, 64, 64, 4), (128, 128, 32, 4), (64, 128, 32, 8),
              (128, 256, 64, 8), (16, 32, 32, 4)]
    failures, count = [], 0
    for dtype, precision, acc, out, tol in cases:
        for block in blocks:
            if dtype in (torch.float32,) and block[0] * block[2] > 128 * 32 and block[1] > 128:
                continue  # fp32 operands of 128 x 256 x 64 need more shared memory than a CTA has
            if dtype.itemsize == 1 and block[2] < 32:
                continue  # an 8-bit tl.dot needs K >= 32: both JITs refuse the 16x16x16 block
            even_k = dtype in (torch.float8_e4m3fn, torch.float8_e5m2)  # Triton cannot cast other=0 to fp8
            M, N, K = 187, 203, 3 * block[2] + (0 if even_k else 5)
            a, b = inputs(dtype, M, N, K, seed=count)
            want = (a.double() @ b.double()) if dtype != torch.int8 else (a.cpu().long() @ b.cpu().long()).cuda()
            for name, kernel in kernels.items():
                c = torch.empty((M, N), device="cuda", dtype=getattr(torch, out))
                try:
                    launch(kernel, a, b, c, block, precision, acc, out, even_k)
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001 - reported per case
                    lines = [line for line in str(e).splitlines() if line.strip() and line.strip() != "^"]
                    failures.append(f"{name} {dtype} {precision} {block}: {type(e).__name__}: {lines[-1][:200] if lines else ''}")
                    continue
                scale = float(want.abs().max()) + 1.0
                err = float((c.double() - want.double()).abs().max()) / scale
                if err > max(tol, 1e-3 if out == "float16" else tol):
                    failures.append(f"{name} {dtype} {precision} {block}: max relative error {err:.3g}")
            count += 1
    print(f"check: {count} cases x {len(kernels)} JITs, {len(failures)} failures")
    for f in failures:
        print("  FAIL", f)
    return failures


def close_enough(c, ref, fp8):
    """fp16/bf16: elementwise. fp8: Triton's sm_90 default (max_num_imprecise_acc = 2**30)
    accumulates inside wgmma at less than fp32 precision, so its elements may miss by a few
    units at K = 4096; the check is then on the relative norm of the error."""
    import torch
    if not fp8:
        return torch.allclose(c.float(), ref.float(), atol=0.5, rtol=2e-2)
    error = torch.linalg.vector_norm((c.float() - ref.float()).flatten())
    return bool(error <= 1e-2 * torch.linalg.vector_norm(ref.float().flatten()))


def bench(kernels, quick, hinted=False):
    import torch
    import triton.testing
    sizes = [1024, 4096] if quick else [512, 1024, 2048, 4096, 8192]
    blocks = [(128, 128, 32, 4), (128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 32, 4)]
    rows = []
    fp8_sizes = [4096] if quick else [4096, 8192]
    plan = [(dtype, size) for dtype in (torch.float16, torch.bfloat16) for size in sizes]
    plan += [(torch.float8_e4m3fn, size) for size in fp8_sizes]
    for dtype, size in plan:
        fp8 = dtype == torch.float8_e4m3fn
        a, b = inputs(dtype, size, size, size)
        if fp8:
            b = b.T.contiguous().T  # K-major B, the layout of Triton's fp8 tutorial (wgmma wants it)
        flops = 2.0 * size ** 3
        row = {"dtype": str(dtype).replace("torch.", ""), "size": size}
        if fp8:
            # torch._scaled_mm is cuBLAS's fp8 GEMM (unit scales, fp16 out); reference in fp32.
            ref = (a.float() @ b.float()).half()
            one = torch.ones((), device="cuda")
            def torch_run(a=a, b=b, one=one):
                return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
        else:
            ref = torch.matmul(a, b)
            def torch_run(a=a, b=b):
                return torch.matmul(a, b)
        variants = [(name, kernel, 3) for name, kernel in kernels.items()]
        for name, kernel, stages in variants:
            best = None
            for block in blocks:
                c = torch.empty((size, size), device="cuda", dtype=torch.float16)
                try:
                    launch(kernel, a, b, c, block, num_stages=stages, even_k=fp8, hinted=hinted)
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    print(f"  {name} {block}: {type(e).__name__}: {str(e)[:160]}")
                    continue
                if not close_enough(c, ref, fp8):
                    print(f"  {name} {block}: WRONG (max err {float((c.float() - ref.float()).abs().max()):.3g})")
                    continue
                ms = triton.testing.do_bench(lambda: launch(kernel, a, b, c, block, num_stages=stages, even_k=fp8,
                                                            hinted=hinted),
                                             warmup=10, rep=50)
                if best is None or ms < best[0]:
                    best = (ms, block)
            row[name] = flops / best[0] * 1e-9 if best else None
            row[name + "_block"] = best[1] if best else None
        try:
            ms = triton.testing.do_bench(torch_run, warmup=10, rep=50)
            row["torch"] = flops / ms * 1e-9
        except Exception as e:  # noqa: BLE001 (a torch without _scaled_mm for this layout)
            print(f"  torch: {type(e).__name__}: {str(e)[:160]}")
            row["torch"] = None
        if row.get("tritium") and row.get("triton"):
            row["ratio"] = row["tritium"] / row["triton"]
        rows.append(row)
        fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else "-"
        print(f"| {row['dtype']} | {size} | {fmt(row.get('tritium'))} {row.get('tritium_block')} | "
              f"{fmt(row.get('triton'))} {row.get('triton_block')} | {fmt(row['torch'])} | "
              f"{row.get('ratio', 0):.2f} |", flush=True)
    return rows


# --dtypes names: torch input dtype, input_precision, accumulator and output dtype names.
PER_BLOCK_DTYPES = {"fp16": ("float16", None, "float32", "float16"), "bf16": ("bfloat16", None, "float32", "float16"),
                    "tf32": ("float32", "tf32", "float32", "float32"), "int8": ("int8", None, "int32", "int32"),
                    # int8 with a K-major B (a transposed weight): wgmma on sm_90 (gpu/int8_wgmma.h).
                    "int8kb": ("int8", None, "int32", "int32"),
                    # fp8 e4m3 with a row-major B (staged K-major from registers on sm_90) and
                    # with a K-major one (copied by cp.async); fp32 accumulation, fp16 out.
                    "fp8": ("float8_e4m3fn", None, "float32", "float16"),
                    "fp8kb": ("float8_e4m3fn", None, "float32", "float16")}


def per_block(kernels, sizes, blocks, stages, dtypes=("fp16", "bf16"), accumulate=False):
    """Each block configuration (BM, BN, BK, warps) timed alone, in each of `dtypes`
    (PER_BLOCK_DTYPES), both JITs with the same one: the speed of a configuration a user
    fixes, where the best-of list hides it. `accumulate`: C += A @ B (the K loop's
    accumulator loaded from C before it), checked from C's initial values."""
    import torch
    import triton.testing
    print("| dtype | size | block (m, n, k, warps), stages | tritium | Triton | tritium / Triton |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = []
    for key in dtypes:
        dtype_name, precision, acc, out = PER_BLOCK_DTYPES[key]
        dtype = getattr(torch, dtype_name)
        for size in sizes:
            a, b = inputs(dtype, size, size, size)
            if key.endswith("kb"):
                b = b.T.contiguous().T
            fp8 = key.startswith("fp8")
            if dtype == torch.int8:
                ref = (a.cpu().long() @ b.cpu().long()).cuda()
            else:
                ref = (a.float() @ b.float()).half() if fp8 else torch.matmul(a, b)
            c0 = None
            if accumulate:
                c0 = (torch.randint(-8, 8, (size, size), device="cuda") if dtype == torch.int8 else
                      torch.randn((size, size), device="cuda")).to(getattr(torch, out))
                ref = (ref.long() + c0.long()) if dtype == torch.int8 else (ref.float() + c0.float())
            for block in blocks:
                row = {"dtype": key, "size": size, "block": block, "stages": stages}
                if accumulate:
                    row["accumulate"] = True
                def run(kernel, c):
                    launch(kernel, a, b, c, block, precision, acc, out, even_k=fp8, num_stages=stages,
                           accumulate=accumulate)
                for name, kernel in kernels.items():
                    c = (c0.clone() if accumulate else
                         torch.empty((size, size), device="cuda", dtype=getattr(torch, out)))
                    try:
                        run(kernel, c)
                        torch.cuda.synchronize()
                    except Exception as e:  # noqa: BLE001 - reported per case
                        row[name] = f"{type(e).__name__}: {str(e)[:80]}"
                        continue
                    right = torch.equal(c.long(), ref.long()) if dtype == torch.int8 else close_enough(c, ref, fp8)
                    if not right:
                        row[name] = "WRONG"
                        continue
                    ms = triton.testing.do_bench(lambda: run(kernel, c), warmup=10, rep=50)
                    row[name] = 2.0 * size ** 3 / ms * 1e-9
                both = [row.get(n) for n in ("tritium", "triton")]
                ratio = f"{both[0] / both[1]:.2f}" if all(isinstance(v, float) for v in both) else "-"
                fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else str(v)
                print(f"| {row['dtype']} | {size} | {block}, {stages} | {fmt(both[0])} | {fmt(both[1])} | {ratio} |",
                      flush=True)
                rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--check", action="store_true", help="only the correctness sweep")
    parser.add_argument("--skip-check", action="store_true", help="no correctness sweep (the timed runs still check)")
    parser.add_argument("--hinted", action="store_true",
                        help="the kernel with tl.max_contiguous/tl.multiple_of on its row and column offsets")
    parser.add_argument("--blocks", help="time these block configurations one by one instead, "
                        "'BM,BN,BK,WARPS;...' (with --sizes, default 4096, and --stages, default 3)")
    parser.add_argument("--sizes", default="4096")
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--accumulate", action="store_true",
                        help="with --blocks: C += A @ B, the accumulator loaded from C before the K loop")
    parser.add_argument("--dtypes", default="fp16,bf16",
                        help="with --blocks: comma-separated, of " + ", ".join(PER_BLOCK_DTYPES))
    parser.add_argument("--json")
    parser.add_argument("--experiments", help="';'-separated settings (benchmarks/experiments.py: 'default', "
                        "NAME=value[+NAME=value], e.g. TRITIUM_PTXAS=@triton-ptxas), each in its own process, "
                        "then one table of tritium / Triton per row and setting (with --skip-check)")
    parser.add_argument("--rounds", type=int, default=1, help="with --experiments: rounds over the settings")
    args = parser.parse_args()
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"bench_matmul: skipped, no GPU: {reason}")
        return
    if args.experiments:
        import experiments
        child = ["--skip-check", "--sizes", args.sizes, "--stages", str(args.stages), "--dtypes", args.dtypes]
        child += (["--blocks", args.blocks] if args.blocks else []) + (["--quick"] if args.quick else [])
        child += ["--hinted"] if args.hinted else []
        child += ["--accumulate"] if args.accumulate else []

        def ratios(result):
            for row in result["rows"]:
                both = [row.get("tritium"), row.get("triton")]
                if all(isinstance(v, float) for v in both):
                    block = f" {tuple(row['block'])}" if "block" in row else ""
                    block += " C+=" if row.get("accumulate") else ""
                    yield f"{row['dtype']} {row['size']}{block}", both[0] / both[1]
        experiments.compare(__file__, child, args.experiments, args.rounds, ratios, args.json)
        return
    kernels = jits()
    if args.blocks:
        blocks = [tuple(int(x) for x in b.split(",")) for b in args.blocks.split(";")]
        rows = per_block(kernels, [int(n) for n in args.sizes.split(",")], blocks, args.stages,
                         [d for d in args.dtypes.split(",") if d], args.accumulate)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"rows": rows}, indent=1))
        return
    t = time.time()
    failures = [] if args.skip_check else check_sweep(kernels)
    print(f"check took {time.time() - t:.1f} s")
    rows = [] if args.check else bench(kernels, args.quick, args.hinted)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"failures": failures, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

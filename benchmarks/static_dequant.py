"""Static comparison of a weight-only int8 matmul (kernels_dequant.py's w8a16_matmul, which
tests/gpu/test_gpu_dequant.py checks on the GPU: `tl.dot(a, b.to(tl.float16) * scale[None, :])`) as tritium and Triton 3.6
compile it for sm_90a, without a GPU: registers, spill bytes, and the main loop's SASS (the
innermost loop holding the wgmma): its size and how many synchronous global loads (LDG),
asynchronous copies (LDGSTS) and barriers (BAR) it issues. Not a speed measurement.

    /path/to/triton-venv/bin/python benchmarks/static_dequant.py [--tritium build/tools/tritium]
        [--ptxas P] [--cuobjdump C] [--no-triton]
"""

import argparse
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import static_regs  # noqa: E402  (ptxas_stats, wgmma_loops, find_tool)

ROOT = HERE.parent
SOURCE = HERE / "kernels_dequant.py"
# (BM, BN, BK, num_warps, num_stages)
CONFIGS = [(128, 128, 64, 4, 3), (128, 128, 64, 8, 3), (64, 128, 32, 4, 4), (128, 256, 64, 8, 3), (64, 64, 64, 4, 3)]
SIGNATURE = "*fp16:16, *i8:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16"
# --unaligned: M, N and K not divisible by 16 (no divisibility facts on them; the strides keep theirs).
UNALIGNED = "*fp16:16, *i8:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16"


def tritium_ptx(exe, config, out):
    import subprocess
    BM, BN, BK, warps, stages = config
    subprocess.run([exe, "compile", str(SOURCE), "--kernel", "w8a16_matmul", "--signature",
                    f"{SIGNATURE}, BM={BM}, BN={BN}, BK={BK}", "--num-warps", str(warps), "--num-stages", str(stages),
                    "--arch", "sm_90", "--emit", "ptx", "--output", out], check=True, capture_output=True)


def triton_ptx(config, out):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import kernels_dequant
    BM, BN, BK, warps, stages = config
    fn = triton.jit(kernels_dequant.w8a16_matmul)
    names = fn.arg_names
    types = [t.strip().split(":")[0] for t in SIGNATURE.split(",")]
    signature = {n: t for n, t in zip(names, types)}
    parts = [t.strip() for t in SIGNATURE.split(",")]
    attrs = {(i,): [["tt.divisibility", 16]] for i, t in enumerate(parts) if t.endswith(":16")}
    for n in ("BM", "BN", "BK"):
        signature[n] = "constexpr"
    src = ASTSource(fn=fn, signature=signature, attrs=attrs,
                    constexprs={(names.index("BM"),): BM, (names.index("BN"),): BN, (names.index("BK"),): BK})
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=warps, num_stages=stages))
    pathlib.Path(out).write_text(kernel.asm["ptx"])


def loop_counts(cuobjdump, cubin):
    loops = static_regs.wgmma_loops(cuobjdump, cubin)
    body = loops[-1] if loops else []
    def count(pattern):
        return sum(1 for _, t in body if re.search(pattern, t))
    return len(body), count(r"\bLDG\.|\bLDG\b"), count(r"\bLDGSTS\b"), count(r"\bBAR\.")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritium", default=str(ROOT / "build" / "tools" / "tritium"))
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--cuobjdump", default=None)
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--unaligned", action="store_true", help="integer arguments without divisibility by 16")
    args = ap.parse_args()
    global SIGNATURE
    if args.unaligned:
        SIGNATURE = UNALIGNED
    ptxas = static_regs.find_tool("ptxas", args.ptxas)
    cuobjdump = static_regs.find_tool("cuobjdump", args.cuobjdump)
    work = tempfile.mkdtemp(prefix="static-dequant-")
    print("BMxBNxBK w stages | who      regs  spill st/ld  loop  LDG  LDGSTS  BAR")
    for config in CONFIGS:
        label = "%dx%dx%d w%d s%d" % config
        who = [("tritium", lambda out: tritium_ptx(args.tritium, config, out))]
        if not args.no_triton:
            who.append(("triton", lambda out: triton_ptx(config, out)))
        for name, make in who:
            out = f"{work}/{name}_{label.replace(' ', '_')}.ptx"
            try:
                make(out)
                regs, st, ld = static_regs.ptxas_stats(ptxas, out, out + ".cubin")
                size, ldg, ldgsts, bar = loop_counts(cuobjdump, out + ".cubin")
                print(f"{label:17} | {name:8} {regs:4}  {st:5}/{ld:<5} {size:5} {ldg:4} {ldgsts:7} {bar:4}")
            except Exception as e:  # noqa: BLE001
                print(f"{label:17} | {name:8} error: {str(e)[:120]}")


if __name__ == "__main__":
    main()

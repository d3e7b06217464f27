"""Static comparison of the tutorial matmul (kernels_matmul.py) as tritium and Triton 3.6
compile it for sm_90a, without a GPU (issue 9): registers, spill bytes and the number of SASS
instructions in the main loop (the backward branch's range holding the wgmma), per block
configuration, dtype, hinted or not, and integer arguments divisible by 16 or not.

Not a speed measurement; a way to see register pressure and loop size before a GPU run.
tritium through its CLI (build/tools/tritium --emit ptx); Triton (when importable) through
triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32)); both PTX files through
the same ptxas (-arch=sm_90a -v), SASS from cuobjdump. Run under a Python that has Triton:
    /path/to/venv/bin/python benchmarks/static_regs.py [--tritium build/tools/tritium]
        [--ptxas /usr/local/cuda/bin/ptxas] [--only 128x256] [--keep DIR]
Columns: regs, spill store bytes (st) and load bytes (ld), loop instruction count (loop; two
numbers when the kernel has two loops holding a wgmma, as version_on_signs' copies do: the
first is the copy launches of a non-negative grid take).

--attention: the same for the flash-attention forward of kernels_attention.py (the kernel
bench_attention.py times: block 128x64, 3 stages, non-causal; head dim 64 at 4 warps and 128
at 8, integer arguments divisible by 16 as launches specialize them), followed by the main
loop's SASS per instruction class (opcode without modifiers), side by side, tritium's
surplus last:
    /path/to/venv/bin/python benchmarks/static_regs.py --attention [--keep DIR]
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
ARG_NAMES = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn",
             "stride_cm", "stride_cn"]

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps): the benchmark's configurations with 8 warps and the
# 4-warp 128x128x32.
BLOCKS = [(128, 256, 64, 8), (128, 128, 64, 8), (128, 128, 128, 8), (128, 128, 32, 4), (64, 128, 64, 4), (64, 64, 32, 8)]
DTYPES = ["fp16", "bf16", "fp8e4nv", "fp32", "i8"]


def int_args(dtype, div16):
    """The integer arguments' specialization: None (== 1, a constant), 16 (divisible) or 0."""
    d = 16 if div16 else 0
    if dtype in ("fp8e4nv", "i8"):  # B K-major (Triton's fp8 tutorial; int8 on wgmma): stride_bk == 1
        return {"M": d, "N": d, "K": d, "stride_am": d, "stride_ak": None, "stride_bk": None, "stride_bn": d,
                "stride_cm": d, "stride_cn": None}
    return {"M": d, "N": d, "K": d, "stride_am": d, "stride_ak": None, "stride_bk": d, "stride_bn": None,
            "stride_cm": d, "stride_cn": None}


def constexprs(block, dtype, hinted):
    bm, bn, bk, _ = block
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "INPUT_PRECISION": None,
            "ACC_DTYPE": "int32" if dtype == "i8" else "fp32", "OUT_DTYPE": "fp16",
            "EVEN_K": dtype in ("fp8e4nv", "i8"), "HINTED": hinted}


def tritium_ptx(exe, block, dtype, hinted, div16, out):
    parts = [f"*{dtype}:16", f"*{dtype}:16", "*fp16:16"]
    for name, spec in int_args(dtype, div16).items():
        parts.append("1" if spec is None else ("i32:16" if spec == 16 else "i32"))
    for name, value in constexprs(block, dtype, hinted).items():
        parts.append(f"{name}={value}")
    cmd = [exe, "compile", str(HERE / "kernels_matmul.py"), "--kernel", "matmul_kernel", "--signature",
           ", ".join(parts), "--num-warps", str(block[3]), "--num-stages", "3", "--emit", "ptx", "--arch", "sm_90",
           "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])


def triton_ptx(block, dtype, hinted, div16, out):
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sys.path.insert(0, str(HERE))
    import kernels_matmul
    fn = triton.jit(kernels_matmul.matmul_kernel)
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp16"}
    consts = {}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(3)}
    for name, spec in int_args(dtype, div16).items():
        if spec is None:
            signature[name] = "constexpr"
            consts[name] = 1
        else:
            signature[name] = "i32"
            if spec == 16:
                attrs[(ARG_NAMES.index(name),)] = [["tt.divisibility", 16]]
    for name, value in constexprs(block, dtype, hinted).items():
        signature[name] = "constexpr"
        consts[name] = getattr(tl, {"fp32": "float32", "fp16": "float16", "int32": "int32"}[value]) \
            if name.endswith("DTYPE") else value
    kernel = triton.compile(ASTSource(fn, signature, consts, attrs), target=GPUTarget("cuda", 90, 32),
                            options=dict(num_warps=block[3], num_stages=3))
    pathlib.Path(out).write_text(kernel.asm["ptx"])


def ptxas_stats(ptxas, ptx, cubin):
    r = subprocess.run([ptxas, "-arch=sm_90a", "-v", ptx, "-o", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])
    regs = int(re.search(r"Used (\d+) registers", r.stderr).group(1))
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    return regs, int(spill.group(1)), int(spill.group(2))


INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")


def wgmma_loops(cuobjdump, cubin):
    """The innermost loops (a backward branch's range holding no other) that hold a wgmma,
    in address order, each as its list of (address, instruction text)."""
    sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    insns = [(int(m.group(1), 16), m.group(2)) for m in INSN.finditer(sass)]
    index = {addr: i for i, (addr, _) in enumerate(insns)}
    loops = []
    for i, (addr, text) in enumerate(insns):
        m = re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", text)
        if not m or int(m.group(1), 16) >= addr or int(m.group(1), 16) not in index:
            continue
        start = index[int(m.group(1), 16)]
        if any(re.search(r"\b[HQI]GMMA", t) for _, t in insns[start:i + 1]):
            loops.append((start, i))
    inner = [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
    return [insns[s:e + 1] for s, e in sorted(inner)]


def loop_sizes(cuobjdump, cubin):
    """Instruction counts of the innermost loops that hold a wgmma."""
    return [len(body) for body in wgmma_loops(cuobjdump, cubin)]


# (HEAD_DIM, num_warps) of the attention comparison: the benchmark's block 128x64, 3 stages.
ATTENTION = [(64, 4), (128, 8)]
ATTENTION_INTS = ["stride_z", "stride_h", "stride_n", "H", "N_CTX"]


def attention_source(work):
    """kernels_attention.py with its JIT chosen at import (`load`) spelled as plain Triton
    imports, which the tritium CLI reads; the kernels are unchanged."""
    src = (HERE / "kernels_attention.py").read_text()
    dynamic = 'jit = importlib.import_module(JIT).jit\ntl = importlib.import_module(JIT + ".language")'
    if dynamic not in src:
        raise RuntimeError("kernels_attention.py no longer picks its JIT as this script expects")
    path = os.path.join(work, "kernels_attention_static.py")
    pathlib.Path(path).write_text(src.replace(dynamic, "import triton\nimport triton.language as tl\nfrom triton import jit"))
    return path


def attention_constexprs(head_dim):
    return {"HEAD_DIM": head_dim, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 1}


def tritium_attention_ptx(exe, source, head_dim, warps, out):
    parts = ["*fp16:16"] * 4 + ["fp32"] + ["i32:16"] * len(ATTENTION_INTS)
    parts += [f"{k}={v}" for k, v in attention_constexprs(head_dim).items()]
    cmd = [exe, "compile", source, "--kernel", "attn_fwd", "--signature", ", ".join(parts), "--num-warps",
           str(warps), "--num-stages", "3", "--emit", "ptx", "--arch", "sm_90", "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])


def triton_attention_ptx(head_dim, warps, out):
    import importlib.util
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    spec = importlib.util.spec_from_file_location("kernels_attention_triton_static", HERE / "kernels_attention.py")
    module = importlib.util.module_from_spec(spec)
    module.JIT = "triton"
    spec.loader.exec_module(module)
    names = ["Q", "K", "V", "Out", "sm_scale"] + ATTENTION_INTS
    signature = {n: "*fp16" for n in names[:4]}
    signature["sm_scale"] = "fp32"
    signature.update({n: "i32" for n in ATTENTION_INTS})
    consts = attention_constexprs(head_dim)
    signature.update({n: "constexpr" for n in consts})
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names) if n != "sm_scale"}
    kernel = triton.compile(ASTSource(module.attn_fwd, signature, consts, attrs), target=GPUTarget("cuda", 90, 32),
                            options=dict(num_warps=warps, num_stages=3))
    pathlib.Path(out).write_text(kernel.asm["ptx"])


def loop_classes(cuobjdump, cubin):
    """The innermost wgmma loop's instructions by opcode (no modifiers, no predicate); the
    last such loop (attention's non-causal kernel has one)."""
    loops = wgmma_loops(cuobjdump, cubin)
    counts = {}
    for _, text in loops[-1] if loops else []:
        op = re.sub(r"^@!?U?P\w+\s+", "", text.strip()).split()[0].split(".")[0]
        counts[op] = counts.get(op, 0) + 1
    return counts


def attention_main(args, have_triton, cuobjdump, work):
    source = attention_source(work)
    compilers = [("tritium", lambda d, w, out: tritium_attention_ptx(args.tritium, source, d, w, out))]
    if have_triton:
        compilers.append(("triton", triton_attention_ptx))
    for head_dim, warps in ATTENTION:
        print(f"attention d={head_dim}, {warps} warps, block 128x64, 3 stages, non-causal")
        classes = {}
        for name, compile_ptx in compilers:
            stem = os.path.join(work, f"{name}_attention_d{head_dim}_w{warps}")
            try:
                compile_ptx(head_dim, warps, stem + ".ptx")
                regs, st, ld = ptxas_stats(args.ptxas, stem + ".ptx", stem + ".cubin")
                classes[name] = loop_classes(cuobjdump, stem + ".cubin")
                total = sum(classes[name].values())
                print(f"  {name:<8} regs {regs:>4}  spill st {st:>5} ld {ld:>5}  loop {total:>5}")
            except Exception as e:  # noqa: BLE001 (a compiler refusing the kernel)
                print(f"  {name:<8} error: {str(e).splitlines()[-1][:100]}")
        if not classes:
            continue
        names = list(classes)
        ops = sorted(set().union(*classes.values()))
        surplus = (lambda op: classes["tritium"].get(op, 0) - classes["triton"].get(op, 0)) \
            if len(names) == 2 and "tritium" in classes else (lambda op: 0)
        ops.sort(key=lambda op: (surplus(op) != 0, surplus(op), -sum(c.get(op, 0) for c in classes.values())))
        print("  " + f"{'class':<12}" + "".join(f"{n:>9}" for n in names) + ("  tritium - triton" if len(names) == 2 else ""))
        for op in ops:
            row = "".join(f"{classes[n].get(op, 0):>9}" for n in names)
            print(f"  {op:<12}{row}" + (f"  {surplus(op):+d}" if len(names) == 2 and surplus(op) else ""))
        print(flush=True)


def find_tool(name, given):
    if given:
        return given
    try:
        import triton
        p = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
        if p.exists():
            return str(p)
    except ImportError:
        pass
    return shutil.which(name) or f"/usr/local/cuda/bin/{name}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritium", default=str(ROOT / "build" / "tools" / "tritium"))
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas"))
    ap.add_argument("--cuobjdump", default=None)
    ap.add_argument("--only", default=None, help="a block (e.g. 128x256) or dtype (fp16) to keep")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--keep", default=None, help="directory to keep the PTX and cubins in")
    ap.add_argument("--attention", action="store_true",
                    help="kernels_attention.py's forward instead, with the loop's SASS per instruction class")
    args = ap.parse_args()
    try:
        if args.no_triton:
            raise ImportError
        import triton  # noqa: F401
        have_triton = True
    except ImportError:
        have_triton = False
    cuobjdump = find_tool("cuobjdump", args.cuobjdump)
    work = args.keep or tempfile.mkdtemp(prefix="static_regs_")
    os.makedirs(work, exist_ok=True)
    if args.attention:
        return attention_main(args, have_triton, cuobjdump, work)
    compilers = [("tritium", lambda *a: tritium_ptx(args.tritium, *a))]
    if have_triton:
        compilers.append(("triton", triton_ptx))
    head = f"{'block':<14} {'dtype':<8} {'hint':<5} {'ints':<5}"
    for name, _ in compilers:
        head += f" | {name + ' regs':>12} {'st':>5} {'ld':>5} {'loop':>9}"
    print(head)
    for block in BLOCKS:
        for dtype in DTYPES:
            for hinted in (False, True):
                for div16 in (True, False):
                    tag = f"{block[0]}x{block[1]}x{block[2]}w{block[3]}"
                    if args.only and args.only not in (tag, dtype, f"{block[0]}x{block[1]}"):
                        continue
                    line = f"{tag:<14} {dtype:<8} {'yes' if hinted else 'no':<5} {'16' if div16 else 'any':<5}"
                    for name, compile_ptx in compilers:
                        stem = os.path.join(work, f"{name}_{tag}_{dtype}_{int(hinted)}_{int(div16)}")
                        try:
                            compile_ptx(block, dtype, hinted, div16, stem + ".ptx")
                            regs, st, ld = ptxas_stats(args.ptxas, stem + ".ptx", stem + ".cubin")
                            loops = "/".join(str(n) for n in loop_sizes(cuobjdump, stem + ".cubin")) or "-"
                            line += f" | {regs:>12} {st:>5} {ld:>5} {loops:>9}"
                        except Exception as e:  # noqa: BLE001 (a compiler refusing a configuration)
                            line += f" | {'error: ' + str(e).splitlines()[-1][:40]:>33}"
                    print(line, flush=True)


if __name__ == "__main__":
    main()

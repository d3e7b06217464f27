"""Static comparison of the reduction kernels (kernels_reduce.py) as tritium and Triton 3.6
compile them for sm_90a at bench_reduce.py's configurations, without a GPU: registers,
SASS instruction count and the instructions that matter for a bandwidth-bound row kernel,
per class, side by side.

Not a speed measurement: a way to see, before a GPU run, where the two compilers' code
differs (narrower global loads, more shuffles, shared-memory rounds or barriers, ...).
tritium through its CLI (build/tools/tritium --emit ptx); Triton (when importable) through
triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32)); both PTX files through the
same ptxas (-arch=sm_90a -v), SASS from cuobjdump. Run under a Python that has Triton:
    /path/to/venv/bin/python benchmarks/static_reduce.py [--tritium build/tools/tritium]
        [--ptxas PTXAS] [--only softmax] [--keep DIR] [--all-classes]
The arguments specialize as bench_reduce.py's launches do: torch's pointers 16-byte
aligned, the integer arguments (strides, widths) divisible by 16, eps a plain fp32.

Columns per configuration and compiler: regs, total SASS instructions, then per class:
LDG/STG by width (.128, .64, 32 = no width suffix, .16 = U16/S16), LDS/STS, SHFL, BAR,
MUFU, FMNMX, FADD, FMUL, FFMA, F2F/HADD2.F32 (fp16 <-> fp32 conversions), F2FP (packing).
--all-classes: every opcode where the two differ.
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from static_regs import find_tool  # noqa: E402


def pow2(n):
    return 1 << (n - 1).bit_length()


def warps_for(block):  # bench_reduce.py's choice
    return 4 if block <= 1024 else 8 if block <= 4096 else 16


# Each argument: ("ptr", dtype) 16-byte aligned, ("int",) divisible by 16, ("fp32",).
P = lambda dt: ("ptr", dt)  # noqa: E731
I = ("int",)
U = ("int_any",)  # an integer argument with no divisibility (e.g. vocabulary 50257)
F = ("fp32",)


def configs():
    """(label, kernel, [(name, arg spec)], constexprs, num_warps), bench_reduce.py's rows."""
    out = []
    for dt in ("fp32", "fp16"):
        for cols in (128, 1024, 4096, 16384):
            b = pow2(cols)
            out.append((f"softmax {dt} {cols}", "softmax",
                        [("out_ptr", P(dt)), ("in_ptr", P(dt)), ("in_stride", I), ("out_stride", I), ("n_cols", I)],
                        {"BLOCK": b}, warps_for(b)))
    for n in (1024, 4096, 8192):
        b = pow2(n)
        out.append((f"layer_norm fp16 {n}", "layer_norm",
                    [("X", P("fp16")), ("Y", P("fp16")), ("W", P("fp16")), ("B", P("fp16")), ("Mean", P("fp32")),
                     ("Rstd", P("fp32")), ("stride", I), ("N", I), ("eps", F)],
                    {"BLOCK": b}, warps_for(b)))
    for n in (1024, 4096, 8192):
        b = pow2(n)
        out.append((f"rms_norm fp16 {n}", "rms_norm",
                    [("X", P("fp16")), ("Y", P("fp16")), ("W", P("fp16")), ("stride", I), ("N", I), ("eps", F)],
                    {"BLOCK": b}, warps_for(b)))
    out.append(("cross_entropy fp32", "cross_entropy",
                [("logits", P("fp32")), ("targets", P("i64")), ("loss", P("fp32")), ("stride", I), ("V", I)],
                {"BLOCK": 4096}, 8))
    # Vocabulary 50257: stride and V odd, the rows not 16-byte aligned (bench_reduce.py's row).
    out.append(("cross_entropy fp32 odd V", "cross_entropy",
                [("logits", P("fp32")), ("targets", P("i64")), ("loss", P("fp32")), ("stride", U), ("V", U)],
                {"BLOCK": 4096}, 8))
    out.append(("sum_atomic fp32", "sum_atomic", [("X", P("fp32")), ("Z", P("fp32")), ("n", I)],
                {"BLOCK": 4096, "ITERS": 8}, 8))
    for cols in (1024, 4096):
        b = pow2(cols)
        out.append((f"cumsum fp32 {cols}", "cumsum_rows",
                    [("X", P("fp32")), ("Z", P("fp32")), ("stride", I), ("n_cols", I)],
                    {"BLOCK": b}, warps_for(b)))
    return out


def tritium_ptx(exe, kernel, args, consts, warps, out):
    parts = []
    for _, spec in args:
        parts.append({"ptr": lambda: f"*{spec[1]}:16", "int": lambda: "i32:16", "int_any": lambda: "i32",
                      "fp32": lambda: "fp32"}[spec[0]]())
    parts += [f"{k}={v}" for k, v in consts.items()]
    cmd = [exe, "compile", str(HERE / "kernels_reduce.py"), "--kernel", kernel, "--signature", ", ".join(parts),
           "--num-warps", str(warps), "--emit", "ptx", "--arch", "sm_90", "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])


def triton_ptx(kernel, args, consts, warps, out):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sys.path.insert(0, str(HERE))
    import kernels_reduce
    fn = triton.jit(getattr(kernels_reduce, kernel))
    signature, attrs = {}, {}
    for i, (name, spec) in enumerate(args):
        signature[name] = {"ptr": lambda: f"*{spec[1]}", "int": lambda: "i32", "int_any": lambda: "i32",
                           "fp32": lambda: "fp32"}[spec[0]]()
        if spec[0] in ("ptr", "int"):
            attrs[(i,)] = [["tt.divisibility", 16]]
    for name in consts:
        signature[name] = "constexpr"
    compiled = triton.compile(ASTSource(fn, signature, dict(consts), attrs), target=GPUTarget("cuda", 90, 32),
                              options=dict(num_warps=warps))
    pathlib.Path(out).write_text(compiled.asm["ptx"])


def ptxas_regs(ptxas, ptx, cubin):
    r = subprocess.run([ptxas, "-arch=sm_90a", "-v", ptx, "-o", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])
    return int(re.search(r"Used (\d+) registers", r.stderr).group(1))


INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")
WIDTH = re.compile(r"\.(128|64|U16|S16|U8|S8)\b")


def sass_classes(cuobjdump, cubin):
    """Instruction count per class: the opcode, memory accesses with their width."""
    sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    counts = {}
    for m in INSN.finditer(sass):
        text = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip())
        full = text.split()[0]
        op = full.split(".")[0]
        if op in ("NOP",):
            continue
        if op in ("LDG", "STG", "LDS", "STS", "RED", "ATOMG"):
            w = WIDTH.search(full)
            width = w.group(1) if w else "32"
            op = f"{op}.{ {'U16': '16', 'S16': '16', 'U8': '8', 'S8': '8'}.get(width, width)}"
        elif op == "HADD2" and ".F32" in full:
            op = "HADD2.F32"
        counts[op] = counts.get(op, 0) + 1
    return counts


# Classes always shown (in this order), when either compiler has them.
KEY = ["LDG.128", "LDG.64", "LDG.32", "LDG.16", "STG.128", "STG.64", "STG.32", "STG.16", "LDS.128", "LDS.64",
       "LDS.32", "STS.128", "STS.64", "STS.32", "SHFL", "BAR", "MUFU", "FMNMX", "FADD", "FMUL", "FFMA", "F2F",
       "HADD2.F32", "F2FP", "PRMT", "RED.32", "ATOMG.32", "ISETP", "FSETP", "SEL", "FSEL", "BRA"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritium", default=str(ROOT / "build" / "tools" / "tritium"))
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--cuobjdump", default=None)
    ap.add_argument("--only", default=None, help="keep the rows whose label contains this (e.g. 'softmax fp16')")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--keep", default=None, help="directory to keep the PTX and cubins in")
    ap.add_argument("--all-classes", action="store_true", help="also every other opcode where the two differ")
    ap.add_argument("--summary", action="store_true", help="one line per row: regs and total only")
    args = ap.parse_args()
    have_triton = False
    if not args.no_triton:
        try:
            import triton  # noqa: F401
            have_triton = True
        except ImportError:
            pass
    ptxas = find_tool("ptxas", args.ptxas)
    cuobjdump = find_tool("cuobjdump", args.cuobjdump)
    work = args.keep or tempfile.mkdtemp(prefix="static_reduce_")
    os.makedirs(work, exist_ok=True)
    compilers = [("tritium", lambda *a: tritium_ptx(args.tritium, *a))]
    if have_triton:
        compilers.append(("triton", triton_ptx))
    names = [n for n, _ in compilers]
    for label, kernel, kargs, consts, warps in configs():
        if args.only and args.only not in label:
            continue
        stats = {}
        for name, compile_ptx in compilers:
            stem = os.path.join(work, f"{name}_{label.replace(' ', '_')}")
            try:
                compile_ptx(kernel, kargs, consts, warps, stem + ".ptx")
                regs = ptxas_regs(ptxas, stem + ".ptx", stem + ".cubin")
                stats[name] = (regs, sass_classes(cuobjdump, stem + ".cubin"))
            except Exception as e:  # noqa: BLE001 (a compiler refusing a configuration)
                stats[name] = str(e).splitlines()[-1][:100] if str(e) else type(e).__name__
        head = f"{label}, BLOCK {consts['BLOCK']}, {warps} warps"
        if args.summary:
            line = f"{head:<44}"
            for n in names:
                s = stats[n]
                line += f" | {n} " + (f"regs {s[0]:>3} sass {sum(s[1].values()):>5}" if isinstance(s, tuple) else s)
            print(line, flush=True)
            continue
        print(head)
        ok = [n for n in names if isinstance(stats[n], tuple)]
        for n in names:
            if n not in ok:
                print(f"  {n}: error: {stats[n]}")
        if not ok:
            continue
        print("  " + f"{'':<12}" + "".join(f"{n:>9}" for n in ok))
        print("  " + f"{'regs':<12}" + "".join(f"{stats[n][0]:>9}" for n in ok))
        print("  " + f"{'SASS':<12}" + "".join(f"{sum(stats[n][1].values()):>9}" for n in ok))
        classes = [stats[n][1] for n in ok]
        shown = [k for k in KEY if any(c.get(k) for c in classes)]
        if args.all_classes and len(ok) == 2:
            shown += sorted(k for k in set(classes[0]) | set(classes[1])
                            if k not in KEY and classes[0].get(k, 0) != classes[1].get(k, 0))
        for k in shown:
            row = "".join(f"{c.get(k, 0):>9}" for c in classes)
            diff = classes[0].get(k, 0) - classes[1].get(k, 0) if len(ok) == 2 else 0
            print(f"  {k:<12}{row}" + (f"  {diff:+d}" if diff else ""))
        print(flush=True)


if __name__ == "__main__":
    main()

"""Compares tritium's code with Triton's, op by op, without a GPU: each expression of OPS (or
of a file given with --ops) becomes a one-line kernel, compiled for sm_90 by Triton (its
`triton.compile` with a GPUTarget, run under the Python that has Triton, --triton-python) and
by tritium's CLI; the multisets of PTX opcodes are compared, and a kernel one of them refuses
is reported with the other's verdict. Prints one line per difference; nothing when they agree.
How the session-8 math and cast differences were found (tests/fuzz/RESULTS.md).

    python3 tests/fuzz/ptx_compare.py --triton-python /path/to/venv/bin/python \
        --tritium build/tools/tritium --dtypes fp32,fp16,i32
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

OPS = {
    "add": "x + y", "truediv": "x / y", "floordiv": "x // y", "mod": "x % y", "maximum": "tl.maximum(x, y)",
    "exp": "tl.exp(x)", "exp2": "tl.exp2(x)", "log": "tl.log(x)", "log2": "tl.log2(x)", "sqrt": "tl.sqrt(x)",
    "rsqrt": "tl.rsqrt(x)", "sin": "tl.sin(x)", "cos": "tl.cos(x)", "erf": "tl.erf(x)", "floor": "tl.floor(x)",
    "sqrt_rn": "tl.sqrt_rn(x)", "div_rn": "tl.div_rn(x, y)", "fdiv": "tl.fdiv(x, y)", "fma": "tl.fma(x, y, x)",
    "to_fp16": "x.to(tl.float16)", "to_bf16": "x.to(tl.bfloat16)", "to_i32": "x.to(tl.int32)",
    "to_u8": "x.to(tl.uint8)", "to_e4m3": "x.to(tl.float8e4nv)", "to_e5m2": "x.to(tl.float8e5)",
    "sigmoid": "tl.sigmoid(x)", "umulhi": "tl.umulhi(x, y)", "cdiv": "tl.cdiv(x, y)",
    "max_nan": "tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)",
}

# Triton's side: compile one kernel for sm_90, write its PTX (run under --triton-python).
TRITON_COMPILE = r'''
import importlib.util, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("k", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
dtype = sys.argv[3]
source = ASTSource(getattr(module, sys.argv[2]), {"x_ptr": "*" + dtype, "y_ptr": "*" + dtype, "o_ptr": "*" + dtype}, {},
                   {(i,): [["tt.divisibility", 16]] for i in range(3)})
kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, num_stages=1))
open(sys.argv[4], "w").write(kernel.asm["ptx"])
'''

# Address arithmetic and moves differ for reasons of no interest here.
IGNORED = re.compile(r"^(ld\.|st\.|mov|add\.s64|shl\.b64|mad\.wide|mul\.wide|cvta|ret|and\.b32|shl\.b32|or\.b32|cvt\.u64\.u32|bra)")


def opcodes(ptx):
    ops = collections.Counter()
    for line in ptx.splitlines():
        m = re.match(r"\s+(?:@!?%p\d+ )?([a-z][a-z0-9_.]*)", line)
        if m and not IGNORED.match(m.group(1)):
            ops[m.group(1)] += 1
    return ops


def kernels_source(ops, module):
    lines = [f"import {module} as triton", f"import {module}.language as tl", ""]
    for name, expr in ops.items():
        lines += ["@triton.jit", f"def k_{name}(x_ptr, y_ptr, o_ptr):", "    r = tl.arange(0, 128)",
                  "    x = tl.load(x_ptr + r)", "    y = tl.load(y_ptr + r)", f"    tl.store(o_ptr + r, {expr})", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton-python", required=True, help="a Python with Triton 3.6 installed")
    parser.add_argument("--tritium", default=os.environ.get("TRITIUM_CLI", "tritium"))
    parser.add_argument("--dtypes", default="fp32,fp16,bf16,i32,u32,i64,i8,fp64")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ptx-compare-")
    paths = {}
    for module in ("triton", "tritium"):
        paths[module] = os.path.join(work, f"{module}_kernels.py")
        with open(paths[module], "w") as f:
            f.write(kernels_source(OPS, module))
    compile_script = os.path.join(work, "triton_compile.py")
    with open(compile_script, "w") as f:
        f.write(TRITON_COMPILE)
    for name in OPS:
        for dtype in args.dtypes.split(","):
            t_ptx, a_ptx = os.path.join(work, "t.ptx"), os.path.join(work, "a.ptx")
            t = subprocess.run([args.triton_python, compile_script, paths["triton"], "k_" + name, dtype, t_ptx],
                               capture_output=True, text=True)
            signature = f"*{dtype}:16, *{dtype}:16, *{dtype}:16"
            a = subprocess.run([args.tritium, "compile", paths["tritium"], "--kernel", "k_" + name, "--signature",
                                signature, "--emit", "ptx", "--arch", "sm_90", "--num-warps", "4"],
                               capture_output=True, text=True)
            if t.returncode and a.returncode:
                continue
            if t.returncode or a.returncode:
                who = "Triton" if t.returncode else "tritium"
                why = (t.stderr if t.returncode else a.stderr).strip().splitlines()
                print(f"{name} {dtype}: only {who} refuses: {why[-1][:160] if why else '?'}")
                continue
            theirs, ours = opcodes(open(t_ptx).read()), opcodes(a.stdout)
            if theirs != ours:
                only_t = sorted((theirs - ours).items())
                only_a = sorted((ours - theirs).items())
                print(f"{name} {dtype}: Triton only {only_t}; tritium only {only_a}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

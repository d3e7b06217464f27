#!/usr/bin/env python3
"""Static comparison, without a GPU, of the real kernels as tritium and Triton compile them:
for every specialization run_realk.py kept (--gpu-compile sm_90 --keep-ptx DIR), the same
kernel and specialization compiled by Triton (triton.compile(ASTSource(...)) for
GPUTarget("cuda", 90, 32)); both PTX files through the same ptxas -v: registers, spill
bytes, local memory and SASS instruction count side by side. Not a speed measurement; a way
to find pathological code (spills, register blow-ups) before a GPU run.

Run with a Python that has the real Triton and torch (not the alias), e.g.:
    PYTHONPATH=/tmp/tvenv/lib/python3.11/site-packages:build-gpu/realk/src \\
        /work/tsuite-venv/bin/python tests/realk/static_compare.py DIR [--ptxas P] [--json OUT]
"""

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("TRITIUM_SUITE_PTXAS", "/usr/local/cuda/bin/ptxas")
CUOBJDUMP = os.path.join(os.path.dirname(PTXAS), "cuobjdump")
run_realk = None  # tests/realk/run_realk.py, for the projects' imports with its stand-ins


def split_top(text):
    """Splits tritium's signature text at the commas outside quotes and brackets."""
    out, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


SCALARS = re.compile(r"^(i1|i8|i16|i32|i64|u8|u16|u32|u64|fp8e4nv|fp8e5|fp8e4b15|fp16|bf16|fp32|fp64)$")


def constexpr_value(text, tl):
    if hasattr(tl, {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64",
                    "i32": "int32", "i64": "int64", "i8": "int8", "i16": "int16", "u8": "uint8",
                    "fp8e4nv": "float8e4nv", "fp8e5": "float8e5"}.get(text, "-")):
        return getattr(tl, {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16",
                            "fp64": "float64", "i32": "int32", "i64": "int64", "i8": "int8",
                            "i16": "int16", "u8": "uint8", "fp8e4nv": "float8e4nv",
                            "fp8e5": "float8e5"}[text])
    if text in ("inf", "-inf", "nan"):
        return float(text)
    return ast.literal_eval(text)


def triton_source(rec):
    """ASTSource for the record's kernel and specialization, under the real Triton."""
    import triton
    import triton.language as tl
    from triton.compiler import ASTSource
    mod = run_realk.import_project_module(rec["module"])
    fn = getattr(mod, rec["attr"])
    while not isinstance(fn, triton.runtime.JITFunction):
        fn = fn.fn
    names = fn.arg_names
    entries = split_top(rec["signature"])
    if len(entries) != len(names):
        raise ValueError(f"{len(entries)} signature entries for {len(names)} parameters")
    sig, consts, attrs = {}, {}, {}
    for i, (name, entry) in enumerate(zip(names, entries)):
        if "=" in entry and re.match(r"^\w+=", entry):
            sig[name] = "constexpr"
            consts[name] = constexpr_value(entry.split("=", 1)[1], tl)
            continue
        base, _, div = entry.partition(":")
        if base.startswith("*") or SCALARS.match(base):
            sig[name] = base
            if div == "16":
                attrs[(i,)] = [["tt.divisibility", 16]]
        else:  # a specialized value (1, None) or a constexpr given positionally
            sig[name] = "constexpr"
            consts[name] = constexpr_value(entry, tl)
    return ASTSource(fn, sig, consts, attrs)


def ptxas_stats(ptx_path, arch="sm_90a"):
    cubin = ptx_path + ".cubin"
    r = subprocess.run([PTXAS, f"-arch={arch}", "-v", ptx_path, "-o", cubin], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["?"])[-1][:200]}
    regs = sum(int(x) for x in re.findall(r"Used (\d+) registers", r.stderr))
    spill = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    stack = re.findall(r"(\d+) bytes stack frame", r.stderr)
    stats = {"regs": regs, "spill_st": sum(int(a) for a, _ in spill),
             "spill_ld": sum(int(b) for _, b in spill), "stack": sum(int(x) for x in stack)}
    if os.path.exists(CUOBJDUMP):
        sass = subprocess.run([CUOBJDUMP, "-sass", cubin], capture_output=True, text=True).stdout
        stats["sass"] = len(re.findall(r"/\*[0-9a-f]{4,}\*/\s+[^;]*;", sass))
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "..", "build-gpu", "realk", "src"))
    ap.add_argument("--json", default=None)
    ap.add_argument("-k", action="append", default=[], help="only cases whose name has this")
    ap.add_argument("--keep-triton", default=None, help="keep Triton's PTX and TTGIR here (triton_N.ptx / .ttgir, N the row)")
    args = ap.parse_args()
    global PTXAS, CUOBJDUMP
    if args.ptxas:
        PTXAS = args.ptxas
        CUOBJDUMP = os.path.join(os.path.dirname(PTXAS), "cuobjdump")
    global run_realk
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run_realk
    run_realk.ARGS = argparse.Namespace(src=args.src, device="cpu")
    sys.path.insert(0, args.src)
    # vLLM turns Triton off where its driver sees no GPU, except where CUDA_VISIBLE_DEVICES
    # is empty (a distributed worker before its GPU is set): so it keeps Triton here
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import triton
    from triton.backends.compiler import GPUTarget
    if getattr(triton, "__tritium__", False) or "tritium" in (triton.__file__ or ""):
        sys.exit("static_compare.py needs the real Triton, not tritium's alias")
    index = json.load(open(os.path.join(args.dir, "index.json")))
    rows = []
    seen = set()
    tmp = args.keep_triton or tempfile.mkdtemp(prefix="realk-static-")
    os.makedirs(tmp, exist_ok=True)
    for rec in index:
        if rec["arch"] != "sm_90" or rec["module"] is None:
            continue
        if args.k and not any(k in rec["case"] for k in args.k):
            continue
        key = (rec["module"], rec["attr"], rec["signature"], json.dumps(rec["options"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        row = {"case": rec["case"], "kernel": rec["kernel"], "num_warps": rec["options"]["num_warps"],
               "tritium": ptxas_stats(os.path.join(args.dir, rec["ptx"]))}
        try:
            opts = {"num_warps": rec["options"]["num_warps"], "num_stages": rec["options"]["num_stages"]}
            k = triton.compile(triton_source(rec), target=GPUTarget("cuda", 90, 32), options=opts)
            p = os.path.join(tmp, f"triton_{len(rows)}.ptx")
            with open(p, "w") as f:
                f.write(k.asm["ptx"])
            if args.keep_triton:  # Triton's layouts beside its PTX, to read against tritium's gpu-ir
                with open(p[:-len(".ptx")] + ".ttgir", "w") as f:
                    f.write(k.asm["ttgir"])
            row["triton"] = ptxas_stats(p)
        except Exception as e:  # noqa: BLE001 - recorded, the comparison goes on
            row["triton"] = {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[0][:160] if str(e).strip() else ''}"}
        rows.append(row)
        t, r = row["tritium"], row["triton"]

        def fmt(x):
            if "error" in x:
                return f"error: {x['error'][:60]}"
            return f"{x['regs']:3d} regs  spill {x['spill_st']:4d}/{x['spill_ld']:4d}  stack {x['stack']:4d}  sass {x.get('sass', 0):5d}"
        print(f"{rec['case'][:34]:34s} {rec['kernel'][:36]:36s} w{row['num_warps']:<2d} tritium {fmt(t)} | triton {fmt(r)}"
              + (f"  [{rec['ptx']} | triton_{len(rows) - 1}.ptx]" if args.keep_triton else ""),
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

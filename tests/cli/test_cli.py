#!/usr/bin/env python3
"""Tests of the tritium CLI as a user meets it: every misuse gives a clear message and a
clean exit status (2 for the command line, 1 for the kernel or its signature), never a
crash; `--version`; `run` on the vector add example computes the sum; `compile` emits LLVM
IR and PTX for --arch without a GPU (and says clearly why a cubin needs one); `opt` runs
named passes on IR text; `cache` lists, shows and clears the disk cache.

  test_cli.py --cli build/tools/tritium --examples examples
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--examples", required=True)
    opts = parser.parse_args()
    cli = opts.cli
    add = os.path.join(opts.examples, "vector_add.py")
    sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=256"
    run_args = "x_ptr=arange:fp32:1000, y_ptr=ones:fp32:1000, out_ptr=zeros:fp32:1000, n_elements=1000, BLOCK=256"

    tmp = tempfile.mkdtemp()
    os.environ["TRITIUM_CACHE_DIR"] = os.path.join(tmp, "cache")  # the cache commands' own
    broken = os.path.join(tmp, "broken.py")
    with open(broken, "w") as f:
        f.write("import tritium\n\n@tritium.jit\ndef k(x):\n    return (\n")

    matmul = os.path.join(tmp, "matmul.py")
    with open(matmul, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n@triton.jit\n"
                "def matmul(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
                "    rm = tl.arange(0, BM)\n    rn = tl.arange(0, BN)\n    rk = tl.arange(0, BK)\n"
                "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
                "    for k in range(0, K, BK):\n"
                "        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])\n"
                "        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])\n"
                "        acc = tl.dot(x, y, acc)\n"
                "    tl.store(c + rm[:, None] * BN + rn[None, :], acc)\n")
    matmul_sig = "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32"

    # An fp8 value the optimizer deletes (unused) still counts against the target's fp8 set.
    fp8 = os.path.join(tmp, "fp8.py")
    with open(fp8, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n@triton.jit\n"
                "def k(out, DT: tl.constexpr):\n"
                "    _ = tl.full((256,), 0.0, DT)\n"
                "    tl.store(out + tl.arange(0, 16), tl.arange(0, 16))\n\n"
                "@triton.jit\ndef p(x, out):\n"
                "    tl.store(out + tl.arange(0, 16), tl.load(x + tl.arange(0, 16)).to(tl.float32))\n")

    ir_good = os.path.join(tmp, "good.ir")
    with open(ir_good, "w") as f:
        f.write("func @k(%p: ptr<i32>) {\n  %0 = constant {value = 2} : i32\n"
                "  %1 = mul %0, %0 : i32\n  store %p, %1\n  return\n}\n")
    ir_bad = os.path.join(tmp, "bad.ir")
    with open(ir_bad, "w") as f:
        f.write("func @k(%p: ptr<i32>) {\n  %0 = frobnicate : i32\n  return\n}\n")
    ir_invalid = os.path.join(tmp, "invalid.ir")
    with open(ir_invalid, "w") as f:
        f.write("func @k(%p: ptr<i32>) {\n  %0 = constant {value = 2} : i32\n"
                "  %1 = add %0, %p : i32\n  return\n}\n")

    # (name, argv, expected status, text expected in stdout+stderr)
    cases = [
        ("version", ["--version"], 0, "LLVM 22"),
        ("help", ["--help"], 0, "tritium compile FILE"),
        ("no command", [], 2, "missing command"),
        ("unknown command", ["frobnicate"], 2, "unknown command 'frobnicate'"),
        ("compile: no file", ["compile"], 2, "missing FILE"),
        ("compile: no kernel", ["compile", add, "--signature", sig], 2, "missing --kernel"),
        ("compile: no signature", ["compile", add, "--kernel", "add_kernel"], 2,
         "missing --signature"),
        ("compile: bad emit", ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                               "--emit", "ptx9"], 2, "--emit must be"),
        ("compile: unknown option", ["compile", add, "--kernel", "add_kernel", "--frob", "1"], 2,
         "unknown option --frob"),
        ("compile: option without value", ["compile", add, "--kernel"], 2, "needs a value"),
        ("compile: bad debug", ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                                "--debug", "yes"], 2, "--debug must be 0 or 1"),
        ("compile: bad num-warps", ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                                    "--num-warps", "3"], 2, "power of 2"),
        ("compile: not a number", ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                                   "--num-warps", "four"], 2, "must be an integer"),
        ("compile: missing file", ["compile", os.path.join(tmp, "nope.py"), "--kernel", "k",
                                   "--signature", ""], 2, "cannot read"),
        ("compile: unknown kernel", ["compile", add, "--kernel", "nope", "--signature", sig], 1,
         "no function named 'nope'"),
        ("compile: short signature", ["compile", add, "--kernel", "add_kernel", "--signature",
                                      "*fp32, *fp32"], 1, "no entry for parameter 'out_ptr'"),
        ("compile: bad signature type", ["compile", add, "--kernel", "add_kernel", "--signature",
                                         "*f32, *fp32, *fp32, i32, BLOCK=4"], 1,
         "unknown pointee type 'f32'"),
        ("compile: syntax error", ["compile", broken, "--kernel", "k", "--signature", "i32"], 1,
         "broken.py:"),
        ("compile: ast", ["compile", add, "--kernel", "add_kernel", "--emit", "ast"], 0,
         "add_kernel"),
        ("compile: ir", ["compile", add, "--kernel", "add_kernel", "--signature", sig], 0,
         "func @add_kernel"),
        ("run: no grid", ["run", add, "--kernel", "add_kernel", "--args", run_args], 2,
         "missing --grid"),
        ("run: bad grid", ["run", add, "--kernel", "add_kernel", "--grid", "1,2,3,4",
                           "--args", run_args], 2, "1 to 3"),
        ("run: negative grid", ["run", add, "--kernel", "add_kernel", "--grid", "-1",
                                "--args", run_args], 2, "[0, 2^31-1]"),
        ("run: bad buffer", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                             "--args", "x=rand:fp99:10"], 2, "unknown dtype 'fp99'"),
        ("run: bad buffer kind", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                                  "--args", "x=randn:fp32:10"], 2, "unknown buffer kind"),
        ("run: bad value", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                            "--args", "x=@@"], 2, "cannot read '@@'"),
        ("run: missing argument", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                                   "--args", "x_ptr=zeros:fp32:4"], 1,
         "kernel 'add_kernel': argument 'y_ptr': missing"),
        ("run: unknown keyword", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                                  "--args", run_args + ", bogus=3"], 1, "'bogus'"),
        ("run: vector add", ["run", add, "--kernel", "add_kernel", "--grid", "4",
                             "--args", run_args], 0,
         "signature: *fp32:16, *fp32:16, *fp32:16, i32, BLOCK=256"),
        ("run: result", ["run", add, "--kernel", "add_kernel", "--grid", "4", "--show", "4",
                         "--args", run_args], 0, "out_ptr: fp32[1000] = [1, 2, 3, 4, ...]"),
        ("run: empty grid", ["run", add, "--kernel", "add_kernel", "--grid", "0",
                             "--args", run_args], 0, "out_ptr: fp32[1000] = [0, 0,"),
        ("opt: print", ["opt", ir_good], 0, "  %1 = mul %0, %0 : i32\n  store %p, %1\n"),
        ("opt: passes", ["opt", ir_good, "--passes", "fold_constants,eliminate_dead_code"], 0,
         "func @k(%p: ptr<i32>) {\n  %0 = constant {value = 4} : i32\n  store %p, %0\n"),
        ("opt: unknown pass", ["opt", ir_good, "--passes=fold_constants,bogus"], 2,
         "unknown pass 'bogus' in --passes (known passes: combine_dot_add, eliminate_common_subexpressions"),
        ("opt: parse error", ["opt", ir_bad], 1, "bad.ir:2:8: error: unknown op 'frobnicate'"),
        ("opt: invalid IR", ["opt", ir_invalid, "--passes=fold_constants"], 1,
         "invalid.ir:3:3: error: invalid IR: 'add'"),
        ("opt: missing file", ["opt", os.path.join(tmp, "nope.ir")], 2, "cannot read"),
        ("cache: list", ["cache", "list"], 0, "0 entries"),
        ("cache: show nothing", ["cache", "show", "abc"], 1, "no single cache entry"),
        ("cache: clear", ["cache", "clear"], 0, "removed 0 entries"),
        ("cache: dir", ["cache", "dir"], 0, os.path.join(tmp, "cache")),
        ("cache: bad subcommand", ["cache", "frob"], 2, "tritium cache needs"),
    ]
    # A build without the NVPTX backend (the sanitizer build) says so instead of emitting.
    probe = subprocess.run([cli, "compile", add, "--kernel", "add_kernel", "--signature", sig,
                            "--emit", "ptx", "--arch", "sm_90"], capture_output=True, text=True,
                           timeout=120)
    if "without the NVPTX backend" in probe.stdout + probe.stderr:
        cases.append(("compile: ptx without the NVPTX backend",
                      ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                       "--emit", "ptx"], 1, "built without the NVPTX backend"))
    else:
        cases += [
            ("compile: ptx for sm_80",
             ["compile", add, "--kernel", "add_kernel", "--signature", sig, "--emit", "ptx",
              "--arch", "sm_80"], 0, ".target sm_80"),
            ("compile: ptx for sm_90",
             ["compile", add, "--kernel", "add_kernel", "--signature", sig, "--emit", "ptx",
              "--arch", "sm_90", "--num-warps", "8"], 0, ".visible .entry add_kernel"),
            ("compile: llvm",
             ["compile", add, "--kernel", "add_kernel", "--signature", sig, "--emit", "llvm",
              "--arch", "sm_90"], 0, "define"),
            ("compile: gpu-ir of a matmul",
             ["compile", matmul, "--kernel", "matmul", "--signature", matmul_sig, "--emit", "gpu-ir",
              "--arch", "sm_90"], 0,
             "dot %"),
            ("compile: gpu-ir notes the dot's instruction",
             ["compile", matmul, "--kernel", "matmul", "--signature", matmul_sig, "--emit", "gpu-ir",
              "--arch", "sm_80"], 0, "// mma.sync m16n8k16 f16; fragments: 2x2 warps, 2x4 tiles of 16x8 each"),
            ("compile: gpu-ir notes the stage buffers",
             ["compile", matmul, "--kernel", "matmul", "--signature", matmul_sig, "--emit", "gpu-ir",
              "--arch", "sm_80"], 0, "// cp.async into stage buffers at bytes 0, 5120 and 10240 (rows of 40 elements), stage 0"),
            ("compile: fnuz fp8 is AMD's",
             ["compile", fp8, "--kernel", "k", "--signature", "*i32, DT=fp8e4b8", "--emit", "ptx",
              "--arch", "sm_90"], 1,
             "fp8.py:6:9: error: type fp8e4b8 not supported in this architecture. "
             "The supported fp8 dtypes are ('fp8e4b15', 'fp8e4nv', 'fp8e5')"),
            ("compile: fp8e4nv needs sm_89",
             ["compile", fp8, "--kernel", "k", "--signature", "*i32, DT=fp8e4nv", "--emit", "ptx",
              "--arch", "sm_80"], 1,
             "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')"),
            ("compile: fp8e4nv on sm_90", ["compile", fp8, "--kernel", "k", "--signature", "*i32, DT=fp8e4nv",
                                           "--emit", "ptx", "--arch", "sm_90"], 0, ".target sm_90"),
            ("compile: fp8e5 on sm_80", ["compile", fp8, "--kernel", "k", "--signature", "*i32, DT=fp8e5",
                                         "--emit", "ptx", "--arch", "sm_80"], 0, ".target sm_80"),
            ("compile: an fp8 parameter the target lacks",
             ["compile", fp8, "--kernel", "p", "--signature", "*fp8e5b16, *fp32", "--emit", "ptx",
              "--arch", "sm_90"], 1, "fp8.py:10:1: error: parameter 'x': type fp8e5b16 not supported"),
            ("compile: the interpreter's IR takes every fp8 type",
             ["compile", fp8, "--kernel", "p", "--signature", "*fp8e5b16, *fp32", "--emit", "ir"], 0,
             "ptr<fp8e5b16>"),
            ("compile: gpu-ir notes wgmma on sm_90",
             ["compile", matmul, "--kernel", "matmul", "--signature", matmul_sig, "--emit", "gpu-ir",
              "--arch", "sm_90"], 0, "// wgmma m64n64k16 f16, operands in swizzled shared memory; fragments: 4x1 warps"),
        ]
    cases += [
        ("compile: bad arch",
         ["compile", add, "--kernel", "add_kernel", "--signature", sig, "--emit", "ptx",
          "--arch", "hopper"], 2, "--arch must be sm_XY"),
        ("compile: old arch",
         ["compile", add, "--kernel", "add_kernel", "--signature", sig, "--emit", "ptx",
          "--arch", "sm_60"], 1, "too old"),
    ]
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:  # no driver here: a cubin is a clear error, not a crash
        cases.append(("compile: cubin without a driver",
                      ["compile", add, "--kernel", "add_kernel", "--signature", sig,
                       "--emit", "cubin"], 1, "cannot run on the GPU: no CUDA driver"))
    failures = 0
    for name, argv, status, text in cases:
        r = subprocess.run([cli] + argv, capture_output=True, text=True, timeout=120)
        out = r.stdout + r.stderr
        ok = r.returncode == status and text in out
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}" +
              ("" if ok else f": status {r.returncode} (expected {status}), expected {text!r} "
                             f"in:\n{out}"))
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

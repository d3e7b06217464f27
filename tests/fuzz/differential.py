#!/usr/bin/env python3
"""Differential testing of generated kernels (issue 11): each kernel of `tritium_fuzz --emit
SEED` runs in tritium's interpreter (torch CPU tensors), on the GPU through tritium (torch CUDA
tensors) and, with --triton, under Triton on the GPU; every buffer is compared afterwards.

  PYTHONPATH=<tritium package> python3 tests/fuzz/differential.py --fuzz build/tests/tritium_fuzz \
      --count 100000 [--first 0] [--max-seconds T] [--triton] [--out DIR] [--atomics]

Agreement: integers (and bools) bit for bit; floats equal, both NaN, or within --ulps units in
the last place of their type (default 4: the GPU's exp2/log2/sin/cos/rsqrt are approximations,
libm's are correctly rounded; +, -, *, / and sqrt are IEEE on both, and FP fusion is turned off
with TRITIUM_DEFAULT_FP_FUSION=0 and TRITON_DEFAULT_FP_FUSION=0 so no fma changes a rounding). The generator only loads from
input pointers and only stores to output pointers, each program to its own elements, so
plain kernels have no races and one right answer. Kernels with atomics are
order-dependent once addresses collide (the generator's `offs % (n + 1)` makes them collide):
they are run but only compared with --atomics. A kernel the interpreter refuses (division by
zero, an out-of-bounds access: undefined on the GPU) is counted, not compared; so is a kernel tritium refuses to compile for the GPU alone (a
located error, such as fp64 math, which the interpreter runs): recorded, not a failure.

The table is rewritten to --out/summary.md every 20 kernels and at the end; --max-seconds
stops early with what was compared (a device command has a time limit).

Without a GPU (or without torch) it prints why and exits 0: nothing is compared. Mismatching
kernels are written to --out with their arguments, for a regression test or a documented
Triton difference.
"""
import argparse
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("TRITIUM_DEFAULT_FP_FUSION", "0")
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "0")


def no_gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


TORCH_DTYPES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "bfloat16",
    "fp32": "float32", "fp64": "float64",
}


def emit(fuzz, seed):
    text = subprocess.run([fuzz, "--emit", str(seed)], check=True, capture_output=True, text=True).stdout
    header, source = {}, []
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") and ":" in line and not source:
            key, value = line[2:].split(":", 1)
            header[key.strip()] = value.strip()
        else:
            source.append(line)
    return header, "".join(source)


def load(path, name, source):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


def make_args(spec, seed):
    """Buffers and scalars of the `--args` text: random, the same for every backend."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    args, kwargs = [], {}
    for item in [s.strip() for s in spec.split(",")]:
        if "=" in item:
            key, value = item.split("=", 1)
            kwargs[key] = int(value)
        elif item.startswith("rand:"):
            _, dtype, n = item.split(":")
            torch_dtype = getattr(torch, TORCH_DTYPES[dtype])
            if dtype == "i1":
                t = torch.randint(0, 2, (int(n),), generator=gen).bool()
            elif torch_dtype.is_floating_point:
                t = (torch.randn(int(n), generator=gen, dtype=torch.float64) * 8).to(torch_dtype)
            else:
                t = torch.randint(-100 if dtype[0] == "i" else 0, 200, (int(n),), generator=gen).to(torch_dtype)
            args.append(t)
        elif item in ("True", "False"):
            args.append(item == "True")
        elif "." in item:
            args.append(float(item))
        else:
            args.append(int(item))
    return args, kwargs


def copy_args(args, device):
    return [a.clone().to(device) if hasattr(a, "clone") else a for a in args]


def context_alive(torch):
    """False once a kernel faulted: CUDA errors such as an illegal address are sticky."""
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
        return True
    except Exception:
        return False


def ulp_distance(a, b):
    """Units in the last place between two float tensors of one dtype (as int64)."""
    import torch
    bits = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}[a.dtype]
    def ordered(x):
        i = x.view(bits).to(torch.int64)
        top = torch.iinfo(bits).min
        return torch.where(i < 0, top - i, i)
    return (ordered(a) - ordered(b)).abs()


def compare(reference, other, ulps):
    """None when the buffers agree, else a description of the first difference."""
    import torch
    for i, (x, y) in enumerate(zip(reference, other)):
        if not hasattr(x, "dtype"):
            continue
        x, y = x.cpu(), y.cpu()
        if x.dtype.is_floating_point:
            both_nan = x.isnan() & y.isnan()
            close = (x == y) | both_nan | (ulp_distance(x, y) <= ulps)
            bad = (~close).nonzero()
        else:
            bad = (x != y).nonzero()
        if len(bad):
            j = int(bad[0][0])
            return f"argument {i} element {j}: {x[j].item()!r} vs {y[j].item()!r} ({len(bad)} elements differ)"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz", default=os.environ.get("TRITIUM_FUZZ", "build/tests/tritium_fuzz"))
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=0, help="stop after this long (0: never)")
    parser.add_argument("--ulps", type=int, default=4)
    parser.add_argument("--triton", action="store_true", help="also run each kernel under Triton")
    parser.add_argument("--atomics", action="store_true", help="also compare kernels with atomics")
    parser.add_argument("--out", default="differential-findings")
    opts = parser.parse_args()

    reason = no_gpu_reason()
    if reason:
        print(f"differential: SKIPPED, no GPU ({reason}); nothing compared")
        return 0
    import torch
    import tritium
    triton = None
    if opts.triton:
        try:
            import triton
        except ImportError:
            print("differential: Triton is not installed; comparing the interpreter and the GPU only")
    out = pathlib.Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tritium-differential-"))
    counts = {k: 0 for k in ("kernels", "compile errors", "interpreter refused", "compared", "atomics skipped",
                             "GPU refused", "GPU mismatches", "GPU errors", "Triton compared",
                             "Triton mismatches", "Triton-only errors")}
    start = time.time()
    last = opts.first

    def summary():
        seconds = time.time() - start
        lines = ["| " + " | ".join(counts) + " |", "|" + " --- |" * len(counts),
                 "| " + " | ".join(str(v) for v in counts.values()) + " |",
                 f"seeds {opts.first}..{last}, {seconds:.0f} s"
                 f" ({counts['kernels'] / max(seconds, 1e-9):.2f} kernels/s); mismatches in {out}/"]
        (out / "summary.md").write_text("\n".join(lines) + "\n")
        return "\n".join(lines)

    for seed in range(opts.first, opts.first + opts.count):
        if opts.max_seconds and time.time() - start > opts.max_seconds:
            print(f"differential: stopped after {opts.max_seconds:.0f} s (--max-seconds)")
            break
        if counts["kernels"] % 20 == 0:
            summary()
        last = seed + 1
        counts["kernels"] += 1
        header, source = emit(opts.fuzz, seed)
        tritium_source = source.replace("import triton\nimport triton.language as tl",
                                        "import tritium as triton\nimport tritium.language as tl")
        grid = (int(header["grid"]),)
        args, kwargs = make_args(header["args"], seed)

        def record(kind, detail):
            counts[kind] += 1
            (out / f"{seed}-{kind.replace(' ', '_')}.py").write_text(
                f"# {kind}: {detail}\n# signature: {header['signature']}\n# args: {header['args']}\n"
                f"# grid: {header['grid']}\n{source}")
            # One line each in one file too: a device command brings back only so many files.
            last = [line for line in str(detail).strip().splitlines() if line.strip()][-1:] or [""]
            with open(out / "findings.txt", "a", encoding="utf-8") as log:
                log.write(f"{seed}\t{kind}\t{last[0][:300]}\n")

        try:
            kernel = load(tmp / f"k{seed}.py", f"k{seed}", tritium_source)
            reference = copy_args(args, "cpu")
            kernel[grid](*reference, **kwargs)
        except tritium.CompilationError as error:
            # Compile errors are the fuzzer's business; a runtime refusal (UB) is located too.
            counts["interpreter refused" if "out-of-bounds" in str(error) or "division" in str(error)
                   else "compile errors"] += 1
            continue
        except Exception:
            record("GPU errors", "interpreter: " + traceback.format_exc(limit=2))
            continue
        if "atomic_" in source and not opts.atomics:
            counts["atomics skipped"] += 1
            continue
        try:
            gpu = copy_args(args, "cuda")
            kernel[grid](*gpu, **kwargs)
            torch.cuda.synchronize()
        except tritium.CompilationError as error:
            record("GPU refused", str(error))
            continue
        except Exception:
            record("GPU errors", traceback.format_exc(limit=2))
            if not context_alive(torch):
                print(f"differential: seed {seed} left the CUDA context broken (a fault on the GPU); "
                      f"stopping: rerun from --first {seed + 1}")
                break
            continue
        counts["compared"] += 1
        difference = compare(reference, gpu, opts.ulps)
        if difference:
            record("GPU mismatches", difference)
        if triton is None:
            continue
        try:
            triton_kernel = load(tmp / f"t{seed}.py", f"t{seed}", source)
            theirs = copy_args(args, "cuda")
            triton_kernel[grid](*theirs, **kwargs)
            torch.cuda.synchronize()
        except Exception:
            record("Triton-only errors", traceback.format_exc(limit=2))
            continue
        counts["Triton compared"] += 1
        difference = compare(gpu, theirs, opts.ulps)
        if difference:
            record("Triton mismatches", difference)
    print(summary())
    return 1 if counts["GPU mismatches"] or counts["GPU errors"] else 0


if __name__ == "__main__":
    sys.exit(main())

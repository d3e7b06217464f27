#!/usr/bin/env python3
"""Differential testing of generated kernels (issue 11): each kernel of `tritium_fuzz --emit
SEED` runs in tritium's interpreter (numpy arrays), on the GPU through tritium (torch CUDA
tensors) and, with --triton, under Triton on the GPU; every buffer is compared afterwards.

  PYTHONPATH=<tritium package> python3 tests/fuzz/differential.py --fuzz build/tests/tritium_fuzz \
      --count 100000 [--first 0] [--max-seconds T] [--workers N] [--triton [--triton-every K]] \
      [--out DIR] [--atomics]

Agreement: integers (and bools) bit for bit; floats equal, both NaN, or within --ulps units in
the last place of their type (default 4: the GPU's fp32 exp/exp2/log/log2/sin/cos/sqrt/rsqrt
and / are approximations (.approx, div.full: 1-2 ulps), libm's are correctly rounded; +, -, *
are IEEE on both, and FP fusion is turned off with TRITIUM_DEFAULT_FP_FUSION=0 and
TRITON_DEFAULT_FP_FUSION=0 so no fma changes a rounding).
An fp64 pair that fp32 holds exactly (a value computed in fp32, widened by the store) is
compared in fp32 ulps. The bound is per value, not per kernel: an approximation's error grows
with the argument (exp(x) = ex2(x * log2 e) rounds x * log2 e first) and reaches integers
through conversions and bitcasts, so such mismatches are tagged with the kernel's
approximate ops, and a GPU mismatch waits for Triton: where Triton's GPU gives tritium's result
to the last bit, the difference is the GPU's arithmetic both use. The interpreter counts what
Triton leaves undefined (out-of-range float->int conversions, shifts by >= the width:
tritium._C._saturated_conversions/_wide_shifts) and a Triton finding after one is tagged.
The generator only loads from input pointers and only stores to output pointers, each program
to its own elements, so plain kernels have no races and one right answer. Kernels with atomics
are order-dependent once addresses collide (the generator's `offs % (n + 1)` makes them
collide): they are run but only compared with --atomics. A kernel the interpreter refuses
(division by zero, an out-of-bounds access: undefined on the GPU) is counted, not compared; so
is a kernel tritium refuses to compile for the GPU alone (a located error, such as fp64 math,
which the interpreter runs): recorded, not a failure.

Speed: --workers N processes (default min(CPUs - 1, 15); 'spawn', so each has its own CUDA
context) take chunks of --chunk seeds (one `tritium_fuzz --emit S --emit-count N` each); the
parent merges their results. Triton's compile is the slow part: --triton-every K compares
Triton on the seeds divisible by K only (the interpreter and the GPU compare every kernel). A
worker whose CUDA context breaks (a GPU fault), that dies, or that runs one kernel longer than
--kernel-timeout is recorded at that seed (a GPU error; a Triton-only error when Triton was
running) and replaced; a worker is also replaced after --worker-kernels kernels (bounded
memory over long runs). Triton's launchers (one C build per parameter-type list, a few hundred
over a long run) are shared by every worker through Triton's cache directory.

Output in --out: summary.md (the counts table, rewritten every few seconds and at the end;
--max-seconds stops everything in time with what was compared) and findings.txt (one line per
finding: seed, kind, class, the message's last line). Triton-only errors and Triton mismatches
are sorted into known classes (CLASSES below: a regex over the message, a one-line
explanation); unclassified findings come first, so only new kinds need reading. kernels.txt
holds the kernels (with signature, arguments, grid and the message) of the first --max-files
unclassified findings of each kind and two of each class: one file, as a device command
brings back only 8. Any seed replays with `--first SEED --count 1 --workers 1`.

Without a GPU (or without torch) it prints why and exits 0: nothing is compared.
`--backend interp` runs the whole harness without a GPU, the interpreter standing in for the
GPU and for Triton (0 mismatches expected); `--inject SEED:WHAT` fakes a finding at one seed
(tests/python/test_differential.py tests the workers, the merge and the deadline this way).
"""
import argparse
import collections
import importlib.util
import multiprocessing
import multiprocessing.connection
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

COUNTS = ("kernels", "compile errors", "interpreter refused", "compared", "atomics skipped",
          "GPU refused", "GPU mismatches", "GPU errors", "Triton compared", "Triton mismatches",
          "Triton-only errors")

# Known kinds of Triton-only errors and Triton mismatches: (kind, class, regex over the
# finding's message, why it is not a tritium bug). Add a class only once samples are read;
# a Triton diagnostic that tritium lacks (tritium accepting what Triton rejects on purpose)
# is no class: it stays unclassified until tritium gives the same error.
CLASSES = [
    ("GPU mismatches", "the GPU's arithmetic, as Triton's",
     re.compile(r"\[Triton's GPU result is tritium's\]"),
     "Triton's kernel on the GPU gave tritium's GPU result to the last bit, so the difference from "
     "the interpreter is the GPU's own arithmetic both compilers use (ex2/lg2/sqrt .approx, the "
     "order of a float scan; RESULTS.md 2026-12-02, seeds 2549, 21443, 33240, 40107, 56870)"),
    ("GPU mismatches", "approximate fp32 math",
     re.compile(r"\[approximate fp32 math: "),
     "a kernel with tl.exp/exp2/log/log2/sqrt/rsqrt/sin/cos/sigmoid, `/` or a float scan, whose GPU "
     "lanes (.approx, scan order) differ from the interpreter's libm by more than --ulps where the "
     "error grows (exp of |x| > 8, cos of 2^31, cumprod) or reaches an integer through a "
     "conversion or a bitcast (RESULTS.md 2026-12-02, all 13 read: seeds 1223, 12128, 13942, "
     "16033, 17357, 19606, 19942, 23500, 37334, 59931, 72169; 2026-12-04: seed 85746, "
     "div.full gave x / x = 0.99999994, which .to(tl.int8) makes 0)"),
    ("Triton mismatches", "float-to-int out of range",
     re.compile(r"float-to-integer conversion (may be|was) out of range"),
     "tritium saturates an out-of-range float->int conversion (PTX cvt.rzi, interpreter alike); "
     "Triton's LLVM fptosi/fptoui makes it poison (RESULTS.md, seeds 1075, 1082; 2026-12-02: the "
     "interpreter counts the conversions it saturated, seeds 315, 7017, 29664)"),
    ("Triton mismatches", "shift out of range",
     re.compile(r"\[a shift by >= the bit width in the interpreter\]"),
     "tritium defines a shift by >= the bit width (or a negative amount) as PTX clamps it: 0, or "
     "the sign fill; Triton's LLVM shl/lshr/ashr makes it poison (mask >> -1, offs << 255, "
     "v << 1024; RESULTS.md 2026-12-02, seeds 315, 2037, 3499, 6455)"),
    ("Triton mismatches", "Triton: vectorized load at a negative remainder",
     re.compile(r"\[a load at a remainder of a negative offset\]"),
     "Triton's axis analysis takes x % BLOCK as contiguous even where x < 0 (C remainder: 0, "
     "-255, -254, ...), so its vectorized load reads p[BLOCK+1] for p[1]: the generator's "
     "p0 + BLOCK + ((pid - 2) * BLOCK + arange) % BLOCK (RESULTS.md 2026-12-02, seeds 3335, 5369)"),
    ("Triton mismatches", "fp16/bf16 sum order",
     re.compile(r"\[a sum of fp16/bf16 values\]"),
     "tl.sum keeps fp16/bf16 (Triton 3.6 promotes only small integers), so every partial sum is "
     "rounded to 8 or 11 bits and the combine order shows: tritium's tree and its interpreter "
     "agree, Triton's layout-dependent order differs (RESULTS.md 2026-12-04, seed 59564: 16 bf16 "
     "values sum to 1704 in one tree order and 1696 in another; exact 1697.125)"),
    ("Triton mismatches", "Triton: libdevice log/sin/cos",
     re.compile(r"\[tl\.log/sin/cos: "),
     "Triton's fp32 tl.log/sin/cos give the correctly rounded result here (libdevice-like; also "
     "folded on constants) where tritium uses lg2/sin/cos.approx (RESULTS.md 2026-12-02, seeds "
     "1223, 2571, 12128, 19606)"),
    ("Triton-only errors", "Triton compiler failure",
     re.compile(r"PassManager::run failed|ConvertTritonGPUToLLVM|LLVM ERROR"),
     "Triton's own MLIR/LLVM pipeline failed on a kernel tritium compiles and runs; all 7 read "
     "(seeds 0..1500) are fp64 tl.dot: \"Currently fp64 don't support largeK MMA\" on stderr"),
    ("Triton-only errors", "Triton: an int argument of 1 is a constexpr",
     re.compile(r"AttributeError\(\"'(int|bool)' object has no attribute 'to'\"\)|"
                r"unsigned tensor and a negative scalar"),
     "Triton specializes an integer argument equal to 1 (and i1 True) into a Python constant, so "
     "(-s).to(...) has no .to and u16 + (-s) is a negative number meeting an unsigned tensor; "
     "tritium passes the argument as a value (all 72 read have a scalar argument of 1 or True: "
     "RESULTS.md 2026-12-02, seeds 389, 19106)"),
    ("Triton-only errors", "Triton: a fault after undefined behaviour",
     re.compile(r"the CUDA context broke.*\[(a shift by >= the bit width|a float-to-integer conversion "
                r"was out of range) in the interpreter\]", re.S),
     "Triton's kernel faulted after what LLVM makes poison (pid >> 2147483647, then a branch on "
     "it): not a tritium result (RESULTS.md 2026-12-02, seed 32931)"),
    ("Triton-only errors", "Triton: broadcast_to of a constant",
     re.compile(r"'constexpr_type' object has no attribute 'is_block'"),
     "Triton 3.6's tl.broadcast_to raises AttributeError on a constant operand "
     "(tl.broadcast_to(65535, (16,))); tritium broadcasts it (all 47 read, seeds 0..1500)"),
    ("Triton-only errors", "Triton: flip of one element",
     re.compile(r"'dtype' object has no attribute 'numel'"),
     "Triton 3.6's tl.flip raises AttributeError (in its reshape) on a dimension of size 1 "
     "(tl.flip(tl.broadcast_to(x, (1,)), 0)); tritium returns x (all 22 read, seeds 0..1500)"),
]

TORCH_DTYPES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "bfloat16",
    "fp32": "float32", "fp64": "float64",
}
# numpy holds every buffer; bf16 as its uint16 bits (numpy has no bfloat16).
NUMPY_DTYPES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "uint16",
    "fp32": "float32", "fp64": "float64",
}
FLOAT_BITS = {"fp16": "int16", "bf16": "int16", "fp32": "int32", "fp64": "int64"}


def no_gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


def parse_kernel(text):
    header, source = {}, []
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") and ":" in line and not source:
            key, value = line[2:].split(":", 1)
            header[key.strip()] = value.strip()
        else:
            source.append(line)
    return header, "".join(source)


def emit(fuzz, first, count=1):
    """[(seed, header, source)] of `count` generated kernels from seed `first`: one process."""
    argv = [fuzz, "--emit", str(first)] + (["--emit-count", str(count)] if count > 1 else [])
    text = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    if count == 1:
        return [(first, *parse_kernel(text))]
    kernels = re.split(r"^#### seed (\d+)\n", text, flags=re.M)[1:]  # seed, text, seed, ...
    return [(int(seed), *parse_kernel(body)) for seed, body in zip(kernels[0::2], kernels[1::2])]


def kernel_text(header, source):
    """A kernel as `tritium_fuzz --emit` printed it, for kernels.txt."""
    return f"# signature: {header['signature']}\n# args: {header['args']}\n# grid: {header['grid']}\n{source}"


def load(path, name, source):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


def bf16_bits(values):
    """float64 values rounded to bfloat16 (nearest even), as uint16 bits."""
    import numpy as np
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def make_args(spec, seed):
    """The `--args` text as [("buffer", dtype, numpy array) | ("scalar", value)] and the
    constexpr keywords: random, the same for every backend."""
    import numpy as np
    rng = np.random.default_rng(seed)
    args, kwargs = [], {}
    for item in [s.strip() for s in spec.split(",")]:
        if "=" in item:
            key, value = item.split("=", 1)
            kwargs[key] = int(value)
        elif item.startswith("rand:"):
            _, dtype, n = item.split(":")
            n = int(n)
            if dtype == "i1":
                a = rng.integers(0, 2, n).astype(bool)
            elif dtype == "bf16":
                a = bf16_bits(rng.standard_normal(n) * 8)
            elif dtype.startswith("fp"):
                a = (rng.standard_normal(n) * 8).astype(NUMPY_DTYPES[dtype])
            else:
                a = rng.integers(-100 if dtype[0] == "i" else 0, 200, n).astype(NUMPY_DTYPES[dtype])
            args.append(("buffer", dtype, a))
        elif item in ("True", "False"):
            args.append(("scalar", item == "True"))
        elif "." in item:
            args.append(("scalar", float(item)))
        else:
            args.append(("scalar", int(item)))
    return args, kwargs


def float_view(dtype, a):
    """Values of a float buffer as numpy floats (bf16 bits widened exactly to fp32)."""
    import numpy as np
    if dtype == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def ulp_distance(dtype, x, y):
    """Units in the last place between two float buffers of one dtype (int64, capped)."""
    import numpy as np
    bits = FLOAT_BITS[dtype]
    def ordered(a):
        i = a.view(bits).astype(np.int64)
        top = np.iinfo(bits).min
        return np.where(i < 0, top - i, i)  # monotonic in the value; -0 and +0 both 0
    ox, oy = ordered(x), ordered(y)
    same_side = (ox >= 0) == (oy >= 0)
    cap = np.int64(1) << 62
    across = np.minimum(np.abs(ox), cap) + np.minimum(np.abs(oy), cap)
    return np.where(same_side, np.abs(np.where(same_side, ox - oy, 0)), across)


# The ops whose GPU lanes are approximate: .approx math, a float scan's order, and `/`
# (div.full.f32, 2 ulp, as Triton's: x / x can be 0.99999994, seed 85746).
APPROXIMATE = re.compile(r"tl\.(exp|exp2|log|log2|sqrt|rsqrt|sin|cos|sigmoid|cumsum|cumprod)\(|\) (/) ")
LIBM = re.compile(r"tl\.(log|sin|cos)\(")


def fp32_exact(x):
    """Which fp64 values an fp32 holds exactly (a value computed in fp32 and stored widened)."""
    import numpy as np
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(np.float32).astype(np.float64) == x


def compare(reference, other, ulps, names=("interpreter", "GPU"), source="", saturated=False, wide=False):
    """None when the buffers agree, else a description of the first difference. Buffers are
    (dtype, numpy array) or None (a scalar). An fp64 pair that fp32 holds exactly is compared
    in fp32 ulps (computed in fp32, widened by the store). `source` (the kernel and its
    signature), `saturated` (the interpreter saturated a float->int conversion) and `wide`
    (it shifted by >= the bit width) only tag the text with likely causes, which CLASSES read."""
    import numpy as np
    for i, (x, y) in enumerate(zip(reference, other)):
        if x is None:
            continue
        dtype, x = x
        y = y[1]
        if dtype in FLOAT_BITS:
            fx, fy = float_view(dtype, x), float_view(dtype, y)
            nx, ny = np.isnan(fx), np.isnan(fy)
            distance = ulp_distance(dtype, x, y)
            if dtype == "fp64":
                narrow = fp32_exact(x) & fp32_exact(y)
                if narrow.any():
                    with np.errstate(over="ignore", invalid="ignore"):
                        x32, y32 = x.astype(np.float32), y.astype(np.float32)
                    distance = np.where(narrow, ulp_distance("fp32", x32, y32), distance)
            close = (nx & ny) | (~nx & ~ny & (distance <= ulps))
            bad = np.flatnonzero(~close)
            show = lambda a, j: repr(float(a[j]))
        else:
            bad = np.flatnonzero(x != y)
            show = lambda a, j: repr(a[j].item())
        if len(bad):
            j = int(bad[0])
            text = (f"argument {i} ({dtype}) element {j}: {names[0]} {show(fx if dtype in FLOAT_BITS else x, j)}"
                    f" vs {names[1]} {show(fy if dtype in FLOAT_BITS else y, j)} ({len(bad)} elements differ)")
            floats = re.search(r"\b(fp16|bf16|fp32|fp64|float\d+|bfloat16)\b", source)
            if dtype not in FLOAT_BITS and dtype != "i1" and floats:
                # tritium's value at an end of the range, in a kernel with floats: likely a float
                # converted to an integer (by .to() or by a store) out of range, which tritium
                # saturates (negative to unsigned: 0) and Triton leaves to LLVM.
                info = np.iinfo(x.dtype)
                if x[j].item() in (info.min, info.max):
                    text += " [a float-to-integer conversion may be out of range]"
            if saturated:
                text += " [a float-to-integer conversion was out of range in the interpreter]"
            if wide:
                text += " [a shift by >= the bit width in the interpreter]"
            if names[1] == "Triton":
                block = re.search(r"\bBLOCK=(\d+)", source)
                if ("(pid - 2) * BLOCK" in source and block and 1 <= j % int(block.group(1)) < 16
                        and len(bad) <= 30):
                    # Only lanes 1..w-1 of the first vector of programs 0 and 1 (w <= 16).
                    text += " [a load at a remainder of a negative offset]"
                if any(re.search(rf"\b{v} = .*\.to\(tl\.b?float16\)\n", source)
                       for v in re.findall(r"tl\.sum\((v\d+)\b", source)):
                    text += " [a sum of fp16/bf16 values]"
                if LIBM.search(source):
                    text += f" [tl.log/sin/cos: {', '.join(sorted(set(LIBM.findall(source))))}]"
            elif APPROXIMATE.search(source):
                ops = sorted({m.group(1) or m.group(2) for m in APPROXIMATE.finditer(source)})
                text += f" [approximate fp32 math: {', '.join(ops)}]"
            return text
    return None


def classify(kind, message):
    for class_kind, name, pattern, _ in CLASSES:
        if class_kind == kind and pattern.search(message):
            return name
    return "unclassified"


def exception_text(error):
    """The traceback (two frames), then the innermost cause as "Type: its last line": Triton's
    CompilationError raised from another exception ends at a caret under the source."""
    inner = error
    for _ in range(20):
        cause = inner.__cause__ or (None if inner.__suppress_context__ else inner.__context__)
        if cause is None:
            break
        inner = cause
    lines = [line for line in str(inner).strip().splitlines() if line.strip() and line.strip() != "^"]
    return (f"{traceback.format_exc(limit=2).rstrip()}\n"
            f"{type(inner).__name__}: {lines[-1].strip() if lines else ''}")


def last_line(detail):
    lines = [line for line in str(detail).strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:300]


# ----------------------------------------------------------------------------- the sides
class Interpreter:
    """tritium's interpreter on numpy arrays: the reference (and, with --backend interp, the
    stand-in for the GPU and for Triton)."""
    name = "interpreter"

    def __init__(self, tritium):
        self.tritium = tritium
        import tritium.language as tl
        self.bf16 = tl.bfloat16

    def prepare(self, args):
        out = []
        for item in args:
            if item[0] == "scalar":
                out.append(item[1])
            else:
                a = item[2].copy()
                out.append(self.tritium.reinterpret(a, self.bf16) if item[1] == "bf16" else a)
        return out

    def buffers(self, args, prepared):
        return [None if item[0] == "scalar" else (item[1], p.base if item[1] == "bf16" else p)
                for item, p in zip(args, prepared)]

    def synchronize(self):
        pass

    def alive(self):
        return True


class Cuda:
    """torch CUDA tensors, for tritium on the GPU and for Triton."""
    name = "GPU"

    def __init__(self):
        import torch
        self.torch = torch

    def prepare(self, args):
        torch = self.torch
        out = []
        for item in args:
            if item[0] == "scalar":
                out.append(item[1])
                continue
            dtype, a = item[1], item[2]
            if dtype in ("bf16", "u16", "u32", "u64"):  # move the bits, then retype
                signed = {"bf16": "int16", "u16": "int16", "u32": "int32", "u64": "int64"}[dtype]
                t = torch.from_numpy(a.view(signed).copy()).to("cuda")
                out.append(t.view(getattr(torch, TORCH_DTYPES[dtype])))
            else:
                out.append(torch.from_numpy(a.copy()).to("cuda"))
        return out

    def buffers(self, args, prepared):
        torch = self.torch
        result = []
        for item, t in zip(args, prepared):
            if item[0] == "scalar":
                result.append(None)
                continue
            dtype = item[1]
            if dtype in ("bf16", "u16", "u32", "u64"):
                signed = {"bf16": torch.int16, "u16": torch.int16, "u32": torch.int32, "u64": torch.int64}[dtype]
                a = t.view(signed).cpu().numpy().view(NUMPY_DTYPES[dtype])
            else:
                a = t.cpu().numpy()
            result.append((dtype, a))
        return result

    def synchronize(self):
        self.torch.cuda.synchronize()

    def alive(self):
        """False once a kernel faulted: CUDA errors such as an illegal address are sticky."""
        try:
            self.torch.cuda.synchronize()
            self.torch.zeros(1, device="cuda").add_(1).item()
            return True
        except Exception:
            return False


class Injected(Exception):
    pass


# ----------------------------------------------------------------------------- one worker
class Worker:
    def __init__(self, opts, tmp):
        self.opts = opts
        self.tmp = tmp
        import tritium
        self.tritium = tritium
        self.reference = Interpreter(tritium)
        if opts.backend == "gpu":
            self.gpu = Cuda()
            self.triton_side = self.gpu
        else:
            self.gpu = self.triton_side = Interpreter(tritium)
        self.triton_module = None
        if opts.triton:
            if opts.backend == "gpu":
                try:
                    import triton  # noqa: F401
                    self.triton_module = "triton"
                except ImportError:
                    pass
            else:
                self.triton_module = "tritium"  # the interpreter stands in for Triton
        self.current = None  # the parent's view: [seed, since, 1 while Triton runs]
        self.report = None  # given one: tritium's counts and findings are sent before Triton runs
        self.inject = {}
        for item in opts.inject:
            seed, what = item.split(":", 1)
            self.inject[int(seed)] = what

    def undefined(self):
        """The interpreter's counts of what Triton leaves undefined: saturated float->int
        conversions and shifts by >= the bit width (0 in builds without the counters)."""
        counts = [getattr(self.tritium._C, name, None) for name in ("_saturated_conversions", "_wide_shifts")]
        return tuple(count() if count else 0 for count in counts)

    def run_seed(self, seed, header, source):
        """(counts, findings, broken): counts to add, [(kind, detail)], whether the CUDA
        context is gone (the worker must be replaced)."""
        counts = collections.Counter(kernels=1)
        findings = []
        inject = self.inject.get(seed, "")
        if inject == "crash":
            os._exit(7)
        if inject == "hang":
            time.sleep(3600)
        if inject == "fault":
            return counts, [("GPU errors", "injected (--inject) [the CUDA context broke: a fault on the GPU; "
                                           "worker replaced]")], True
        tritium = self.tritium
        tritium_source = source.replace("import triton\nimport triton.language as tl",
                                        "import tritium as triton\nimport tritium.language as tl")
        grid = (int(header["grid"]),)
        args, kwargs = make_args(header["args"], seed)
        names = []

        def loaded(prefix, text):
            name = f"{prefix}{seed}"
            names.append(name)
            return load(self.tmp / f"{name}.py", name, text)

        try:
            try:
                kernel = loaded("k", tritium_source)
                reference = self.reference.prepare(args)
                before = self.undefined()
                kernel[grid](*reference, **kwargs)
                saturated, wide = (after > b for after, b in zip(self.undefined(), before))
            except tritium.CompilationError as error:
                # Compile errors are the fuzzer's business; a runtime refusal (UB) is located too.
                counts["interpreter refused" if "out-of-bounds" in str(error) or "division" in str(error)
                       else "compile errors"] += 1
                return counts, findings, False
            except Exception as error:
                findings.append(("GPU errors", "interpreter: " + exception_text(error)))
                return counts, findings, False
            if "atomic_" in source and not self.opts.atomics:
                counts["atomics skipped"] += 1
                return counts, findings, False
            reference = self.reference.buffers(args, reference)
            try:
                gpu = self.gpu.prepare(args)
                kernel[grid](*gpu, **kwargs)
                self.gpu.synchronize()
            except (tritium.CompilationError, tritium.OutOfResources) as error:
                findings.append(("GPU refused", str(error)))
                return counts, findings, False
            except Exception as error:
                alive = self.gpu.alive()
                detail = exception_text(error)
                if not alive:
                    detail += " [the CUDA context broke: a fault on the GPU; worker replaced]"
                findings.append(("GPU errors", detail))
                return counts, findings, not alive
            counts["compared"] += 1
            gpu = self.gpu.buffers(args, gpu)
            if inject == "mismatch":
                flip(gpu)
            gpu_difference = compare(reference, gpu, self.opts.ulps, ("interpreter", "GPU"), source)
            if self.triton_module is None or seed % self.opts.triton_every != 0:
                if gpu_difference:
                    findings.append(("GPU mismatches", gpu_difference))
                return counts, findings, False
            # A GPU mismatch waits for Triton: Triton's GPU agreeing with tritium's explains it.
            gpu_mismatch = [("GPU mismatches", gpu_difference)] if gpu_difference else []
            if self.report is not None:
                self.report(counts, findings)
                counts, findings = collections.Counter(), []
            if self.current is not None:
                self.current[2] = 1  # a crash or hang from here on is Triton's
            try:
                if inject.startswith("triton-error:"):
                    raise Injected(inject.split(":", 1)[1])
                if inject == "triton-crash":
                    os._exit(6)
                triton_source = source if self.triton_module == "triton" else tritium_source
                triton_kernel = loaded("t", triton_source)
                theirs = self.triton_side.prepare(args)
                triton_kernel[grid](*theirs, **kwargs)
                self.triton_side.synchronize()
            except Exception as error:
                detail = exception_text(error)
                alive = self.triton_side.alive()
                if not alive:  # Triton's kernel faulted: not tritium's, but the worker is lost
                    detail += " [the CUDA context broke; worker replaced]"
                if wide:
                    detail += " [a shift by >= the bit width in the interpreter]"
                if saturated:
                    detail += " [a float-to-integer conversion was out of range in the interpreter]"
                findings.append(("Triton-only errors", detail))
                return counts, gpu_mismatch + findings, not alive
            counts["Triton compared"] += 1
            theirs = self.triton_side.buffers(args, theirs)
            if inject == "triton-mismatch":
                flip(theirs)
            if gpu_mismatch and compare(gpu, theirs, 0, ("tritium", "Triton")) is None:
                gpu_mismatch = [("GPU mismatches", gpu_difference + " [Triton's GPU result is tritium's]")]
            difference = compare(gpu, theirs, self.opts.ulps, ("tritium", "Triton"),
                                 header["signature"] + "\n" + source, saturated, wide)
            if difference:
                findings.append(("Triton mismatches", difference))
            return counts, gpu_mismatch + findings, False
        finally:
            for name in names:
                sys.modules.pop(name, None)
                (self.tmp / f"{name}.py").unlink(missing_ok=True)


def flip(buffers):
    """Changes one element of the first buffer (an injected mismatch)."""
    for i, item in enumerate(buffers):
        if item is not None:
            dtype, a = item
            a = a.copy()
            bits = a.view({1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}[a.itemsize])
            bits[0] ^= 1
            buffers[i] = (dtype, a)
            return


def no_fp_fusion():
    """No fma in either compiler, so no rounding differs from the interpreter's (set in the
    processes that compile, before tritium or Triton is imported)."""
    os.environ.setdefault("TRITIUM_DEFAULT_FP_FUSION", "0")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "0")


def worker_main(wid, opts, conn, stop, current):
    """One worker process: takes (first, count) chunks from `conn` until told None or the
    stop event. Its reports go through the same pipe, written at once (not from a feeder
    thread), so what it said before a crash reaches the parent."""
    no_fp_fusion()
    if opts.backend == "interp":
        os.environ["TRITIUM_INTERPRET"] = "1"  # no GPU wanted, and no notice that there is none
    try:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"tritium-differential-{wid}-"))
        worker = Worker(opts, tmp)
        worker.current = current
    except Exception:
        conn.send(("failed", wid, traceback.format_exc()))
        return
    conn.send(("ready", wid))
    done = 0
    while not stop.is_set():
        if not conn.poll(0.5):
            continue
        chunk = conn.recv()
        if chunk is None:
            break
        first, count = chunk
        try:
            kernels = emit(opts.fuzz, first, count)
        except Exception as error:
            for seed in range(first, first + count):
                conn.send(("done", wid, seed, {"kernels": 1}, [("GPU errors", f"tritium_fuzz --emit: {error}")], ""))
            kernels = []
        broken = False
        for seed, header, source in kernels:
            if stop.is_set():
                break
            current[0], current[1], current[2] = seed, time.time(), 0  # shared: the parent sees it at once
            text = kernel_text(header, source)
            # tritium's part is reported before Triton runs (a crash in Triton loses only Triton's).
            worker.report = lambda counts, findings, seed=seed, text=text: conn.send(
                ("done", wid, seed, dict(counts), findings, text if findings else ""))
            counts, findings, broken = worker.run_seed(seed, header, source)
            worker.report(counts, findings)
            current[0] = -1
            done += 1
            if broken:
                break
        if broken:
            conn.send(("broken", wid))
            break
        if done >= opts.worker_kernels:
            conn.send(("retire", wid))
            break
        conn.send(("idle", wid))
    shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- the parent
class Run:
    def __init__(self, opts):
        self.opts = opts
        self.out = pathlib.Path(opts.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.counts = {k: 0 for k in COUNTS}
        self.findings = []  # (seed, kind, class, last line)
        self.files = collections.Counter()  # kernel files written per class
        self.done = set()
        self.frontier = opts.first  # every seed below it is done
        self.start = time.time()
        self.lost = 0  # workers lost to a GPU fault, a death or a hang
        (self.out / "findings.txt").write_text("")
        (self.out / "kernels.txt").write_text("")

    def add(self, seed, counts, findings, text):
        self.done.add(seed)
        for key, value in counts.items():
            self.counts[key] += value
        for kind, detail in findings:
            self.counts[kind] += 1
            line = last_line(detail)
            cls = classify(kind, str(detail))
            self.findings.append((seed, kind, cls, line))
            limit = self.opts.max_files if cls == "unclassified" else 2
            if text and self.files[(kind, cls)] < limit:
                # One file for every sample: a device command brings back only 8 files.
                self.files[(kind, cls)] += 1
                said = "".join(f"#   {line}\n" for line in str(detail).strip().splitlines())
                with open(self.out / "kernels.txt", "a", encoding="utf-8") as f:
                    f.write(f"#### seed {seed}: {kind} (class: {cls})\n{said}{text}")

    def first_not_done(self):
        while self.frontier in self.done:
            self.frontier += 1
        return self.frontier

    def write(self):
        o, c = self.opts, self.counts
        seconds = time.time() - self.start
        triton = ""
        if o.triton:
            triton = (f"; Triton on every kernel" if o.triton_every == 1 else
                      f"; Triton on the seeds divisible by {o.triton_every}")
        lines = ["| " + " | ".join(c) + " |", "|" + " --- |" * len(c),
                 "| " + " | ".join(str(v) for v in c.values()) + " |",
                 f"seeds {o.first}..{o.first + o.count}: {c['kernels']} kernels in {seconds:.0f} s"
                 f" ({c['kernels'] / max(seconds, 1e-9):.2f} kernels/s), {o.workers} workers"
                 f" ({self.lost} lost and replaced), backend {o.backend}{triton}; {c['Triton compared']}"
                 f" compared against Triton; every seed below {self.first_not_done()} done;"
                 f" findings in {self.out}/findings.txt, sample kernels in kernels.txt"]
        by_class = collections.Counter((kind, cls) for _, kind, cls, _ in self.findings)
        if by_class:
            explain = {(k, n): e for k, n, _, e in CLASSES}
            lines += ["", "| finding | class | count | why |", "| --- | --- | --- | --- |"]
            order = sorted(by_class, key=lambda kc: (kc[1] != "unclassified", COUNTS.index(kc[0]), kc[1]))
            for kind, cls in order:
                why = explain.get((kind, cls), "a located error on the GPU alone: recorded, not a failure"
                                  if kind == "GPU refused" else "not yet read: a tritium bug until shown otherwise")
                lines.append(f"| {kind} | {cls} | {by_class[(kind, cls)]} | {why} |")
        text = "\n".join(lines) + "\n"
        (self.out / "summary.md").write_text(text)
        rows = sorted(self.findings, key=lambda f: (f[2] != "unclassified", f[1], f[2], f[0]))
        log = [f"# {len(rows)} findings: seed, kind, class, last line of the message; unclassified first"]
        for key in sorted(by_class, key=lambda kc: (kc[1] != "unclassified", kc[0], kc[1])):
            log.append(f"# {by_class[key]:6d}  {key[0]} / {key[1]}")
        log += [f"{seed}\t{kind}\t{cls}\t{line}" for seed, kind, cls, line in rows]
        (self.out / "findings.txt").write_text("\n".join(log) + "\n")
        return text


def run_parallel(opts):
    ctx = multiprocessing.get_context("spawn")
    run = Run(opts)
    stop = ctx.Event()
    pending = collections.deque()
    for first in range(opts.first, opts.first + opts.count, opts.chunk):
        pending.append((first, min(opts.chunk, opts.first + opts.count - first)))
    # wid -> proc, conn (its pipe), chunk ([first, count] not yet reported, or None), current
    # (shared: the seed it runs, since when, 1 while under Triton; seed -1 between kernels).
    workers = {}
    state = {"next": 0, "grace_end": None}

    def spawn():
        wid = state["next"]
        state["next"] += 1
        conn, theirs = ctx.Pipe()
        current = ctx.Array("d", [-1.0, 0.0, 0.0])
        proc = ctx.Process(target=worker_main, args=(wid, opts, theirs, stop, current), daemon=True)
        proc.start()
        theirs.close()
        workers[wid] = {"proc": proc, "conn": conn, "chunk": None, "current": current}

    def send(w, message):
        try:
            w["conn"].send(message)
        except OSError:
            pass  # it died: seen below

    def give(wid):
        w = workers[wid]
        if pending and not stop.is_set():
            w["chunk"] = list(pending.popleft())
            send(w, tuple(w["chunk"]))
        else:
            w["chunk"] = None
            send(w, None)

    def stop_now(why):
        if not stop.is_set():
            print(f"differential: {why}", flush=True)
            stop.set()
            state["grace_end"] = time.time() + opts.grace

    def handle(message):
        kind, wid = message[0], message[1]
        w = workers.get(wid)
        if kind == "done":  # counted even from a worker already given up on
            run.add(*message[2:])
            if w is not None and w["chunk"] is not None:
                first, count = w["chunk"]
                w["chunk"] = [message[2] + 1, first + count - message[2] - 1]
            return
        if w is None:
            return
        if kind == "ready":
            give(wid)
        elif kind == "idle":
            give(wid)
        elif kind == "failed":  # not replaced: the run goes on with the others
            print(f"differential: worker {wid} could not start:\n{message[2]}", flush=True)
            workers.pop(wid)
            if not workers:
                stop_now("no worker could start; giving up")
        elif kind in ("broken", "retire"):
            retire(wid, None, kind)

    def retire(wid, seed, why):
        """A worker done with: the seeds of its chunk not reported go back to the front of
        the queue, except `seed` (the one it broke on: a GPU error, or a Triton-only error
        when Triton was running); a worker that died or hung is replaced while seeds remain."""
        w = workers.pop(wid)
        kind = "Triton-only errors" if w["current"][2] == 1 else "GPU errors"
        if w["proc"].is_alive() and seed is not None:
            w["proc"].kill()
        w["proc"].join(30)
        if seed is not None:
            try:
                text = kernel_text(*emit(opts.fuzz, seed)[0][1:])
            except Exception:
                text = ""
            counts = {"kernels": 1}
            if kind != "GPU errors":
                counts = {}  # tritium's part of this kernel is counted already
                why = "under Triton: " + why
            run.add(seed, counts, [(kind, f"seed {seed}: {why}; worker replaced")], text)
        if w["chunk"] is not None:
            first, count = w["chunk"]
            end = first + count
            if seed is not None and first <= seed < end:
                if seed + 1 < end:
                    pending.appendleft((seed + 1, end - seed - 1))
                end = seed
            if first < end:
                pending.appendleft((first, end - first))
        w["conn"].close()
        run.lost += seed is not None or why == "broken"
        if pending and not stop.is_set():
            spawn()

    def drain(timeout, only=None):
        """Handles what the workers (or worker `only`) sent, waiting up to `timeout`."""
        conns = {w["conn"]: wid for wid, w in workers.items() if only in (None, wid)}
        for conn in multiprocessing.connection.wait(list(conns), timeout):
            try:
                while conns[conn] in workers and conn.poll():
                    handle(conn.recv())
            except (EOFError, OSError):
                pass  # it died: seen by the caller

    for _ in range(min(opts.workers, len(pending))):
        spawn()
    last_write = 0.0
    while workers:
        now = time.time()
        if opts.max_seconds and now - run.start > opts.max_seconds:
            stop_now(f"stopping after {opts.max_seconds:.0f} s (--max-seconds)")
        if stop.is_set() and now > state["grace_end"]:
            drain(0)
            for wid in list(workers):
                workers.pop(wid)["proc"].kill()  # its current kernel is not counted
            break
        if now - last_write > 5:
            run.write()
            last_write = now
        drain(0.2)
        for wid, w in list(workers.items()):
            seed, since = int(w["current"][0]), w["current"][1]
            if not w["proc"].is_alive():
                drain(0, wid)  # what it sent before it died comes first
                if wid not in workers:
                    continue
                if stop.is_set() or (w["chunk"] is None and seed < 0):
                    workers.pop(wid)
                    if w["proc"].exitcode and not stop.is_set():
                        print(f"differential: worker {wid} exited with {w['proc'].exitcode} between chunks",
                              flush=True)
                elif seed >= 0:
                    code = w["proc"].exitcode
                    how = f"signal {-code}" if code < 0 else f"exit code {code}"
                    retire(wid, seed, f"the worker process died ({how}) running it")
                else:
                    retire(wid, None, "died")
            elif seed >= 0 and time.time() - since > opts.kernel_timeout:
                retire(wid, seed, f"ran longer than {opts.kernel_timeout:.0f} s (--kernel-timeout): killed")
    stop.set()
    for w in workers.values():
        w["proc"].kill()
    text = run.write()
    if run.first_not_done() < opts.first + opts.count:
        print(f"differential: not every seed done; continue with --first {run.first_not_done()}")
    print(text, end="")
    return 1 if run.counts["GPU mismatches"] or run.counts["GPU errors"] else 0


def parse_options(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz", default=os.environ.get("TRITIUM_FUZZ", "build/tests/tritium_fuzz"))
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=0, help="stop after this long (0: never)")
    parser.add_argument("--ulps", type=int, default=4)
    parser.add_argument("--triton", action="store_true", help="also run kernels under Triton")
    parser.add_argument("--triton-every", type=int, default=1, metavar="K",
                        help="with --triton: only the seeds divisible by K (default 1: every kernel)")
    parser.add_argument("--atomics", action="store_true", help="also compare kernels with atomics")
    parser.add_argument("--out", default="differential-findings")
    parser.add_argument("--workers", type=int, default=max(1, min((os.cpu_count() or 2) - 1, 15)))
    parser.add_argument("--chunk", type=int, default=20, help="seeds a worker takes at a time")
    parser.add_argument("--worker-kernels", type=int, default=2000,
                        help="replace a worker after this many kernels (bounds its memory)")
    parser.add_argument("--kernel-timeout", type=float, default=120,
                        help="a kernel running longer is a finding; its worker is replaced")
    parser.add_argument("--grace", type=float, default=20,
                        help="after --max-seconds, seconds the workers have to finish their kernel")
    parser.add_argument("--max-files", type=int, default=40,
                        help="kernels.txt holds this many unclassified findings' kernels of each kind "
                             "(two per known class)")
    parser.add_argument("--backend", choices=("gpu", "interp"), default="gpu",
                        help="interp: the interpreter stands in for the GPU and Triton (a dry run)")
    parser.add_argument("--inject", action="append", default=[], metavar="SEED:WHAT",
                        help="fake a finding at SEED (for the harness's own test): mismatch, "
                             "triton-mismatch, triton-error:MESSAGE, triton-crash, fault, crash, hang")
    opts = parser.parse_args(argv)
    opts.triton_every = max(1, opts.triton_every)
    opts.workers = max(1, opts.workers)
    opts.chunk = max(1, opts.chunk)
    opts.fuzz = os.path.abspath(opts.fuzz)
    return opts


def main(argv=None):
    opts = parse_options(argv)
    no_fp_fusion()
    if opts.backend == "gpu":
        reason = no_gpu_reason()
        if reason:
            print(f"differential: SKIPPED, no GPU ({reason}); nothing compared")
            return 0
        if opts.triton and importlib.util.find_spec("triton") is None:
            print("differential: Triton is not installed; comparing the interpreter and the GPU only")
    return run_parallel(opts)


if __name__ == "__main__":
    sys.exit(main())

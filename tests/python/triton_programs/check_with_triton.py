"""Compile the Triton programs tritium's tests run as "unmodified Triton programs" with the
real Triton, without a GPU, to check that they are valid Triton.

Run under a Python that has Triton 3.6 (not tritium's alias):
    /tmp/tvenv/bin/python tests/python/triton_programs/check_with_triton.py [--first-config] [-k TEXT] [-v]

Every @triton.jit kernel of tests/python/triton_programs/*.py and of benchmarks/kernels*.py
(whose kernels are undecorated functions or a module loaded per JIT; they are wrapped in
triton.jit here as the benchmarks do) is compiled through
triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32)),
i.e. all the way to a cubin through Triton's own ptxas.

The signatures are not written by hand: each kernel is "launched" (LAUNCHES below) with the
arguments tests/python/test_tutorials.py, tests/gpu/test_gpu_tutorials.py and the benchmark
scripts pass, with stand-in tensors (Fake: dtype, shape, strides, a 16-byte aligned address)
in place of the arrays, and Triton's own binder specializes them (pointer dtypes and
alignment, integers equal to 1 made constexpr, integers divisible by 16, host tensor
descriptors' block shapes) exactly as a launch on a GPU would. Autotuned kernels are compiled
once per config left by the autotuner's own pruning, after the config's pre_hook (which sets
the host descriptors' block shapes), as autotuning does; --first-config keeps only the first.

Output: per kernel "compiled OK (N compiles)" or each failing compile with Triton's error
(-v: every compile), then the @jit helpers (functions no launch names, compiled as part of
the kernels that call them), and any @jit function of a file that no launch reaches at all
(a gap in LAUNCHES: reported as a failure). Triton's warnings are printed as they come.
A failure inside Triton's own pass pipeline that a launch lists as known is shown apart and
not counted. Exit status 1 when anything failed.

Measured (Triton 3.6.0, all configs, 374 compiles): every kernel compiles but
attention_forward warp-specialized and causal at BLOCK_M 64 (2 compiles), where Triton's
NVGPUWarpSpecialization pass fails without a diagnostic. Triton warns once: tutorial 04's
tl.where on an int8 keep mask (a non-boolean condition, deprecated; Triton's tutorial passes
an int32 mask the same way). About 160 s of CPU (each run compiles afresh: its own cache).

Not a test of tritium; a check of the programs. A Triton error here means either the program
is not valid Triton (fix the program) or a launch below does not match how the tests launch
it (fix the launch).
"""

import argparse
import atexit
import importlib
import importlib.util
import inspect
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
BENCHMARKS = ROOT / "benchmarks"


def import_triton():
    # A cache of its own (removed at exit): every kernel goes through Triton's front end, so
    # its errors and warnings show on every run, not only the first.
    if "TRITON_CACHE_DIR" not in os.environ:
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="check_with_triton_")
        atexit.register(shutil.rmtree, os.environ["TRITON_CACHE_DIR"], True)
    import triton
    if getattr(triton, "__tritium__", False) or not hasattr(triton, "compile"):
        sys.exit("this needs the real Triton (e.g. /tmp/tvenv/bin/python), not tritium's alias")
    return triton


triton = import_triton()
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource, make_backend  # noqa: E402
from triton.runtime.autotuner import Autotuner  # noqa: E402
from triton.runtime.jit import JITFunction, TensorWrapper, create_function_from_signature  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
LIBDEVICE = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "lib" / "libdevice.10.bc"


class Fake:
    """A stand-in for a contiguous array: what Triton's binder and TensorDescriptor read."""

    def __init__(self, dtype, *shape, address=1 << 24):
        self.dtype = dtype
        self.shape = tuple(shape)
        self._address = address
        self.data = self  # read by triton.reinterpret's TensorWrapper
        self.device = "cuda"

    def data_ptr(self):
        return self._address

    def stride(self, dim=None):
        strides = [1]
        for size in reversed(self.shape[1:]):
            strides.insert(0, strides[0] * size)
        return tuple(strides) if dim is None else strides[dim]

    def reshape(self, *shape):
        return Fake(self.dtype, *shape, address=self._address)


def f16(*shape):
    return Fake(tl.float16, *shape)


def f32(*shape):
    return Fake(tl.float32, *shape)


def i32(*shape):
    return Fake(tl.int32, *shape)


def descriptor(base):
    """A host descriptor over a 2-D array with a placeholder block shape (the kernels' pre_hook
    or the program sets it), as the programs make them."""
    rows, cols = base.shape
    return TensorDescriptor(base, [rows, cols], [cols, 1], [1, 1])


# -- the launches ------------------------------------------------------------------------------
# (label, kernel attribute, positional args, keyword args[, known]), mirroring the tests'
# calls. `known`: why Triton's own pipeline (not its language checks) fails on some of this
# launch's compiles; such a failure ("PassManager::run failed") is listed, not counted.

def launches_tutorial_01(m):
    return [(f"n={n}", "vector_add_kernel", (f32(n), f32(n), f32(n), n), dict(BLOCK_SIZE=1024))
            for n in (1, 1000, 4099, 98432)]


def launches_tutorial_02(m):
    out = []
    for rows, cols in ((300, 181), (5, 1024), (4096, 2048), (333, 5000)):
        block = triton.next_power_of_2(cols)
        for stages in (2, 4):
            x, y = f32(rows, cols), f32(rows, cols)
            out.append((f"{rows}x{cols} stages={stages}", "softmax_rows_kernel",
                        (y, x, cols, cols, rows, cols),
                        dict(BLOCK_SIZE=block, num_stages=stages, num_warps=8 if block >= 2048 else 4)))
    return out


def launches_tutorial_03(m):
    out = []
    for M, N, K in ((64, 192, 50), (128, 64, 96), (1024, 768, 333)):
        for activation in ("", "leaky_relu"):
            a, b, c = f16(M, K), f16(K, N), f16(M, N)
            out.append((f"{M}x{N}x{K} {activation or 'none'}", "matmul_kernel",
                        (a, b, c, M, N, K, K, 1, N, 1, N, 1), dict(ACTIVATION=activation)))
    return out


def launches_tutorial_04(m):
    out = []
    for n in (1500, 5000, 1 << 20):
        out.append((f"n={n}", "masked_dropout_kernel", (f32(n), Fake(tl.int8, n), f32(n), n, 0.3),
                    dict(BLOCK_SIZE=256)))
        out.append((f"n={n}", "seeded_dropout_kernel", (f32(n), f32(n), n, 0.25, 1234), dict(BLOCK_SIZE=256)))
    return out


def launches_tutorial_05(m):
    out = []
    for rows, cols in ((17, 300), (64, 1024), (3, 70), (1151, 8192)):
        block = min(65536 // 4, triton.next_power_of_2(cols))
        warps = min(max(block // 256, 1), 8)
        groups = min(64 if cols <= 8192 else 16, rows)
        x, y, w, b = f32(rows, cols), f32(rows, cols), f32(cols), f32(cols)
        mean, rstd = f32(rows), f32(rows)
        out.append((f"{rows}x{cols}", "layer_norm_forward", (x, y, w, b, mean, rstd, cols, cols, 1e-5),
                    dict(BLOCK_SIZE=block, num_warps=warps, num_ctas=1)))
        out.append((f"{rows}x{cols}", "layer_norm_backward_dx",
                    (f32(rows, cols), f32(rows, cols), f32(groups, cols), f32(groups, cols), x, w, mean, rstd,
                     i32(2 * groups), cols, cols),
                    dict(BLOCK_SIZE_N=block, GROUP_SIZE_M=groups, num_warps=warps)))
        out.append((f"{rows}x{cols}", "layer_norm_backward_dwdb",
                    (f32(groups, cols), f32(groups, cols), f32(cols), f32(cols), groups, cols),
                    dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_ctas=1)))
    return out


def launches_tutorial_06(m):
    out = []
    for Z, H, n, d in ((1, 2, 64, 32), (2, 4, 512, 64), (2, 4, 1024, 128)):
        rows = Z * H * n
        for causal in (False, True):
            stage = 3 if causal else 1
            for host_descriptors in (True, False):
                q, k, v, o = (f16(Z, H, n, d) for _ in range(4))
                if host_descriptors:
                    descs = [descriptor(t.reshape(rows, d)) for t in (q, k, v, o)]
                else:
                    descs = [q, k, v, o]
                # The interpreter test warp-specializes the in-kernel descriptor form; Triton's
                # tutorial does so only on Blackwell, and Triton 3.6's sm_90 warp
                # specialization pass fails (no diagnostic) on the causal kernel's two
                # specialized loops at BLOCK_M 64, a failure of that pass, not of the program.
                ws = not host_descriptors and n == 64
                known = ("Triton 3.6's NVGPUWarpSpecialization pass fails on sm_90 for some configs"
                         if ws and causal else None)
                out.append((f"Z={Z} H={H} n={n} d={d} causal={causal} "
                            f"{'host' if host_descriptors else 'device'} descriptors"
                            f"{' warp_specialize' if ws else ''}", "attention_forward",
                            (0.35, f32(Z, H, n), Z, H, *descs),
                            dict(N_CTX=n, HEAD_DIM=d, FP8_OUTPUT=False, STAGE=stage, warp_specialize=ws), known))
            label = f"Z={Z} H={H} n={n} d={d} causal={causal}"
            out.append((label, "attention_backward_delta", (f16(Z, H, n, d), f16(Z, H, n, d), f32(Z, H, n), n),
                        dict(BLOCK_M=32, HEAD_DIM=d)))
            q = f16(Z, H, n, d)
            st = q.stride()
            out.append((label, "attention_backward",
                        (q, f16(Z, H, n, d), f16(Z, H, n, d), 0.35, f16(Z, H, n, d), f16(Z, H, n, d),
                         f16(Z, H, n, d), f16(Z, H, n, d), f32(Z, H, n), f32(Z, H, n), *st, H, n),
                        dict(BLOCK_M1=16, BLOCK_N1=32, BLOCK_M2=32, BLOCK_N2=16, HEAD_DIM=d, CAUSAL=causal,
                             num_warps=4, num_stages=3)))
    return out


def launches_tutorial_07(m):
    n = 3000
    return [("n=3000", "asin_kernel", (f32(n), f32(n), n), dict(BLOCK_SIZE=1024)),
            # The tutorial passes its libdevice's path; the tests pass a made-up one, which
            # only tritium ignores.
            ("n=3000 extern_libs", "asin_kernel", (f32(n), f32(n), n),
             dict(BLOCK_SIZE=1024, extern_libs={"libdevice": str(LIBDEVICE)})),
            ("n=98432", "asin_kernel", (f32(98432), f32(98432), 98432), dict(BLOCK_SIZE=1024)),
            ("n=3000", "cuda_libdevice_kernel", (f32(n), f32(n), n), dict(BLOCK_SIZE=512))]


def launches_tutorial_08(m):
    return [("4 problems", "grouped_matmul_kernel",
             (Fake(tl.int64, 4), Fake(tl.int64, 4), Fake(tl.int64, 4), i32(12), i32(12), 4), {})]


def launches_tutorial_09(m):
    out = []
    sms = 132
    for M, N, K in ((96, 160, 80), (1024, 1024, 512), (500, 700, 256)):
        label = f"{M}x{N}x{K}"
        a, b, c = f16(M, K), f16(K, N), f16(M, N)
        for flatten in (True, False):
            out.append((f"{label} flatten={flatten}", "matmul_persistent", (a, b, c, M, N, K, K, 1, N, 1, N, 1),
                        dict(NUM_SMS=sms, FLATTEN=flatten, WARP_SPECIALIZE=False)))
        for subtile in (False, True):
            if N % 8 == 0:  # a host descriptor needs 16-byte aligned rows (the GPU test expects the error)
                descs = [descriptor(f16(M, K)), descriptor(f16(N, K)), descriptor(f16(M, N))]
                out.append((f"{label} subtile={subtile}", "matmul_tma_persistent", (*descs, M, N, K),
                            dict(EPILOGUE_SUBTILE=subtile, NUM_SMS=sms, FLATTEN=False, WARP_SPECIALIZE=False)))
            for ws in (True, False):
                out.append((f"{label} subtile={subtile} warp_specialize={ws}", "matmul_descriptor_persistent",
                            (f16(M, K), f16(N, K), f16(M, N), M, N, K),
                            dict(EPILOGUE_SUBTILE=subtile, NUM_SMS=sms, FLATTEN=False, WARP_SPECIALIZE=ws)))
    return out


def launches_tutorial_10(m):
    out = []
    block_m, block_n, block_k = 128, 128, 128
    for M, N, K in ((128, 256, 256), (256, 512, 1024)):
        for fmt_a, fmt_b in (("e4m3", "e4m3"), ("e2m1", "e2m1"), ("e4m3", "e2m1")):
            per_a = 2 if fmt_a == "e2m1" else 1
            per_b = 2 if fmt_b == "e2m1" else 1
            a, b = Fake(tl.uint8, M, K // per_a), Fake(tl.uint8, N, K // per_b)
            if fmt_a == "e4m3":
                a = TensorWrapper(a, tl.float8e4nv)
            if fmt_b == "e4m3":
                b = TensorWrapper(b, tl.float8e4nv)
            a_desc = TensorDescriptor(a, [M, K // per_a], [K // per_a, 1], [block_m, block_k // per_a])
            b_desc = TensorDescriptor(b, [N, K // per_b], [K // per_b, 1], [block_n, block_k // per_b])
            c_desc = TensorDescriptor.from_tensor(f16(M, N), [block_m, block_n])
            sa = Fake(tl.uint8, M // 128, K // 32 // 4, 32, 4, 4)
            sb = Fake(tl.uint8, N // 128, K // 32 // 4, 32, 4, 4)
            row_stride = (K // 32 // 4) * 32 * 4 * 4
            out.append((f"{M}x{N}x{K} {fmt_a} x {fmt_b}", "block_scaled_matmul_kernel",
                        (a_desc, sa, b_desc, sb, c_desc, M, N, K, row_stride, 1, per_a, per_b, 32,
                         block_m, block_n, block_k, 2), {}))
    return out


def launches_tutorial_11(m):
    out = []
    for n in (5000, 1 << 22, 16):
        for pdl in (True, False):
            out.append((f"n={n} pdl={pdl}", "pdl_add_kernel", (f32(n), f32(n), f32(n), n),
                        dict(BLOCK_SIZE=1024, USE_GDC=pdl, launch_pdl=pdl)))
    return out


def launches_vector_add(m):
    return [(f"n={n}", "add_kernel", (f32(n), f32(n), f32(n), n), dict(BLOCK_SIZE=1024)) for n in (4099, 98432)]


def launches_kernels(m):
    n = 1024
    return [("n=1024", "add4", (f32(n), f32(n), f32(n), n), dict(BLOCK=1024)),
            ("n=1024", "add16", (*(f32(n) for _ in range(8)), n, 3, 5, 7, 9, 11, 13, 15), dict(BLOCK=1024))]


def launches_kernels_attention(m):
    out = []
    for d in (64, 128):
        for causal in (False, True):
            for n, (bm, bn, warps, stages) in ((256, (64, 64, 4, 3)), (512, (128, 128, 8, 3)),
                                               (1024, (128, 64, 4, 3))):
                q = f16(1, 3, n, d)
                st = q.stride()
                out.append((f"d={d} causal={causal} n={n} {bm}x{bn}", "attn_fwd",
                            (q, f16(1, 3, n, d), f16(1, 3, n, d), f16(1, 3, n, d), d ** -0.5, st[0], st[1], st[2],
                             3, n),
                            dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGE=3 if causal else 1, num_warps=warps,
                                 num_stages=stages)))
    return out


def launches_kernels_matmul(m):
    # bench_matmul.py's check sweep (dtype, precision, accumulator, output) and its blocks.
    cases = [(tl.float16, None, tl.float32, tl.float16), (tl.bfloat16, None, tl.float32, tl.float32),
             (tl.float32, "tf32", tl.float32, tl.float32), (tl.float32, "tf32x3", tl.float32, tl.float32),
             (tl.float32, "ieee", tl.float32, tl.float32), (tl.int8, None, tl.int32, tl.int32),
             (tl.float8e4nv, None, tl.float32, tl.float32), (tl.float8e5, None, tl.float32, tl.float32)]
    blocks = [(16, 16, 16, 1), (64, 64, 64, 4), (128, 128, 32, 4), (128, 256, 64, 8)]
    out = []
    for dtype, precision, acc, res in cases:
        for bm, bn, bk, warps in blocks:
            if dtype == tl.float32 and bm * bk > 128 * 32 and bn > 128:
                continue
            if dtype.primitive_bitwidth == 8 and bk < 32:
                continue  # Triton (and tritium) refuse an 8-bit tl.dot with K < 32
            even_k = dtype in (tl.float8e4nv, tl.float8e5)
            M, N, K = 187, 203, 3 * bk + (0 if even_k else 5)
            for hinted in (False, True):
                a, b, c = Fake(dtype, M, K), Fake(dtype, K, N), Fake(res, M, N)
                out.append((f"{dtype} {precision} {bm}x{bn}x{bk} hinted={hinted}", "matmul_kernel",
                            (a, b, c, M, N, K, K, 1, N, 1, N, 1),
                            dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, INPUT_PRECISION=precision,
                                 ACC_DTYPE=acc, OUT_DTYPE=res, EVEN_K=even_k, HINTED=hinted, num_warps=warps,
                                 num_stages=3)))
    # The benchmark's square fp16 sizes (integer arguments divisible by 16).
    a, b, c = f16(4096, 4096), f16(4096, 4096), f16(4096, 4096)
    out.append(("fp16 4096^3 128x256x64", "matmul_kernel", (a, b, c, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1),
                dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, INPUT_PRECISION=None, ACC_DTYPE=tl.float32,
                     OUT_DTYPE=tl.float16, num_warps=8, num_stages=3)))
    return out


def launches_kernels_reduce(m):
    out = []
    rows = 1024
    for dtype in (tl.float32, tl.float16):
        for cols in (128, 16384):
            block = triton.next_power_of_2(cols)
            warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
            out.append((f"{dtype} {rows}x{cols}", "softmax", (Fake(dtype, rows, cols), Fake(dtype, rows, cols), cols,
                                                            cols, cols), dict(BLOCK=block, num_warps=warps)))
    for n in (1024, 8192):
        x, y, w, b = f16(rows, n), f16(rows, n), f16(n), f16(n)
        warps = 4 if n <= 1024 else 8 if n <= 4096 else 16
        out.append((f"fp16 {rows}x{n}", "layer_norm", (x, y, w, b, f32(rows), f32(rows), n, n, 1e-5),
                    dict(BLOCK=n, num_warps=warps)))
        out.append((f"fp16 {rows}x{n}", "rms_norm", (x, y, w, n, n, 1e-6), dict(BLOCK=n, num_warps=warps)))
    for vocab in (32000, 50257):
        out.append((f"vocab={vocab}", "cross_entropy", (f32(rows, vocab), Fake(tl.int64, rows), f32(rows), vocab,
                                                        vocab), dict(BLOCK=4096, num_warps=8)))
    out.append(("2^24", "sum_atomic", (f32(1 << 24), f32(1), 1 << 24), dict(BLOCK=4096, ITERS=8, num_warps=8)))
    for cols in (1024, 4096):
        out.append((f"{rows}x{cols}", "cumsum_rows", (f32(rows, cols), f32(rows, cols), cols, cols),
                    dict(BLOCK=cols, num_warps=4 if cols <= 1024 else 8)))
    return out


def launches_kernels_transpose(m):
    out = []
    M = N = 4096
    for dtype in (tl.float32, tl.float16):
        for bm, bn in ((64, 64), (32, 128)):
            for name in ("transpose", "column_read"):
                out.append((f"{dtype} tile {bm}x{bn}", name, (Fake(dtype, M, N), Fake(dtype, M, N), M, N, N, N),
                            dict(BM=bm, BN=bn, num_warps=4)))
    return out


LAUNCHES = {
    "tutorial_01_vector_add": launches_tutorial_01, "tutorial_02_fused_softmax": launches_tutorial_02,
    "tutorial_03_matmul": launches_tutorial_03, "tutorial_04_dropout": launches_tutorial_04,
    "tutorial_05_layer_norm": launches_tutorial_05, "tutorial_06_fused_attention": launches_tutorial_06,
    "tutorial_07_libdevice": launches_tutorial_07, "tutorial_08_grouped_gemm": launches_tutorial_08,
    "tutorial_09_persistent_matmul": launches_tutorial_09, "tutorial_10_block_scaled_matmul": launches_tutorial_10,
    "tutorial_11_pdl": launches_tutorial_11, "vector_add": launches_vector_add, "kernels": launches_kernels,
    "kernels_attention": launches_kernels_attention, "kernels_matmul": launches_kernels_matmul,
    "kernels_reduce": launches_kernels_reduce, "kernels_transpose": launches_kernels_transpose,
}


# -- loading the files ---------------------------------------------------------------------------

def load_program(path):
    """A tests/python/triton_programs file, imported under the real Triton."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module(path.stem)


def load_benchmark(path):
    """benchmarks/kernels*.py: plain functions decorated here (as bench*.py do), or, for a
    file that picks its JIT itself (kernels_attention.load), that file under "triton"."""
    spec = importlib.util.spec_from_file_location(f"{path.stem}_under_triton", path)
    module = importlib.util.module_from_spec(spec)
    module.JIT = "triton"  # read by a file that picks its JIT itself (kernels_attention.py)
    spec.loader.exec_module(module)
    if not jit_objects(module):  # undecorated kernels: every function of the file is one
        for name, value in list(vars(module).items()):
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                setattr(module, name, triton.jit(value))
    return module


def files():
    programs = sorted(p for p in HERE.glob("*.py") if p.name != pathlib.Path(__file__).name)
    return [(p, load_program) for p in programs] + [(p, load_benchmark) for p in sorted(BENCHMARKS.glob("kernels*.py"))]


def jit_objects(module):
    """name -> JITFunction or Autotuner defined in this module (not imported into it)."""
    found = {}
    for name, value in vars(module).items():
        fn = value.fn if isinstance(value, Autotuner) else value
        while isinstance(fn, Autotuner):
            fn = fn.fn
        if isinstance(fn, JITFunction) and fn.fn.__module__ == module.__name__:
            found[name] = value
    return found


# -- compiling -----------------------------------------------------------------------------------

_BACKEND = make_backend(TARGET)


def compile_jit(fn, args, kwargs):
    """What JITFunction.run does before compiling, without a driver: bind, specialize, pack."""
    binder = create_function_from_signature(fn.signature, fn.params, _BACKEND)
    bound, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(_BACKEND, kwargs, bound, specialization, options)
    triton.compile(ASTSource(fn, signature, constexprs, attrs), target=TARGET, options=options.__dict__)
    return signature


def compile_launch(obj, args, kwargs, first_config):
    """[(config text or "", error or None)] for one launch."""
    if not isinstance(obj, Autotuner):
        return [("", run_one(obj, args, kwargs))]
    obj.nargs = dict(zip(obj.arg_names, args))
    try:
        configs = obj.prune_configs(kwargs)
    finally:
        nargs, obj.nargs = obj.nargs, None
    if first_config:
        configs = configs[:1]
    results = []
    for config in configs:
        if config.pre_hook is not None:
            config.pre_hook({**nargs, **kwargs, **config.all_kwargs()})
        results.append((str(config), run_one(obj.fn, args, {**kwargs, **config.all_kwargs()})))
    return results


def run_one(fn, args, kwargs):
    """None when it compiled, else Triton's error; Triton's warnings are printed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compile_jit(fn, args, kwargs)
            error = None
        except Exception as e:  # noqa: BLE001 (reported per kernel)
            error = describe(e)
    for w in {str(w.message) for w in caught}:
        print(f"  {fn.__name__}: Triton warns: {w}")
    return error


def describe(e):
    text = str(e).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    located = [line for line in lines if line.startswith("at ") or ": error:" in line]
    first = located[0] if located else (lines[0] if lines else "")
    last = lines[-1] if lines else ""
    return f"{type(e).__name__}: {first}" + (f" | {last}" if last and last != first else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first-config", action="store_true", help="only the first config of an autotuned kernel")
    parser.add_argument("-k", default="", help="only files or kernels whose name contains this")
    parser.add_argument("-v", action="store_true", help="print every compile, not one line per kernel")
    args = parser.parse_args()

    failures, total, known_failures = 0, 0, 0
    for path, loader in files():
        table = LAUNCHES.get(path.stem)
        try:
            module = loader(path)
        except Exception:  # noqa: BLE001
            print(f"{path.relative_to(ROOT)}: FAILED to import under Triton:\n{traceback.format_exc()}")
            failures += 1
            continue
        jits = jit_objects(module)
        if not jits:
            continue
        print(f"{path.relative_to(ROOT)}")
        if table is None:
            print("  FAILED: no launches listed for this file (add it to LAUNCHES)")
            failures += 1
            continue
        launched = set()
        per_kernel = {}
        for label, name, call_args, call_kwargs, *rest in table(module):
            known = rest[0] if rest else None
            if args.k and args.k not in path.stem and args.k not in name:
                continue
            launched.add(name)
            start = time.time()
            for config, error in compile_launch(getattr(module, name), call_args, call_kwargs, args.first_config):
                total += 1
                stats = per_kernel.setdefault(name, [0, 0, [], 0])
                stats[0] += 1
                where = label + (f" [{config}]" if config else "")
                if error is None:
                    if args.v:
                        print(f"  {name} ({where}): ok")
                elif known and "PassManager::run failed" in error:
                    known_failures += 1
                    stats[3] += 1
                    print(f"  {name} ({where}): known Triton failure ({known}): {error}")
                else:
                    failures += 1
                    stats[1] += 1
                    stats[2].append(f"{where}: {error}")
                    print(f"  {name} ({where}): FAILED {error}")
            if args.v:
                print(f"    ({time.time() - start:.1f}s)")
        for name, (count, failed, _, known_count) in per_kernel.items():
            known_text = f", {known_count} known Triton failure(s)" if known_count else ""
            print(f"  {name}: {'compiled OK' if not failed else f'{failed} FAILED'} ({count} compile(s){known_text})")
        if args.k:
            continue
        sources = {n: getattr(module, n) for n in launched}
        sources = "\n".join(inspect.getsource((o.fn if isinstance(o, Autotuner) else o).fn) for o in sources.values())
        for name in sorted(set(jits) - launched):
            if f"{name}(" in sources:
                print(f"  {name}: helper, compiled within the kernels that call it")
            else:
                failures += 1
                print(f"  {name}: FAILED: a @jit function no launch reaches")
    print(f"{total} compiles, {failures} failure(s), {known_failures} known failure(s) of Triton's own passes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

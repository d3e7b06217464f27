"""tl.dot on the GPU (issue 9): the interpreter suite's dot kernels (tests/python/
dot_kernels.py) with torch CUDA tensors, through tritium and, where `import triton` works,
through real Triton 3.6 from the same source; results against torch.matmul in fp64 (int8:
exact, in int64 on the CPU) and, for tritium, against tritium's own interpreter on the same
inputs (the reference order of src/interp/eval_dot.h).

Tolerances (rtol, and atol scaled by sqrt(K) since entries grow like sqrt(K)): fp16, bf16,
fp8 and tf32 1e-2; tf32x3 and ieee fp32 1e-4; fp64 1e-10; int8 exact; an fp16 result 1e-2.
Shapes 16x16x16 ... 128x256x64 in 1, 2, 4 and 8 warps, batched 3-D, the accumulator carried
through a K loop, the result cast to fp16, tl.dot inside an expression, and Triton's matmul
tutorial at M = N = K = 512 in fp16.

  python3 -m pytest -q tests/gpu/test_gpu_dot.py           (on the GPU machine)
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402

import dot_kernels  # noqa: E402  (tests/python, on sys.path through conftest.py)

try:
    import triton  # noqa: F401
    TRITON = dot_kernels.load("triton")
    NO_TRITON = None
except Exception as e:  # noqa: BLE001 (any failure to import means: no Triton here)
    TRITON, NO_TRITON = None, f"import triton failed: {type(e).__name__}: {e}"

TRITIUM = dot_kernels.load("tritium")

# Per input kind: (input dtype name, input_precision, tolerance).
KINDS = {
    "fp16": ("float16", None, 1e-2),
    "bf16": ("bfloat16", None, 1e-2),
    "fp32-ieee": ("float32", "ieee", 1e-4),
    "fp32-tf32": ("float32", "tf32", 1e-2),
    "fp32-tf32x3": ("float32", "tf32x3", 1e-4),
    "int8": ("int8", None, 0),
    "fp64": ("float64", None, 1e-10),
}


@pytest.fixture(params=["tritium", "triton"])
def which(request):
    if request.param == "triton" and TRITON is None:
        pytest.skip(NO_TRITON)
    return request.param


def module(which):
    return TRITIUM if which == "tritium" else TRITON


def fp8_supported():
    major, minor = torch.cuda.get_device_capability()
    return (major, minor) >= (8, 9)


def make(gen, dtype, shape):
    if dtype == "int8":
        return torch.randint(-128, 128, shape, device="cuda", generator=gen, dtype=torch.int8)
    x = torch.randn(shape, device="cuda", generator=gen)
    if dtype.startswith("float8"):
        x = x.clamp(-8, 8)
    return x.to(getattr(torch, {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}.get(dtype, dtype)))


def reference(a, b, acc=None):
    """acc + a @ b in fp64 on the GPU (int64 on the CPU for integers)."""
    if not a.dtype.is_floating_point:
        out = a.cpu().long() @ b.cpu().long()
        return out if acc is None else out + acc.cpu().long()
    out = torch.matmul(a.double(), b.double())
    return out if acc is None else out + acc.double()


def assert_close(out, ref, tol, K):
    if tol == 0:
        assert torch.equal(out.cpu().long(), ref.cpu().long())
        return
    torch.testing.assert_close(out.cpu().double(), ref.cpu().double(), rtol=tol, atol=tol * K ** 0.5)


def interpreted(kernel, args, kwargs, grid=(1,)):
    """The same launch in tritium's interpreter on host copies; returns the host arrays."""
    host = []
    for a in args:
        if isinstance(a, torch.Tensor):
            if a.dtype == torch.bfloat16:
                host.append(tritium.reinterpret(a.cpu().view(torch.int16).numpy().view(np.uint16),
                                                tritium.language.bfloat16))
            else:
                host.append(a.cpu().numpy().copy())
        else:
            host.append(a)
    kernel[grid](*host, **kwargs)
    return host


def run_dot(which, gen, kind, M, N, K, num_warps=4, has_acc=False, trans_b=False, use_op=False,
            out_dtype=None, b_dtype=None, trans_a=False):
    mod = module(which)
    dtype, prec, tol = KINDS.get(kind, (kind, None, 1e-2))
    if dtype in ("int8",) or dtype.startswith("float8"):
        K = max(K, 32)
    a = make(gen, dtype, (K, M)).T if trans_a else make(gen, dtype, (M, K))
    b = make(gen, b_dtype or dtype, (N, K)).T if trans_b else make(gen, b_dtype or dtype, (K, N))
    result = {"int8": torch.int32, "float64": torch.float64}.get(dtype, torch.float32)
    if out_dtype == "float16":
        result = torch.float16
    if has_acc:
        acc = (torch.randint(-1000, 1000, (M, N), device="cuda", generator=gen, dtype=torch.int32)
               if result == torch.int32 else torch.randn(M, N, device="cuda", generator=gen).to(result))
    else:
        acc = torch.zeros(M, N, device="cuda", dtype=result)
    c = torch.full((M, N), -7, device="cuda", dtype=result)
    out_name = out_dtype or {torch.int32: "int32", torch.float64: "float64"}.get(result, "float32")
    args = (a, b, c, acc, a.stride(0), a.stride(1), b.stride(0), b.stride(1))
    kwargs = dict(M=M, N=N, K=K, PREC=prec, HAS_ACC=has_acc, OUT_DTYPE=getattr(mod.tl, out_name),
                  USE_OP=use_op)
    mod.dot_kernel[(1,)](*args, **kwargs, num_warps=num_warps)
    torch.cuda.synchronize()
    ref = reference(a, b, acc if has_acc else None)
    assert_close(c, ref, 1e-2 if out_dtype == "float16" else tol, K)
    if which == "tritium" and not dtype.startswith("float8") and not trans_b and not trans_a:
        host = interpreted(TRITIUM.dot_kernel, list(args), kwargs)
        assert_close(c, torch.from_numpy(np.asarray(host[2])), 1e-2 if out_dtype == "float16" else tol, K)
    return c


SHAPES = [(16, 16, 16), (32, 64, 16), (64, 64, 64), (128, 128, 32), (128, 256, 64)]


def run_matmul(mod, a, b, c, config, acc_in_dot=True, prec=None, out_fp16=False, group=8, acc_dtype=None,
               imprecise=None):
    """The tutorial matmul (dot_kernels.matmul_kernel) over a (M x K) and b (K x N) into c,
    config = (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages or None for the default), then
    a device sync."""
    (M, K), N = a.shape, b.shape[1]
    BM, BN, BK, warps, stages = config
    options = dict(num_warps=warps) if stages is None else dict(num_warps=warps, num_stages=stages)
    mod.matmul_kernel[dot_kernels.matmul_grid(M, N, BM, BN)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=group, ACC_IN_DOT=acc_in_dot,
        PREC=prec, OUT_FP16=out_fp16, ACC_DTYPE=acc_dtype or mod.tl.float32, IMPRECISE=imprecise, **options)
    torch.cuda.synchronize()


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
@pytest.mark.parametrize("M,N,K", SHAPES)
@pytest.mark.parametrize("kind", ["fp16", "bf16", "fp32-ieee", "fp32-tf32", "fp32-tf32x3", "int8"])
def test_dot(gen, which, kind, M, N, K, num_warps):
    run_dot(which, gen, kind, M, N, K, num_warps=num_warps)


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (128, 256, 32), (32, 64, 16), (128, 64, 64)])
@pytest.mark.parametrize("kind", ["fp16", "bf16", "fp32-tf32", "fp32-ieee", "int8", "float8e4nv"])
@pytest.mark.parametrize("trans_a,trans_b", [(True, False), (True, True), (False, True)])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_dot_column_major_operands(gen, which, kind, M, N, K, trans_a, trans_b, num_warps):
    """One dot of operands stored column-major (Triton's test_dot with COL_A / COL_B): each
    is loaded 16 bytes along its contiguous axis (gpu/coalesce.h) and the dot stages it into
    shared memory from that layout (stage_slot) on every path: wgmma, mma.sync, FMA."""
    run_dot(which, gen, kind, M, N, K, num_warps=num_warps, trans_a=trans_a, trans_b=trans_b)


@pytest.mark.parametrize("M,N,K", [(8, 16, 16), (16, 8, 32), (8, 8, 64), (4, 8, 32), (1, 16, 64)])
@pytest.mark.parametrize("kind", ["fp16", "fp32-tf32", "int8"])
def test_dot_small_m_n(gen, which, kind, M, N, K):
    # Triton 3.6's min_dot_size on NVIDIA is (1, 1, 16) (K >= 32 for 8-bit): small M and N
    # are padded to the tensor-core shape.
    run_dot(which, gen, kind, M, N, K, num_warps=1)


@pytest.mark.parametrize("kind", ["fp16", "bf16", "fp32-tf32", "fp32-tf32x3", "int8", "fp64"])
@pytest.mark.parametrize("trans_b", [False, True])
def test_dot_with_acc(gen, which, kind, trans_b):
    out_dtype = {"int8": "int32", "fp64": "float64"}.get(kind)
    run_dot(which, gen, kind, 64, 32, 64, has_acc=True, trans_b=trans_b, out_dtype=out_dtype)


@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_fp16_result(gen, which, has_acc):
    c = run_dot(which, gen, "fp16", 64, 64, 32, has_acc=has_acc, out_dtype="float16")
    assert c.dtype == torch.float16


@pytest.mark.parametrize("a_dtype,b_dtype", [("float8e4nv", "float8e4nv"), ("float8e5", "float8e5"),
                                             ("float8e4nv", "float8e5"), ("float8e5", "float8e4nv")])
@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (128, 128, 128)])
def test_dot_fp8(gen, which, a_dtype, b_dtype, M, N, K):
    if not fp8_supported():
        pytest.skip("fp8 dot needs sm_89 or newer")
    run_dot(which, gen, a_dtype, M, N, K, b_dtype=b_dtype)


@pytest.mark.parametrize("B,M,N,K", [(2, 16, 16, 16), (4, 32, 32, 32), (8, 64, 32, 16)])
@pytest.mark.parametrize("kind", ["fp16", "fp32-tf32x3"])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_dot3d(gen, which, B, M, N, K, kind, num_warps):
    mod = module(which)
    dtype, _, tol = KINDS[kind]
    a = make(gen, dtype, (B, M, K))
    b = make(gen, dtype, (B, K, N))
    c = torch.full((B, M, N), float("nan"), device="cuda")
    mod.dot3d_kernel[(1,)](a, b, c, B=B, M=M, N=N, K=K, PREC="tf32x3", USE_OP=False, num_warps=num_warps)
    torch.cuda.synchronize()
    assert_close(c, torch.matmul(a.double(), b.double()), tol, K)


def test_matmul_operator(gen):
    # `a @ b` is tritium's extension (Triton 3.6 rejects it): tritium only.
    run_dot("tritium", gen, "fp16", 64, 64, 32, use_op=True)
    run_dot("tritium", gen, "int8", 32, 32, 64, use_op=True)


def test_dot_in_an_expression(gen, which):
    mod = module(which)
    a = torch.randn(64, 32, device="cuda", generator=gen).half()
    b = torch.randn(32, 128, device="cuda", generator=gen).half()
    bias = torch.randn(128, device="cuda", generator=gen)
    c = torch.full((64, 128), float("nan"), device="cuda", dtype=torch.float16)
    mod.dot_bias_kernel[(1,)](a, b, bias, c, M=64, N=128, K=32)
    torch.cuda.synchronize()
    ref = torch.relu(torch.matmul(a.double(), b.double()) + bias.double()[None, :])
    torch.testing.assert_close(c.double(), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (500, 300, 200), (256, 128, 1000)])
@pytest.mark.parametrize("acc_in_dot", [True, False])
@pytest.mark.parametrize("out_fp16", [True, False])
def test_matmul_tutorial_fp16(gen, which, M, N, K, acc_in_dot, out_fp16):
    """Triton's matmul tutorial (grouped ordering, tl.cdiv, K-edge masks) in fp16."""
    mod = module(which)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16 if out_fp16 else torch.float32)
    BM, BN, BK = 128, 128, 32
    run_matmul(mod, a, b, c, (BM, BN, BK, 8, 3), acc_in_dot=acc_in_dot, out_fp16=out_fp16)
    ref = torch.matmul(a.double(), b.double())
    assert_close(c, ref, 1e-2, K)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (384, 256, 1024), (500, 300, 256), (256, 128, 200)])
@pytest.mark.parametrize("config", [(64, 64, 32, 4, 2), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 128, 4, 4)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_k_major_b(gen, which, M, N, K, config, dtype):
    """The tutorial matmul with B stored K-major (b.T.contiguous().T: stride_bk = 1, as in
    Triton's fp8 tutorial): on sm_90 the pipelined B tiles are copied 16 bytes along K by the
    threads holding each run's first element and read by a K-major wgmma; K = 200 leaves the
    K-edge mask not constant over runs of 8, which keeps the row-wise copies."""
    mod = module(which)
    BM, BN, BK, warps, stages = config
    a = torch.randn(M, K, device="cuda", generator=gen).to(getattr(torch, dtype))
    b = torch.randn(K, N, device="cuda", generator=gen).to(getattr(torch, dtype)).T.contiguous().T
    assert b.stride(0) == 1
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (BM, BN, BK, warps, stages))
    assert_close(c, torch.matmul(a.double(), b.double()), 1e-2, K)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (384, 256, 1024), (500, 300, 256), (256, 128, 200)])
@pytest.mark.parametrize("config", [(64, 64, 32, 4, 2), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 8, 3)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("k_major_b", [False, True])
def test_matmul_m_major_a(gen, which, M, N, K, config, dtype, k_major_b):
    """The tutorial matmul with A stored M-major (a.T.contiguous().T: stride_am = 1, as
    `x.T @ w` in a backward pass): on sm_90 the pipelined A tiles are copied 16 bytes along M
    into a tile held transposed and read by wgmma with imm-trans-a (before: element by element
    through registers); B N-major or K-major; 64 x 128 at 8 warps puts two warpgroups side by
    side along N, each starting at A's first column. M = 500 and 300 leave the M-edge
    (`% M` wraps the rows, as the tutorial does) inside a run."""
    mod = module(which)
    BM, BN, BK, warps, stages = config
    a = torch.randn(M, K, device="cuda", generator=gen).to(getattr(torch, dtype)).T.contiguous().T
    b = torch.randn(K, N, device="cuda", generator=gen).to(getattr(torch, dtype))
    if k_major_b:
        b = b.T.contiguous().T
    assert a.stride(0) == 1
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (BM, BN, BK, warps, stages))
    assert_close(c, torch.matmul(a.double(), b.double()), 1e-2, K)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (256, 384, 1024), (300, 200, 256)])
@pytest.mark.parametrize("config", [(64, 64, 64, 4, 3), (128, 128, 64, 8, 3), (128, 256, 128, 8, 3), (64, 128, 32, 4, 2)])
@pytest.mark.parametrize("a_dtype,b_dtype", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2"),
                                             ("float8_e4m3fn", "float8_e5m2")])
def test_matmul_fp8_k_major(gen, which, M, N, K, config, a_dtype, b_dtype):
    """fp8 matmul (the tutorial kernel) with B K-major, as Triton's fp8 tutorial: on sm_90,
    pipelined, both operands are copied as bytes (B along K into a transposed tile) and
    wgmma runs on its own fp8 inputs (m64nNk32, e4m3/e5m2 in any pair). The hardware
    accumulates fp8 products below fp32 precision (Triton's sm_90 default does the same), so
    the check is on the relative norm of the error against fp32 sums of the same fp8 values."""
    if not fp8_supported():
        pytest.skip("fp8 dot needs sm_89 or newer")
    mod = module(which)
    BM, BN, BK, warps, stages = config
    a = torch.randn(M, K, device="cuda", generator=gen).to(getattr(torch, a_dtype))
    b = torch.randn(N, K, device="cuda", generator=gen).to(getattr(torch, b_dtype)).T
    assert b.stride(0) == 1
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (BM, BN, BK, warps, stages))
    ref = torch.matmul(a.double(), b.double())
    assert not torch.isnan(c).any()
    error = torch.linalg.vector_norm((c.double() - ref).flatten())
    assert error <= 2e-3 * torch.linalg.vector_norm(ref.flatten()), float(error / torch.linalg.vector_norm(ref))


@pytest.mark.parametrize("imprecise", [0, 32, 64])
@pytest.mark.parametrize("config", [(128, 128, 64, 8, 3), (64, 64, 64, 4, 3), (128, 256, 128, 8, 3)])
def test_fp8_max_num_imprecise_acc(gen, which, config, imprecise):
    """fp8 e4m3 with B K-major over a long K (4096), the relative error against exact sums of
    the same fp8 values: not given, wgmma accumulates all of K in its own precision (fewer
    bits than f32: 1.3e-3 on an H100, Triton the same); 0 < max_num_imprecise_acc <= BLOCK_K
    adds each run of that many elements of K into the f32 result (partial accumulators:
    4.4e-5 at 32, 7.4e-5 at 64, Triton's numbers); 0 is exact f32 accumulation (widened to
    f16, 6e-8, as Triton 3.6's)."""
    if not fp8_supported():
        pytest.skip("fp8 dot needs sm_89 or newer")
    mod = module(which)
    M, N, K = 256, 256, 4096
    a = make(gen, "float8e4nv", (M, K))
    b = make(gen, "float8e4nv", (N, K)).T
    ref = torch.matmul(a.double(), b.double())
    norm = torch.linalg.vector_norm(ref.flatten())
    errors = {}
    for given in (None, imprecise):
        c = torch.full((M, N), float("nan"), device="cuda")
        run_matmul(mod, a, b, c, config, imprecise=given)
        assert not torch.isnan(c).any()
        errors[given] = float(torch.linalg.vector_norm((c.double() - ref).flatten()) / norm)
    print(f"relative error, {which} {config} max_num_imprecise_acc None / {imprecise}: "
          f"{errors[None]:.3g} / {errors[imprecise]:.3g}")
    assert errors[imprecise] <= (1e-6 if imprecise == 0 else 2e-4), errors
    assert errors[imprecise] * 4 < errors[None], errors


@pytest.mark.parametrize("kind", ["fp32-tf32", "fp32-tf32x3", "fp32-ieee", "bf16"])
def test_matmul_tutorial_other_dtypes(gen, which, kind):
    mod = module(which)
    dtype, prec, tol = KINDS[kind]
    M, N, K = 256, 192, 320
    a = make(gen, dtype, (M, K))
    b = make(gen, dtype, (K, N))
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (64, 64, 32, 4, None), prec=prec, group=4)
    assert_close(c, torch.matmul(a.double(), b.double()), tol, K)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (500, 300, 200), (256, 384, 1024)])
@pytest.mark.parametrize("kind", ["fp32-tf32", "fp32-tf32x3", "int8"])
@pytest.mark.parametrize("config", [(64, 64, 32, 4, 2), (128, 128, 64, 8, 3), (64, 128, 64, 4, 4), (128, 64, 32, 4, 1)])
@pytest.mark.parametrize("layout", ["row-major", "k-major-b", "m-major-a"])
def test_matmul_pipelined_tf32_and_int8(gen, which, M, N, K, kind, config, layout):
    """The tutorial matmul in tf32 (fp32 inputs, Triton's default precision), tf32x3 and int8
    (int32 accumulator): with num_stages >= 2 their operands are copied by cp.async into
    padded stage buffers and read there by mma.sync (before, loaded each iteration); a K-major
    B or an M-major A 16 bytes along K or M into a tile held transposed (int8's K-major B then
    read a word of four k at a time). On sm_90 with 4 or 8 warps int8 runs on wgmma (k32 s8)
    where its operands reach shared memory K-major: unpipelined, or a K-major B
    (gpu/int8_wgmma.h); tf32 on wgmma k8."""
    mod = module(which)
    dtype, prec, tol = KINDS[kind]
    if dtype == "int8" and config[2] < 32:
        pytest.skip("int8 takes K in steps of 32")
    a = make(gen, dtype, (K, M)).T if layout == "m-major-a" else make(gen, dtype, (M, K))
    b = make(gen, dtype, (N, K)).T if layout == "k-major-b" else make(gen, dtype, (K, N))
    result = torch.int32 if dtype == "int8" else torch.float32
    c = torch.full((M, N), -7, device="cuda", dtype=result)
    run_matmul(mod, a, b, c, config, prec=prec, acc_dtype=mod.tl.int32 if dtype == "int8" else None)
    assert_close(c, reference(a, b), tol, K)


@pytest.mark.parametrize("M, N, K, block, warps, stages", [
    (256, 256, 256, (128, 64, 64), 4, 3), (300, 200, 136, (64, 64, 32), 4, 3), (512, 384, 512, (128, 128, 64), 8, 3),
    (128, 128, 128, (64, 64, 64), 4, 1)])
def test_matmul_with_a_transposed_weight_tile(gen, which, M, N, K, block, warps, stages):
    """y = x @ w.T with W [N, K] tiles loaded as they lie and transposed in the kernel (on
    sm_90 tritium loads them transposed and copies them K-major: GPU pass transpose_loads)."""
    x = make(gen, "float16", (M, K))
    w = make(gen, "float16", (N, K))
    y = torch.empty((M, N), device="cuda", dtype=torch.float32)
    bm, bn, bk = block
    module(which).matmul_nt_kernel[(triton_cdiv(M, bm), triton_cdiv(N, bn))](
        x, w, y, M, N, K, K, K, N, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
    assert_close(y, x.double() @ w.double().T, 1e-2, K)


def triton_cdiv(a, b):
    return -(-a // b)


@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 264)])
@pytest.mark.parametrize("config", [(64, 64, 32, 8, 3), (64, 128, 64, 8, 3), (64, 256, 64, 8, 3), (64, 64, 64, 8, 1),
                                    (64, 64, 32, 16, 3), (128, 64, 32, 16, 3)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("k_major_b", [False, True])
def test_matmul_warpgroups_along_n(gen, which, M, N, K, config, dtype, k_major_b):
    """Tiles of fewer rows than 16 per warp (64 rows at 8 or 16 warps, 128 at 16): on sm_90
    the warpgroups sit side by side along N, each a wgmma over its own columns of B (its
    descriptor starting inside B's swizzled tile, N-major or K-major); elsewhere mma.sync."""
    mod = module(which)
    BM, BN, BK, warps, stages = config
    a = torch.randn(M, K, device="cuda", generator=gen).to(getattr(torch, dtype))
    b = torch.randn(K, N, device="cuda", generator=gen).to(getattr(torch, dtype))
    if k_major_b:
        b = b.T.contiguous().T
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (BM, BN, BK, warps, stages))
    assert_close(c, torch.matmul(a.double(), b.double()), 1e-2, K)


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (128, 128, 32), (64, 128, 32)])
@pytest.mark.parametrize("kind", ["fp16", "bf16", "fp32-tf32", "int8"])
def test_dot_sixteen_warps(gen, which, kind, M, N, K):
    """16 warps: on sm_90 the 64- and 128-row blocks put warpgroups along N (the mma.sync
    paths of tf32 and int8 read the same column-blocked fragments)."""
    run_dot(which, gen, kind, M, N, K, num_warps=16)


def test_fp8_warpgroups_along_n(gen, which):
    """fp8 on wgmma's own inputs with two warpgroups side by side (64 rows, 8 warps)."""
    if not fp8_supported():
        pytest.skip("fp8 dot needs sm_89 or newer")
    mod = module(which)
    M, N, K = 256, 256, 256
    a = torch.randn(M, K, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda", generator=gen).to(torch.float8_e4m3fn).T
    c = torch.full((M, N), float("nan"), device="cuda")
    run_matmul(mod, a, b, c, (64, 128, 64, 8, 3))
    ref = torch.matmul(a.double(), b.double())
    error = torch.linalg.vector_norm((c.double() - ref).flatten())
    assert error <= 2e-3 * torch.linalg.vector_norm(ref.flatten()), float(error / torch.linalg.vector_norm(ref))

"""tl.dot_scaled on the GPU (issue 9): the kernels of tests/python/dot_scaled_kernels.py
with torch CUDA tensors, against tritium's own interpreter on the same inputs (the same
decomposition: upcast, scale, one fp32-accumulating dot, so only the summation order may
differ: 1e-5 of sum |terms|) and the numpy reference, and, where `import triton` works and
the GPU is sm_89 or newer (Triton's own limit for its dot_scaled tests), against real Triton
3.6 running the same source (finite inputs only: Triton's e5m2 upcast does not keep NaN).

  python3 -m pytest -q tests/gpu/test_gpu_dot_scaled.py     (on the GPU machine)
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dot_scaled_kernels as dsk  # noqa: E402  (tests/python, on sys.path through conftest.py)
from dot_scaled_kernels import operand, packed_shape, scales  # noqa: E402

try:
    import triton  # noqa: F401
    TRITON = dsk.load("triton")
    NO_TRITON = None
except Exception as e:  # noqa: BLE001 (any failure to import means: no Triton here)
    TRITON, NO_TRITON = None, f"import triton failed: {type(e).__name__}: {e}"

TRITIUM = dsk.load("tritium")
FORMATS = ["e2m1", "e4m3", "e5m2", "bf16", "fp16"]


def cuda(x):
    if x is None:
        return None
    if x.dtype == np.uint16:  # bf16 bit patterns: a bfloat16 tensor (the format's own dtype)
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16).cuda()
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def launch(module, arrays, M, N, K, a_k_pack, b_k_pack, fa, fb, fast_math, on_gpu):
    a, sa, b, sb, acc = arrays
    conv = cuda if on_gpu else (lambda x: x)
    c = torch.full((M, N), 7.0, device="cuda") if on_gpu else np.full((M, N), np.float32(7.0))
    module.dot_scaled_kernel[(1,)](conv(a), conv(sa), conv(b), conv(sb), conv(acc), c, M=M, N=N, K=K,
                                   A_ROWS=a.shape[0], A_COLS=a.shape[1], B_ROWS=b.shape[0], B_COLS=b.shape[1],
                                   A_FORMAT=fa, B_FORMAT=fb, A_K_PACK=a_k_pack, B_K_PACK=b_k_pack,
                                   HAS_ACC=acc is not None, FAST_MATH=fast_math, num_warps=4)
    if on_gpu:
        torch.cuda.synchronize()
        return c.cpu().numpy()
    return c


def close(got, want, bound, what):
    with np.errstate(over="ignore"):
        want = want.astype(np.float32).astype(np.float64)  # an fp32 result overflows where float64 does not
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{what}: NaN positions")
    got = got.astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.where(got == want, 0.0, np.abs(got - want))[~nan]
    assert (err <= 1e-5 * bound[~nan] + 1e-30).all(), f"{what}: max error {err.max():.3g}"


def case(rng, fa, fb, M, N, K, a_k_pack=True, b_k_pack=True, scale_sides="both", with_acc=False):
    compute = dsk.compute_type(fa, fb)
    a = operand(rng, fa, packed_shape(fa, M, K, 1, a_k_pack), compute)
    b = operand(rng, fb, packed_shape(fb, K, N, 0, b_k_pack), compute)
    sa = scales(rng, M, K, compute) if scale_sides in ("both", "lhs") else None
    sb = scales(rng, N, K, compute) if scale_sides in ("both", "rhs") else None
    acc = rng.standard_normal((M, N)).astype(np.float32) if with_acc else None
    return a, sa, b, sb, acc


def run_all(rng, fa, fb, M, N, K, a_k_pack=True, b_k_pack=True, scale_sides="both", with_acc=False, fast_math=False,
            arrays=None, triton_too=True):
    arrays = arrays or case(rng, fa, fb, M, N, K, a_k_pack, b_k_pack, scale_sides, with_acc)
    a, sa, b, sb, acc = arrays
    want, bound = dsk.reference(a, sa, fa, b, sb, fb, acc, a_k_pack, b_k_pack, fast_math)
    args = (M, N, K, a_k_pack, b_k_pack, fa, fb, fast_math)
    gpu = launch(TRITIUM, arrays, *args, on_gpu=True)
    interp = launch(TRITIUM, arrays, *args, on_gpu=False)
    close(gpu, interp.astype(np.float64), bound, "GPU against the interpreter")
    close(gpu, want, bound, "GPU against the numpy reference")
    if triton_too and TRITON is not None and torch.cuda.get_device_capability() >= (8, 9):
        try:
            theirs = launch(TRITON, arrays, *args, on_gpu=True)
        except Exception as e:  # noqa: BLE001 (a case Triton 3.6 rejects on this GPU)
            lines = [line for line in str(e).splitlines() if line.strip()]
            pytest.skip(f"tritium checked; Triton could not run this case: {type(e).__name__}: "
                        f"{lines[-1][:200] if lines else ''}")
        close(gpu, theirs.astype(np.float64), bound, "tritium against Triton")


@pytest.mark.parametrize("fa", FORMATS)
@pytest.mark.parametrize("fb", FORMATS)
@pytest.mark.parametrize("shape", [(32, 32, 64), (64, 128, 128)])
def test_format_pairs_on_gpu(rng, fa, fb, shape):
    which = (FORMATS.index(fa) + FORMATS.index(fb)) % 4
    run_all(rng, fa, fb, *shape, scale_sides=["both", "lhs", "rhs", "none"][which])


@pytest.mark.parametrize("a_k_pack,b_k_pack", [(False, True), (True, False), (False, False)])
def test_e2m1_packed_along_m_or_n_on_gpu(rng, a_k_pack, b_k_pack):
    run_all(rng, "e2m1", "e2m1", 64, 64, 128, a_k_pack=a_k_pack, b_k_pack=b_k_pack)


def test_acc_on_gpu(rng):
    run_all(rng, "e4m3", "e2m1", 64, 32, 64, with_acc=True)


@pytest.mark.parametrize("fast_math", [False, True])
def test_nan_and_edge_scales_on_gpu(rng, fast_math):
    # 0 (the group is 0), 254 (2^127: inf products) and 255 (NaN unless fast_math); not
    # compared with Triton (its hardware upcasts differ from IEEE on non-finite values).
    M, N, K = 32, 32, 64
    a, sa, b, sb, acc = case(rng, "e4m3", "e5m2", M, N, K)
    sa[0, 0], sa[1, 1], sa[2, 0] = 0, 254, 255
    sb[5, 1] = 255
    # One nonzero value in the 2^127 group, so no sum of huge terms depends on the order.
    a[1, 32:64] = 0
    a[1, 40] = 0x38  # 1.0
    run_all(rng, "e4m3", "e5m2", M, N, K, fast_math=fast_math, arrays=(a, sa, b, sb, acc), triton_too=False)


def test_batched_3d_on_gpu(rng):
    B, M, N, K = 2, 32, 32, 64
    a = operand(rng, "e2m1", (B, M, K // 2))
    b = operand(rng, "e4m3", (B, K, N))
    sa = rng.integers(120, 135, (B, M, K // 32), dtype=np.uint8)
    sb = rng.integers(120, 135, (B, N, K // 32), dtype=np.uint8)
    want, bound = dsk.reference(a, sa, "e2m1", b, sb, "e4m3")
    c = torch.zeros((B, M, N), device="cuda")
    TRITIUM.dot_scaled_3d_kernel[(1,)](cuda(a), cuda(sa), cuda(b), cuda(sb), c, B=B, M=M, N=N, K=K, A_COLS=K // 2,
                                       B_ROWS=K, A_FORMAT="e2m1", B_FORMAT="e4m3")
    close(c.cpu().numpy(), want, bound, "batched GPU against the numpy reference")

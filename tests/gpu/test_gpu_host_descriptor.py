"""Tensor descriptors made on the host (TensorDescriptor arguments) on the GPU: the kernels of
tests/python/host_desc_kernels.py with torch CUDA tensors, through tritium (its own
TensorDescriptor class and, where Triton is installed, Triton's) and, where `import triton`
works, through real Triton 3.6 from the same source with Triton's class; results against
torch. On sm_90 both JITs copy their blocks with the TMA (tritium: docs/DESIGN.md, "TMA"), so
equal results also check the padding and masking of edge tiles.

  python3 -m pytest -q tests/gpu/test_gpu_host_descriptor.py       (on the GPU machine)
"""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import host_desc_kernels  # noqa: E402  (tests/python, on sys.path through conftest.py)

try:
    import triton  # noqa: F401
    TRITON = host_desc_kernels.load("triton")
    NO_TRITON = None
except Exception as e:  # noqa: BLE001 (any failure to import means: no Triton here)
    TRITON, NO_TRITON = None, f"import triton failed: {type(e).__name__}: {e}"

TRITIUM = host_desc_kernels.load("tritium")


# (kernels, descriptor class): tritium with its class, tritium with Triton's, Triton.
@pytest.fixture(params=["tritium", "tritium-with-triton-class", "triton"])
def which(request):
    if request.param != "tritium" and TRITON is None:
        pytest.skip(NO_TRITON)
    kernels = TRITON if request.param == "triton" else TRITIUM
    desc_class = TRITIUM.TensorDescriptor if request.param == "tritium" else TRITON.TensorDescriptor
    return kernels, desc_class


def sync():
    torch.cuda.synchronize()


def padded(gen, rows, cols, dtype, fill=None):
    """A rows x cols view of a tensor whose rows are a multiple of 16 bytes long."""
    per16 = 16 // torch.tensor([], dtype=dtype).element_size()
    full = (rows, -(-cols // per16) * per16)
    if fill is not None:
        t = torch.full(full, fill, device="cuda", dtype=dtype)
    elif dtype.is_floating_point:
        t = torch.randn(full, device="cuda", generator=gen).to(dtype)
    else:
        t = torch.randint(-100, 100, full, device="cuda", generator=gen, dtype=dtype)
    return t[:, :cols]


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("M, N, BM, BN", [(128, 256, 64, 64), (100, 200, 32, 64), (7, 40, 16, 32), (256, 64, 128, 64)])
def test_tile_copy(gen, which, dtype, M, N, BM, BN):
    kernels, TensorDescriptor = which
    src = padded(gen, M, N, dtype)
    dst = padded(gen, M, N, dtype, fill=0)
    a = TensorDescriptor(src, list(src.shape), list(src.stride()), [BM, BN])
    b = TensorDescriptor(dst, list(dst.shape), list(dst.stride()), [BM, BN])
    kernels.tile_copy_kernel[(tritium.cdiv(M, BM), tritium.cdiv(N, BN))](a, b)
    sync()
    assert torch.equal(dst, src)


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("off_m, off_n", [(0, 0), (48, 96), (-16, -32), (200, 0)])
def test_edge_tiles_are_padded(gen, which, padding, off_m, off_n):
    kernels, TensorDescriptor = which
    M, N, BM, BN = 64, 128, 32, 64
    src = torch.randn((M, N), device="cuda", generator=gen)
    out = torch.full((BM, BN), 7.0, device="cuda")
    desc = TensorDescriptor.from_tensor(src, [BM, BN], padding=padding)
    kernels.load_tile_kernel[(1,)](desc, out, off_m, off_n, BM=BM, BN=BN)
    sync()
    expected = torch.full((BM, BN), float("nan") if padding == "nan" else 0.0, device="cuda")
    r0, c0 = max(off_m, 0), max(off_n, 0)
    r1, c1 = min(off_m + BM, M), min(off_n + BN, N)
    if r0 < r1 and c0 < c1:
        expected[r0 - off_m:r1 - off_m, c0 - off_n:c1 - off_n] = src[r0:r1, c0:c1]
    torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)


def test_rank_3(gen, which):
    kernels, TensorDescriptor = which
    src = torch.randn((6, 4, 32), device="cuda", generator=gen)
    dst = torch.zeros_like(src)
    kernels.scale_3d_kernel[(3,)](TensorDescriptor.from_tensor(src, [2, 4, 32]),
                                  TensorDescriptor.from_tensor(dst, [2, 4, 32]), 2.5)
    sync()
    assert torch.equal(dst, src * 2.5)


def test_shape_and_strides_in_the_kernel(which):
    kernels, TensorDescriptor = which
    base = torch.zeros((12, 40), device="cuda")
    out = torch.zeros(4, device="cuda", dtype=torch.int32)
    kernels.desc_facts_kernel[(1,)](TensorDescriptor(base, [10, 36], [40, 1], [8, 16]), out)
    sync()
    assert out.tolist() == [10, 36, 40, 1]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("M, N, K", [(128, 128, 128), (200, 136, 264), (512, 512, 512)])
def test_matmul_loop_over_k(gen, which, dtype, M, N, K):
    kernels, TensorDescriptor = which
    a = padded(gen, M, K, dtype)
    b = padded(gen, K, N, dtype)
    c = padded(gen, M, N, dtype, fill=0)
    BM, BN, BK = 64, 64, 32
    descs = [TensorDescriptor(t, list(t.shape), list(t.stride()), blk)
             for t, blk in ((a, [BM, BK]), (b, [BK, BN]), (c, [BM, BN]))]
    kernels.matmul_desc_kernel[(tritium.cdiv(M, BM), tritium.cdiv(N, BN))](*descs, K, BLOCK_M=BM, BLOCK_N=BN,
                                                                            BLOCK_K=BK)
    sync()
    ref = (a.double() @ b.double()).to(dtype)
    torch.testing.assert_close(c, ref, rtol=2e-2, atol=2e-2 * (K ** 0.5))


@pytest.mark.parametrize("BM, BN, BK, warps", [(64, 64, 32, 8), (64, 128, 64, 8), (64, 64, 64, 16), (128, 128, 64, 8)])
def test_matmul_loop_warpgroups_along_n(gen, which, BM, BN, BK, warps):
    """TMA-copied operands read by warpgroups side by side along N (64-row tiles, 8 or 16
    warps); and 128 x 128 x 64 at 8 warps, whose wgmma in flight refills the buffer it read
    after its wait (three stage buffers, not four: async_copy.h copies_after_dot)."""
    kernels, TensorDescriptor = which
    M, N, K = 200, 264, 328
    a = padded(gen, M, K, torch.float16)
    b = padded(gen, K, N, torch.float16)
    c = padded(gen, M, N, torch.float16, fill=0)
    descs = [TensorDescriptor(t, list(t.shape), list(t.stride()), blk)
             for t, blk in ((a, [BM, BK]), (b, [BK, BN]), (c, [BM, BN]))]
    kernels.matmul_desc_kernel[(tritium.cdiv(M, BM), tritium.cdiv(N, BN))](*descs, K, BLOCK_M=BM, BLOCK_N=BN,
                                                                            BLOCK_K=BK, num_warps=warps)
    sync()
    ref = (a.double() @ b.double()).to(torch.float16)
    torch.testing.assert_close(c, ref, rtol=2e-2, atol=2e-2 * (K ** 0.5))


def test_tritium_and_triton_agree(gen):
    if TRITON is None:
        pytest.skip(NO_TRITON)
    M, N, K = 192, 160, 96
    a = padded(gen, M, K, torch.float16)
    b = padded(gen, K, N, torch.float16)
    outs = []
    for kernels in (TRITIUM, TRITON):
        c = padded(gen, M, N, torch.float16, fill=0)
        descs = [TRITON.TensorDescriptor(t, list(t.shape), list(t.stride()), blk)
                 for t, blk in ((a, [64, 32]), (b, [32, 64]), (c, [64, 64]))]
        kernels.matmul_desc_kernel[(tritium.cdiv(M, 64), tritium.cdiv(N, 64))](*descs, K, BLOCK_M=64, BLOCK_N=64,
                                                                                BLOCK_K=32)
        sync()
        outs.append(c)
    # Same fp32 accumulation over the same K order in 32-wide steps; the MMA shapes differ,
    # so allow the last bit of fp16.
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-3, atol=1e-3)


def test_launch_error_names_the_argument(which):
    kernels, TensorDescriptor = which
    if kernels is TRITON:
        pytest.skip("tritium's launch checks; Triton asserts in the constructor")
    desc = TensorDescriptor(torch.zeros((8, 16), device="cuda"), [8, 16], [16, 1], [8, 16])
    desc.strides = [18, 1]  # 72 bytes of fp32: not a multiple of 16 (20 would be 80, aligned)
    with pytest.raises(tritium.LaunchError, match=r"argument 'desc'.*strides must be 16-byte aligned"):
        kernels.load_tile_kernel[(1,)](desc, torch.zeros(128, device="cuda"), 0, 0, BM=8, BN=16)


@pytest.mark.parametrize("host", [True, False])
def test_isinstance_tensor_descriptor(gen, which, host):
    kernels, TensorDescriptor = which
    if not host and kernels is TRITON:
        # Triton's device-made descriptors need a scratch allocator (triton.set_allocator).
        import triton
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    M, N, BM, BN = 96, 64, 32, 64
    src = torch.randn((M, N), device="cuda", generator=gen)
    dst = torch.zeros_like(src)
    args = (TensorDescriptor.from_tensor(src, [BM, BN]), TensorDescriptor.from_tensor(dst, [BM, BN])) if host \
        else (src, dst)
    kernels.maybe_desc_copy_kernel[(M // BM,)](*args, M, N, BM=BM, BN=BN)
    sync()
    assert torch.equal(dst, src)


@tritium.jit
def tma_load_then_transpose(x_desc, y_ptr, out_ptr):
    # A TMA block load (its tile at shared byte 0, its mbarrier right after), then a 64 x 64
    # fp32 transpose whose round trip through shared memory covers the mbarrier's bytes.
    x = x_desc.load([0, 0])
    r = tl.arange(0, 64)
    y = tl.load(y_ptr + r[:, None] * 64 + r[None, :])
    tl.store(out_ptr + r[:, None] * 64 + r[None, :], tl.trans(y) + tl.sum(x.to(tl.float32)))


def test_block_load_then_a_round_trip_over_its_mbarrier():
    # The emulated GPU's test_tma_block_load_mbarrier_outlives_its_barrier on hardware: the
    # round trip waits for thread 0's mbarrier.inval (a barrier after it since session 29).
    x = torch.ones((16, 32), dtype=torch.float16, device="cuda")
    y = torch.arange(64 * 64, dtype=torch.float32, device="cuda").reshape(64, 64)
    out = torch.zeros_like(y)
    tma_load_then_transpose[(1,)](TRITIUM.TensorDescriptor.from_tensor(x, [16, 32]), y, out)
    sync()
    assert torch.equal(out, y.T + 16 * 32)

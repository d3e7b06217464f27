"""version_on_signs on the GPU (DESIGN: GPU passes): a gather through `(s + arange) % n` whose
start s = (pid - shift) * BLOCK is negative for the first `shift` programs, so both copies of
the kernel run in one launch: the one behind `s >= 0` with proved 16-byte loads, and the one
as written. Every output element is compared exactly with torch's truncating remainder.
The same with the tutorial matmul's B columns: the second copy is cold, its B tiles copied
element by element from addresses computed inside the loop (against fp64 torch.matmul)."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def gather_mod(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    s = (pid - shift) * BLOCK
    offs = (s + tl.arange(0, BLOCK)) % n
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), tl.load(x_ptr + offs))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8])
@pytest.mark.parametrize("n,block,shift", [(4096, 1024, 2), (16000, 512, 3), (4096, 2048, 0), (48, 512, 1),
                                           (1000, 512, 1)])
def test_gather_through_a_remainder_of_either_sign(gen, dtype, n, block, shift):
    programs = 2 * shift + 6
    # x_ptr points into the middle of the buffer: negative remainders read before it.
    if dtype.is_floating_point:
        buffer = torch.randn(2 * n, device="cuda", generator=gen).to(dtype)
    else:
        buffer = torch.randint(-128, 128, (2 * n,), device="cuda", generator=gen, dtype=dtype)
    middle = buffer[n:]
    out = torch.full((programs * block,), -1, device="cuda", dtype=dtype)
    handle = gather_mod[(programs,)](middle, out, n, shift, BLOCK=block)
    torch.cuda.synchronize()
    pid = torch.arange(programs, device="cuda").repeat_interleave(block)
    starts = (pid - shift) * block + torch.arange(block, device="cuda").repeat(programs)
    offs = torch.fmod(starts, n)  # truncating, as Triton's %
    assert torch.equal(out, buffer[n + offs])
    gpu_ir = handle.asm["gpu-ir"]
    # The runs need n divisible by 16 (the signature's fact): only then is the kernel versioned.
    assert ("maximum" in gpu_ir) == (n % 16 == 0)


@tritium.jit
def matmul_shifted_columns(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, shift,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The tutorial matmul's `(pid_n * BN + arange) % N` columns with pid_n negative for the
    first `shift` column programs: those take the cold copy (B copied element by element
    from addresses computed in the loop), the others the copy with proved 16-byte runs."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1) - shift
    offs_am = pid_m * BM + tl.arange(0, BM)
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cn = tl.program_id(1) * BN + tl.arange(0, BN)
    tl.store(c_ptr + offs_am[:, None] * stride_cm + offs_cn[None, :], acc)


@pytest.mark.parametrize("config", [(64, 64, 32, 4), (128, 128, 64, 8), (128, 256, 64, 8), (128, 128, 32, 4)])
@pytest.mark.parametrize("N,K,shift", [(192, 200, 2), (512, 512, 1)])
def test_matmul_whose_columns_start_negative(gen, config, N, K, shift):
    BM, BN, BK, warps = config
    M, programs_n = 2 * BM, shift + 3
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    # b_ptr points at column N of a K x 2N buffer: negative remainders read columns before it.
    b_full = torch.randn(K, 2 * N, device="cuda", generator=gen).half()
    b = b_full[:, N:]
    c = torch.full((M, programs_n * BN), float("nan"), device="cuda")
    handle = matmul_shifted_columns[(M // BM, programs_n)](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                                                           shift, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    j = torch.arange(programs_n * BN, device="cuda")
    cols = torch.fmod((j // BN - shift) * BN + j % BN, N)  # truncating, as Triton's %
    ref = a.double() @ b_full[:, N + cols].double()
    torch.testing.assert_close(c.double(), ref, rtol=1e-2, atol=1e-2 * K ** 0.5)
    gpu_ir = handle.asm["gpu-ir"]
    assert "maximum" in gpu_ir and "addresses computed where copied (cold)" in gpu_ir

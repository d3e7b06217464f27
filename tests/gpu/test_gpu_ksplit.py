"""The K loop of the tutorial matmul split over a cluster of 2, 4 or 8 CTAs on the GPU
(gpu/split_k_cluster.h, TRITIUM_REDUCE_EXPERIMENT=ksplit, sm_90): exact results (small
integers) where the grid leaves SMs idle (the split variants, launched as clusters) and where
it does not (the launch takes the variant built without the split: Kernel::Impl::launch_gpu),
with odd trip counts, masked K tails and an int8 dot; and the size the launch picks (the
largest of 8, 4, 2 with programs * size <= the SM count and >= 2 trips a CTA; TRITIUM_KSPLIT
forces one), read from what TRITIUM_KSPLIT_DEBUG=1 says the compiles split over. The
emulated tests (tests/emulate/test_emulated_ksplit.py) prove the sums without a GPU."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


def ksplit_matmul_source(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0)
        accumulator = tl.dot(a, b, accumulator, out_dtype=c_ptr.dtype.element_ty)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, accumulator, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


ksplit_matmul = tritium.jit(ksplit_matmul_source)


@pytest.mark.parametrize("size,K,dtype,block", [
    (1024, 1024, torch.float16, (128, 128, 64, 8)),   # 64 programs: split
    (512, 1000, torch.float16, (128, 128, 64, 8)),    # 16 programs, 16 trips with a masked tail
    (512, 480, torch.float16, (64, 128, 32, 4)),      # 15 trips: rank 1 runs 7
    (2048, 512, torch.float16, (128, 128, 64, 8)),    # 256 programs: the variant without the split
    (512, 512, torch.int8, (128, 128, 64, 8)),
])
def test_split_k_matmul(monkeypatch, size, K, dtype, block):
    major, _ = torch.cuda.get_device_capability()
    if major < 9:
        pytest.skip("clusters need sm_90")
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "ksplit")
    BM, BN, BK, warps = block
    M = N = size
    gen = torch.Generator(device="cuda").manual_seed(size + K)
    a = torch.randint(-4, 5, (M, K), device="cuda", generator=gen).to(dtype)
    b = torch.randint(-4, 5, (K, N), device="cuda", generator=gen).to(dtype)
    out = torch.int32 if dtype == torch.int8 else torch.float32
    c = torch.full((M, N), 7, device="cuda", dtype=out)
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    h = ksplit_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    ref = (a.double() @ b.double()).to(out)
    assert torch.equal(c, ref)
    assert h is not None


def triton_cdiv(a, b):
    return (a + b - 1) // b


def _sm_count():
    return torch.cuda.get_device_properties(0).multi_processor_count


# (size, K, block, TRITIUM_KSPLIT or None, the split the launch takes on 132 SMs: 0 none)
@pytest.mark.parametrize("size,K,block,forced,expected", [
    (512, 1024, (128, 128, 64, 8), None, 8),   # 16 programs, 16 trips: 2 a CTA
    (512, 480, (128, 128, 64, 8), None, 4),    # 8 trips: 8 CTAs would run 1 each
    (512, 200, (128, 128, 64, 8), None, 2),    # 4 trips (the last masked)
    (512, 100, (128, 128, 64, 8), None, 0),    # 2 trips: too few to split
    (512, 1024, (64, 128, 32, 4), None, 4),    # 32 programs: 4 * 32 <= 132
    (384, 768, (128, 128, 64, 8), None, 4),    # 9 programs, 12 trips: 8 * 9 <= 132 but 12 < 8 * 2
    (1024, 1024, (128, 128, 64, 8), None, 2),  # 64 programs
    (768, 512, (128, 128, 32, 4), None, 2),    # 36 programs
    (2048, 512, (128, 128, 64, 8), None, 0),   # 256 programs
    (512, 100, (128, 128, 64, 8), "8", 8),     # forced: 2 trips over 8 CTAs (6 run none)
    (512, 1024, (128, 128, 64, 8), "2", 2),
    (1024, 1024, (128, 128, 64, 8), "4", 0),   # forced 4: 4 * 64 > 132, no split
])
def test_split_k_size_chosen_at_launch(monkeypatch, capfd, tmp_path, size, K, block, forced, expected):
    major, _ = torch.cuda.get_device_capability()
    if major < 9:
        pytest.skip("clusters need sm_90")
    if _sm_count() != 132:
        pytest.skip("the expected sizes are an H100's / H200's (132 SMs)")
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "ksplit")
    monkeypatch.setenv("TRITIUM_KSPLIT_DEBUG", "1")
    monkeypatch.setenv("TRITIUM_CACHE_DIR", str(tmp_path))  # every variant compiled here
    if forced is None:
        monkeypatch.delenv("TRITIUM_KSPLIT", raising=False)
    else:
        monkeypatch.setenv("TRITIUM_KSPLIT", forced)
    kernel = tritium.jit(ksplit_matmul_source)  # its own memory cache
    BM, BN, BK, warps = block
    M = N = size
    gen = torch.Generator(device="cuda").manual_seed(size + K)
    a = torch.randint(-4, 5, (M, K), device="cuda", generator=gen).to(torch.float16)
    b = torch.randint(-4, 5, (K, N), device="cuda", generator=gen).to(torch.float16)
    c = torch.full((M, N), 7, device="cuda", dtype=torch.float32)
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    capfd.readouterr()
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    assert torch.equal(c, (a.double() @ b.double()).float())
    said = [line for line in capfd.readouterr().err.splitlines() if line.startswith("ksplit:")]
    # The first build splits as TRITIUM_KSPLIT says (else over 2); a launch that takes another
    # size compiles its variant (the one without the split runs no split_k_cluster: no line).
    first = int(forced or 2)
    assert said and said[0].endswith(f"cluster of {first}"), said
    if expected in (0, first):
        assert len(said) == 1, said
    else:
        assert len(said) == 2 and said[1].endswith(f"cluster of {expected}"), said

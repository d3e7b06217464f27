"""The K loop of the tutorial matmul split over a 2-CTA cluster on the GPU (gpu/split_k_cluster.h,
TRITIUM_REDUCE_EXPERIMENT=ksplit, sm_90): exact results (small integers) where the grid leaves
SMs idle (the split variant, launched as clusters of 2) and where it does not (the launch
takes the variant built without the split: Kernel::Impl::launch_gpu), with odd trip counts,
masked K tails and an int8 dot. The emulated tests (tests/emulate/test_emulated_ksplit.py)
prove the same without a GPU."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def ksplit_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
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

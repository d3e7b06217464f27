"""A pipelined K loop whose dot accumulator is loaded from memory before the loop (`acc =
tl.load(C)`, then `acc = tl.dot(a, b, acc)`, a GEMM's `C += A @ B`): the result on the GPU
equals torch's, at one stage and pipelined, on whichever tensor-core path the card takes.
Session 37's emulated tests found the sm_90 pipelined case wrong (tests/emulate/
test_emulated_ksplit.py::test_loaded_accumulator_of_a_pipelined_wgmma_loop)."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def gemm_accumulate(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    c_ptrs = c_ptr + rm[:, None] * BN + rn[None, :]
    acc = tl.load(c_ptrs)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptrs, acc)


@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("warps", [4, 8])
def test_loaded_accumulator(stages, warps):
    BM, BN, BK, K = 64, 64, 64, 256
    gen = torch.Generator(device="cuda").manual_seed(stages * 10 + warps)
    a = torch.randint(-3, 4, (BM, K), device="cuda", generator=gen).to(torch.float16)
    b = torch.randint(-3, 4, (K, BN), device="cuda", generator=gen).to(torch.float16)
    c = torch.randint(-50, 50, (BM, BN), device="cuda", generator=gen).to(torch.float32)
    ref = c.double() + a.double() @ b.double()
    gemm_accumulate[(1,)](a, b, c, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    assert torch.equal(c.double(), ref), f"{(c.double() != ref).sum().item()} of {c.numel()} differ"

"""Shared-memory round trips placed by allocate_shared and fenced by insert_barriers (gpu/):
chains of reductions, broadcasts and element moves back to back, in loop bodies (the back
edge reuses bytes), in both sides of a branch and after it, and a histogram after them. A
missing barrier is a race that only shows here (and under compute-sanitizer racecheck:
SANITIZE=racecheck SANITIZE_TESTS=tests/gpu/test_gpu_shared_barriers.py SANITIZE_SAMPLE=1
tests/gpu/sanitize.sh). Results against torch; outputs poisoned before each launch; many
programs per launch so warps of one CTA drift apart."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def softmax_rows(x_ptr, out_ptr, rows, BM: tl.constexpr, N: tl.constexpr):
    # Each program walks its row blocks in a loop: max, broadcast, sum, broadcast per block.
    rn = tl.arange(0, N)
    pid = tl.program_id(0)
    for start in range(pid * BM, rows, BM * tl.num_programs(0)):
        rm = start + tl.arange(0, BM)
        mask = rm[:, None] < rows
        x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
        m = tl.max(x, axis=1)
        e = tl.exp(x - m[:, None])
        s = tl.sum(e, axis=1)
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], e / s[:, None], mask=mask)


@tritium.jit
def chained(x_ptr, out_ptr, flag, ITERS: tl.constexpr, N: tl.constexpr):
    # Round trips back to back, in a loop, on both sides of a branch and after it.
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    acc = tl.zeros([2 * N], dtype=tl.float32)
    total = 0.0
    for i in range(0, ITERS):
        y = x + i
        if flag > i:
            j = tl.join(y, y * 2)
            a, b = tl.split(j)
            c = tl.cat(b, a, can_reorder=True)
        else:
            t = tl.trans(tl.reshape(y, (2, N // 2)))
            c = tl.cat(tl.ravel(t), y, can_reorder=True)
        total += tl.sum(c) + tl.max(y)
        acc += c
    h = tl.histogram((x.to(tl.int32) & 15), 16)
    tl.store(out_ptr + tl.arange(0, 2 * N), acc + total)
    tl.store(out_ptr + 2 * N + tl.arange(0, 16), h.to(tl.float32))


def poisoned(n, device="cuda"):
    out = torch.empty(n, dtype=torch.float32, device=device)
    out.fill_(float("nan"))
    return out


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("shape", [(1, 128), (4, 256), (16, 64), (2, 1024), (32, 32)])
def test_softmax_rows_in_a_loop(gen, shape, num_warps):
    bm, n = shape
    rows = 37 * bm + 1  # a partial last block
    x = torch.randn(rows, n, device="cuda", generator=gen)
    out = poisoned(rows * n)
    softmax_rows[(8,)](x, out, rows, BM=bm, N=n, num_warps=num_warps)
    torch.cuda.synchronize()
    torch.testing.assert_close(out.view(rows, n), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def chained_reference(x, flag, iters):
    n = x.numel()
    acc = torch.zeros(2 * n, device=x.device)
    total = 0.0
    for i in range(iters):
        y = x + i
        if flag > i:
            c = torch.cat([y * 2, y])
        else:
            c = torch.cat([y.reshape(2, n // 2).t().reshape(-1), y])
        total += (c.sum() + y.max()).item()
        acc += c
    h = torch.bincount(x.to(torch.int32) & 15, minlength=16).to(torch.float32)
    return acc + total, h


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("n", [64, 256, 2048])
@pytest.mark.parametrize("flag", [0, 2, 5])
def test_chained_round_trips(gen, n, flag, num_warps):
    x = torch.randint(0, 64, (n,), device="cuda", generator=gen).to(torch.float32)
    out = poisoned(2 * n + 16)
    chained[(1,)](x, out, flag, ITERS=4, N=n, num_warps=num_warps)
    torch.cuda.synchronize()
    want, hist = chained_reference(x, flag, 4)
    # cat with can_reorder=True keeps the order here (tritium's cat is ordered); the sums
    # are of small integers: exact.
    assert torch.equal(out[: 2 * n], want)
    assert torch.equal(out[2 * n:], hist)

"""Reductions, scans and element moves on the GPU (target/nvptx emit_reduce.cpp and
emit_move.cpp), over shapes and warp counts that put the reduced axis in registers, lanes
and warps, and blocks smaller than the CTA (threads that hold no element). Results against
torch; outputs poisoned before each launch."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def reduce2d(x_ptr, out_ptr, idx_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    else:
        r = tl.argmax(x, axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, r)
    else:
        tl.store(out_ptr + rm, r)


@tritium.jit
def reduce_all(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1, tl.max(x))


SHAPES = [(1, 1), (1, 8), (4, 8), (32, 128), (128, 64), (2, 1024), (256, 256), (64, 1)]


def poisoned(n, dtype, device="cuda"):
    out = torch.empty(n, dtype=dtype, device=device)
    out.fill_(float("nan") if dtype.is_floating_point else -1)
    return out


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax"])
def test_reduce2d(gen, shape, axis, op, num_warps):
    m, n = shape
    if m * n > 4096 and num_warps == 1:
        pytest.skip("a 64K-element block in one warp: 2048 registers per thread, slow to compile")
    x = torch.randint(-100, 100, (m, n), device="cuda", generator=gen).to(torch.float32)
    if op == "argmax":
        out = poisoned(n if axis == 0 else m, torch.int32)
        want = torch.argmax(x, dim=axis).to(torch.int32)  # first index of the maximum
    else:
        out = poisoned(n if axis == 0 else m, torch.float32)
        want = {"sum": torch.sum, "max": lambda t, dim: torch.max(t, dim=dim).values,
                "min": lambda t, dim: torch.min(t, dim=dim).values}[op](x, dim=axis)
    reduce2d[(1,)](x, out, out, M=m, N=n, AXIS=axis, OP=op, num_warps=num_warps)
    torch.cuda.synchronize()
    assert torch.equal(out, want)


@pytest.mark.parametrize("num_warps", [1, 4])
@pytest.mark.parametrize("shape", SHAPES)
def test_reduce_all(gen, shape, num_warps):
    m, n = shape
    x = torch.randint(-100, 100, (m, n), device="cuda", generator=gen).to(torch.float32)
    out = poisoned(2, torch.float32)
    reduce_all[(1,)](x, out, M=m, N=n, num_warps=num_warps)
    torch.cuda.synchronize()
    assert out[0].item() == x.sum().item() and out[1].item() == x.max().item()


@tritium.jit
def scan2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=AXIS, reverse=REVERSE))


@pytest.mark.parametrize("num_warps", [1, 4])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum(gen, shape, axis, reverse, num_warps):
    m, n = shape
    x = torch.randint(-100, 100, (m, n), device="cuda", generator=gen, dtype=torch.int32)
    out = torch.full((m, n), -7, dtype=torch.int32, device="cuda")
    scan2d[(1,)](x, out, M=m, N=n, AXIS=axis, REVERSE=reverse, num_warps=num_warps)
    torch.cuda.synchronize()
    src = torch.flip(x, [axis]) if reverse else x
    want = torch.cumsum(src, dim=axis).to(torch.int32)
    if reverse:
        want = torch.flip(want, [axis])
    assert torch.equal(out, want)


@tritium.jit
def moves(x_ptr, y_ptr, t_ptr, j_ptr, a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(t_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))
    j = tl.join(x, y)
    r2 = tl.arange(0, 2)
    tl.store(j_ptr + offs[:, :, None] * 2 + r2[None, None, :], j)
    a, b = tl.split(j)
    tl.store(a_ptr + offs, a + b)
    c = tl.cat(tl.ravel(x), tl.ravel(y), can_reorder=True)
    tl.store(c_ptr + tl.arange(0, 2 * M * N), c)
    tl.store(b_ptr + offs, tl.trans(tl.trans(x)))


@pytest.mark.parametrize("num_warps", [1, 4])
@pytest.mark.parametrize("shape", [(1, 2), (4, 8), (32, 64), (64, 32), (128, 128)])
def test_moves(gen, shape, num_warps):
    m, n = shape
    x = torch.randint(-1000, 1000, (m, n), device="cuda", generator=gen, dtype=torch.int32)
    y = torch.randint(-1000, 1000, (m, n), device="cuda", generator=gen, dtype=torch.int32)
    t = torch.full((n, m), -7, dtype=torch.int32, device="cuda")
    j = torch.full((m, n, 2), -7, dtype=torch.int32, device="cuda")
    a = torch.full((m, n), -7, dtype=torch.int32, device="cuda")
    b = torch.full((m, n), -7, dtype=torch.int32, device="cuda")
    c = torch.full((2 * m * n,), -7, dtype=torch.int32, device="cuda")
    moves[(1,)](x, y, t, j, a, b, c, M=m, N=n, num_warps=num_warps)
    torch.cuda.synchronize()
    assert torch.equal(t, x.T)
    assert torch.equal(j, torch.stack([x, y], dim=-1))
    assert torch.equal(a, x + y)
    assert torch.equal(c, torch.cat([x.flatten(), y.flatten()]))
    assert torch.equal(b, x)


@tritium.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


@pytest.mark.parametrize("n,bins", [(64, 8), (1024, 32), (4096, 256)])
def test_histogram(gen, n, bins):
    x = torch.randint(-2, bins + 2, (n,), device="cuda", generator=gen, dtype=torch.int32)
    out = torch.full((bins,), -7, dtype=torch.int32, device="cuda")
    histogram_kernel[(1,)](x, out, N=n, BINS=bins)
    torch.cuda.synchronize()
    inside = x[(x >= 0) & (x < bins)].long()
    assert torch.equal(out, torch.bincount(inside, minlength=bins).to(torch.int32))


@tritium.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-3.0e38)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


@pytest.mark.parametrize("cols", [1, 100, 1024, 1500, 4096])
def test_softmax(gen, cols):
    rows = 37
    x = torch.randn(rows, cols, device="cuda", generator=gen)
    out = torch.full_like(x, float("nan"))
    block = max(1, 1 << (cols - 1).bit_length())
    softmax_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=block)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@tritium.jit
def _argmin_combine(v1, i1, v2, i2):
    take = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@tritium.jit
def tuple_reduce(x_ptr, v_ptr, i_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    v, i = tl.reduce((x, offs), 0, _argmin_combine)
    tl.store(v_ptr, v)
    tl.store(i_ptr, i)


@pytest.mark.parametrize("n", [2, 256, 2048])
def test_tuple_reduce(gen, n):
    x = torch.randint(-5, 5, (n,), device="cuda", generator=gen).to(torch.float32)
    v = poisoned(1, torch.float32)
    i = poisoned(1, torch.int32)
    tuple_reduce[(1,)](x, v, i, N=n)
    torch.cuda.synchronize()
    assert v.item() == x.min().item() and i.item() == int(torch.argmin(x).item())

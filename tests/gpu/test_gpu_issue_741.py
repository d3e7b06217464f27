"""Triton issue 741 (../shared/seeds/004_6c6e82fa47940810.txt) on the GPU: the seed's two
kernels exactly as the interpreter suite holds them (tests/python/test_issue_741.py), on the
seed's inputs and on random ones, compared with torch.Tensor.scatter_; then the variants that
reassign the argument with a different constant, in a loop, and in branches."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402

import test_issue_741 as seed_kernels  # noqa: E402  (tests/python)

GRID = seed_kernels.GRID
XBLOCK = seed_kernels.XBLOCK


def seed_inputs():
    # As the seed builds them.
    arg4_1 = torch.arange(2000, device="cuda", dtype=torch.int64).reshape(2, 1, 1000) % 196
    arg7_1 = torch.arange(1, 2001, device="cuda", dtype=torch.float32).reshape(2, 1000)
    return arg4_1, arg7_1


def random_inputs(gen):
    index = torch.randint(0, 196, (2, 1, 1000), device="cuda", generator=gen, dtype=torch.int64)
    src = torch.randn(2, 1000, device="cuda", generator=gen)
    return index, src


def scatter_reference(fill, index, src, keep):
    """torch's scatter_(1, index, src) on a (2, 196, 1000) buffer of `fill`, for the flat
    element positions b * 1000 + j where keep(flat) holds."""
    ref = torch.full((2, 196, 1000), fill, device="cuda")
    flat = torch.arange(2000, device="cuda")
    mask = keep(flat)
    if bool(mask.all()):
        return ref.scatter_(1, index, src.reshape(2, 1, 1000))
    b, j = flat[mask] // 1000, flat[mask] % 1000
    ref[b, index.reshape(-1)[mask], j] = src.reshape(-1)[mask]
    return ref


def run(kernel, index, src, xnumel, fill=0.0):
    out = torch.full((2, 196, 1000), fill, device="cuda")
    kernel[GRID](index, src, out, xnumel, XBLOCK)
    torch.cuda.synchronize()
    return out


def below(limit):
    return lambda flat: flat < limit


def same(a, b):
    return torch.equal(a.nan_to_num(nan=-12345.0), b.nan_to_num(nan=-12345.0))


@pytest.mark.parametrize("kernel", [seed_kernels.kernel1, seed_kernels.kernel2],
                         ids=["kernel1", "kernel2"])
def test_seed_exactly(kernel):
    index, src = seed_inputs()
    out = run(kernel, index, src, 1000 * 2)
    buf = torch.zeros(2, 196, 1000, device="cuda")
    buf.scatter_(1, index, src.reshape(2, 1, 1000))  # the seed's "correct answer"
    assert torch.equal(out, buf)
    assert out[0].amax(-1)[:10].tolist() == [981.0 + i for i in range(10)]
    assert float(out.sum()) == 2001000.0


@pytest.mark.parametrize("kernel", [seed_kernels.kernel1, seed_kernels.kernel2],
                         ids=["kernel1", "kernel2"])
def test_seed_kernels_random_inputs(gen, kernel):
    index, src = random_inputs(gen)
    out = run(kernel, index, src, 2000, fill=float("nan"))
    assert same(out, scatter_reference(float("nan"), index, src, below(2000)))


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 2001, 17, 1])
def test_constant_differs_from_argument(gen, passed):
    index, src = random_inputs(gen)
    out = run(seed_kernels.kernel2, index, src, passed, fill=float("nan"))
    assert same(out, scatter_reference(float("nan"), index, src, below(2000)))


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 1500])
def test_reassigned_in_loop(gen, passed):
    index, src = random_inputs(gen)
    out = run(seed_kernels.kernel_reassigned_in_loop, index, src, passed, fill=float("nan"))
    assert same(out, scatter_reference(float("nan"), index, src, below(1500)))


@pytest.mark.parametrize("passed", [2048, 1000, 2000, 700])
def test_reassigned_per_program_in_branches(gen, passed):
    index, src = random_inputs(gen)
    out = run(seed_kernels.kernel_reassigned_per_program, index, src, passed,
              fill=float("nan"))
    keep = lambda flat: (flat < 700) | ((flat >= 1024) & (flat < 2000))  # noqa: E731
    assert same(out, scatter_reference(float("nan"), index, src, keep))


@pytest.mark.parametrize("passed, limit", [(2048, 2000), (4096, 2000), (1000, 1000),
                                           (1024, 1024), (2000, 2000)])
def test_reassigned_in_branch_on_argument(gen, passed, limit):
    index, src = random_inputs(gen)
    out = run(seed_kernels.kernel_reassigned_if_large, index, src, passed, fill=float("nan"))
    assert same(out, scatter_reference(float("nan"), index, src, below(limit)))


def test_specializations_stay_apart():
    index, src = seed_inputs()
    out = torch.zeros(2, 196, 1000, device="cuda")
    sig = seed_kernels.kernel2.signature
    assert sig(index, src, out, 2048, XBLOCK).endswith("i32:16, XBLOCK=1024")
    assert sig(index, src, out, 1000, XBLOCK).endswith("i32, XBLOCK=1024")
    assert tritium.cache_stats()["compiles"] >= 0

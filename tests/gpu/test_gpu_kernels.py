"""The interpreter suite's kernels (tests/python) on the GPU with torch CUDA tensors: vector
add at the sizes and blocks of issue 2 and in other element types, grid forms, empty grids,
specializations, strided and misaligned views, keyword arguments and defaults, Python floats,
do_not_specialize, globals and @jit callees, scalar kinds; atomics from many programs into
one address and into many, and in-place updates. Outputs are poisoned before each launch and
compared exactly with torch (fp32 atomic sums within rounding)."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import test_atomics as atomics  # noqa: E402  (tests/python: the interpreter suite)
import test_launch as launch  # noqa: E402
import test_vector_add as vadd  # noqa: E402

add_kernel = vadd.add_kernel


def poisoned(like):
    out = torch.empty_like(like)
    out.fill_(float("nan") if like.dtype.is_floating_point else -1)
    return out


def sync():
    torch.cuda.synchronize()


@pytest.mark.parametrize("block", [128, 1024])
@pytest.mark.parametrize("n", [1, 17, 1000, 2**20 + 3])
def test_vector_add(gen, n, block):
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(x)
    add_kernel[(tritium.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    sync()
    assert torch.equal(out, x + y)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int8,
                                   torch.int32, torch.int64, torch.uint8])
def test_vector_add_dtypes(gen, dtype):
    n = 3000
    if dtype.is_floating_point:
        x = torch.randn(n, device="cuda", generator=gen).to(dtype)
        y = torch.randn(n, device="cuda", generator=gen).to(dtype)
    else:
        info = torch.iinfo(dtype)
        low, high = max(info.min, -1000), min(info.max, 1000)
        x = torch.randint(low, high + 1, (n,), device="cuda", generator=gen, dtype=dtype)
        y = torch.randint(low, high + 1, (n,), device="cuda", generator=gen, dtype=dtype)
    out = poisoned(x)
    add_kernel[(tritium.cdiv(n, 128),)](x, y, out, n, BLOCK_SIZE=128)
    sync()
    assert torch.equal(out, x + y)  # integers wrap like torch's


def test_grid_forms(gen):
    n = 1000
    x, y = torch.randn(2, n, device="cuda", generator=gen)
    for grid in ((8,), [8], 8, (8, 1), (8, 1, 1), lambda meta: (tritium.cdiv(n, 128),)):
        out = poisoned(x)
        add_kernel[grid](x, y, out, n, 128)
        sync()
        assert torch.equal(out, x + y)


def test_empty_grid_launches_nothing(gen):
    x, y = torch.randn(2, 64, device="cuda", generator=gen)
    out = poisoned(x)
    add_kernel[(0,)](x, y, out, 64, BLOCK_SIZE=64)
    sync()
    assert out.isnan().all()


def test_specializations_are_cached_apart(gen):
    for n in (1, 1024, 1000, 1):
        x, y = torch.randn(2, n, device="cuda", generator=gen)
        out = poisoned(x)
        add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)
        sync()
        assert torch.equal(out, x + y)


def test_non_contiguous_view(gen):
    base = torch.randn(600, device="cuda", generator=gen)
    view = base[::2]
    out = poisoned(view)
    vadd.strided_copy[(3,)](view, out, 300, 2, BLOCK=128)
    sync()
    assert torch.equal(out, view)


def test_misaligned_view(gen):
    base = torch.randn(1001, device="cuda", generator=gen)
    x = base[1:]  # 4 bytes past an aligned address
    y = torch.randn(1000, device="cuda", generator=gen)
    assert add_kernel.signature(x, y, y, 1000, BLOCK_SIZE=128).startswith("*fp32, ")
    out = poisoned(y)
    add_kernel[(8,)](x, y, out, 1000, BLOCK_SIZE=128)
    sync()
    assert torch.equal(out, x + y)


def test_grid_callable_kwargs_defaults_and_floats(gen):
    n = 1000
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(x)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (tritium.cdiv(meta["n"], meta["BLOCK"]),)

    launch.axpy[grid](x, out, n, BLOCK=256)
    sync()
    assert torch.equal(out, 2.0 * x)
    assert seen[0]["x_ptr"] is x and seen[0]["BLOCK"] == 256
    out = poisoned(x)
    launch.axpy[(5,)](out_ptr=out, x_ptr=x, BLOCK=256, n=n, alpha=0.1)
    sync()
    # 0.1 reaches the kernel as float32(0.1)
    assert torch.equal(out, torch.tensor(0.1, dtype=torch.float32) * x)


def test_do_not_specialize(gen):
    x = torch.randn(64, device="cuda", generator=gen)
    for kernel in (launch.copy_kernel, launch.copy_no_specialize, launch.copy_no_alignment):
        for n in (1, 32, 50):
            out = poisoned(x)
            kernel[(1,)](x, out, n, BLOCK=64)
            sync()
            assert torch.equal(out[:n], x[:n]) and out[n:].isnan().all()


def test_globals_and_callees(gen):
    n = 200
    x = torch.randint(-100, 100, (n,), device="cuda", generator=gen).float()
    out = torch.full((n,), float("nan"), device="cuda", dtype=torch.float16)
    launch.kernel_with_globals[(2,)](x, out, n, BLOCK=128)
    sync()
    assert torch.equal(out, (x * 3 + 5).half())


@pytest.mark.parametrize("value", [True, False, -7, 3, 1])
def test_scalar_kinds_and_dtype_arguments(value):
    out = torch.full((16,), -1, device="cuda", dtype=torch.int32)
    launch.typed_fill[(1,)](out, value, 10, tl.int32, BLOCK=16)
    sync()
    assert out.tolist() == [int(value)] * 10 + [-1] * 6


# ---- atomics and in-place updates -----------------------------------------------------


def test_atomic_add_at_tile_begin():
    y = torch.zeros(20, device="cuda", dtype=torch.int32)
    atomics.atomic_add_w_tile_attr[(tritium.cdiv(20, 2),)](y, BLOCK=2)
    sync()
    assert y.tolist() == [1, 0] * 10


def test_atomic_add_at_tile_begin_keeps_existing_values(gen):
    start = torch.randint(-1000, 1000, (20,), device="cuda", generator=gen, dtype=torch.int32)
    y = start.clone()
    atomics.atomic_add_w_tile_attr[(10,)](y, BLOCK=2)
    sync()
    assert torch.equal(y, start + torch.tensor([1, 0] * 10, device="cuda", dtype=torch.int32))


@pytest.mark.parametrize("programs", [37, 5000, 65535 * 3])
def test_many_programs_one_address(gen, programs):
    start = int(torch.randint(-100, 100, (1,), generator=gen, device="cuda"))
    counter = torch.tensor([start], device="cuda", dtype=torch.int32)
    old = torch.full((programs,), -1, device="cuda", dtype=torch.int32)
    atomics.count_programs[(programs,)](counter, old)
    sync()
    assert int(counter) == start + programs  # every increment exactly once
    # The values the atomic returned are a permutation of the counts.
    expected = start + torch.arange(programs, device="cuda", dtype=torch.int32)
    assert torch.equal(old.sort().values, expected)


@tritium.jit
def histogram(x_ptr, bins_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x % BINS, 1, mask=mask)


@tritium.jit
def float_sums(x_ptr, sums_ptr, n, GROUPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_add(sums_ptr + offs % GROUPS, x, mask=mask)


def test_many_programs_many_addresses_int32(gen):
    n, bins = 1_000_003, 97
    x = torch.randint(0, 1 << 20, (n,), device="cuda", generator=gen, dtype=torch.int32)
    counts = torch.zeros(bins, device="cuda", dtype=torch.int32)
    histogram[(tritium.cdiv(n, 512),)](x, counts, n, BINS=bins, BLOCK=512)
    sync()
    assert torch.equal(counts.long(), torch.bincount((x % bins).long(), minlength=bins))


def test_many_programs_fp32_atomics(gen):
    n, groups = 200_000, 8
    # Small integers: every partial sum is exact in fp32, whatever the order.
    x = torch.randint(-8, 9, (n,), device="cuda", generator=gen).float()
    sums = torch.zeros(groups, device="cuda")
    float_sums[(tritium.cdiv(n, 256),)](x, sums, n, GROUPS=groups, BLOCK=256)
    sync()
    assert torch.equal(sums, x.view(-1, groups).sum(0))
    # Random values into one address: equal to the float64 sum within fp32 rounding.
    x = torch.randn(n, device="cuda", generator=gen)
    total = torch.zeros(1, device="cuda")
    float_sums[(tritium.cdiv(n, 256),)](x, total, n, GROUPS=1, BLOCK=256)
    sync()
    reference = x.double().sum()
    assert abs(float(total) - float(reference)) <= 1e-4 * float(x.abs().double().sum())


def test_block_atomics_with_mask(gen):
    n = 1000
    x = torch.randint(-50, 50, (n,), device="cuda", generator=gen, dtype=torch.int32)
    y = torch.zeros(4, device="cuda", dtype=torch.int32)
    high = torch.full((4,), -2**31, device="cuda", dtype=torch.int32)
    low = torch.full((4,), 2**31 - 1, device="cuda", dtype=torch.int32)
    atomics.block_atomics[(tritium.cdiv(n, 128),)](x, y, high, low, n, BLOCK=128)
    sync()
    groups = x.view(-1, 4)
    assert torch.equal(y, groups.sum(0).int())
    assert torch.equal(high, groups.max(0).values)
    assert torch.equal(low, groups.min(0).values)


@tritium.jit
def increment(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + 1, mask=mask)


def test_in_place_update_from_many_programs(gen):
    n = 1_000_001
    start = torch.randint(-1000, 1000, (n,), device="cuda", generator=gen, dtype=torch.int32)
    x = start.clone()
    for _ in range(10):  # each launch reads what the previous one wrote, in place
        increment[(tritium.cdiv(n, 256),)](x, n, BLOCK=256)
    sync()
    assert torch.equal(x, start + 10)

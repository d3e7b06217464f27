"""Every atomic kind x value form (constant, scalar argument, block) x element type on the GPU,
against the interpreter running the same kernel on numpy copies (issue 11: a constant float
max/min crashed PTX emission). One program, a distinct address per element and a single
thread for the scalar pointer, so no ordering can change a result: memory after the kernel
and the old values the atomics return must agree bit for bit."""

import importlib.util
import sys
import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402

DTYPES = {  # numpy dtype, the atomic kinds the language allows, constants to try
    "int32": (np.int32, ["add", "max", "min", "and", "or", "xor", "xchg", "cas"], ["1", "-2", "0"]),
    "uint32": (np.uint32, ["add", "max", "min", "and", "or", "xor", "xchg", "cas"], ["3", "0"]),
    "int64": (np.int64, ["add", "max", "min", "and", "or", "xor", "xchg", "cas"], ["1", "-2"]),
    "uint64": (np.uint64, ["add", "max", "min", "and", "or", "xor", "xchg", "cas"], ["3"]),
    "int16": (np.int16, ["cas"], ["1", "-2"]),  # Triton 3.6: cas on any 16/32/64-bit element
    "float16": (np.float16, ["add", "cas"], ["1.0", "-2.0"]),  # xchg refused, as Triton 3.6
    "float32": (np.float32, ["add", "max", "min", "xchg", "cas"], ["1.0", "-2.0", "0.0", "-0.0"]),
    "float64": (np.float64, ["add", "max", "min", "xchg", "cas"], ["1.0", "-2.0", "-0.0"]),
}
BLOCK = 64


def kernel_source(kind, value, masked):
    call = (f"tl.atomic_cas(p + offs, {value}, {value})" if kind == "cas"
            else f"tl.atomic_{kind}(p + offs, {value}{', mask=offs < n' if masked else ''})")
    scalar_value = "s" if value == "v" else value
    scalar_call = (f"tl.atomic_cas(p + 2 * BLOCK, {scalar_value}, {scalar_value})" if kind == "cas"
                   else f"tl.atomic_{kind}(p + 2 * BLOCK, {scalar_value})")
    return f"""
import tritium
import tritium.language as tl


@tritium.jit
def k(p, old_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + BLOCK + offs)
    tl.store(old_ptr + offs, {call})
    tl.store(old_ptr + BLOCK, {scalar_call})
"""


def load_kernel(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.k


def initial(dtype, gen):
    if np.issubdtype(dtype, np.floating):
        x = gen.standard_normal(2 * BLOCK + 1) * 4
        x[::7] = -0.0
        x[::5] = 0.0
        return x.astype(dtype)
    info = np.iinfo(dtype)
    return gen.integers(max(info.min, -1000), min(info.max, 1000), 2 * BLOCK + 1, dtype=dtype, endpoint=True)


def cases():
    for name, (_, kinds, constants) in DTYPES.items():
        for kind in kinds:
            for value in constants[:2] + ["s", "v"]:
                for masked in ([False, True] if kind != "cas" else [False]):
                    yield pytest.param(name, kind, value, masked, id=f"{name}-{kind}-{value}-{'mask' if masked else 'all'}")


@pytest.mark.parametrize("name, kind, value, masked", list(cases()))
def test_atomic_matrix_matches_the_interpreter(tmp_path, name, kind, value, masked):
    dtype = DTYPES[name][0]
    case = f"{name}-{kind}-{value}-{masked}"
    gen = np.random.default_rng(zlib.crc32(case.encode()))
    kernel = load_kernel(tmp_path, f"atomics_{zlib.crc32(case.encode())}", kernel_source(kind, value, masked))
    memory = initial(dtype, gen)
    scalar = 3 if not np.issubdtype(dtype, np.floating) else -1.5
    n = BLOCK - 5
    # The interpreter on numpy copies.
    ref_memory, ref_old = memory.copy(), np.zeros(BLOCK + 1, dtype)
    kernel[(1,)](ref_memory, ref_old, scalar, n, BLOCK=BLOCK)
    # The GPU.
    gpu_memory = torch.from_numpy(memory.copy()).cuda()
    gpu_old = torch.from_numpy(np.zeros(BLOCK + 1, dtype)).cuda()
    kernel[(1,)](gpu_memory, gpu_old, scalar, n, BLOCK=BLOCK)
    torch.cuda.synchronize()
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    assert np.array_equal(gpu_memory.cpu().numpy().view(bits), ref_memory.view(bits))
    # Masked-off lanes read as 0 in both.
    assert np.array_equal(gpu_old.cpu().numpy().view(bits), ref_old.view(bits))


BF16_ADD = """
import tritium
import tritium.language as tl


@tritium.jit
def k(p, values, old, BLOCK: tl.constexpr, SLOTS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(old + offs, tl.atomic_add(p + offs % SLOTS, tl.load(values + offs)))
"""


@pytest.mark.parametrize("slots", [256, 4])
def test_bf16_atomic_add(tmp_path, slots):
    """bf16 atomic_add (Triton 3.6 allows it): native on sm_90, a compare-and-swap loop
    before. One address per element: each sum is the bf16 rounding of the fp32 sum, the old
    values returned exactly; four addresses: the sums within bf16 rounding of every order."""
    kernel = load_kernel(tmp_path, f"bf16_add_{slots}", BF16_ADD)
    gen = torch.Generator(device="cuda").manual_seed(5)
    block = 256
    start = (torch.rand(slots, device="cuda", generator=gen) * 8 - 4).to(torch.bfloat16)
    values = (torch.rand(block, device="cuda", generator=gen) * 8 - 4).to(torch.bfloat16)
    p, old = start.clone(), torch.zeros(block, device="cuda", dtype=torch.bfloat16)
    kernel[(1,)](p, values, old, BLOCK=block, SLOTS=slots)
    torch.cuda.synchronize()
    if slots == block:
        assert torch.equal(old, start)
        assert torch.equal(p, (start.float() + values.float()).to(torch.bfloat16))
    else:
        expected = start.float() + values.float().reshape(-1, slots).sum(0)
        torch.testing.assert_close(p.float(), expected, rtol=0.05, atol=0.5)


HALF_DESC_MAX_MIN = """
import tritium
import tritium.language as tl


@tritium.jit
def k(out, x, M, N, BM: tl.constexpr, BN: tl.constexpr, MAX: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(x + tl.program_id(0) * BM * BN + rows * BN + cols)
    desc = tl.make_tensor_descriptor(out, [M, N], [N, 1], [BM, BN])
    if MAX:
        desc.atomic_max([0, 0], v)
    else:
        desc.atomic_min([0, 0], v)
"""


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("is_max", [True, False])
def test_half_descriptor_max_min_matches_the_interpreter(tmp_path, dtype, is_max):
    """desc.atomic_max/min on fp16/bf16 (Triton 3.6: from sm_90): a compare-and-swap loop of
    PTX's max/min. Several programs reduce into one tensor, with NaNs and signed zeros: the
    GPU's memory equals the interpreter's (NaNs compared as NaNs: PTX's canonical NaN and the
    interpreter's differ in payload). Before sm_90 the compile is Triton's error."""
    kernel = load_kernel(tmp_path, f"half_desc_{'max' if is_max else 'min'}_{str(dtype)[6:]}", HALF_DESC_MAX_MIN)
    programs, M, N, BM, BN = 4, 6, 40, 8, 64
    gen = torch.Generator().manual_seed(11)
    special = torch.tensor([float("nan"), -0.0, 0.0, float("inf"), -float("inf"), 1.0])
    start = torch.randn((M + 1) * N, generator=gen)
    values = torch.randn(programs * BM * BN, generator=gen)
    for t in (start, values):
        pick = torch.rand(t.shape, generator=gen) < 0.3
        t[pick] = special[torch.randint(0, len(special), (int(pick.sum()),), generator=gen)]
    start, values = start.to(dtype), values.to(dtype)
    if torch.cuda.get_device_capability()[0] < 9:
        with pytest.raises(tritium.CompilationError, match="16-bit float types require native tma support"):
            kernel[(programs,)](start.cuda(), values.cuda(), M, N, BM=BM, BN=BN, MAX=is_max)
        return
    ref = start.view(torch.int16).numpy().copy()
    ref_values = values.view(torch.int16).numpy()
    half = tritium.language.float16 if dtype == torch.float16 else tritium.language.bfloat16
    kernel[(programs,)](tritium.reinterpret(ref, half), tritium.reinterpret(ref_values, half), M, N, BM=BM, BN=BN,
                        MAX=is_max)
    gpu = start.cuda()
    kernel[(programs,)](gpu, values.cuda(), M, N, BM=BM, BN=BN, MAX=is_max)
    torch.cuda.synchronize()
    got = gpu.cpu().float()
    want = torch.from_numpy(ref).view(dtype).float()
    assert torch.equal(got.isnan(), want.isnan())
    keep = ~got.isnan()
    assert torch.equal(got[keep], want[keep])
    assert torch.equal(torch.signbit(got[keep]), torch.signbit(want[keep]))
    assert not torch.equal(want.nan_to_num(), start.float().nan_to_num())  # the reduction changed memory

"""tl.atomic_load / tl.atomic_store on the GPU (issue 10, item 11): the copy kernel of
tests/python/test_atomic_load_store.py with torch CUDA tensors, and a message passed
between two programs (a release store of a flag after the data, an acquire spin on it),
with the spin bounded so a broken ordering fails instead of hanging."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402

import test_atomic_load_store as ref  # noqa: E402  (tests/python)

TORCH = {np.float32: torch.float32, np.float64: torch.float64, np.int32: torch.int32, np.int64: torch.int64}


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("sem,scope", [("acquire", "gpu"), ("relaxed", "cta"), ("acquire", "sys")])
def test_atomic_load_and_store_copy_on_gpu(rng, dtype, sem, scope):
    n, block = 1000, 128
    if np.dtype(dtype).kind == "f":
        src = rng.standard_normal(n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        src = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    s = torch.from_numpy(src).cuda()
    dst = torch.zeros(n + block, dtype=TORCH[dtype], device="cuda")
    grid = ((n + block - 1) // block,)
    ref.copy_kernel[grid](s, dst, n, BLOCK=block, SEM=sem, SCOPE=scope)
    d = dst.cpu().numpy()
    assert s.cpu().numpy().tobytes() == src.tobytes()
    assert d[:n].tobytes() == src.tobytes()


@tritium.jit
def handoff(flag_ptr, data_ptr, out_ptr, N: tl.constexpr, SPIN: tl.constexpr, PRODUCE: tl.constexpr):
    offs = tl.arange(0, N)
    if tl.program_id(0) == 0:
        if PRODUCE:
            tl.store(data_ptr + offs, offs + 1)
            tl.atomic_store(flag_ptr, 1)  # release: the data is visible before the flag
    else:
        seen = tl.atomic_load(flag_ptr)  # acquire: the data is read after the flag
        i = 0
        while (seen == 0) & (i < SPIN):
            seen = tl.atomic_load(flag_ptr)
            i += 1
        tl.store(out_ptr + offs, tl.where(seen == 1, tl.load(data_ptr + offs), -1))


@pytest.mark.parametrize("produce", [True, False])
def test_release_acquire_handoff_between_programs(produce):
    n = 1024
    flag = torch.zeros(1, dtype=torch.int32, device="cuda")
    data = torch.zeros(n, dtype=torch.int32, device="cuda")
    out = torch.zeros(n, dtype=torch.int32, device="cuda")
    handoff[(2,)](flag, data, out, N=n, SPIN=2_000_000, PRODUCE=produce)
    torch.cuda.synchronize()
    want = torch.arange(1, n + 1, dtype=torch.int32, device="cuda") if produce else torch.full_like(out, -1)
    assert torch.equal(out, want)

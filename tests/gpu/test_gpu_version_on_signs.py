"""version_on_signs on the GPU (DESIGN: GPU passes): a gather through `(s + arange) % n` whose
start s = (pid - shift) * BLOCK is negative for the first `shift` programs, so both copies of
the kernel run in one launch: the one behind `s >= 0` with proved 16-byte loads, and the one
as written. Every output element is compared exactly with torch's truncating remainder."""

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

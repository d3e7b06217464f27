"""fp16 <-> bf16 bitcasts on the GPU over all 65536 bit patterns (the fuzz finding of
tests/golden/half_bitcast.py: LLVM folded `bitcast + fcmp 0` into invalid IR; the bitcast now
goes through an opaque move): the bits move unchanged, and compares with 0 agree with torch
(+0 and -0 equal 0, NaN never does)."""

import pytest

torch = pytest.importorskip("torch")

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402


@tritium.jit
def bitcast_compare(src, bits_out, is_zero, not_zero, plus_one, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs, mask=mask)
    other = tl.bfloat16 if x.dtype == tl.float16 else tl.float16
    y = x.to(other, bitcast=True)
    tl.store(bits_out + offs, y, mask=mask)
    tl.store(is_zero + offs, y == 0, mask=mask)
    tl.store(not_zero + offs, y != 0, mask=mask)
    tl.store(plus_one + offs, x + 1, mask=mask)  # x used in its own type too


@pytest.mark.parametrize("src_dtype,dst_dtype", [(torch.float16, torch.bfloat16),
                                                 (torch.bfloat16, torch.float16)])
def test_half_bitcasts_compare_with_zero_over_every_bit_pattern(src_dtype, dst_dtype):
    n = 1 << 16
    bits = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32, device="cuda").to(torch.int16)
    x = bits.view(src_dtype)
    out = torch.full((n,), -1, dtype=torch.int16, device="cuda").view(dst_dtype)
    is_zero = torch.zeros(n, dtype=torch.bool, device="cuda")
    not_zero = torch.zeros(n, dtype=torch.bool, device="cuda")
    plus_one = torch.empty_like(x)
    bitcast_compare[(n // 1024,)](x, out, is_zero, not_zero, plus_one, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out.view(torch.int16), bits)
    y = bits.view(dst_dtype).float()
    assert torch.equal(is_zero, y == 0)
    assert torch.equal(not_zero, y != 0)
    finite = x.float().isfinite()
    assert torch.equal(plus_one[finite], (x[finite] + 1))


# ---- a float's low bits through narrow pointers (differential seeds 32994, 54609) ----

import numpy as np  # noqa: E402
import narrow_store_kernels as N  # noqa: E402  (tests/python, on sys.path through conftest.py)

NARROW_CASES = [(torch.int8, True, True), (torch.uint8, False, True), (torch.int16, True, False),
                (torch.uint16, False, False), (torch.bool, True, True), (torch.bool, False, False),
                (torch.int8, False, False)]


@pytest.mark.parametrize("dtype, narrow, masked", NARROW_CASES)
def test_float_bits_stored_through_narrow_pointers_keep_the_low_bits(dtype, narrow, masked):
    n = 1000 if masked else 1024
    x = torch.linspace(-300, 300, 1024, device="cuda", dtype=torch.float32)
    out = torch.zeros(1024, dtype=dtype, device="cuda")
    N.float_bits_to_narrow[(8,)](x, out, n, 1.7, NARROW=narrow, MASKED=masked, BLOCK=128)
    torch.cuda.synchronize()
    y = (x[:n].cpu().numpy() + np.float32(1.7)).view(np.uint32)
    if dtype == torch.bool:
        want = (y != 0).astype(np.uint8) if narrow else (y & 0xFF).astype(np.uint8)
        got = out[:n].cpu().view(torch.uint8).numpy()
    else:
        np_dtype = {torch.int8: np.int8, torch.uint8: np.uint8, torch.int16: np.int16,
                    torch.uint16: np.uint16}[dtype]
        want = y.astype(np_dtype).view(np.uint8)
        signed = {torch.uint16: torch.int16}.get(dtype, dtype)  # torch's uint16 has few ops
        got = out[:n].view(signed).cpu().numpy().view(np.uint8)
    assert np.array_equal(got, want)


def test_scalar_float_bits_stored_through_an_i8_pointer():
    x = torch.tensor([100.3], device="cuda")
    out = torch.zeros(1, dtype=torch.int8, device="cuda")
    N.scalar_float_bits_to_narrow[(1,)](x, out, 2.0)
    torch.cuda.synchronize()
    want = (np.float32(100.3) + np.float32(2.0)).view(np.int32).astype(np.int8)
    assert out.item() == want

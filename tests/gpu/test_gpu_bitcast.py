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

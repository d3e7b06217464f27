"""Host-side microscaling (MX) helpers, Triton's ``triton.tools.mxfp`` (test and benchmark
code builds tl.dot_scaled operands with them). torch tensors throughout.

``MXFP4Tensor``: e2m1 values (1 sign, 2 exponent, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6
and their negatives) held as one 4-bit code per uint8 in ``data``. Made from float values
(rounded to the nearest e2m1 value, ties to the even code, saturating at 6) or from a
``size`` (then ``random()`` fills it). ``to(dtype)`` decodes; ``to_packed_tensor(dim)`` (0 <= dim < ndim, else an
AssertionError) packs two codes per byte along `dim`, the lower index in the low nibble (as tl.dot_scaled
reads e2m1 operands); ``unpack_packed_tensor(packed, dim, original_shape)`` undoes it.

``MXScaleTensor``: e8m0 scales (a biased power of two: code c means 2**(c - 127), 255 is
NaN) held as uint8 in ``data``; made from floats (the power of two at or below each; zero,
negative, infinite and NaN values, which e8m0 cannot hold, become 255); ``random(low, high)`` draws powers of two in [low, high],
``to(dtype)`` decodes.
"""

import math

__all__ = ["MXFP4Tensor", "MXScaleTensor"]

# The e2m1 magnitudes of codes 0..7; codes 8..15 are their negatives.
_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def _torch():
    import torch
    return torch


class MXFP4Tensor:
    def __init__(self, data=None, size=None, device=None):
        torch = _torch()
        if data is not None:
            values = torch.as_tensor(data, device=device).to(torch.float32)
            self.device = values.device
            self.data = self._encode(values)
        elif size is not None:
            self.device = device
            self.data = torch.zeros(tuple(size), dtype=torch.uint8, device=device)
        else:
            raise ValueError("MXFP4Tensor needs data or a size")

    @staticmethod
    def _encode(values):
        torch = _torch()
        table = torch.tensor(_E2M1, dtype=torch.float32, device=values.device)
        magnitude = values.abs().clamp(max=6.0)
        # Nearest table entry; on a tie the even code (its mantissa bit clear).
        distance = (magnitude.unsqueeze(-1) - table).abs()
        best = distance.min(dim=-1, keepdim=True).values
        candidates = distance == best
        even = torch.arange(8, device=values.device) % 2 == 0
        prefer = candidates & even
        choice = torch.where(prefer.any(dim=-1, keepdim=True), prefer, candidates)
        code = choice.to(torch.uint8).argmax(dim=-1).to(torch.uint8)
        sign = (values < 0) | ((values == 0) & (torch.signbit(values)))
        code = torch.where(torch.isnan(values), torch.zeros_like(code), code)
        return code | (sign.to(torch.uint8) << 3)

    def random(self):
        torch = _torch()
        self.data = torch.randint(0, 16, tuple(self.data.shape), dtype=torch.uint8, device=self.data.device)
        return self

    def to(self, dtype):
        torch = _torch()
        table = torch.tensor(_E2M1 + tuple(-v for v in _E2M1), dtype=torch.float32, device=self.data.device)
        return table[self.data.long()].to(dtype)

    def to_packed_tensor(self, dim):
        torch = _torch()
        codes = self.data
        assert 0 <= dim < codes.dim(), \
            f"MXFP4Tensor.to_packed_tensor: dim {dim} is not a dimension of a {codes.dim()}-d tensor"
        if codes.shape[dim] % 2:
            pad = list(codes.shape)
            pad[dim] = 1
            codes = torch.cat([codes, torch.zeros(pad, dtype=torch.uint8, device=codes.device)], dim=dim)
        low = codes.narrow(dim, 0, codes.shape[dim]).unfold(dim, 2, 2)
        return (low[..., 0] | (low[..., 1] << 4)).contiguous()

    def unpack_packed_tensor(self, packed_tensor, dim, original_shape):
        torch = _torch()
        dim = dim % packed_tensor.dim()
        low = packed_tensor & 0x0F
        high = (packed_tensor >> 4) & 0x0F
        both = torch.stack([low, high], dim=dim + 1).flatten(dim, dim + 1)
        return both.narrow(dim, 0, original_shape[dim]).contiguous()


class MXScaleTensor:
    def __init__(self, data=None, size=None, device=None):
        torch = _torch()
        if data is not None:
            values = torch.as_tensor(data, device=device).to(torch.float32)
            self.device = values.device
            exponent = torch.floor(torch.log2(values.clamp(min=2.0 ** -127)))
            codes = (exponent + 127).clamp(0, 254).to(torch.uint8)
            # e8m0 has no zero, sign or infinity: those (and NaN) are its NaN code, 255.
            special = torch.isnan(values) | torch.isinf(values) | (values <= 0)
            self.data = torch.where(special, torch.full_like(codes, 255), codes)
        elif size is not None:
            self.device = device
            self.data = torch.full(tuple(size), 127, dtype=torch.uint8, device=device)
        else:
            raise ValueError("MXScaleTensor needs data or a size")

    def random(self, low=None, high=None):
        torch = _torch()
        lo = -127 if low is None else math.ceil(math.log2(low))
        hi = 127 if high is None else math.floor(math.log2(high))
        if lo > hi:
            raise ValueError(f"MXScaleTensor.random: no power of two in [{low}, {high}]")
        exponents = torch.randint(lo, hi + 1, tuple(self.data.shape), device=self.data.device)
        self.data = (exponents + 127).to(torch.uint8)
        return self

    def to(self, dtype):
        torch = _torch()
        values = torch.pow(2.0, self.data.to(torch.float32) - 127)
        values = torch.where(self.data == 255, torch.full_like(values, float("nan")), values)
        return values.to(dtype)

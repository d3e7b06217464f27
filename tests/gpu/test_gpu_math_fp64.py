"""fp64 tl.exp/exp2/log/log2/sin/cos on the GPU through libdevice (the 75 "GPU refused" seeds
of the 2026-12-02 differential run), and -0.0 numbers as +0.0 (seed 76382), with the kernels
of tests/python/test_math.py and test_scalar_operands.py against numpy."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_math as math_ref  # noqa: E402  (tests/python)
import test_scalar_operands as scalar_ref  # noqa: E402


def test_fp64_math_on_gpu():
    x = np.linspace(0.5, 3.0, 64)
    y = torch.zeros(64, dtype=torch.float64, device="cuda")
    math_ref.fp64_math[(1,)](torch.from_numpy(x).cuda(), y, BLOCK=64)
    want = np.exp(x) + np.exp2(x) + np.log(x) + np.log2(x) + np.sin(x) + np.cos(x)
    np.testing.assert_allclose(y.cpu().numpy(), want, rtol=4e-16 * 8)  # libdevice: <= 2 ulps each


def test_negative_zero_numbers_on_gpu():
    x = torch.tensor([-2.0, 3.0, -0.5, 7.0], device="cuda")
    out = torch.full((16,), 123, dtype=torch.int32, device="cuda")
    scalar_ref.negative_zero_literals[(1,)](x, out)
    sign = -2**31
    assert out.cpu().tolist() == [0] * 4 + [sign, 0, sign, 0] + [0] * 8


def test_propagate_nan_on_gpu():
    x, y = torch.from_numpy(math_ref.NAN_X).cuda(), torch.from_numpy(math_ref.NAN_Y).cuda()
    out = torch.zeros(5 * 8, device="cuda")
    math_ref.nan_min_max[(1,)](x, y, out, BLOCK=8)
    np.testing.assert_array_equal(out.cpu().numpy().reshape(5, 8),
                                  math_ref.nan_min_max_reference(math_ref.NAN_X, math_ref.NAN_Y))

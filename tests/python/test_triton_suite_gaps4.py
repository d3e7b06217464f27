"""Gaps found by running Triton 3.6's test_matmul.py, test_mxfp.py, test_pipeliner.py and
smaller files under tritium (tests/triton_suite/RESULTS.md, session 15), each pinned here in
tritium's own words. Kernels run in the interpreter or compile to text: no GPU needed."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


# ---- triton.tools.mxfp: e8m0 special values, the packing dimension ----

def test_mx_scale_tensor_encodes_what_e8m0_cannot_hold_as_nan():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXScaleTensor
    values = torch.tensor([0.0, -0.0, -1.0, -8.0, float("nan"), float("inf"), float("-inf"), 4.0, 2.0 ** -127])
    assert MXScaleTensor(values).data.tolist() == [255, 255, 255, 255, 255, 255, 255, 129, 0]


def test_mxfp4_packing_dimension_must_exist():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXFP4Tensor
    t = MXFP4Tensor(size=(4, 6)).random()
    for bad in (2, 5, -1):
        with pytest.raises(AssertionError, match="dim"):
            t.to_packed_tensor(dim=bad)
    assert t.to_packed_tensor(dim=1).shape == (4, 3)
    assert t.to_packed_tensor(dim=0).shape == (2, 6)

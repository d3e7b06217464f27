"""Float-to-integer conversions on the GPU (one cvt.rzi each since session 9): every float
dtype to every integer dtype over edge values (halves, the types' ends and one past them,
+-inf, NaN, the largest finite floats), equal to the numpy reference of tritium's definition
that the interpreter also meets (tests/python/test_float_to_int.py): toward zero, saturated,
NaN -> 0."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import float_to_int_kernels as K  # noqa: E402  (tests/python, on sys.path through conftest.py)
from test_float_to_int import INTS, edge_values, reference  # noqa: E402

TORCH_FLOAT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
               "float64": torch.float64}
# torch's unsigned 16/32/64-bit types have few ops: read them back through the signed type.
TORCH_INT = {"int8": (torch.int8, torch.int8), "uint8": (torch.uint8, torch.uint8),
             "int16": (torch.int16, torch.int16), "uint16": (torch.uint16, torch.int16),
             "int32": (torch.int32, torch.int32), "uint32": (torch.uint32, torch.int32),
             "int64": (torch.int64, torch.int64), "uint64": (torch.uint64, torch.int64)}


@pytest.mark.parametrize("float_dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("int_dtype", INTS)
def test_float_to_int_on_gpu(float_dtype, int_dtype):
    if float_dtype == "bfloat16":
        x64 = edge_values(np.float32).astype(np.float64)
        x = torch.tensor(x64, dtype=torch.float64).to(torch.bfloat16)  # rounds as the kernel sees it
        x_ref = x.float().numpy()
    else:
        x_ref = edge_values(float_dtype)
        x = torch.from_numpy(x_ref.copy())
    dtype, signed = TORCH_INT[int_dtype]
    out = torch.full((len(x_ref),), 7, dtype=signed, device="cuda").view(dtype)
    K.float_to_int[(1,)](x.to("cuda"), out, len(x_ref), BLOCK=64)
    torch.cuda.synchronize()
    got = out.view(signed).cpu().numpy().view(int_dtype)
    assert np.array_equal(got, reference(x_ref, int_dtype)), (x_ref, got)

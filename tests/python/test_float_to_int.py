"""Float-to-integer conversions without a GPU: the interpreter's values against a numpy
reference of the definition (toward zero, saturated, NaN -> 0) for every float and integer
dtype pair over edge values, and the PTX: from fp16/bf16/fp32 to at most 32 bits, one cvt.rzi
per conversion (PTX's cvt saturates and maps NaN to 0 by itself), no max/min/compare/select
around it; fp64 sources and 64-bit results keep LLVM's sequence (the H200 disagreed for
f16/f32 to i64/u64); all assembled by ptxas for sm_80 and sm_90 when it is on the machine.
The GPU's values: tests/gpu/test_gpu_float_to_int.py."""

import re
import subprocess

import numpy as np
import pytest

import tritium
from helpers import ptxas
import float_to_int_kernels as K

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def edge_values(float_dtype):
    info = np.finfo(float_dtype)
    vals = [0.0, -0.0, 0.5, -0.5, 0.999, -0.999, 1.5, -1.5, 2.7, -2.7, 127.9, 128.0, -128.0, -128.9,
            -129.0, 255.5, 256.0, 32767.5, 32768.0, -32768.5, -32769.0, 65535.9, 65536.0,
            2.0 ** 31 - 128, 2.0 ** 31, -(2.0 ** 31), -(2.0 ** 31) - 512, 2.0 ** 32, 2.0 ** 32 - 1024,
            2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1e30, -1e30, float(info.max), float(-info.max),
            np.inf, -np.inf, np.nan, float(info.tiny), -float(info.tiny)]
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(float_dtype)


def reference(x, int_dtype):
    info = np.iinfo(int_dtype)
    t = np.trunc(x.astype(np.float64))
    out = np.zeros(x.shape, dtype=int_dtype)
    for i, v in enumerate(t):
        if np.isnan(v):
            out[i] = 0
        elif v <= info.min:
            out[i] = info.min
        elif v >= info.max:
            out[i] = info.max
        else:
            out[i] = int(v)
    return out


@pytest.mark.parametrize("float_dtype", FLOATS)
@pytest.mark.parametrize("int_dtype", INTS)
def test_interpreter_truncates_saturates_and_zeroes_nan(float_dtype, int_dtype):
    x = edge_values(float_dtype)
    out = np.full(x.shape, 7, dtype=int_dtype)
    K.float_to_int[(1,)](x, out, len(x), BLOCK=64)
    assert np.array_equal(out, reference(x, int_dtype)), (x, out)




@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("float_dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("int_dtype", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_ptx_is_one_cvt(tmp_path, arch, float_dtype, int_dtype):
    sig_float = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "bfloat16": "bf16"}[float_dtype]
    sig_int = {"int8": "i8", "uint16": "u16", "int32": "i32", "uint32": "u32", "int64": "i64",
               "uint64": "u64"}[int_dtype]
    try:
        ptx = K.float_to_int.emit("ptx", signature=f"*{sig_float}:16, *{sig_int}:16, i32, BLOCK=64", arch=arch)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise
    body = ptx[ptx.index("{"):]
    assert len(re.findall(r"\bcvt\.rzi\.[su](8|16|32|64)\.f(16|32|64)\b", body)) == 1, body
    one_cvt = float_dtype != "float64" and not int_dtype.endswith("64")
    assert bool(re.search(r"\b(max|min|selp)\.", body)) != one_cvt, body
    tool = ptxas()
    if tool:
        (tmp_path / "k.ptx").write_text(ptx)
        result = subprocess.run([tool, f"-arch=sm_{arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr

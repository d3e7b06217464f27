"""Kernels and numpy references for tests/python/test_libdevice_more.py and
tests/gpu/test_gpu_libdevice_more.py: one kernel per libdevice function, loading its
operands of the given dtypes and storing its result."""

import importlib.util
import math
import os
import tempfile

import numpy as np

SOURCE = '''
import tritium
import tritium.language as tl
from tritium.libdevice import {name}

@tritium.jit
def kernel({params}out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
{loads}    tl.store(out_ptr + offs, {name}({args}))
'''

_cache = {}


def make_kernel(name, arity):
    """A kernel computing libdevice.<name> over N elements of `arity` input arrays."""
    key = (name, arity)
    if key not in _cache:
        params = "".join(f"a{i}_ptr, " for i in range(arity))
        loads = "".join(f"    a{i} = tl.load(a{i}_ptr + offs)\n" for i in range(arity))
        args = ", ".join(f"a{i}" for i in range(arity))
        path = os.path.join(tempfile.mkdtemp(), f"libdevice_{name}.py")
        with open(path, "w") as f:
            f.write(SOURCE.format(name=name, params=params, loads=loads, args=args))
        spec = importlib.util.spec_from_file_location(f"libdevice_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _cache[key] = module.kernel
    return _cache[key]


N = 16
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
F_EDGE = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-3, 123.456, -7.75, 1e30, -1e30, 2.0]
I32_EDGE = [0, 1, -1, INT32_MIN, INT32_MAX, 2, 3, 0x12345678, -0x12345678, 255, 256, 0x00800000, -7, 0x7f00ff00,
            0x55555555, 1 << 30]
I64_EDGE = [0, 1, -1, -2**63, 2**63 - 1, 2, 3, 0x123456789abcdef0, -0x123456789abcdef0, 1 << 40, 255, -7, 1 << 62,
            0x0f0f0f0f0f0f0f0f, 12345678901, -12345678901]


def floats(dtype):
    return np.array(F_EDGE, dtype=dtype)


def finite(dtype, lo=-4.0, hi=4.0):
    return np.linspace(lo, hi, N).astype(dtype)


def ints(dtype):
    if np.dtype(dtype).itemsize == 8:
        return np.array(I64_EDGE, dtype=np.int64).astype(dtype)
    return np.array(I32_EDGE, dtype=np.int64).astype(np.uint32).astype(dtype) if np.dtype(dtype).kind == "u" \
        else np.array(I32_EDGE, dtype=np.int32)

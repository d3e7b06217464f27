"""The libdevice functions of tests/python/test_libdevice_more.py on the GPU (NVIDIA's
libdevice, linked) against the interpreter (the same kernels on host arrays): bit functions,
classification, conversions and the directed roundings bit for bit; the special functions
within libdevice's documented ulp bounds. Inputs avoid fp32 subnormals (Triton's libdevice
flushes them)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from libdevice_more_kernels import N, finite, floats, ints, make_kernel  # noqa: E402  (tests/python)

F32, F64 = np.float32, np.float64
I32, U32, I64, U64 = np.int32, np.uint32, np.int64, np.uint64
MODES = ["rn", "rz", "rd", "ru"]


def both(name, inputs, out_dtype):
    """(interpreter, GPU) results of libdevice.<name> on `inputs`."""
    kernel = make_kernel(name, len(inputs))
    host = np.zeros(N, dtype=out_dtype)
    kernel[(1,)](*inputs, host, N=N)  # host arrays: the interpreter
    dev_in = [torch.from_numpy(np.ascontiguousarray(x)).cuda() for x in inputs]
    dev_out = torch.from_numpy(np.zeros(N, dtype=out_dtype)).cuda()
    kernel[(1,)](*dev_in, dev_out, N=N)
    return host, dev_out.cpu().numpy()


def same_bits(a, b, what):
    if a.dtype.kind == "f":
        nan = np.isnan(a) & np.isnan(b)
        a, b = a.copy(), b.copy()
        a[nan] = b[nan] = 0
        a = a.view(np.uint32 if a.dtype == F32 else np.uint64)
        b = b.view(np.uint32 if b.dtype == F32 else np.uint64)
    np.testing.assert_array_equal(b, a, err_msg=what)


def scaled(rng, dtype, lo=-20, hi=20):
    return (rng.standard_normal(N) * np.exp2(rng.integers(lo, hi, N))).astype(dtype)


EXACT_ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "rcp": 1, "sqrt": 1}


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", sorted(EXACT_ARITY))
def test_directed_rounding_on_gpu(rng, op, mode, dtype):
    if op in ("div", "sqrt") and mode == "rn":
        pytest.skip("the first table's (div_rn, sqrt_rn)")
    xs = [scaled(rng, dtype) for _ in range(EXACT_ARITY[op])]
    if op == "sqrt":
        xs[0] = np.abs(xs[0])
    if len(xs) >= 2:
        xs[1][:2] = -xs[0][:2]
        xs[0][2:4], xs[1][2:4] = [1, -1], [2.0**-60, 2.0**-60]
    if len(xs) == 3:
        xs[0][4], xs[1][4], xs[2][4] = 1 + 2.0**-12, 1 + 2.0**-12, 2.0**-80
    host, gpu = both(f"{op}_{mode}", xs, dtype)
    same_bits(host, gpu, f"{op}_{mode}")


def test_directed_special_values_on_gpu():
    x = floats(F32)
    y = np.roll(x, 3)
    for name, args in [("add_rd", (x, y)), ("mul_ru", (x, y)), ("div_rz", (x, y)), ("fma_rz", (x, y, x)),
                       ("rcp_ru", (x,)), ("sqrt_rd", (x,))]:
        host, gpu = both(name, args, F32)
        same_bits(host, gpu, name)


CONVERSIONS = [("double2float", F64, F32), ("float2int", F32, I32), ("double2int", F64, I32),
               ("float2uint", F32, I32), ("double2uint", F64, I32), ("float2ll", F32, I64), ("double2ll", F64, I64),
               ("float2ull", F32, I64), ("double2ull", F64, I64), ("int2float", I32, F32), ("uint2float", U32, F32),
               ("ll2float", I64, F32), ("ull2float", U64, F32), ("ll2double", I64, F64), ("ull2double", U64, F64)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, src, dst", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_conversions_on_gpu(rng, mode, name, src, dst):
    if np.dtype(src).kind == "f":
        x = np.concatenate([floats(src)[:8], scaled(rng, src, -5, 40)[:8]]).astype(src)
        x[5] = 3e9  # in uint32's range only
    else:
        x = ints(src)
    host, gpu = both(f"{name}_{mode}", [x], dst)
    same_bits(host, gpu, f"{name}_{mode}")


@pytest.mark.parametrize("name, inputs, out", [
    ("int2double_rn", [ints(I32)], F64), ("uint2double_rn", [ints(U32)], F64),
    ("double2loint", [floats(F64)], I32), ("double2hiint", [floats(F64)], I32),
    ("hiloint2double", [ints(I32), np.roll(ints(I32), 3)], F64),
    ("float_as_int", [floats(F32)], I32), ("float_as_uint", [floats(F32)], I32),
    ("longlong_as_double", [floats(F64).view(I64)], F64), ("double_as_longlong", [floats(F64)], I64),
    ("popc", [ints(I32)], I32), ("popc", [ints(I64)], I32), ("clz", [ints(I32)], I32), ("clz", [ints(I64)], I32),
    ("ffs", [ints(I32)], I32), ("ffs", [ints(I64)], I32), ("brev", [ints(I32)], I32), ("brev", [ints(I64)], I64),
    ("byte_perm", [ints(I32), np.roll(ints(I32), 5), np.roll(ints(I32), 9)], I32),
    ("hadd", [ints(I32), np.roll(ints(I32), 7)], I32), ("hadd", [ints(U32), np.roll(ints(U32), 7)], U32),
    ("rhadd", [ints(I32), np.roll(ints(I32), 7)], I32), ("rhadd", [ints(U32), np.roll(ints(U32), 7)], U32),
    ("mul24", [ints(I32), np.roll(ints(I32), 7)], I32), ("mul24", [ints(U32), np.roll(ints(U32), 7)], U32),
    ("sad", [ints(I32), np.roll(ints(I32), 7), ints(U32)], I32),
    ("sad", [ints(U32), np.roll(ints(U32), 7), np.roll(ints(U32), 2)], U32),
    ("mulhi", [ints(I32), np.roll(ints(I32), 1)], I32), ("mulhi", [ints(U64), np.roll(ints(U64), 1)], U64),
    ("abs", [ints(I32)], I32), ("abs", [ints(I64)], I64),
    ("isnan", [floats(F32)], np.bool_), ("isinf", [floats(F64)], np.bool_), ("signbit", [floats(F32)], I32),
    ("signbit", [floats(F64)], I32), ("finitef", [floats(F32)], I32), ("isfinited", [floats(F64)], I32),
    ("ilogb", [floats(F32)], I32), ("ilogb", [floats(F64)], I32),
    ("llrint", [floats(F32)], I64), ("llrint", [floats(F64)], I64),
    ("llround", [floats(F32)], I64), ("llround", [floats(F64)], I64),
    ("ldexp", [floats(F32), np.array([0, 1, -1, 3, -3, 10, -10, 20, -20, 5, 1, -1, 2, 0, 7, -7], I32)], F32),
    ("scalbn", [floats(F64), np.array([0, 1, -1, 3, -3, 10, -10, 200, -200, 5, 1, -1, 2, 0, 7, -7], I32)], F64),
    ("rsqrt_rn", [np.abs(finite(F32, 0.01, 100))], F32),
], ids=lambda v: v if isinstance(v, str) else None)
def test_exact_functions_on_gpu(name, inputs, out):
    host, gpu = both(name, inputs, out)
    same_bits(host, gpu, name)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("name, make, rtol32, rtol64", [
    ("cyl_bessel_i0", lambda d: [finite(d, -10, 10)], 4e-7, 4e-15),
    ("cyl_bessel_i1", lambda d: [finite(d, -10, 10)], 4e-7, 4e-15),
    ("erfcx", lambda d: [np.array([-5, -1, 0, 0.5, 1, 3, 10, 25, 26.5, 30, 100, 1e5, 1e20, 2, 4, 8], d)], 4e-7, 4e-15),
    ("erfcinv", lambda d: [np.array([1e-30, 1e-10, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0, 1.5, 1.99, 0.1, 0.2, 0.9, 1.1,
                                     1.3, 1.7], d)], 4e-7, 4e-15),
    ("normcdfinv", lambda d: [np.array([1e-30, 1e-10, 0.01, 0.3, 0.5, 0.7, 0.99, 0.999, 0.25, 0.75, 0.1, 0.2, 0.9,
                                        0.05, 0.6, 0.4], d)], 4e-7, 4e-15),
    ("jn", lambda d: [np.array([0, 1, 2, 3, 5, 4, 2, 1] * 2, I32), finite(d, 0.5, 12)], 1e-5, 1e-12),
    ("yn", lambda d: [np.array([0, 1, 2, 3, 5, 4, 2, 1] * 2, I32), finite(d, 0.5, 12)], 1e-5, 1e-12),
    ("norm3d", lambda d: [finite(d, -9, 9), finite(d, 3, -5), finite(d, 0.5, 7)], 3e-7, 3e-16),
    ("rnorm3d", lambda d: [finite(d, -9, 9), finite(d, 3, -5), finite(d, 0.5, 7)], 3e-7, 3e-16),
    ("norm4d", lambda d: [finite(d, -9, 9), finite(d, 3, -5), finite(d, 0.5, 7), finite(d, 1, 2)], 3e-7, 3e-16),
    ("rnorm4d", lambda d: [finite(d, -9, 9), finite(d, 3, -5), finite(d, 0.5, 7), finite(d, 1, 2)], 3e-7, 3e-16),
    ("pow", lambda d: [finite(d, 0.5, 3), np.array([-3, -2, -1, 0, 1, 2, 3, 4] * 2, I32)], 3e-7, 3e-16),
], ids=lambda v: v if isinstance(v, str) else None)
def test_special_functions_on_gpu(name, make, rtol32, rtol64, dtype):
    # The jn/yn tolerances allow for their absolute error near zeros of the functions.
    host, gpu = both(name, make(dtype), dtype)
    np.testing.assert_allclose(gpu, host, rtol=rtol32 if dtype == F32 else rtol64,
                               atol=1e-6 if name in ("jn", "yn") and dtype == F32 else 0, err_msg=name)


def test_fast_functions_on_gpu(rng):
    x = (rng.random(N) * 4 + 0.1).astype(F32)
    # lg2.approx's error is absolute (about 2^-22 near 1), so log10 of x near 1 needs an atol
    # (session 28's run met x = 0.9973: 1.6e-8 off, 1.4e-5 relative).
    for name, args, rtol, atol in [("fast_exp10f", [x], 1e-5, 0), ("fast_log10f", [x], 1e-5, 1e-7),
                                   ("fast_powf", [x, x], 2e-5, 0)]:
        host, gpu = both(name, args, F32)
        np.testing.assert_allclose(gpu, host, rtol=rtol, atol=atol, err_msg=name)
    host, gpu = both("rcp64h", [x.astype(F64)], F64)  # an approximation of 1/x on the GPU
    np.testing.assert_allclose(gpu, host, rtol=1e-4)

"""tl.dot_scaled kernels and a numpy reference, shared by the interpreter suite
(test_dot_scaled.py) and the GPU suite (tests/gpu/test_gpu_dot_scaled.py). `load("triton")`
gives the same kernels under real Triton for differential runs on the GPU.

The reference follows Triton's decomposition on GPUs without native microscaling (sm_90):
each operand upcast to bf16 (fp16 when either format is fp16), e2m1 unpacked low nibble
first, multiplied by 2^(scale - 127) made in that type (scale 0 gives 0, 0xFF NaN), then a
product with fp32 accumulation (float64 here)."""

import importlib
import importlib.util
import math

import numpy as np

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")


def load(jit_module):
    """This file as a module whose kernels are decorated by `jit_module` ("tritium"/"triton")."""
    spec = importlib.util.spec_from_file_location(f"dot_scaled_kernels_{jit_module}", __file__)
    module = importlib.util.module_from_spec(spec)
    module.JIT = jit_module
    spec.loader.exec_module(module)
    return module


@jit
def dot_scaled_kernel(a_ptr, a_scale, b_ptr, b_scale, acc_ptr, c_ptr,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                      A_ROWS: tl.constexpr, A_COLS: tl.constexpr, B_ROWS: tl.constexpr, B_COLS: tl.constexpr,
                      A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, A_K_PACK: tl.constexpr,
                      B_K_PACK: tl.constexpr, HAS_ACC: tl.constexpr, FAST_MATH: tl.constexpr):
    """c[M, N] = dot_scaled(a[A_ROWS, A_COLS], a_scale[M, K // 32], b[B_ROWS, B_COLS],
    b_scale[N, K // 32]) (+ acc); every array row-major; a scale pointer may be None."""
    a = tl.load(a_ptr + tl.arange(0, A_ROWS)[:, None] * A_COLS + tl.arange(0, A_COLS)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_ROWS)[:, None] * B_COLS + tl.arange(0, B_COLS)[None, :])
    SCALE_K: tl.constexpr = K // 32
    if a_scale is not None:
        a_scale = tl.load(a_scale + tl.arange(0, M)[:, None] * SCALE_K + tl.arange(0, SCALE_K)[None, :])
    if b_scale is not None:
        b_scale = tl.load(b_scale + tl.arange(0, N)[:, None] * SCALE_K + tl.arange(0, SCALE_K)[None, :])
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    if HAS_ACC:
        c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, tl.load(acc_ptr + offs), fast_math=FAST_MATH,
                          lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK)
    else:
        c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, fast_math=FAST_MATH, lhs_k_pack=A_K_PACK,
                          rhs_k_pack=B_K_PACK)
    tl.store(c_ptr + offs, c)


@jit
def dot_scaled_3d_kernel(a_ptr, a_scale, b_ptr, b_scale, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                         K: tl.constexpr, A_COLS: tl.constexpr, B_ROWS: tl.constexpr, A_FORMAT: tl.constexpr,
                         B_FORMAT: tl.constexpr):
    """Batched: c[B, M, N] from a[B, M, A_COLS], b[B, B_ROWS, N], scales [B, M | N, K // 32]."""
    rb = tl.arange(0, B)[:, None, None]
    SCALE_K: tl.constexpr = K // 32
    a = tl.load(a_ptr + rb * M * A_COLS + tl.arange(0, M)[None, :, None] * A_COLS
                + tl.arange(0, A_COLS)[None, None, :])
    b = tl.load(b_ptr + rb * B_ROWS * N + tl.arange(0, B_ROWS)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    sa = tl.load(a_scale + rb * M * SCALE_K + tl.arange(0, M)[None, :, None] * SCALE_K
                 + tl.arange(0, SCALE_K)[None, None, :])
    sb = tl.load(b_scale + rb * N * SCALE_K + tl.arange(0, N)[None, :, None] * SCALE_K
                 + tl.arange(0, SCALE_K)[None, None, :])
    c = tl.dot_scaled(a, sa, A_FORMAT, b, sb, B_FORMAT)
    tl.store(c_ptr + rb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


# ---- the reference ----

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0] * 2) * np.repeat([1.0, -1.0], 8)


def _fp8_table(exp_bits, man_bits, bias, nan_codes):
    out = np.empty(256)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        field = (code >> man_bits) & ((1 << exp_bits) - 1)
        mant = code & ((1 << man_bits) - 1)
        if field == 0:
            out[code] = sign * mant * 2.0 ** (1 - bias - man_bits)
        else:
            out[code] = sign * (1 + mant / 2 ** man_bits) * 2.0 ** (field - bias)
        if exp_bits == 5 and field == 31:  # e5m2 keeps IEEE infinities and NaNs
            out[code] = sign * math.inf if mant == 0 else math.nan
    for code in nan_codes:
        out[code] = math.nan
    return out


E4M3 = _fp8_table(4, 3, 7, (0x7F, 0xFF))
E5M2 = _fp8_table(5, 2, 15, ())


def bf16_round(x):
    """float64 values rounded to the nearest bf16 (ties to even), as float64."""
    f = np.asarray(x, dtype=np.float32)  # exact for the values here (products of bf16 and powers of two)
    bits = f.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isnan(f), np.nan, out)


def bf16_bits(x):
    """uint16 bit patterns of float values rounded to bf16."""
    return (bf16_round(x).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_from_bits(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


def compute_type(fmt_a, fmt_b):
    return "fp16" if "fp16" in (fmt_a, fmt_b) else "bf16"


def to_compute(x, compute):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.float16(x).astype(np.float64) if compute == "fp16" else bf16_round(x)


def unpack_e2m1(packed, axis):
    """uint8 bytes -> float64 e2m1 values, twice as many along `axis`, low nibble first."""
    lo = E2M1[packed & 15]
    hi = E2M1[packed >> 4]
    out = np.stack([lo, hi], axis=axis + 1)
    shape = list(packed.shape)
    shape[axis] *= 2
    return out.reshape(shape)


def decode(v, fmt, k_axis, k_pack, other_axis):
    """The operand's values (float64) before the compute-type rounding."""
    if fmt == "e2m1":
        return unpack_e2m1(v, k_axis if k_pack else other_axis)
    if fmt == "e4m3":
        return E4M3[v]
    if fmt == "e5m2":
        return E5M2[v]
    if fmt == "bf16":
        return bf16_from_bits(v)
    return np.asarray(v, dtype=np.float64)  # fp16


def scaled_operand(v, scale, fmt, compute, rhs, k_pack=True, fast_math=False):
    rank = v.ndim
    k_axis = rank - 2 if rhs else rank - 1
    other = rank - 1 if rhs else rank - 2
    x = to_compute(decode(v, fmt, k_axis, k_pack, other), compute)
    if scale is None:
        return x
    s = scale.astype(np.int64)
    if compute == "bf16":
        factor = np.where(s == 0, 0.0, np.where(s == 255, np.inf, np.ldexp(1.0, s - 127)))
    else:
        factor = np.where(s == 0, 0.0, to_compute(np.ldexp(1.0, s - 127).astype(np.float32), "fp16"))
    if rhs:  # [.., N, K/32] -> [.., K/32, N]
        factor = np.swapaxes(factor, -1, -2)
        nan = np.swapaxes(s == 255, -1, -2)
    else:
        nan = s == 255
    factor = np.repeat(factor, 32, axis=k_axis)
    nan = np.repeat(nan, 32, axis=k_axis)
    with np.errstate(over="ignore", invalid="ignore"):
        x = to_compute(x * factor, compute)
    return x if fast_math else np.where(nan, np.nan, x)


def reference(a, a_scale, fmt_a, b, b_scale, fmt_b, acc=None, a_k_pack=True, b_k_pack=True, fast_math=False):
    compute = compute_type(fmt_a, fmt_b)
    x = scaled_operand(a, a_scale, fmt_a, compute, False, a_k_pack, fast_math)
    y = scaled_operand(b, b_scale, fmt_b, compute, True, b_k_pack, fast_math)
    with np.errstate(over="ignore", invalid="ignore"):
        out = x @ y
        bound = np.abs(x) @ np.abs(y)
    if acc is not None:
        out = out + acc
        bound = bound + np.abs(acc)
    return out, bound


# ---- inputs ----

def operand(rng, fmt, shape, compute="bf16"):
    """Random storage for `fmt` of the given (packed) shape: finite values only."""
    if fmt == "e2m1":
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if fmt in ("e4m3", "e5m2"):
        codes = rng.integers(0, 256, shape, dtype=np.uint8)
        if fmt == "e4m3":
            return np.where(codes & 0x7F == 0x7F, codes & 0xFE, codes).astype(np.uint8)
        if compute == "fp16":  # keep e5m2 inside fp16's range once scaled
            codes = codes & 0xBF
        return np.where(codes & 0x7C == 0x7C, codes & 0xF3, codes).astype(np.uint8)
    values = rng.standard_normal(shape).clip(-8, 8)
    if fmt == "bf16":
        return bf16_bits(values)
    return values.astype(np.float16)


def packed_shape(fmt, rows, cols, k_axis, k_pack):
    """The storage shape of a logical [rows, cols] operand whose K axis is `k_axis`."""
    shape = [rows, cols]
    if fmt == "e2m1":
        shape[k_axis if k_pack else 1 - k_axis] //= 2
    return tuple(shape)


def scales(rng, rows, K, compute):
    lo, hi = (120, 134) if compute == "bf16" else (124, 131)
    return rng.integers(lo, hi + 1, (rows, K // 32), dtype=np.uint8)

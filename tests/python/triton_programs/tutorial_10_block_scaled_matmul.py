"""Tutorial 10 (block-scaled matmul): C = (A * scale_a) @ (B * scale_b) with tl.dot_scaled
on microscaling formats: mxfp8 (e4m3 x e4m3), mxfp4 (e2m1 x e2m1, two values per byte
along K) and mixed (e4m3 x e2m1), one e8m0 scale per 32 elements along K. A and B^T are
read through host tensor descriptors; the scales are stored in the packed 5-D layout
(M // 128, K // 32 // 4, 32, 4, 4), loaded as one 2-D block per step and turned back into
[BLOCK_M, BLOCK_K // 32] with reshape and a 5-D trans. M, N, K are constexprs, the output
type an integer constexpr; the kernel carries launch_metadata as the tutorial's does.
(NVIDIA's nvfp4, with e4m3 scales per 16 elements, is left out here; tl.dot_scaled's
fp8e4nv scales are tested in test_triton_suite_gaps4.py.)"""

import numpy as np

import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tutorial_host as host

VEC_SIZE = 32


def _metadata(grid, kernel, args):
    return {"name": f"{kernel.name} [M={args['M']}, N={args['N']}, K={args['K']}]",
            "flops": 2.0 * args["M"] * args["N"] * args["K"]}


@triton.jit(launch_metadata=_metadata)
def block_scaled_matmul_kernel(a_desc, a_scale, b_desc, b_scale, c_desc, M: tl.constexpr, N: tl.constexpr,
                               K: tl.constexpr, scale_row_stride: tl.constexpr, output_type: tl.constexpr,
                               ELEM_PER_BYTE_A: tl.constexpr, ELEM_PER_BYTE_B: tl.constexpr,
                               VEC_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                               BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    if output_type == 0:
        out_dtype = tl.float32
    elif output_type == 1:
        out_dtype = tl.float16
    else:
        out_dtype = tl.float8e4nv
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    row = (pid % tiles_m) * BLOCK_M
    col = (pid // tiles_m) * BLOCK_N
    MIXED: tl.constexpr = ELEM_PER_BYTE_A == 1 and ELEM_PER_BYTE_B == 2
    # Scales per step: BLOCK_M // 128 chunks of 128 rows, each a contiguous run of
    # (BLOCK_K // VEC_SIZE // 4) * 512 bytes.
    chunk_m = (row // 128 + tl.arange(0, BLOCK_M // 128)) % (M // 128)
    chunk_n = (col // 128 + tl.arange(0, BLOCK_N // 128)) % (N // 128)
    run = tl.arange(0, (BLOCK_K // VEC_SIZE // 4) * 32 * 4 * 4)
    a_scale_ptr = a_scale + chunk_m[:, None] * scale_row_stride + run[None, :]
    b_scale_ptr = b_scale + chunk_n[:, None] * scale_row_stride + run[None, :]
    k_a = 0
    k_b = 0
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=NUM_STAGES):
        a = a_desc.load([row, k_a])
        b = b_desc.load([col, k_b])
        sa = tl.load(a_scale_ptr).reshape(BLOCK_M // 128, BLOCK_K // VEC_SIZE // 4, 32, 4, 4)
        sb = tl.load(b_scale_ptr).reshape(BLOCK_N // 128, BLOCK_K // VEC_SIZE // 4, 32, 4, 4)
        sa = sa.trans(0, 3, 2, 1, 4).reshape(BLOCK_M, BLOCK_K // VEC_SIZE)
        sb = sb.trans(0, 3, 2, 1, 4).reshape(BLOCK_N, BLOCK_K // VEC_SIZE)
        if MIXED:
            acc = tl.dot_scaled(a, sa, "e4m3", b.T, sb, "e2m1", acc)
        elif ELEM_PER_BYTE_A == 2 and ELEM_PER_BYTE_B == 2:
            acc = tl.dot_scaled(a, sa, "e2m1", b.T, sb, "e2m1", acc)
        else:
            acc = tl.dot_scaled(a, sa, "e4m3", b.T, sb, "e4m3", acc)
        k_a += BLOCK_K // ELEM_PER_BYTE_A
        k_b += BLOCK_K // ELEM_PER_BYTE_B
        a_scale_ptr += (BLOCK_K // VEC_SIZE // 4) * 32 * 4 * 4
        b_scale_ptr += (BLOCK_K // VEC_SIZE // 4) * 32 * 4 * 4
    c_desc.store([row, col], acc.to(out_dtype))


# -- host-side data and a numpy reference ---------------------------------------------------

_E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)


def e4m3_values(bits):
    """float8 e4m3 (fn: no infinities, 0x7f/0xff NaN) bytes as float64."""
    bits = bits.astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> 3) & 0xF
    mantissa = bits & 0x7
    normal = (1 + mantissa / 8.0) * np.exp2(exponent - 7.0)
    subnormal = (mantissa / 8.0) * np.exp2(-6.0)
    return sign * np.where(exponent == 0, subnormal, normal)


def e2m1_values(nibbles):
    nibbles = nibbles.astype(np.int64)
    return np.where(nibbles & 0x8, -1.0, 1.0) * _E2M1[nibbles & 0x7]


def random_operand(rng, rows, k, fmt):
    """(stored bytes, float64 values [rows, k]): e4m3 one byte each, e2m1
    packed two per byte along K (element 2i in the low nibble)."""
    if fmt == "e4m3":
        # Exponent fields 5..8 (magnitudes 1/4 to 3.75): products stay well inside fp16.
        sign = rng.integers(0, 2, (rows, k), dtype=np.uint8) << 7
        exponent = rng.integers(5, 9, (rows, k), dtype=np.uint8) << 3
        stored = (sign | exponent | rng.integers(0, 8, (rows, k), dtype=np.uint8)).astype(np.uint8)
        return stored, e4m3_values(stored)
    nibbles = rng.integers(0, 16, (rows, k), dtype=np.uint8)
    stored = (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).astype(np.uint8)
    return stored, e2m1_values(nibbles)


def random_scales(rng, rows, k):
    """e8m0 scales in the packed layout (rows // 128, k // 32 // 4, 32, 4, 4) and, unpacked,
    as [rows, k // 32] powers of two."""
    packed = rng.integers(124, 129, (rows // 128, k // VEC_SIZE // 4, 32, 4, 4), dtype=np.uint8)
    unpacked = packed.transpose(0, 3, 2, 1, 4).reshape(rows, k // VEC_SIZE)
    return packed, np.exp2(unpacked.astype(np.float64) - 127)


def reference(a_values, a_scales, b_values, b_scales):
    a = a_values * np.repeat(a_scales, VEC_SIZE, axis=1)
    b = b_values * np.repeat(b_scales, VEC_SIZE, axis=1)
    return a @ b.T


def block_scaled_matmul(a, a_scale, b, b_scale, M, N, K, fmt_a, fmt_b, block=(128, 128, 128), num_stages=2):
    """a [M, K] (bytes, e4m3 or packed e2m1), b [N, K] likewise (B transposed)."""
    block_m, block_n, block_k = block
    per_byte_a = 2 if fmt_a == "e2m1" else 1
    per_byte_b = 2 if fmt_b == "e2m1" else 1
    if fmt_a == "e4m3":
        a = triton.reinterpret(a, tl.float8e4nv)
    if fmt_b == "e4m3":
        b = triton.reinterpret(b, tl.float8e4nv)
    a_desc = TensorDescriptor(a, [M, K // per_byte_a], [K // per_byte_a, 1], [block_m, block_k // per_byte_a])
    b_desc = TensorDescriptor(b, [N, K // per_byte_b], [K // per_byte_b, 1], [block_n, block_k // per_byte_b])
    like = a_scale
    out = host.empty((M, N), "float16", like)
    c_desc = TensorDescriptor.from_tensor(out, [block_m, block_n])
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), 1)
    scale_rows = a_scale.reshape(a_scale.shape[0], -1)
    block_scaled_matmul_kernel[grid](a_desc, a_scale, b_desc, b_scale, c_desc, M, N, K,
                                     host.stride(scale_rows, 0), 1, per_byte_a, per_byte_b, VEC_SIZE,
                                     block_m, block_n, block_k, num_stages)
    return out

// The interpreter's tl.dot: result = acc + sum over k of a[m, k] * b[k, n], batched over a
// leading dimension, in one fixed order so that GPU results can be checked against it.
#pragma once

#include "interp/values.h"
#include "ir/ir.h"

namespace tritium::interp {

// The order and rounding (the reference the GPU is compared with):
//  - every element (b, m, n) starts from acc[b, m, n] and adds the products for k = 0, 1,
//    ..., K-1 in that order, each with one rounding in the accumulator's type:
//    acc = fma(a[m, k], b[k, n], acc) (fp32 for fp16/bf16/fp8/fp32 inputs, fp64 for fp64);
//    products of fp16, bf16, fp8 and tf32 values are exact in fp32, so this equals a
//    multiply then an add rounded to fp32.
//  - input_precision "tf32" (fp32 inputs): each input is first rounded to tf32 (10 stored
//    mantissa bits) to nearest, ties away from zero, as PTX's cvt.rna.tf32.f32 does.
//  - "tf32x3": each input x splits into big = tf32(x) and small = tf32(x - big); per k the
//    accumulator takes small_a * big_b, then big_a * small_b, then big_a * big_b.
//  - "ieee": the fp32 values as they are.
//  - an fp16 result (out_dtype=tl.float16) is accumulated in fp32 as above and rounded to
//    fp16 (nearest even) once, at the end.
//  - int8 inputs: exact products summed in i32, wrapping modulo 2^32.
// A result lane is poisoned when acc's lane, or any lane of its row of a or its column of
// b, is poisoned.
void eval_dot(const ir::Op& op, const Buffer& a, const Buffer& b, const Buffer& acc, Buffer& result);

// x rounded to tf32 as cvt.rna.tf32.f32 does (exposed for the unit tests).
float round_to_tf32(float x);

}  // namespace tritium::interp

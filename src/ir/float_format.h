// Float formats by their table row (tritium/dtypes.def): decoding any float kind's bits to a
// double exactly, and encoding a double into a kind's bits with Triton's rounding modes and
// saturation. The interpreter, the constant folder and the CLI share these for fp8 (and
// they agree with the hardware conversions the GPU path uses on sm_90).
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace tritium::ir {

// Triton's fp_downcast_rounding: "rtne" (the default) and "rtz".
enum class Rounding : uint8_t { NearestEven, TowardZero };

// The value of the low bit_width(kind) bits of `bits` in float format `kind` (NaN as a
// quiet NaN). Exact: every format tritium has fits a double.
double decode_float(uint64_t bits, ScalarKind kind);

// `value` rounded into format `kind` as Triton's conversions do, as its bits. Values beyond
// the largest finite number: with Ieee specials and nearest-even rounding, fp16/bf16/fp32
// overflow to infinity while fp8 saturates to the largest finite value (PTX's
// cvt.rn.satfinite, which Triton uses for every conversion to fp8); rounding toward zero
// keeps the largest finite value; formats without infinities saturate. NaN becomes the
// format's NaN (Finite formats, which have none, give their largest value with the sign).
uint64_t encode_float(double value, ScalarKind kind, Rounding rounding = Rounding::NearestEven);

// The largest finite value of float format `kind`.
double max_finite(ScalarKind kind);

}  // namespace tritium::ir

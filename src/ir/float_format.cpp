// Table-driven float encode/decode (see float_format.h). A format is (mantissa bits,
// exponent bits, bias, specials); values are placed on the format's grid by scaling with
// powers of two, which is exact in double for every format here.
#include "ir/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tritium::ir {

namespace {

struct Format {
  int mantissa;
  int exponent;
  int bias;
  FloatSpecials specials;
  int bits;
};

Format format_of(ScalarKind kind) {
  return {fp_mantissa_width(kind), fp_exponent_width(kind), exponent_bias(kind),
          float_specials(kind), bit_width(kind)};
}

// The largest exponent field that holds finite numbers.
int max_exponent_field(const Format& f) {
  int all_ones = (1 << f.exponent) - 1;
  return f.specials == FloatSpecials::Ieee ? all_ones - 1 : all_ones;
}

double max_finite_of(const Format& f) {
  int top = max_exponent_field(f);
  // Fn (OCP E4M3): the all-ones mantissa of the top exponent is NaN.
  int mantissa = (1 << f.mantissa) - 1 - (f.specials == FloatSpecials::Fn ? 1 : 0);
  return std::ldexp(1.0 + std::ldexp(mantissa, -f.mantissa), top - f.bias);
}

uint64_t nan_bits(const Format& f, bool negative) {
  uint64_t sign = uint64_t{negative} << (f.bits - 1);
  switch (f.specials) {
    case FloatSpecials::Ieee:  // quiet NaN: all-ones exponent, top mantissa bit
      return (((uint64_t{1} << f.exponent) - 1) << f.mantissa) |
             (uint64_t{1} << (f.mantissa - 1));
    case FloatSpecials::Fn:
      return sign | ((uint64_t{1} << (f.bits - 1)) - 1);
    case FloatSpecials::Fnuz:
      return uint64_t{1} << (f.bits - 1);
    case FloatSpecials::Finite:
    case FloatSpecials::None:
      break;
  }
  return sign | ((uint64_t{1} << (f.bits - 1)) - 1);  // Finite: the largest magnitude
}

// The bits of a finite non-negative `value` already on the grid of `f` (no rounding left).
uint64_t exact_bits(double value, const Format& f) {
  if (value == 0) return 0;
  int min_normal_exponent = 1 - f.bias;
  int e;
  std::frexp(value, &e);
  int exponent = e - 1;  // value = 1.m * 2^exponent
  if (exponent < min_normal_exponent) {  // subnormal: mantissa counts 2^(1-bias-m) units
    auto units = static_cast<uint64_t>(std::ldexp(value, f.mantissa - min_normal_exponent));
    return units;
  }
  auto significand = static_cast<uint64_t>(std::ldexp(value, f.mantissa - exponent));
  uint64_t field = static_cast<uint64_t>(exponent + f.bias);
  return (field << f.mantissa) | (significand & ((uint64_t{1} << f.mantissa) - 1));
}

}  // namespace

double max_finite(ScalarKind kind) { return max_finite_of(format_of(kind)); }

double decode_float(uint64_t bits, ScalarKind kind) {
  if (kind == ScalarKind::F64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (kind == ScalarKind::F32) {
    auto b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  Format f = format_of(kind);
  bits &= (uint64_t{1} << f.bits) - 1;
  bool negative = (bits >> (f.bits - 1)) & 1;
  int field = static_cast<int>((bits >> f.mantissa) & ((uint64_t{1} << f.exponent) - 1));
  uint64_t mantissa = bits & ((uint64_t{1} << f.mantissa) - 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  int all_ones = (1 << f.exponent) - 1;
  switch (f.specials) {
    case FloatSpecials::Ieee:
      if (field == all_ones) {
        if (mantissa != 0) return nan;
        return negative ? -INFINITY : INFINITY;
      }
      break;
    case FloatSpecials::Fn:
      if (field == all_ones && mantissa == (uint64_t{1} << f.mantissa) - 1) return nan;
      break;
    case FloatSpecials::Fnuz:
      if (bits == uint64_t{1} << (f.bits - 1)) return nan;
      break;
    case FloatSpecials::Finite:
    case FloatSpecials::None:
      break;
  }
  double magnitude = field == 0
                         ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa)
                         : std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissa)),
                                      field - f.bias - f.mantissa);
  return negative ? -magnitude : magnitude;
}

uint64_t encode_float(double value, ScalarKind kind, Rounding rounding) {
  Format f = format_of(kind);
  if (kind == ScalarKind::F64) {
    uint64_t b;
    std::memcpy(&b, &value, 8);
    return b;
  }
  bool negative = std::signbit(value);
  uint64_t sign = uint64_t{negative} << (f.bits - 1);
  if (std::isnan(value)) return nan_bits(f, negative);
  double magnitude = std::fabs(value);
  const double top = max_finite_of(f);
  // fp8 conversions saturate (cvt.rn.satfinite); the wider IEEE formats overflow.
  bool saturate = f.specials != FloatSpecials::Ieee || f.bits == 8;
  auto overflow = [&]() -> uint64_t {
    if (!saturate && rounding == Rounding::NearestEven) {
      return sign | (((uint64_t{1} << f.exponent) - 1) << f.mantissa);  // infinity
    }
    if (std::isinf(magnitude) && f.specials == FloatSpecials::Ieee && !saturate) {
      return sign | (((uint64_t{1} << f.exponent) - 1) << f.mantissa);
    }
    return sign | exact_bits(top, f);
  };
  if (std::isinf(magnitude)) {
    // Rounding toward zero keeps an infinity infinite where the format has one.
    if (f.specials == FloatSpecials::Ieee && (!saturate || rounding == Rounding::TowardZero)) {
      return sign | (((uint64_t{1} << f.exponent) - 1) << f.mantissa);
    }
    return overflow();
  }
  // Put the magnitude on the grid: the unit in the last place of its binade (or of the
  // subnormals), then round the count of units.
  int min_normal_exponent = 1 - f.bias;
  int e = 0;
  if (magnitude != 0) std::frexp(magnitude, &e);
  int exponent = magnitude == 0 ? min_normal_exponent : std::max(e - 1, min_normal_exponent);
  double units = std::ldexp(magnitude, f.mantissa - exponent);
  double rounded = rounding == Rounding::NearestEven ? std::nearbyint(units) : std::trunc(units);
  double result = std::ldexp(rounded, exponent - f.mantissa);
  if (result > top) return overflow();
  uint64_t bits = exact_bits(result, f);
  if (f.specials == FloatSpecials::Fnuz && bits == 0) return 0;  // no negative zero
  return sign | bits;
}

}  // namespace tritium::ir

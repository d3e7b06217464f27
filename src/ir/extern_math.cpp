// The libdevice-family table (see extern_math.h). The interpreter's functions are the C
// library's in double precision (rounded to the result type afterwards), so fp32 results
// may differ from libdevice's in the last place, as libdevice's differ from the exact value.
#include "ir/extern_math.h"

#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace tritium::ir {

namespace {

constexpr double kPi = 3.14159265358979323846;

double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return NAN;
  if (y == 1) return INFINITY;
  if (y == -1) return -INFINITY;
  // erf is increasing: bisect |y| on [0, 6] (erf(6) rounds to 1), then one Newton step.
  double target = std::fabs(y), lo = 0, hi = 6;
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erf(mid) < target ? lo : hi) = mid;
  }
  double x = 0.5 * (lo + hi);
  x -= (std::erf(x) - target) / (2.0 / std::sqrt(kPi) * std::exp(-x * x));
  return std::copysign(x, y);
}

// ---- The interpreter's functions beyond float -> float in double ----

using K = ScalarKind;
using V = ExternValue;

V fv(double f) {
  V v;
  v.f = f;
  return v;
}
V iv(int64_t i) {
  V v;
  v.i = i;
  return v;
}
// The integer's bits as the unsigned number of its width.
uint64_t ubits(const V& a, K kind) {
  int bits = bit_width(kind);
  uint64_t x = static_cast<uint64_t>(a.i);
  return bits == 64 ? x : x & ((uint64_t{1} << bits) - 1);
}
int width(K kind) { return bit_width(kind); }

// Directed rounding. An fp64 result: the operation in that rounding mode (IEEE operations
// are correctly rounded in every mode). An fp32 result: the operation in double rounded to
// odd (toward zero, the last bit set when inexact), then rounded once to fp32 in the mode:
// with 53 >= 24 + 2 bits that is the correctly rounded fp32 result, with no double rounding.
// An exact zero is recomputed in the mode itself for its sign (x + -x is -0 rounding down).
// The operands are read through volatiles after fesetround so that the compiler cannot move
// the arithmetic across the mode changes.
template <class Op>
double rounded(int mode, K result, Op op) {
  if (result == K::F64) {
    std::fesetround(mode);
    volatile double r = op();
    std::fesetround(FE_TONEAREST);
    return r;
  }
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double r = op();
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  double d = r;
  if (d == 0 && !inexact) {
    std::fesetround(mode);
    volatile double zero = op();
    std::fesetround(FE_TONEAREST);
    return zero;
  }
  if (inexact && std::isfinite(d)) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    b |= 1;
    std::memcpy(&d, &b, 8);
  }
  std::fesetround(mode);
  volatile double in = d;
  volatile float f = static_cast<float>(in);
  std::fesetround(FE_TONEAREST);
  return f;
}

template <int Mode>
V add_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f, y = a[1].f;
    return x + y;
  }));
}
template <int Mode>
V sub_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f, y = a[1].f;
    return x - y;
  }));
}
template <int Mode>
V mul_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f, y = a[1].f;
    return x * y;
  }));
}
template <int Mode>
V div_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f, y = a[1].f;
    return x / y;
  }));
}
template <int Mode>
V rcp_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f;
    return 1.0 / x;
  }));
}
template <int Mode>
V sqrt_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f;
    return std::sqrt(x);
  }));
}
template <int Mode>
V fma_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f, y = a[1].f, z = a[2].f;
    return std::fma(x, y, z);
  }));
}
// fp64 -> fp32 in the mode.
template <int Mode>
V narrow_r(const V* a, const K*, K r) {
  return fv(rounded(Mode, r, [a] {
    volatile double x = a[0].f;
    return x;
  }));
}
// An integer to a float in the mode: high and low halves, the sum the one rounding.
template <int Mode>
V int_to_float_r(const V* a, const K* k, K r) {
  const bool is_unsigned = !is_signed(k[0]);
  const int64_t value = a[0].i;
  return fv(rounded(Mode, r, [value, is_unsigned] {
    volatile double hi =
        is_unsigned ? static_cast<double>(static_cast<uint64_t>(value) >> 32) : static_cast<double>(value >> 32);
    volatile double lo = static_cast<double>(static_cast<uint64_t>(value) & 0xffffffffu);
    return hi * 4294967296.0 + lo;
  }));
}
// A float of kind `from` to an integer of `to` (already rounded): out-of-range values
// saturate to the destination's limits, as PTX's cvt.{rni,rzi,rmi,rpi} does; the result is
// then held as Triton's result type (which is int32/int64 for the unsigned conversions too).
// NaN, as measured on the H200 (tests/gpu/RESULTS.md): 0 from fp32 to a 32-bit integer, but
// the sign bit alone (0x80000000 or 0x8000000000000000, unsigned destinations too) from fp64
// and into 64-bit integers.
int64_t saturate(double v, K from, K to, K result) {
  const int bits = width(to);
  if (std::isnan(v)) {
    if (from == K::F32 && bits <= 32) return 0;
    return wrap_int(bits == 64 ? INT64_MIN : int64_t{INT32_MIN}, result);
  }
  if (is_signed(to)) {
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
    if (v <= lo) return wrap_int(bits == 64 ? INT64_MIN : static_cast<int64_t>(lo), result);
    if (v >= hi) return wrap_int(bits == 64 ? INT64_MAX : static_cast<int64_t>(hi) - 1, result);
    return wrap_int(static_cast<int64_t>(v), result);
  }
  if (v <= 0) return 0;
  if (v >= std::ldexp(1.0, bits)) return wrap_int(bits == 64 ? -1 : (int64_t{1} << bits) - 1, result);
  return wrap_int(static_cast<int64_t>(static_cast<uint64_t>(v)), result);
}
double round_by(int mode, double v) {
  switch (mode) {
    case FE_TOWARDZERO: return std::trunc(v);
    case FE_DOWNWARD: return std::floor(v);
    case FE_UPWARD: return std::ceil(v);
    default: return std::nearbyint(v);  // to nearest even (the default mode)
  }
}
template <int Mode, K To>
V float_to_int_r(const V* a, const K* k, K r) {
  return iv(saturate(round_by(Mode, a[0].f), k[0], To, r));
}

// Bits.
V popc(const V* a, const K* k, K) { return iv(__builtin_popcountll(ubits(a[0], k[0]))); }
V clz(const V* a, const K* k, K) {
  uint64_t x = ubits(a[0], k[0]);
  return iv(x == 0 ? width(k[0]) : __builtin_clzll(x) - (64 - width(k[0])));
}
V ffs(const V* a, const K* k, K) {
  uint64_t x = ubits(a[0], k[0]);
  return iv(x == 0 ? 0 : __builtin_ctzll(x) + 1);
}
V brev(const V* a, const K* k, K r) {
  uint64_t x = ubits(a[0], k[0]), out = 0;
  for (int i = 0; i < width(k[0]); ++i) out |= ((x >> i) & 1) << (width(k[0]) - 1 - i);
  return iv(wrap_int(static_cast<int64_t>(out), r));
}
// Result byte n is byte (s >> 4n) & 7 of the eight bytes y:x (x the low four); libdevice
// masks the selector with 0x7777, so prmt's sign-replicating bit never applies.
V byte_perm(const V* a, const K* k, K r) {
  uint64_t bytes = ubits(a[0], k[0]) | (ubits(a[1], k[1]) << 32);
  uint64_t selector = ubits(a[2], k[2]), out = 0;
  for (int n = 0; n < 4; ++n) out |= ((bytes >> (8 * ((selector >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return iv(wrap_int(static_cast<int64_t>(out), r));
}
// (x + y) >> 1 and (x + y + 1) >> 1 without overflow (the operands are 32-bit).
V hadd(const V* a, const K*, K r) { return iv(wrap_int((a[0].i + a[1].i) >> 1, r)); }
V rhadd(const V* a, const K*, K r) { return iv(wrap_int((a[0].i + a[1].i + 1) >> 1, r)); }
// The low 32 bits of the product of the low 24 bits (sign-extended for int32).
V mul24(const V* a, const K* k, K r) {
  auto low24 = [&](int64_t x) {
    return is_signed(k[0]) ? (static_cast<int64_t>(static_cast<uint64_t>(x) << 40) >> 40) : (x & 0xffffff);
  };
  return iv(wrap_int(low24(a[0].i) * low24(a[1].i), r));
}
// |x - y| + z, wrapped to 32 bits.
V sad(const V* a, const K*, K r) {
  int64_t d = a[0].i - a[1].i;
  return iv(wrap_int((d < 0 ? -d : d) + a[2].i, r));
}
V umulhi(const V* a, const K* k, K) { return iv(extern_mulhi(a[0].i, a[1].i, k[0], true)); }
V mulhi(const V* a, const K* k, K) { return iv(extern_mulhi(a[0].i, a[1].i, k[0], false)); }
V abs_typed(const V* a, const K* k, K r) {
  if (is_float(k[0])) return fv(std::fabs(a[0].f));
  return iv(wrap_int(
      static_cast<int64_t>(a[0].i < 0 ? 0 - static_cast<uint64_t>(a[0].i) : static_cast<uint64_t>(a[0].i)), r));
}
V pow_typed(const V* a, const K* k, K) {
  return fv(std::pow(a[0].f, is_float(k[1]) ? a[1].f : static_cast<double>(a[1].i)));
}
// One step in the result's own format.
V nextafter_typed(const V* a, const K*, K r) {
  return fv(r == K::F32 ? static_cast<double>(std::nextafter(static_cast<float>(a[0].f), static_cast<float>(a[1].f)))
                        : std::nextafter(a[0].f, a[1].f));
}

// Classification: libdevice's 1 or 0.
V isnan_typed(const V* a, const K*, K) { return iv(std::isnan(a[0].f) ? 1 : 0); }
V isinf_typed(const V* a, const K*, K) { return iv(std::isinf(a[0].f) ? 1 : 0); }
V isfinite_typed(const V* a, const K*, K) { return iv(std::isfinite(a[0].f) ? 1 : 0); }
V signbit_typed(const V* a, const K*, K) { return iv(std::signbit(a[0].f) ? 1 : 0); }
// libdevice: NaN and 0 give INT_MIN, infinities INT_MAX (glibc's FP_ILOGB0/FP_ILOGBNAN agree).
V ilogb_typed(const V* a, const K*, K) {
  double x = a[0].f;
  if (std::isnan(x) || x == 0) return iv(INT32_MIN);
  if (std::isinf(x)) return iv(INT32_MAX);
  return iv(std::ilogb(x));
}
// llrint: to nearest even; llround: halves away from zero. Saturating as cvt (NaN: INT64_MIN).
V llrint_typed(const V* a, const K* k, K r) {
  return iv(saturate(std::nearbyint(a[0].f), k[0], K::I64, r));
}
V llround_typed(const V* a, const K* k, K r) { return iv(saturate(std::round(a[0].f), k[0], K::I64, r)); }
V ldexp_typed(const V* a, const K*, K) {
  int64_t n = a[1].i;
  return fv(std::ldexp(a[0].f, static_cast<int>(n < -100000 ? -100000 : n > 100000 ? 100000 : n)));
}
V jn_typed(const V* a, const K*, K) { return fv(::jn(static_cast<int>(a[0].i), a[1].f)); }
V yn_typed(const V* a, const K*, K) { return fv(::yn(static_cast<int>(a[0].i), a[1].f)); }

// Bit moves between floats and integers.
V double_lo(const V* a, const K*, K) {
  uint64_t b;
  std::memcpy(&b, &a[0].f, 8);
  return iv(static_cast<int32_t>(b & 0xffffffffu));
}
V double_hi(const V* a, const K*, K) {
  uint64_t b;
  std::memcpy(&b, &a[0].f, 8);
  return iv(static_cast<int32_t>(b >> 32));
}
V hilo_to_double(const V* a, const K*, K) {
  uint64_t b = (static_cast<uint64_t>(a[0].i) << 32) | (static_cast<uint64_t>(a[1].i) & 0xffffffffu);
  double d;
  std::memcpy(&d, &b, 8);
  return fv(d);
}
V int_as_float(const V* a, const K*, K) {
  uint32_t b = static_cast<uint32_t>(a[0].i);
  float f;
  std::memcpy(&f, &b, 4);
  return fv(f);
}
V float_as_int(const V* a, const K*, K) {
  float f = static_cast<float>(a[0].f);
  int32_t b;
  std::memcpy(&b, &f, 4);
  return iv(b);
}
V longlong_as_double(const V* a, const K*, K) {
  double d;
  std::memcpy(&d, &a[0].i, 8);
  return fv(d);
}
V double_as_longlong(const V* a, const K*, K) {
  int64_t b;
  std::memcpy(&b, &a[0].f, 8);
  return iv(b);
}

// ---- Special functions the C library lacks, in double ----

// The modified Bessel functions I0 and I1 by their power series, whose terms are all
// positive (no cancellation: a few ulps of double over the whole range; ~700 terms at most
// before the result overflows).
double bessel_i(double x, int order) {
  if (std::isnan(x)) return x;
  double ax = std::fabs(x);
  if (std::isinf(ax)) return order == 0 ? INFINITY : x;
  double q = 0.25 * ax * ax, term = order == 0 ? 1.0 : 0.5 * ax, sum = term;
  for (int k = 1; k < 2000; ++k) {
    term *= q / (static_cast<double>(k) * (k + order));
    sum += term;
    if (term <= sum * 1e-17 || std::isinf(sum)) break;
  }
  return order == 1 && x < 0 ? -sum : sum;
}
double bessel_i0(double x) { return bessel_i(x, 0); }
double bessel_i1(double x) { return bessel_i(x, 1); }

// exp(x^2) erfc(x): directly (x^2 split into two doubles) while it does not overflow, the
// asymptotic series beyond (x > 26: 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(2x^2)^2 - ...)).
double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x > 26) {
    if (std::isinf(x)) return 0;
    double r = 1 / (2 * x * x), term = 1, sum = 1;
    for (int k = 1; k < 12; ++k) {
      term *= -(2 * k - 1) * r;
      sum += term;
    }
    return sum / (x * std::sqrt(kPi));
  }
  double hi = x * x, lo = std::fma(x, x, -hi);
  return std::exp(hi) * std::exp(lo) * std::erfc(x);
}

// erfcinv(y) = erfinv(1 - y) near 1 (1 - y exact for y in [0.5, 1.5]) and -erfcinv(2 - y)
// above; below 0.5, where 1 - y would lose y's digits: erfc is decreasing, so bisect
// erfc(x) = y on [0, 28] (erfc(28) is below the least double), then one Newton step.
double erfcinv(double y) {
  if (std::isnan(y) || y < 0 || y > 2) return NAN;
  if (y == 0) return INFINITY;
  if (y == 2) return -INFINITY;
  if (y >= 0.5 && y <= 1.5) return erfinv(1 - y);
  if (y > 1.5) return -erfcinv(2 - y);
  double lo = 0, hi = 28;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erfc(mid) > y ? lo : hi) = mid;
  }
  double x = 0.5 * (lo + hi);
  double slope = -2.0 / std::sqrt(kPi) * std::exp(-x * x);
  if (slope != 0) x -= (std::erfc(x) - y) / slope;
  return x;
}
double normcdfinv(double p) { return -std::sqrt(2.0) * erfcinv(2 * p); }

// sqrt of the sum of squares, scaled by the largest magnitude (no overflow); an infinity
// wins over NaN as in hypot.
double norm(const double* v, int n) {
  double m = 0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(v[i])) return INFINITY;
    if (std::isnan(v[i])) nan = true;
    m = std::fmax(m, std::fabs(v[i]));
  }
  if (nan) return NAN;
  if (m == 0) return 0;
  double s = 0;
  for (int i = 0; i < n; ++i) s += (v[i] / m) * (v[i] / m);
  return m * std::sqrt(s);
}

// fp32 1/sqrt(x) rounded once: the double result is within an ulp of double, so rounding it
// to fp32 is correct except when the exact value lies within 2^-29 ulp of an fp32 midpoint.
double rsqrt_rn(double x) { return 1.0 / std::sqrt(x); }

#define U(fn) [](const double* a) -> double { return fn(a[0]); }
#define B(fn) [](const double* a) -> double { return fn(a[0], a[1]); }

// Each entry's overloads: the common fp32 and fp64 ones, then its signatures'.
std::vector<ExternMath> with_overloads(std::vector<ExternMath> table) {
  for (ExternMath& fn : table) {
    for (auto [symbol, kind] : {std::pair{fn.f32, K::F32}, std::pair{fn.f64, K::F64}}) {
      if (symbol != nullptr) fn.overloads.push_back({std::vector<K>(fn.arity, kind), kind, symbol});
    }
    if (fn.signatures == nullptr) continue;
    std::istringstream words(fn.signatures);
    std::string word;
    while (words >> word) {  // "fp32,i32>fp32=__nv_ldexpf"
      ExternOverload overload;
      size_t arrow = word.find('>'), equals = word.find('=');
      std::string args = word.substr(0, arrow) + ",";
      for (size_t start = 0, comma; (comma = args.find(',', start)) != std::string::npos; start = comma + 1) {
        K kind = K::I1;
        parse_scalar_name(args.substr(start, comma - start), &kind);
        overload.args.push_back(kind);
      }
      parse_scalar_name(word.substr(arrow + 1, equals - arrow - 1), &overload.result);
      overload.symbol = word.substr(equals + 1);
      fn.overloads.push_back(overload);
    }
  }
  return table;
}

const std::vector<ExternMath>& build() {
  static const std::vector<ExternMath> table = with_overloads({
      // Unary, fp32 and fp64: __nv_<name>f and __nv_<name>.
      {"acos", 1, "__nv_acosf", "__nv_acos", U(std::acos)},
      {"acosh", 1, "__nv_acoshf", "__nv_acosh", U(std::acosh)},
      {"asin", 1, "__nv_asinf", "__nv_asin", U(std::asin)},
      {"asinh", 1, "__nv_asinhf", "__nv_asinh", U(std::asinh)},
      {"atan", 1, "__nv_atanf", "__nv_atan", U(std::atan)},
      {"atanh", 1, "__nv_atanhf", "__nv_atanh", U(std::atanh)},
      {"cbrt", 1, "__nv_cbrtf", "__nv_cbrt", U(std::cbrt)},
      {"rcbrt", 1, "__nv_rcbrtf", "__nv_rcbrt", [](const double* a) { return 1.0 / std::cbrt(a[0]); }},
      {"cos", 1, "__nv_cosf", "__nv_cos", U(std::cos)},
      {"cosh", 1, "__nv_coshf", "__nv_cosh", U(std::cosh)},
      {"cospi", 1, "__nv_cospif", "__nv_cospi", [](const double* a) { return std::cos(kPi * a[0]); }},
      {"sin", 1, "__nv_sinf", "__nv_sin", U(std::sin)},
      {"sinh", 1, "__nv_sinhf", "__nv_sinh", U(std::sinh)},
      {"sinpi", 1, "__nv_sinpif", "__nv_sinpi", [](const double* a) { return std::sin(kPi * a[0]); }},
      {"tan", 1, "__nv_tanf", "__nv_tan", U(std::tan)},
      {"tanh", 1, "__nv_tanhf", "__nv_tanh", U(std::tanh)},
      {"erf", 1, "__nv_erff", "__nv_erf", U(std::erf)},
      {"erfc", 1, "__nv_erfcf", "__nv_erfc", U(std::erfc)},
      {"erfinv", 1, "__nv_erfinvf", "__nv_erfinv", U(erfinv)},
      {"exp", 1, "__nv_expf", "__nv_exp", U(std::exp)},
      {"exp2", 1, "__nv_exp2f", "__nv_exp2", U(std::exp2)},
      {"exp10", 1, "__nv_exp10f", "__nv_exp10", [](const double* a) { return std::pow(10.0, a[0]); }},
      {"expm1", 1, "__nv_expm1f", "__nv_expm1", U(std::expm1)},
      {"log", 1, "__nv_logf", "__nv_log", U(std::log)},
      {"log2", 1, "__nv_log2f", "__nv_log2", U(std::log2)},
      {"log10", 1, "__nv_log10f", "__nv_log10", U(std::log10)},
      {"log1p", 1, "__nv_log1pf", "__nv_log1p", U(std::log1p)},
      {"logb", 1, "__nv_logbf", "__nv_logb", U(std::logb)},
      {"lgamma", 1, "__nv_lgammaf", "__nv_lgamma", U(std::lgamma)},
      {"tgamma", 1, "__nv_tgammaf", "__nv_tgamma", U(std::tgamma)},
      {"j0", 1, "__nv_j0f", "__nv_j0", U(::j0)},
      {"j1", 1, "__nv_j1f", "__nv_j1", U(::j1)},
      {"y0", 1, "__nv_y0f", "__nv_y0", U(::y0)},
      {"y1", 1, "__nv_y1f", "__nv_y1", U(::y1)},
      {"normcdf", 1, "__nv_normcdff", "__nv_normcdf",
       [](const double* a) { return 0.5 * std::erfc(-a[0] / std::sqrt(2.0)); }},
      {"sqrt", 1, "__nv_sqrtf", "__nv_sqrt", U(std::sqrt)},
      {"sqrt_rn", 1, "__nv_fsqrt_rn", "__nv_dsqrt_rn", U(std::sqrt)},
      {"rsqrt", 1, "__nv_rsqrtf", "__nv_rsqrt", [](const double* a) { return 1.0 / std::sqrt(a[0]); }},
      {"ceil", 1, "__nv_ceilf", "__nv_ceil", U(std::ceil)},
      {"floor", 1, "__nv_floorf", "__nv_floor", U(std::floor)},
      {"trunc", 1, "__nv_truncf", "__nv_trunc", U(std::trunc)},
      {"round", 1, "__nv_roundf", "__nv_round", U(std::round)},
      {"rint", 1, "__nv_rintf", "__nv_rint", U(std::nearbyint)},
      {"nearbyint", 1, "__nv_nearbyintf", "__nv_nearbyint", U(std::nearbyint)},
      {"abs", 1, "__nv_fabsf", "__nv_fabs", U(std::fabs), "i32>i32=__nv_abs i64>i64=__nv_llabs", abs_typed},
      {"saturatef", 1, "__nv_saturatef", nullptr,
       [](const double* a) { return std::isnan(a[0]) ? 0.0 : std::fmin(std::fmax(a[0], 0.0), 1.0); }},
      {"fast_expf", 1, "__nv_fast_expf", nullptr, U(std::exp)},
      {"fast_logf", 1, "__nv_fast_logf", nullptr, U(std::log)},
      {"fast_log2f", 1, "__nv_fast_log2f", nullptr, U(std::log2)},
      {"fast_sinf", 1, "__nv_fast_sinf", nullptr, U(std::sin)},
      {"fast_cosf", 1, "__nv_fast_cosf", nullptr, U(std::cos)},
      {"fast_tanf", 1, "__nv_fast_tanf", nullptr, U(std::tan)},
      // Binary.
      {"atan2", 2, "__nv_atan2f", "__nv_atan2", B(std::atan2)},
      {"copysign", 2, "__nv_copysignf", "__nv_copysign", B(std::copysign)},
      {"fdim", 2, "__nv_fdimf", "__nv_fdim", B(std::fdim)},
      {"fmod", 2, "__nv_fmodf", "__nv_fmod", B(std::fmod)},
      {"remainder", 2, "__nv_remainderf", "__nv_remainder", B(std::remainder)},
      {"hypot", 2, "__nv_hypotf", "__nv_hypot", B(std::hypot)},
      {"rhypot", 2, "__nv_rhypotf", "__nv_rhypot", [](const double* a) { return 1.0 / std::hypot(a[0], a[1]); }},
      {"nextafter", 2, "__nv_nextafterf", "__nv_nextafter", nullptr, nullptr, nextafter_typed},
      {"pow", 2, "__nv_powf", "__nv_pow", B(std::pow), "fp32,i32>fp32=__nv_powif fp64,i32>fp64=__nv_powi", pow_typed},
      {"fmax", 2, "__nv_fmaxf", "__nv_fmax", B(std::fmax)},
      {"fmin", 2, "__nv_fminf", "__nv_fmin", B(std::fmin)},
      {"div_rn", 2, "__nv_fdiv_rn", "__nv_ddiv_rn", [](const double* a) { return a[0] / a[1]; }},
      {"fdiv", 2, "__nv_fast_fdividef", nullptr, [](const double* a) { return a[0] / a[1]; }},
      {"fast_dividef", 2, "__nv_fast_fdividef", nullptr, [](const double* a) { return a[0] / a[1]; }},
      // Ternary.
      {"fma", 3, "__nv_fmaf", "__nv_fma", [](const double* a) { return std::fma(a[0], a[1], a[2]); }},
      // Integers: the high half of the product.
      // tl.umulhi: the unsigned high half whatever the operands' signedness (Triton's MulhiUIOp).
      {"umulhi", 2, nullptr, nullptr, nullptr,
       "i32,i32>i32=__nv_umulhi u32,u32>u32=__nv_umulhi i64,i64>i64=__nv_umul64hi u64,u64>u64=__nv_umul64hi", umulhi},
      {"mulhi", 2, nullptr, nullptr, nullptr,
       "i32,i32>i32=__nv_mulhi u32,u32>u32=__nv_umulhi i64,i64>i64=__nv_mul64hi u64,u64>u64=__nv_umul64hi", mulhi},
      // Directed rounding: correctly rounded in each mode (see rounded()).
      {"add_rn", 2, "__nv_fadd_rn", "__nv_dadd_rn", nullptr, nullptr, add_r<FE_TONEAREST>},
      {"add_rz", 2, "__nv_fadd_rz", "__nv_dadd_rz", nullptr, nullptr, add_r<FE_TOWARDZERO>},
      {"add_rd", 2, "__nv_fadd_rd", "__nv_dadd_rd", nullptr, nullptr, add_r<FE_DOWNWARD>},
      {"add_ru", 2, "__nv_fadd_ru", "__nv_dadd_ru", nullptr, nullptr, add_r<FE_UPWARD>},
      {"sub_rn", 2, "__nv_fsub_rn", "__nv_dsub_rn", nullptr, nullptr, sub_r<FE_TONEAREST>},
      {"sub_rz", 2, "__nv_fsub_rz", "__nv_dsub_rz", nullptr, nullptr, sub_r<FE_TOWARDZERO>},
      {"sub_rd", 2, "__nv_fsub_rd", "__nv_dsub_rd", nullptr, nullptr, sub_r<FE_DOWNWARD>},
      {"sub_ru", 2, "__nv_fsub_ru", "__nv_dsub_ru", nullptr, nullptr, sub_r<FE_UPWARD>},
      {"mul_rn", 2, "__nv_fmul_rn", "__nv_dmul_rn", nullptr, nullptr, mul_r<FE_TONEAREST>},
      {"mul_rz", 2, "__nv_fmul_rz", "__nv_dmul_rz", nullptr, nullptr, mul_r<FE_TOWARDZERO>},
      {"mul_rd", 2, "__nv_fmul_rd", "__nv_dmul_rd", nullptr, nullptr, mul_r<FE_DOWNWARD>},
      {"mul_ru", 2, "__nv_fmul_ru", "__nv_dmul_ru", nullptr, nullptr, mul_r<FE_UPWARD>},
      {"div_rz", 2, "__nv_fdiv_rz", "__nv_ddiv_rz", nullptr, nullptr, div_r<FE_TOWARDZERO>},
      {"div_rd", 2, "__nv_fdiv_rd", "__nv_ddiv_rd", nullptr, nullptr, div_r<FE_DOWNWARD>},
      {"div_ru", 2, "__nv_fdiv_ru", "__nv_ddiv_ru", nullptr, nullptr, div_r<FE_UPWARD>},
      {"rcp_rn", 1, "__nv_frcp_rn", "__nv_drcp_rn", nullptr, nullptr, rcp_r<FE_TONEAREST>},
      {"rcp_rz", 1, "__nv_frcp_rz", "__nv_drcp_rz", nullptr, nullptr, rcp_r<FE_TOWARDZERO>},
      {"rcp_rd", 1, "__nv_frcp_rd", "__nv_drcp_rd", nullptr, nullptr, rcp_r<FE_DOWNWARD>},
      {"rcp_ru", 1, "__nv_frcp_ru", "__nv_drcp_ru", nullptr, nullptr, rcp_r<FE_UPWARD>},
      {"sqrt_rz", 1, "__nv_fsqrt_rz", "__nv_dsqrt_rz", nullptr, nullptr, sqrt_r<FE_TOWARDZERO>},
      {"sqrt_rd", 1, "__nv_fsqrt_rd", "__nv_dsqrt_rd", nullptr, nullptr, sqrt_r<FE_DOWNWARD>},
      {"sqrt_ru", 1, "__nv_fsqrt_ru", "__nv_dsqrt_ru", nullptr, nullptr, sqrt_r<FE_UPWARD>},
      {"fma_rn", 3, "__nv_fmaf_rn", "__nv_fma_rn", nullptr, nullptr, fma_r<FE_TONEAREST>},
      {"fma_rz", 3, "__nv_fmaf_rz", "__nv_fma_rz", nullptr, nullptr, fma_r<FE_TOWARDZERO>},
      {"fma_rd", 3, "__nv_fmaf_rd", "__nv_fma_rd", nullptr, nullptr, fma_r<FE_DOWNWARD>},
      {"fma_ru", 3, "__nv_fmaf_ru", "__nv_fma_ru", nullptr, nullptr, fma_r<FE_UPWARD>},
      // Conversions (Triton's result types: the unsigned ones give int32/int64 too).
      {"double2float_rn", 1, nullptr, nullptr, nullptr, "fp64>fp32=__nv_double2float_rn", narrow_r<FE_TONEAREST>},
      {"double2float_rz", 1, nullptr, nullptr, nullptr, "fp64>fp32=__nv_double2float_rz", narrow_r<FE_TOWARDZERO>},
      {"double2float_rd", 1, nullptr, nullptr, nullptr, "fp64>fp32=__nv_double2float_rd", narrow_r<FE_DOWNWARD>},
      {"double2float_ru", 1, nullptr, nullptr, nullptr, "fp64>fp32=__nv_double2float_ru", narrow_r<FE_UPWARD>},
      {"float2int_rn", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2int_rn",
       float_to_int_r<FE_TONEAREST, K::I32>},
      {"float2int_rz", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2int_rz",
       float_to_int_r<FE_TOWARDZERO, K::I32>},
      {"float2int_rd", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2int_rd", float_to_int_r<FE_DOWNWARD, K::I32>},
      {"float2int_ru", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2int_ru", float_to_int_r<FE_UPWARD, K::I32>},
      {"float2uint_rn", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2uint_rn",
       float_to_int_r<FE_TONEAREST, K::U32>},
      {"float2uint_rz", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2uint_rz",
       float_to_int_r<FE_TOWARDZERO, K::U32>},
      {"float2uint_rd", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2uint_rd",
       float_to_int_r<FE_DOWNWARD, K::U32>},
      {"float2uint_ru", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float2uint_ru", float_to_int_r<FE_UPWARD, K::U32>},
      {"float2ll_rn", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ll_rn", float_to_int_r<FE_TONEAREST, K::I64>},
      {"float2ll_rz", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ll_rz", float_to_int_r<FE_TOWARDZERO, K::I64>},
      {"float2ll_rd", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ll_rd", float_to_int_r<FE_DOWNWARD, K::I64>},
      {"float2ll_ru", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ll_ru", float_to_int_r<FE_UPWARD, K::I64>},
      {"float2ull_rn", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ull_rn",
       float_to_int_r<FE_TONEAREST, K::U64>},
      {"float2ull_rz", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ull_rz",
       float_to_int_r<FE_TOWARDZERO, K::U64>},
      {"float2ull_rd", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ull_rd", float_to_int_r<FE_DOWNWARD, K::U64>},
      {"float2ull_ru", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_float2ull_ru", float_to_int_r<FE_UPWARD, K::U64>},
      {"double2int_rn", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2int_rn",
       float_to_int_r<FE_TONEAREST, K::I32>},
      {"double2int_rz", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2int_rz",
       float_to_int_r<FE_TOWARDZERO, K::I32>},
      {"double2int_rd", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2int_rd",
       float_to_int_r<FE_DOWNWARD, K::I32>},
      {"double2int_ru", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2int_ru", float_to_int_r<FE_UPWARD, K::I32>},
      {"double2uint_rn", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2uint_rn",
       float_to_int_r<FE_TONEAREST, K::U32>},
      {"double2uint_rz", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2uint_rz",
       float_to_int_r<FE_TOWARDZERO, K::U32>},
      {"double2uint_rd", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2uint_rd",
       float_to_int_r<FE_DOWNWARD, K::U32>},
      {"double2uint_ru", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2uint_ru",
       float_to_int_r<FE_UPWARD, K::U32>},
      {"double2ll_rn", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ll_rn",
       float_to_int_r<FE_TONEAREST, K::I64>},
      {"double2ll_rz", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ll_rz",
       float_to_int_r<FE_TOWARDZERO, K::I64>},
      {"double2ll_rd", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ll_rd", float_to_int_r<FE_DOWNWARD, K::I64>},
      {"double2ll_ru", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ll_ru", float_to_int_r<FE_UPWARD, K::I64>},
      {"double2ull_rn", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ull_rn",
       float_to_int_r<FE_TONEAREST, K::U64>},
      {"double2ull_rz", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ull_rz",
       float_to_int_r<FE_TOWARDZERO, K::U64>},
      {"double2ull_rd", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ull_rd",
       float_to_int_r<FE_DOWNWARD, K::U64>},
      {"double2ull_ru", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double2ull_ru", float_to_int_r<FE_UPWARD, K::U64>},
      {"int2double_rn", 1, nullptr, nullptr, nullptr, "i32>fp64=__nv_int2double_rn", int_to_float_r<FE_TONEAREST>},
      {"uint2double_rn", 1, nullptr, nullptr, nullptr, "u32>fp64=__nv_uint2double_rn", int_to_float_r<FE_TONEAREST>},
      {"int2float_rn", 1, nullptr, nullptr, nullptr, "i32>fp32=__nv_int2float_rn", int_to_float_r<FE_TONEAREST>},
      {"int2float_rz", 1, nullptr, nullptr, nullptr, "i32>fp32=__nv_int2float_rz", int_to_float_r<FE_TOWARDZERO>},
      {"int2float_rd", 1, nullptr, nullptr, nullptr, "i32>fp32=__nv_int2float_rd", int_to_float_r<FE_DOWNWARD>},
      {"int2float_ru", 1, nullptr, nullptr, nullptr, "i32>fp32=__nv_int2float_ru", int_to_float_r<FE_UPWARD>},
      {"uint2float_rn", 1, nullptr, nullptr, nullptr, "u32>fp32=__nv_uint2float_rn", int_to_float_r<FE_TONEAREST>},
      {"uint2float_rz", 1, nullptr, nullptr, nullptr, "u32>fp32=__nv_uint2float_rz", int_to_float_r<FE_TOWARDZERO>},
      {"uint2float_rd", 1, nullptr, nullptr, nullptr, "u32>fp32=__nv_uint2float_rd", int_to_float_r<FE_DOWNWARD>},
      {"uint2float_ru", 1, nullptr, nullptr, nullptr, "u32>fp32=__nv_uint2float_ru", int_to_float_r<FE_UPWARD>},
      {"ll2float_rn", 1, nullptr, nullptr, nullptr, "i64>fp32=__nv_ll2float_rn", int_to_float_r<FE_TONEAREST>},
      {"ll2float_rz", 1, nullptr, nullptr, nullptr, "i64>fp32=__nv_ll2float_rz", int_to_float_r<FE_TOWARDZERO>},
      {"ll2float_rd", 1, nullptr, nullptr, nullptr, "i64>fp32=__nv_ll2float_rd", int_to_float_r<FE_DOWNWARD>},
      {"ll2float_ru", 1, nullptr, nullptr, nullptr, "i64>fp32=__nv_ll2float_ru", int_to_float_r<FE_UPWARD>},
      {"ll2double_rn", 1, nullptr, nullptr, nullptr, "i64>fp64=__nv_ll2double_rn", int_to_float_r<FE_TONEAREST>},
      {"ll2double_rz", 1, nullptr, nullptr, nullptr, "i64>fp64=__nv_ll2double_rz", int_to_float_r<FE_TOWARDZERO>},
      {"ll2double_rd", 1, nullptr, nullptr, nullptr, "i64>fp64=__nv_ll2double_rd", int_to_float_r<FE_DOWNWARD>},
      {"ll2double_ru", 1, nullptr, nullptr, nullptr, "i64>fp64=__nv_ll2double_ru", int_to_float_r<FE_UPWARD>},
      {"ull2float_rn", 1, nullptr, nullptr, nullptr, "u64>fp32=__nv_ull2float_rn", int_to_float_r<FE_TONEAREST>},
      {"ull2float_rz", 1, nullptr, nullptr, nullptr, "u64>fp32=__nv_ull2float_rz", int_to_float_r<FE_TOWARDZERO>},
      {"ull2float_rd", 1, nullptr, nullptr, nullptr, "u64>fp32=__nv_ull2float_rd", int_to_float_r<FE_DOWNWARD>},
      {"ull2float_ru", 1, nullptr, nullptr, nullptr, "u64>fp32=__nv_ull2float_ru", int_to_float_r<FE_UPWARD>},
      {"ull2double_rn", 1, nullptr, nullptr, nullptr, "u64>fp64=__nv_ull2double_rn", int_to_float_r<FE_TONEAREST>},
      {"ull2double_rz", 1, nullptr, nullptr, nullptr, "u64>fp64=__nv_ull2double_rz", int_to_float_r<FE_TOWARDZERO>},
      {"ull2double_rd", 1, nullptr, nullptr, nullptr, "u64>fp64=__nv_ull2double_rd", int_to_float_r<FE_DOWNWARD>},
      {"ull2double_ru", 1, nullptr, nullptr, nullptr, "u64>fp64=__nv_ull2double_ru", int_to_float_r<FE_UPWARD>},
      // Bits between floats and integers.
      {"hiloint2double", 2, nullptr, nullptr, nullptr, "i32,i32>fp64=__nv_hiloint2double", hilo_to_double},
      {"double2loint", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2loint", double_lo},
      {"double2hiint", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_double2hiint", double_hi},
      {"int_as_float", 1, nullptr, nullptr, nullptr, "i32>fp32=__nv_int_as_float", int_as_float},
      {"uint_as_float", 1, nullptr, nullptr, nullptr, "u32>fp32=__nv_uint_as_float", int_as_float},
      {"float_as_int", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float_as_int", float_as_int},
      {"float_as_uint", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_float_as_uint", float_as_int},
      {"longlong_as_double", 1, nullptr, nullptr, nullptr, "i64>fp64=__nv_longlong_as_double", longlong_as_double},
      {"double_as_longlong", 1, nullptr, nullptr, nullptr, "fp64>i64=__nv_double_as_longlong", double_as_longlong},
      // Integers.
      {"popc", 1, nullptr, nullptr, nullptr, "i32>i32=__nv_popc i64>i32=__nv_popcll", popc},
      {"clz", 1, nullptr, nullptr, nullptr, "i32>i32=__nv_clz i64>i32=__nv_clzll", clz},
      {"ffs", 1, nullptr, nullptr, nullptr, "i32>i32=__nv_ffs i64>i32=__nv_ffsll", ffs},
      {"brev", 1, nullptr, nullptr, nullptr, "i32>i32=__nv_brev i64>i64=__nv_brevll", brev},
      {"byte_perm", 3, nullptr, nullptr, nullptr, "i32,i32,i32>i32=__nv_byte_perm", byte_perm},
      {"hadd", 2, nullptr, nullptr, nullptr, "i32,i32>i32=__nv_hadd u32,u32>u32=__nv_uhadd", hadd},
      {"rhadd", 2, nullptr, nullptr, nullptr, "i32,i32>i32=__nv_rhadd u32,u32>u32=__nv_urhadd", rhadd},
      {"mul24", 2, nullptr, nullptr, nullptr, "i32,i32>i32=__nv_mul24 u32,u32>u32=__nv_umul24", mul24},
      {"sad", 3, nullptr, nullptr, nullptr, "i32,i32,u32>i32=__nv_sad u32,u32,u32>u32=__nv_usad", sad},
      // Classification and exponents: int32 results (isnan and isinf then int1, as Triton).
      {"isnan", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_isnanf fp64>i32=__nv_isnand", isnan_typed, true},
      {"isinf", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_isinff fp64>i32=__nv_isinfd", isinf_typed, true},
      {"signbit", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_signbitf fp64>i32=__nv_signbitd", signbit_typed},
      {"finitef", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_finitef", isfinite_typed},
      {"isfinited", 1, nullptr, nullptr, nullptr, "fp64>i32=__nv_isfinited", isfinite_typed},
      {"ilogb", 1, nullptr, nullptr, nullptr, "fp32>i32=__nv_ilogbf fp64>i32=__nv_ilogb", ilogb_typed},
      {"llrint", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_llrintf fp64>i64=__nv_llrint", llrint_typed},
      {"llround", 1, nullptr, nullptr, nullptr, "fp32>i64=__nv_llroundf fp64>i64=__nv_llround", llround_typed},
      {"ldexp", 2, nullptr, nullptr, nullptr, "fp32,i32>fp32=__nv_ldexpf fp64,i32>fp64=__nv_ldexp", ldexp_typed},
      {"scalbn", 2, nullptr, nullptr, nullptr, "fp32,i32>fp32=__nv_scalbnf fp64,i32>fp64=__nv_scalbn", ldexp_typed},
      {"jn", 2, nullptr, nullptr, nullptr, "i32,fp32>fp32=__nv_jnf i32,fp64>fp64=__nv_jn", jn_typed},
      {"yn", 2, nullptr, nullptr, nullptr, "i32,fp32>fp32=__nv_ynf i32,fp64>fp64=__nv_yn", yn_typed},
      // More floats.
      {"cyl_bessel_i0", 1, "__nv_cyl_bessel_i0f", "__nv_cyl_bessel_i0", U(bessel_i0), nullptr, nullptr},
      {"cyl_bessel_i1", 1, "__nv_cyl_bessel_i1f", "__nv_cyl_bessel_i1", U(bessel_i1), nullptr, nullptr},
      {"erfcx", 1, "__nv_erfcxf", "__nv_erfcx", U(erfcx), nullptr, nullptr},
      {"erfcinv", 1, "__nv_erfcinvf", "__nv_erfcinv", U(erfcinv), nullptr, nullptr},
      {"normcdfinv", 1, "__nv_normcdfinvf", "__nv_normcdfinv", U(normcdfinv), nullptr, nullptr},
      {"norm3d", 3, "__nv_norm3df", "__nv_norm3d", [](const double* a) { return norm(a, 3); }, nullptr, nullptr},
      {"rnorm3d", 3, "__nv_rnorm3df", "__nv_rnorm3d", [](const double* a) { return 1.0 / norm(a, 3); }, nullptr,
       nullptr},
      {"norm4d", 4, "__nv_norm4df", "__nv_norm4d", [](const double* a) { return norm(a, 4); }, nullptr, nullptr},
      {"rnorm4d", 4, "__nv_rnorm4df", "__nv_rnorm4d", [](const double* a) { return 1.0 / norm(a, 4); }, nullptr,
       nullptr},
      {"rsqrt_rn", 1, "__nv_frsqrt_rn", nullptr, U(rsqrt_rn), nullptr, nullptr},
      {"rcp64h", 1, nullptr, "__nv_rcp64h", [](const double* a) { return 1.0 / a[0]; }},  // approximate on the GPU
      {"fast_exp10f", 1, "__nv_fast_exp10f", nullptr, [](const double* a) { return std::pow(10.0, a[0]); }, nullptr,
       nullptr},
      {"fast_log10f", 1, "__nv_fast_log10f", nullptr, U(std::log10), nullptr, nullptr},
      {"fast_powf", 2, "__nv_fast_powf", nullptr, B(std::pow), nullptr, nullptr},
  });
  return table;
}

#undef U
#undef B

}  // namespace

const std::vector<ExternMath>& extern_math_table() { return build(); }

const ExternMath* find_extern_math(const std::string& name) {
  static const std::map<std::string, const ExternMath*> index = [] {
    std::map<std::string, const ExternMath*> out;
    for (const ExternMath& fn : build()) out[fn.name] = &fn;
    return out;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

const ExternOverload* extern_math_overload(const ExternMath& fn, const std::vector<ScalarKind>& kinds) {
  for (const ExternOverload& overload : fn.overloads) {
    if (overload.args == kinds) return &overload;
  }
  return nullptr;
}

std::string extern_type_name(ScalarKind kind) { return is_float(kind) ? scalar_name(kind) : scalar_long_name(kind); }

std::string extern_math_expected(const ExternMath& fn) {
  std::string out;
  for (const ExternOverload& overload : fn.overloads) {
    out += out.empty() ? "(" : " (";
    for (size_t i = 0; i < overload.args.size(); ++i) out += (i ? ", " : "") + extern_type_name(overload.args[i]);
    out += overload.args.size() == 1 ? ",)" : ")";
  }
  return out;
}

ExternValue extern_math_eval(const ExternMath& fn, const ExternValue* args, const ScalarKind* kinds,
                             ScalarKind result) {
  if (fn.eval_typed != nullptr) return fn.eval_typed(args, kinds, result);
  double values[4] = {0, 0, 0, 0};
  for (int k = 0; k < fn.arity; ++k) values[k] = args[k].f;
  return fv(fn.eval(values));
}

int64_t extern_mulhi(int64_t a, int64_t b, ScalarKind kind, bool as_unsigned) {
  // The full product in 128 bits (no signed overflow), of the values read as the type's
  // unsigned or signed numbers, then the high half wrapped to the type.
  int bits = bit_width(kind);
  bool is_unsigned = as_unsigned || !is_signed(kind);
  __int128 x = a, y = b;
  if (is_unsigned) {
    unsigned __int128 mask = bits == 64 ? ~static_cast<uint64_t>(0) : (static_cast<uint64_t>(1) << bits) - 1;
    unsigned __int128 product = (static_cast<unsigned __int128>(static_cast<uint64_t>(a)) & mask) *
                                (static_cast<unsigned __int128>(static_cast<uint64_t>(b)) & mask);
    return wrap_int(static_cast<int64_t>(static_cast<uint64_t>(product >> bits)), kind);
  }
  return wrap_int(static_cast<int64_t>((x * y) >> bits), kind);
}

}  // namespace tritium::ir

// The libdevice-family table (see extern_math.h). The interpreter's functions are the C
// library's in double precision (rounded to the result type afterwards), so fp32 results
// may differ from libdevice's in the last place, as libdevice's differ from the exact value.
#include "ir/extern_math.h"

#include <cmath>
#include <map>

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

#define U(fn) [](const double* a) -> double { return fn(a[0]); }
#define B(fn) [](const double* a) -> double { return fn(a[0], a[1]); }

const std::vector<ExternMath>& build() {
  static const std::vector<ExternMath> table = {
      // Unary, fp32 and fp64: __nv_<name>f and __nv_<name>.
      {"acos", 1, false, "__nv_acosf", "__nv_acos", U(std::acos)},
      {"acosh", 1, false, "__nv_acoshf", "__nv_acosh", U(std::acosh)},
      {"asin", 1, false, "__nv_asinf", "__nv_asin", U(std::asin)},
      {"asinh", 1, false, "__nv_asinhf", "__nv_asinh", U(std::asinh)},
      {"atan", 1, false, "__nv_atanf", "__nv_atan", U(std::atan)},
      {"atanh", 1, false, "__nv_atanhf", "__nv_atanh", U(std::atanh)},
      {"cbrt", 1, false, "__nv_cbrtf", "__nv_cbrt", U(std::cbrt)},
      {"rcbrt", 1, false, "__nv_rcbrtf", "__nv_rcbrt", [](const double* a) { return 1.0 / std::cbrt(a[0]); }},
      {"cos", 1, false, "__nv_cosf", "__nv_cos", U(std::cos)},
      {"cosh", 1, false, "__nv_coshf", "__nv_cosh", U(std::cosh)},
      {"cospi", 1, false, "__nv_cospif", "__nv_cospi", [](const double* a) { return std::cos(kPi * a[0]); }},
      {"sin", 1, false, "__nv_sinf", "__nv_sin", U(std::sin)},
      {"sinh", 1, false, "__nv_sinhf", "__nv_sinh", U(std::sinh)},
      {"sinpi", 1, false, "__nv_sinpif", "__nv_sinpi", [](const double* a) { return std::sin(kPi * a[0]); }},
      {"tan", 1, false, "__nv_tanf", "__nv_tan", U(std::tan)},
      {"tanh", 1, false, "__nv_tanhf", "__nv_tanh", U(std::tanh)},
      {"erf", 1, false, "__nv_erff", "__nv_erf", U(std::erf)},
      {"erfc", 1, false, "__nv_erfcf", "__nv_erfc", U(std::erfc)},
      {"erfinv", 1, false, "__nv_erfinvf", "__nv_erfinv", U(erfinv)},
      {"exp", 1, false, "__nv_expf", "__nv_exp", U(std::exp)},
      {"exp2", 1, false, "__nv_exp2f", "__nv_exp2", U(std::exp2)},
      {"exp10", 1, false, "__nv_exp10f", "__nv_exp10", [](const double* a) { return std::pow(10.0, a[0]); }},
      {"expm1", 1, false, "__nv_expm1f", "__nv_expm1", U(std::expm1)},
      {"log", 1, false, "__nv_logf", "__nv_log", U(std::log)},
      {"log2", 1, false, "__nv_log2f", "__nv_log2", U(std::log2)},
      {"log10", 1, false, "__nv_log10f", "__nv_log10", U(std::log10)},
      {"log1p", 1, false, "__nv_log1pf", "__nv_log1p", U(std::log1p)},
      {"logb", 1, false, "__nv_logbf", "__nv_logb", U(std::logb)},
      {"lgamma", 1, false, "__nv_lgammaf", "__nv_lgamma", U(std::lgamma)},
      {"tgamma", 1, false, "__nv_tgammaf", "__nv_tgamma", U(std::tgamma)},
      {"j0", 1, false, "__nv_j0f", "__nv_j0", U(::j0)},
      {"j1", 1, false, "__nv_j1f", "__nv_j1", U(::j1)},
      {"y0", 1, false, "__nv_y0f", "__nv_y0", U(::y0)},
      {"y1", 1, false, "__nv_y1f", "__nv_y1", U(::y1)},
      {"normcdf", 1, false, "__nv_normcdff", "__nv_normcdf",
       [](const double* a) { return 0.5 * std::erfc(-a[0] / std::sqrt(2.0)); }},
      {"sqrt", 1, false, "__nv_sqrtf", "__nv_sqrt", U(std::sqrt)},
      {"sqrt_rn", 1, false, "__nv_fsqrt_rn", "__nv_dsqrt_rn", U(std::sqrt)},
      {"rsqrt", 1, false, "__nv_rsqrtf", "__nv_rsqrt", [](const double* a) { return 1.0 / std::sqrt(a[0]); }},
      {"ceil", 1, false, "__nv_ceilf", "__nv_ceil", U(std::ceil)},
      {"floor", 1, false, "__nv_floorf", "__nv_floor", U(std::floor)},
      {"trunc", 1, false, "__nv_truncf", "__nv_trunc", U(std::trunc)},
      {"round", 1, false, "__nv_roundf", "__nv_round", U(std::round)},
      {"rint", 1, false, "__nv_rintf", "__nv_rint", U(std::nearbyint)},
      {"nearbyint", 1, false, "__nv_nearbyintf", "__nv_nearbyint", U(std::nearbyint)},
      {"abs", 1, false, "__nv_fabsf", "__nv_fabs", U(std::fabs)},
      {"saturatef", 1, false, "__nv_saturatef", nullptr,
       [](const double* a) { return std::isnan(a[0]) ? 0.0 : std::fmin(std::fmax(a[0], 0.0), 1.0); }},
      {"fast_expf", 1, false, "__nv_fast_expf", nullptr, U(std::exp)},
      {"fast_logf", 1, false, "__nv_fast_logf", nullptr, U(std::log)},
      {"fast_log2f", 1, false, "__nv_fast_log2f", nullptr, U(std::log2)},
      {"fast_sinf", 1, false, "__nv_fast_sinf", nullptr, U(std::sin)},
      {"fast_cosf", 1, false, "__nv_fast_cosf", nullptr, U(std::cos)},
      {"fast_tanf", 1, false, "__nv_fast_tanf", nullptr, U(std::tan)},
      // Binary.
      {"atan2", 2, false, "__nv_atan2f", "__nv_atan2", B(std::atan2)},
      {"copysign", 2, false, "__nv_copysignf", "__nv_copysign", B(std::copysign)},
      {"fdim", 2, false, "__nv_fdimf", "__nv_fdim", B(std::fdim)},
      {"fmod", 2, false, "__nv_fmodf", "__nv_fmod", B(std::fmod)},
      {"remainder", 2, false, "__nv_remainderf", "__nv_remainder", B(std::remainder)},
      {"hypot", 2, false, "__nv_hypotf", "__nv_hypot", B(std::hypot)},
      {"rhypot", 2, false, "__nv_rhypotf", "__nv_rhypot", [](const double* a) { return 1.0 / std::hypot(a[0], a[1]); }},
      {"nextafter", 2, false, "__nv_nextafterf", "__nv_nextafter", nullptr},  // needs the type
      {"pow", 2, false, "__nv_powf", "__nv_pow", B(std::pow)},
      {"fmax", 2, false, "__nv_fmaxf", "__nv_fmax", B(std::fmax)},
      {"fmin", 2, false, "__nv_fminf", "__nv_fmin", B(std::fmin)},
      {"div_rn", 2, false, "__nv_fdiv_rn", "__nv_ddiv_rn", [](const double* a) { return a[0] / a[1]; }},
      {"fdiv", 2, false, "__nv_fast_fdividef", nullptr, [](const double* a) { return a[0] / a[1]; }},
      {"fast_dividef", 2, false, "__nv_fast_fdividef", nullptr, [](const double* a) { return a[0] / a[1]; }},
      // Ternary.
      {"fma", 3, false, "__nv_fmaf", "__nv_fma", [](const double* a) { return std::fma(a[0], a[1], a[2]); }},
      // Integers: the high half of the product.
      {"umulhi", 2, true, "__nv_umulhi", "__nv_umul64hi", nullptr},
      {"mulhi", 2, true, "__nv_mulhi", "__nv_mul64hi", nullptr},
  };
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

const char* extern_math_symbol(const ExternMath& fn, ScalarKind kind) {
  if (fn.integer) {
    // umulhi is the unsigned high half whatever the operands' signedness (Triton's
    // MulhiUIOp); mulhi follows their signedness (libdevice's table in Triton).
    bool wide = bit_width(kind) == 64;
    if (std::string(fn.name) == "mulhi" && is_signed(kind)) return wide ? "__nv_mul64hi" : "__nv_mulhi";
    return wide ? "__nv_umul64hi" : "__nv_umulhi";
  }
  if (kind == ScalarKind::F32) return fn.f32;
  if (kind == ScalarKind::F64) return fn.f64;
  return nullptr;
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

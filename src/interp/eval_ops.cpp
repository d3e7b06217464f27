// Arithmetic of the interpreter, exact to the bit: integers wrap at their width (computed
// in uint64, then truncated and re-extended), floats compute in double and round to
// their format after every op (exact for + - * / sqrt: 53 >= 2p + 2 for fp32/fp16/bf16).
//
// Shifts are defined for every amount, with what PTX does (it clamps the amount to the
// width): an amount >= the width (or negative, read as a huge unsigned) gives 0 for shl
// and a logical shr, and the sign fill for an arithmetic shr. LLVM calls these poison.
#include "interp/eval_ops.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "interp/poison.h"
#include "support/diagnostics.h"

namespace tritium::interp {

using ir::OpKind;
using ir::ScalarKind;

namespace {

template <typename F>
void map_int2(const Buffer& a, const Buffer& b, Buffer& r, F f) {
  const Slot* x = a.data();
  const Slot* y = b.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].i = f(x[i].i, y[i].i);
}

template <typename F>
void map_float2(const Buffer& a, const Buffer& b, Buffer& r, F f) {
  const Slot* x = a.data();
  const Slot* y = b.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].f = f(x[i].f, y[i].f);
}

// Float operands, integer (i1) results: the compares.
template <typename F>
void map_float_cmp(const Buffer& a, const Buffer& b, Buffer& r, F f) {
  const Slot* x = a.data();
  const Slot* y = b.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].i = f(x[i].f, y[i].f);
}

template <typename F>
void map_int1(const Buffer& a, Buffer& r, F f) {
  const Slot* x = a.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].i = f(x[i].i);
}

template <typename F>
void map_float1(const Buffer& a, Buffer& r, F f) {
  const Slot* x = a.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].f = f(x[i].f);
}

inline uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
inline int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

// Lanes with no defined quotient (a zero divisor, the one overflowing signed quotient)
// are poisoned, not failed: masked kernels divide garbage in lanes they never store. The
// computing loops give those lanes a harmless value and stay free of UB.
void poison_undefined_division(const ir::Op& op, const Buffer& a, const Buffer& b, Buffer& r) {
  ScalarKind k = a.kind;
  bool is_signed = ir::is_signed(k);
  int bits = ir::bit_width(k);
  int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
  for (int64_t i = 0; i < a.size(); ++i) {
    int64_t d = b.data()[i].i;
    if (d == 0) {
      poison_lane(r, i, op, "integer division by zero");
    } else if (is_signed && d == -1 && a.data()[i].i == min) {
      poison_lane(r, i, op, bits == 32 ? "integer division overflow (INT32_MIN / -1)"
                            : bits == 64 ? "integer division overflow (INT64_MIN / -1)"
                                         : "integer division overflow (the type's minimum / -1)");
    }
  }
}

void eval_int_binary(const ir::Op& op, const Buffer& a, const Buffer& b, Buffer& r) {
  ScalarKind k = a.kind;
  bool is_signed = ir::is_signed(k);
  uint64_t width = static_cast<uint64_t>(ir::bit_width(k));
  switch (op.kind()) {
    case OpKind::Add: map_int2(a, b, r, [](int64_t x, int64_t y) { return s(u(x) + u(y)); }); break;
    case OpKind::Sub: map_int2(a, b, r, [](int64_t x, int64_t y) { return s(u(x) - u(y)); }); break;
    case OpKind::Mul: map_int2(a, b, r, [](int64_t x, int64_t y) { return s(u(x) * u(y)); }); break;
    case OpKind::Div:
      if (is_signed) {
        // C truncates toward zero. x / -1 is 0 - x, wrapping for the minimum as the lane
        // is poisoned anyway.
        map_int2(a, b, r, [](int64_t x, int64_t y) { return y == 0 ? 0 : y == -1 ? s(0 - u(x)) : x / y; });
      } else {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return y == 0 ? 0 : s(u(x) / u(y)); });
      }
      poison_undefined_division(op, a, b, r);
      break;
    case OpKind::Rem:
      if (is_signed) {
        // The remainder takes the sign of the dividend.
        map_int2(a, b, r, [](int64_t x, int64_t y) { return y == 0 || y == -1 ? 0 : x % y; });
      } else {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return y == 0 ? 0 : s(u(x) % u(y)); });
      }
      poison_undefined_division(op, a, b, r);
      break;
    case OpKind::And: map_int2(a, b, r, [](int64_t x, int64_t y) { return x & y; }); break;
    case OpKind::Or: map_int2(a, b, r, [](int64_t x, int64_t y) { return x | y; }); break;
    case OpKind::Xor: map_int2(a, b, r, [](int64_t x, int64_t y) { return x ^ y; }); break;
    case OpKind::Shl:
      map_int2(a, b, r, [width](int64_t x, int64_t y) { return u(y) >= width ? 0 : s(u(x) << u(y)); });
      break;
    case OpKind::Shr:
      if (is_signed) {
        // Values are sign-extended, so a 64-bit arithmetic shift is right at any width.
        map_int2(a, b, r, [width](int64_t x, int64_t y) { return u(y) >= width ? (x < 0 ? -1 : 0) : x >> u(y); });
      } else {
        map_int2(a, b, r, [width](int64_t x, int64_t y) { return u(y) >= width ? 0 : s(u(x) >> u(y)); });
      }
      break;
    case OpKind::Minimum:
      if (is_signed) {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return x < y ? x : y; });
      } else {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return u(x) < u(y) ? x : y; });
      }
      break;
    case OpKind::Maximum:
      if (is_signed) {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return x > y ? x : y; });
      } else {
        map_int2(a, b, r, [](int64_t x, int64_t y) { return u(x) > u(y) ? x : y; });
      }
      break;
    default: internal_error("interpreter", std::string("'") + op.name() + "' is not a binary op", op.loc());
  }
  wrap_all(r.data(), r.size(), k);
}

void eval_float_binary(const ir::Op& op, const Buffer& a, const Buffer& b, Buffer& r) {
  switch (op.kind()) {
    case OpKind::Add: map_float2(a, b, r, [](double x, double y) { return x + y; }); break;
    case OpKind::Sub: map_float2(a, b, r, [](double x, double y) { return x - y; }); break;
    case OpKind::Mul: map_float2(a, b, r, [](double x, double y) { return x * y; }); break;
    case OpKind::Div: map_float2(a, b, r, [](double x, double y) { return x / y; }); break;
    case OpKind::Rem: map_float2(a, b, r, [](double x, double y) { return std::fmod(x, y); }); break;
    // fmin/fmax return the other operand when one is NaN (Triton's minimum/maximum).
    case OpKind::Minimum: map_float2(a, b, r, [](double x, double y) { return std::fmin(x, y); }); break;
    case OpKind::Maximum: map_float2(a, b, r, [](double x, double y) { return std::fmax(x, y); }); break;
    default:
      internal_error("interpreter", std::string("'") + op.name() + "' on " + a.type->str(), op.loc());
  }
  round_all(r.data(), r.size(), r.kind);
}

}  // namespace

void eval_binary(const ir::Op& op, const Buffer& lhs, const Buffer& rhs, Buffer& result) {
  if (lhs.is_float) {
    eval_float_binary(op, lhs, rhs, result);
  } else {
    eval_int_binary(op, lhs, rhs, result);
  }
}

void eval_unary(const ir::Op& op, const Buffer& a, Buffer& r) {
  if (!a.is_float) {
    switch (op.kind()) {
      case OpKind::Neg: map_int1(a, r, [](int64_t x) { return s(0 - u(x)); }); break;
      case OpKind::Not: map_int1(a, r, [](int64_t x) { return ~x; }); break;
      case OpKind::Abs:
        if (ir::is_signed(a.kind)) map_int1(a, r, [](int64_t x) { return x < 0 ? s(0 - u(x)) : x; });
        else map_int1(a, r, [](int64_t x) { return x; });
        break;
      default: internal_error("interpreter", std::string("'") + op.name() + "' on " + a.type->str(), op.loc());
    }
    wrap_all(r.data(), r.size(), r.kind);
    return;
  }
  switch (op.kind()) {
    case OpKind::Neg: map_float1(a, r, [](double x) { return -x; }); break;
    case OpKind::Exp: map_float1(a, r, [](double x) { return std::exp(x); }); break;
    case OpKind::Exp2: map_float1(a, r, [](double x) { return std::exp2(x); }); break;
    case OpKind::Log: map_float1(a, r, [](double x) { return std::log(x); }); break;
    case OpKind::Log2: map_float1(a, r, [](double x) { return std::log2(x); }); break;
    case OpKind::Sqrt: map_float1(a, r, [](double x) { return std::sqrt(x); }); break;
    case OpKind::Rsqrt: map_float1(a, r, [](double x) { return 1.0 / std::sqrt(x); }); break;
    case OpKind::Sin: map_float1(a, r, [](double x) { return std::sin(x); }); break;
    case OpKind::Cos: map_float1(a, r, [](double x) { return std::cos(x); }); break;
    case OpKind::Abs: map_float1(a, r, [](double x) { return std::fabs(x); }); break;
    case OpKind::Floor: map_float1(a, r, [](double x) { return std::floor(x); }); break;
    case OpKind::Ceil: map_float1(a, r, [](double x) { return std::ceil(x); }); break;
    default: internal_error("interpreter", std::string("'") + op.name() + "' on " + a.type->str(), op.loc());
  }
  round_all(r.data(), r.size(), r.kind);
}

void eval_cmp(Predicate predicate, const Buffer& lhs, const Buffer& rhs, Buffer& result) {
  if (lhs.is_float) {
    // C++ float compares are IEEE's: ordered, except != which is true on NaN.
    switch (predicate) {
      case Predicate::Eq: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x == y; }); break;
      case Predicate::Ne: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x != y; }); break;
      case Predicate::Lt: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x < y; }); break;
      case Predicate::Le: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x <= y; }); break;
      case Predicate::Gt: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x > y; }); break;
      case Predicate::Ge: map_float_cmp(lhs, rhs, result, [](double x, double y) { return x >= y; }); break;
    }
    return;
  }
  if (lhs.is_ptr || !ir::is_signed(lhs.kind)) {
    switch (predicate) {
      case Predicate::Eq: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x == y; }); break;
      case Predicate::Ne: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x != y; }); break;
      case Predicate::Lt: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return u(x) < u(y); }); break;
      case Predicate::Le: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return u(x) <= u(y); }); break;
      case Predicate::Gt: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return u(x) > u(y); }); break;
      case Predicate::Ge: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return u(x) >= u(y); }); break;
    }
    return;
  }
  switch (predicate) {
    case Predicate::Eq: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x == y; }); break;
    case Predicate::Ne: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x != y; }); break;
    case Predicate::Lt: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x < y; }); break;
    case Predicate::Le: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x <= y; }); break;
    case Predicate::Gt: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x > y; }); break;
    case Predicate::Ge: map_int2(lhs, rhs, result, [](int64_t x, int64_t y) { return x >= y; }); break;
  }
}

void eval_select(const Buffer& cond, const Buffer& if_true, const Buffer& if_false, Buffer& result) {
  const Slot* c = cond.data();
  const Slot* t = if_true.data();
  const Slot* f = if_false.data();
  Slot* r = result.data();
  for (int64_t i = 0; i < result.size(); ++i) r[i] = c[i].i ? t[i] : f[i];
}

void eval_cast(const Buffer& a, bool bitcast, Buffer& r, bool toward_zero) {
  const Slot* x = a.data();
  Slot* z = r.data();
  int64_t n = r.size();
  ScalarKind from = a.kind, to = r.kind;
  if (bitcast) {
    for (int64_t i = 0; i < n; ++i) z[i] = from_bits(to_bits(x[i], from, a.is_ptr), to, r.is_ptr);
    return;
  }
  bool from_float = a.is_float;
  bool to_float = r.is_float;
  if (r.is_ptr) {
    // inttoptr zero-extends a narrower integer; ptr -> ptr keeps the address.
    for (int64_t i = 0; i < n; ++i) z[i].i = a.is_ptr ? x[i].i : s(to_bits(x[i], from, false));
  } else if (from_float && to_float) {
    ir::Rounding rounding = toward_zero ? ir::Rounding::TowardZero : ir::Rounding::NearestEven;
    if (ir::is_fp8(to)) {
      // Through fp32 (exact from fp16/bf16/fp8, rounded from fp64), as the GPU converts.
      for (int64_t i = 0; i < n; ++i) z[i].f = fp8_from_float(x[i].f, from, to, rounding);
    } else if (toward_zero) {
      for (int64_t i = 0; i < n; ++i) z[i].f = round_float(x[i].f, to, rounding);
    } else {
      for (int64_t i = 0; i < n; ++i) z[i].f = round_float(x[i].f, to);
    }
  } else if (from_float) {
    for (int64_t i = 0; i < n; ++i) z[i].i = float_to_int(x[i].f, to);
  } else if (to_float) {
    bool is_unsigned = a.is_ptr || !ir::is_signed(from);
    for (int64_t i = 0; i < n; ++i) z[i].f = int_to_float(x[i].i, is_unsigned, to);
  } else if (to == ScalarKind::I1) {
    for (int64_t i = 0; i < n; ++i) z[i].i = x[i].i != 0;
  } else {
    // int -> int: the source is already sign- or zero-extended per its own type, so
    // wrapping to the target gives sext/zext/trunc as LLVM would.
    for (int64_t i = 0; i < n; ++i) z[i].i = wrap_int(x[i].i, to);
  }
}

void eval_addptr(const Buffer& ptr, const Buffer& offset, Buffer& result) {
  const ir::Type* pointee = ptr.type->element()->pointee();
  auto bytes = static_cast<uint64_t>(memory_bytes(pointee->scalar_kind()));
  map_int2(ptr, offset, result, [bytes](int64_t p, int64_t o) { return s(u(p) + u(o) * bytes); });
}

void eval_splat(const Buffer& scalar, Buffer& result) {
  Slot value = scalar.data()[0];
  Slot* r = result.data();
  for (int64_t i = 0; i < result.size(); ++i) r[i] = value;
}

void eval_broadcast(const Buffer& a, Buffer& r) {
  const auto& in_shape = a.type->shape();
  const auto& out_shape = r.type->shape();
  int rank = static_cast<int>(out_shape.size());
  // Input strides, 0 along the dimensions that grow.
  std::vector<int64_t> stride(rank, 0);
  int64_t step = 1;
  for (int d = rank - 1; d >= 0; --d) {
    stride[d] = in_shape[d] == 1 ? 0 : step;
    step *= in_shape[d];
  }
  std::vector<int64_t> index(rank, 0);
  const Slot* x = a.data();
  Slot* z = r.data();
  int64_t inner = out_shape[rank - 1];
  int64_t inner_stride = stride[rank - 1];
  int64_t source = 0;
  for (int64_t out = 0; out < r.size(); out += inner) {
    for (int64_t j = 0; j < inner; ++j) z[out + j] = x[source + j * inner_stride];
    // Odometer over the outer dimensions.
    for (int d = rank - 2; d >= 0; --d) {
      source += stride[d];
      if (++index[d] < out_shape[d]) break;
      source -= stride[d] * out_shape[d];
      index[d] = 0;
    }
  }
}

void eval_copy(const Buffer& operand, Buffer& result) { copy_buffer(operand, result); }

void eval_make_range(int64_t start, Buffer& result) {
  Slot* r = result.data();
  for (int64_t i = 0; i < result.size(); ++i) r[i].i = start + i;
}

void eval_constant(const ir::Op& op, Buffer& result) {
  const ir::AttrValue* value = op.find_attr("value");
  if (value == nullptr) internal_error("interpreter", "constant without a value", op.loc());
  Slot slot;
  bool is_float_type = result.is_float;
  if (std::holds_alternative<double>(*value)) {
    double v = std::get<double>(*value);
    if (is_float_type) slot.f = round_float(v, result.kind);
    else slot.i = float_to_int(v, result.kind);
  } else if (std::holds_alternative<int64_t>(*value)) {
    int64_t v = std::get<int64_t>(*value);
    if (is_float_type) slot.f = int_to_float(v, false, result.kind);
    else slot.i = result.is_ptr ? v : wrap_int(v, result.kind);
  } else {
    internal_error("interpreter", "constant with a non-numeric value", op.loc());
  }
  Slot* r = result.data();
  for (int64_t i = 0; i < result.size(); ++i) r[i] = slot;
}

}  // namespace tritium::interp

// Arithmetic of the interpreter, exact to the bit: integers wrap at their width (computed
// in uint64, then truncated and re-extended), floats compute in double and round to
// their format after every op (exact for + - * / sqrt: 53 >= 2p + 2 for fp32/fp16/bf16).
// The lanes of the elementwise ops come from ir/elementwise.def; this file runs them over
// buffers, with compares, selects, casts and the shape ops.
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

// Float operands, integer (i1) results: the compares.
template <typename F>
void map_float_cmp(const Buffer& a, const Buffer& b, Buffer& r, F f) {
  const Slot* x = a.data();
  const Slot* y = b.data();
  Slot* z = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) z[i].i = f(x[i].f, y[i].f);
}

inline uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
inline int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

// Division of integer lanes. Lanes with no defined quotient (a zero divisor, the one
// overflowing signed quotient) are poisoned, not failed: masked kernels divide garbage in
// lanes they never store. They get a harmless value, free of UB: C truncates toward zero,
// and x / -1 is 0 - x, wrapping for the minimum.
const char* undefined_division(int64_t x, int64_t y, bool is_signed, int bits) {
  if (y == 0) return "integer division by zero";
  int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
  if (!is_signed || y != -1 || x != min) return nullptr;
  return bits == 32 ? "integer division overflow (INT32_MIN / -1)"
         : bits == 64 ? "integer division overflow (INT64_MIN / -1)"
                      : "integer division overflow (the type's minimum / -1)";
}

inline int64_t int_div(int64_t x, int64_t y, bool is_signed, int bits, const char*& undefined) {
  undefined = undefined_division(x, y, is_signed, bits);
  if (is_signed) return y == 0 ? 0 : y == -1 ? s(0 - u(x)) : x / y;
  return y == 0 ? 0 : s(u(x) / u(y));
}

// The remainder takes the sign of the dividend.
inline int64_t int_rem(int64_t x, int64_t y, bool is_signed, int bits, const char*& undefined) {
  undefined = undefined_division(x, y, is_signed, bits);
  if (is_signed) return y == 0 || y == -1 ? 0 : x % y;
  return y == 0 ? 0 : s(u(x) % u(y));
}

// The lane functions of ir/elementwise.def: IntLane<K>::f and FloatLane<K>::f, where an
// entry defines them.
template <OpKind K>
struct IntLane {
  static constexpr bool kDefined = false;
};
template <OpKind K>
struct FloatLane {
  static constexpr bool kDefined = false;
};

#define TRITIUM_EVAL_INT(OP, ...)                                                                       \
  template <>                                                                                           \
  struct IntLane<OpKind::OP> {                                                                          \
    static constexpr bool kDefined = true;                                                              \
    static int64_t f([[maybe_unused]] int64_t x, [[maybe_unused]] int64_t y, [[maybe_unused]] int64_t z, \
                     [[maybe_unused]] bool is_signed, [[maybe_unused]] int bits,                         \
                     [[maybe_unused]] const char*& undefined) {                                         \
      return __VA_ARGS__;                                                                               \
    }                                                                                                   \
  };
#define TRITIUM_EVAL_FLOAT(OP, ...)                                                                    \
  template <>                                                                                          \
  struct FloatLane<OpKind::OP> {                                                                       \
    static constexpr bool kDefined = true;                                                             \
    static double f([[maybe_unused]] double x, [[maybe_unused]] double y, [[maybe_unused]] double z,   \
                    [[maybe_unused]] ScalarKind kind) {                                                \
      return __VA_ARGS__;                                                                              \
    }                                                                                                  \
  };
#include "ir/elementwise.def"

// One loop per op, arity and class of types: the lane function inlines, and a lane that
// never sets `undefined` costs no test.
template <OpKind K, int N>
void int_lanes(const ir::Op& op, const Buffer* const* in, Buffer& r) {
  const Slot* x = in[0]->data();
  const Slot* y = in[N > 1 ? 1 : 0]->data();
  const Slot* z = in[N > 2 ? 2 : 0]->data();
  bool is_signed = ir::is_signed(in[0]->kind);
  int bits = ir::bit_width(in[0]->kind);
  Slot* out = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) {
    const char* undefined = nullptr;
    out[i].i = IntLane<K>::f(x[i].i, N > 1 ? y[i].i : 0, N > 2 ? z[i].i : 0, is_signed, bits, undefined);
    if (undefined != nullptr) [[unlikely]] poison_lane(r, i, op, undefined);
  }
  wrap_all(out, n, r.kind);
}

template <OpKind K, int N>
void float_lanes(const Buffer* const* in, Buffer& r) {
  const Slot* x = in[0]->data();
  const Slot* y = in[N > 1 ? 1 : 0]->data();
  const Slot* z = in[N > 2 ? 2 : 0]->data();
  ScalarKind kind = in[0]->kind;
  Slot* out = r.data();
  int64_t n = r.size();
  for (int64_t i = 0; i < n; ++i) out[i].f = FloatLane<K>::f(x[i].f, N > 1 ? y[i].f : 0, N > 2 ? z[i].f : 0, kind);
  round_all(out, n, r.kind);
}

template <OpKind K>
void eval_lanes(const ir::Op& op, const Buffer* const* in, int count, Buffer& r) {
  if constexpr (IntLane<K>::kDefined) {
    if (!in[0]->is_float) {
      if (count == 1) return int_lanes<K, 1>(op, in, r);
      if (count == 2) return int_lanes<K, 2>(op, in, r);
      return int_lanes<K, 3>(op, in, r);
    }
  }
  if constexpr (FloatLane<K>::kDefined) {
    if (in[0]->is_float) {
      if (count == 1) return float_lanes<K, 1>(in, r);
      if (count == 2) return float_lanes<K, 2>(in, r);
      return float_lanes<K, 3>(in, r);
    }
  }
  internal_error("interpreter", std::string("'") + op.name() + "' on " + in[0]->type->str(), op.loc());
}

template <OpKind K>
constexpr ElementwiseFn lanes_of() {
  if constexpr (IntLane<K>::kDefined || FloatLane<K>::kDefined) return &eval_lanes<K>;
  return nullptr;
}

// Indexed by OpKind: every row of ops.def, null where elementwise.def has no entry.
constexpr ElementwiseFn kLanes[] = {
#define TRITIUM_OP(name, keyword, traits, operands, rule) lanes_of<OpKind::name>(),
#include "ir/ops.def"
#undef TRITIUM_OP
};

}  // namespace

ElementwiseFn elementwise_fn(OpKind kind) { return kLanes[static_cast<size_t>(kind)]; }

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

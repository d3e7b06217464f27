// Triton 3.6's typing rules for operations on tensors (triton-spec.md §5.3-5.6): how a
// Python literal takes part in promotion, the promotion lattice, casts, broadcasting, and
// the IR each operator expands to.
#include <cmath>

#include "lower/block_shape.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

const Type* element_of(const Value* v) { return v->type()->element(); }

bool is_fp16_like(ScalarKind k) { return k == ScalarKind::F16 || k == ScalarKind::BF16; }

int mantissa_bits(ScalarKind k) { return ir::fp_mantissa_width(k); }

bool is_fp8_value(const ir::Value* v) {
  const Type* e = v->type()->element();
  return e->is_scalar() && ir::is_fp8(e->scalar_kind());
}

// Triton's dtype "kind" for the scalar rule: bool < integral < floating.
int kind_rank(ScalarKind k) {
  if (k == ScalarKind::I1) return 0;
  return ir::is_float(k) ? 2 : 1;
}

// C's usual arithmetic conversions on two integer kinds (integer_promote_impl).
ScalarKind integer_promote(ScalarKind a, ScalarKind b) {
  int wa = ir::bit_width(a), wb = ir::bit_width(b);
  bool sa = ir::is_signed(a), sb = ir::is_signed(b);
  if (sa == sb) return wa > wb ? a : b;
  if (!sa) return wa >= wb ? a : b;
  return wb >= wa ? b : a;
}

// Triton's spellings of a type in its diagnostics (language/core.py): repr() is
// "triton.language.<codegen name>" for scalars and "pointer<fp32>" for pointers; str() of a
// scalar is its name (int32, fp32).
std::string triton_repr(const Type* t) {
  if (t->is_pointer()) return std::string("pointer<") + ir::scalar_name(t->pointee()->scalar_kind()) + ">";
  return std::string("triton.language.") + ir::scalar_long_name(t->scalar_kind());
}
std::string triton_repr(ScalarKind k) { return triton_repr(Type::scalar(k)); }
std::string triton_str(ScalarKind k) {
  return ir::is_integer(k) ? ir::scalar_long_name(k) : ir::scalar_name(k);
}

// Triton's IncompatibleTypeErrorImpl.
std::string invalid_operands(const Type* a, const Type* b) {
  return "invalid operands of type " + triton_repr(a) + " and " + triton_repr(b);
}

}  // namespace

ir::Value* Lowerer::emit(ir::OpKind kind, const ir::Type* type, std::vector<ir::Value*> operands,
                         const Loc& loc) {
  ir::Value* result = builder_.create_value(kind, type, operands, loc);
  if (!const_pointers_.empty() && type->element()->is_pointer()) {
    // Pointer arithmetic, splats and broadcasts of a pointer to constant data point to
    // constant data too.
    for (const ir::Value* operand : operands) {
      if (is_const_pointer(operand)) {
        mark_const_pointer(result);
        break;
      }
    }
  }
  return result;
}

ScalarKind Lowerer::literal_type(const ConstValue& value, const Loc& loc) {
  switch (value.kind) {
    case ConstValue::Kind::Bool: return ScalarKind::I1;
    case ConstValue::Kind::Int: {
      __int128 x = value.i;
      const __int128 two31 = static_cast<__int128>(1) << 31, two32 = static_cast<__int128>(1) << 32;
      const __int128 two63 = static_cast<__int128>(1) << 63, two64 = static_cast<__int128>(1) << 64;
      if (x >= -two31 && x < two31) return ScalarKind::I32;
      if (x >= two31 && x < two32) return ScalarKind::U32;
      if (x >= -two63 && x < two63) return ScalarKind::I64;
      if (x >= two63 && x < two64) return ScalarKind::U64;
      error_at(loc, "nonrepresentable integer " + int128_to_string(x));
    }
    case ConstValue::Kind::Float: {
      double a = std::fabs(value.f);
      const double min_f32 = std::ldexp(1.0, -126);
      const double max_f32 = (2 - std::ldexp(1.0, -23)) * std::ldexp(1.0, 127);
      if (std::isinf(a) || a == 0 || std::isnan(a) || (a >= min_f32 && a <= max_f32)) return ScalarKind::F32;
      return ScalarKind::F64;
    }
    default: break;
  }
  error_at(loc, "expected a number, got " + LValue::constant(value).describe());
}

ir::Value* Lowerer::constant(ScalarKind kind, const ConstValue& value, const Loc& loc) {
  const Type* type = Type::scalar(kind);
  if (ir::is_float(kind)) {
    double f = value.kind == ConstValue::Kind::Float ? value.f
               : value.kind == ConstValue::Kind::Bool ? (value.b ? 1.0 : 0.0)
                                                     : static_cast<double>(value.i);
    // Triton's scalar_constant makes a number equal to 0 the type's null value: a -0.0
    // literal (tl.full, x * -0.0, tl.where(c, -0.0, x)) is +0.0 there (differential seed 76382).
    if (f == 0) f = 0.0;
    return builder_.float_constant(type, f, loc);
  }
  __int128 i;
  if (value.kind == ConstValue::Kind::Float) {
    i = static_cast<__int128>(value.f);
  } else if (value.kind == ConstValue::Kind::Bool) {
    i = value.b ? 1 : 0;
  } else {
    i = value.i;
  }
  if (kind == ScalarKind::I1) i = i != 0;
  return builder_.int_constant(type, static_cast<int64_t>(i), loc);
}

ir::Value* Lowerer::to_tensor(const LValue& value, const Loc& loc) {
  if (value.is_tensor()) return value.value;
  if (value.is_const()) {
    switch (value.c.kind) {
      case ConstValue::Kind::Bool:
      case ConstValue::Kind::Int:
      case ConstValue::Kind::Float:
        return constant(literal_type(value.c, loc), value.c, loc);
      default: break;
    }
  }
  error_at(loc, "expected a tensor or a number, got " + value.describe());
}

ir::Value* Lowerer::cast(ir::Value* value, const ir::Type* element, const Loc& loc, bool bitcast) {
  const Type* src = element_of(value);
  if (src == element) return value;
  if (bitcast) {
    int src_bits = src->is_pointer() ? 64 : ir::bit_width(src->scalar_kind());
    int dst_bits = element->is_pointer() ? 64 : ir::bit_width(element->scalar_kind());
    if (src_bits != dst_bits) {
      error_at(loc, "cannot bitcast " + src->str() + " to " + element->str() +
                        ": they have different bit widths (" + std::to_string(src_bits) + " vs " +
                        std::to_string(dst_bits) + ")");
    }
  } else if (src->is_pointer() && element->is_scalar() && ir::is_float(element->scalar_kind())) {
    error_at(loc, "cannot cast a pointer to " + element->str());
  } else if (element->is_pointer() && src->is_scalar() && !ir::is_integer(src->scalar_kind())) {
    error_at(loc, "cannot cast " + src->str() + " to a pointer");
  }
  ir::Op* op = builder_.create(ir::OpKind::Cast, {value->type()->with_element(element)}, {value}, loc);
  if (bitcast) op->set_attr("bitcast", int64_t{1});
  return op->result();
}

ir::Value* Lowerer::cast_rounded(ir::Value* value, const ir::Type* element, const LValue* rounding,
                                  const Loc& loc, bool bitcast) {
  bool toward_zero = false;
  if (rounding != nullptr && !(rounding->is_const() && rounding->c.kind == ConstValue::Kind::None)) {
    if (!rounding->is_const() || rounding->c.kind != ConstValue::Kind::Str) {
      error_at(loc, "fp_downcast_rounding must be a string, got " + rounding->describe());
    }
    const std::string& mode = rounding->c.s;
    if (mode != "rtne" && mode != "rtz") {
      error_at(loc, "Invalid rounding mode: " + mode +
                        ". Supported rounding modes are 'rtne' and 'rtz'.");
    }
    toward_zero = mode == "rtz";
  }
  const bool rounding_given = rounding != nullptr && !(rounding->is_const() && rounding->c.kind == ConstValue::Kind::None);
  const Type* src = element_of(value);
  bool float_downcast = !bitcast && src->is_scalar() && element->is_scalar() &&
                        ir::is_float(src->scalar_kind()) && ir::is_float(element->scalar_kind()) &&
                        ir::bit_width(element->scalar_kind()) < ir::bit_width(src->scalar_kind());
  // Triton's cast: a rounding mode only for a truncating float conversion (a bitcast, or a
  // cast to the same type, ignores it).
  if (rounding_given && !bitcast && !float_downcast && src != element) {
    error_at(loc, "fp_downcast_rounding should be set only for truncating fp conversions. Source scalar type is " +
                      (src->is_scalar() ? ir::triton_dtype_name(src->scalar_kind()) : src->str()) +
                      " and destination type is " +
                      (element->is_scalar() ? ir::triton_dtype_name(element->scalar_kind()) : element->str()));
  }
  ir::Value* result = cast(value, element, loc, bitcast);
  if (toward_zero && float_downcast && result->def() != nullptr) {
    result->def()->set_attr("rounding", int64_t{1});
  }
  return result;
}

ir::Value* Lowerer::fp8_in_fp32(ir::Value* value, const Loc& loc) {
  return is_fp8_value(value) ? cast(value, ScalarKind::F32, loc) : value;
}

ir::Value* Lowerer::broadcast_to(ir::Value* value, const std::vector<int64_t>& shape, const Loc& loc) {
  const Type* type = value->type();
  if (type->shape() == shape) return value;
  check_block_shape(shape, loc);
  if (!type->is_block()) {
    return emit(ir::OpKind::Splat, Type::block(type, shape), {value}, loc);
  }
  std::vector<int64_t> src = type->shape();
  if (src.size() > shape.size()) {
    error_at(loc, "Cannot broadcast, rank mismatch: " + shape_text(src) + ", " + shape_text(shape));
  }
  while (src.size() < shape.size()) {
    src.insert(src.begin(), 1);
    ir::Op* op = builder_.create(ir::OpKind::ExpandDims, {Type::block(type->element(), src)}, {value}, loc);
    op->set_attr("axis", int64_t{0});
    value = op->result();
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (src[i] != shape[i] && src[i] != 1) {
      error_at(loc, "Cannot broadcast, the expanded size of the tensor (" + std::to_string(shape[i]) +
                        ") must match the existing size (" + std::to_string(src[i]) +
                        ") at non-singleton dimension " + std::to_string(i) + ": " +
                        shape_text(type->shape()) + ", " + shape_text(shape));
    }
  }
  if (src == shape) return value;
  return emit(ir::OpKind::Broadcast, Type::block(type->element(), shape), {value}, loc);
}

std::pair<ir::Value*, ir::Value*> Lowerer::broadcast(ir::Value* lhs, ir::Value* rhs, const Loc& loc) {
  const Type* lt = lhs->type();
  const Type* rt = rhs->type();
  if (!lt->is_block() && !rt->is_block()) return {lhs, rhs};
  if (!lt->is_block()) return {broadcast_to(lhs, rt->shape(), loc), rhs};
  if (!rt->is_block()) return {lhs, broadcast_to(rhs, lt->shape(), loc)};
  std::vector<int64_t> a = lt->shape(), b = rt->shape();
  while (a.size() < b.size()) a.insert(a.begin(), 1);
  while (b.size() < a.size()) b.insert(b.begin(), 1);
  std::vector<int64_t> shape(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      // Triton's wording (broadcast_impl_value), then tritium's detail.
      error_at(loc, "Cannot make_shape_compatible: incompatible dimensions at index " + std::to_string(i) +
                        ": " + std::to_string(a[i]) + " and " + std::to_string(b[i]) + " (shapes " +
                        lt->str() + " and " + rt->str() + ")");
    }
    shape[i] = a[i] == 1 ? b[i] : a[i];
  }
  return {broadcast_to(lhs, shape, loc), broadcast_to(rhs, shape, loc)};
}

std::pair<ir::Value*, ir::Value*> Lowerer::binary_operands(const LValue& lhs, const LValue& rhs,
                                                           bool allow_lhs_ptr, bool allow_rhs_ptr,
                                                           bool arithmetic_check, bool div_or_mod,
                                                           const Loc& loc) {
  bool lhs_scalar = lhs.is_const();
  bool rhs_scalar = rhs.is_const();
  // Literals stay unmaterialized until their type is decided, so no dead constants remain.
  Value* a = lhs_scalar ? nullptr : to_tensor(lhs, loc);
  Value* b = rhs_scalar ? nullptr : to_tensor(rhs, loc);
  const Type* at = lhs_scalar ? Type::scalar(literal_type(lhs.c, loc)) : element_of(a);
  const Type* bt = rhs_scalar ? Type::scalar(literal_type(rhs.c, loc)) : element_of(b);
  // Triton's check_ptr_type_impl, on (lhs, rhs) and then on (rhs, lhs).
  if (at->is_pointer() && !allow_lhs_ptr) error_at(loc, invalid_operands(at, bt));
  if (bt->is_pointer() && !allow_rhs_ptr) error_at(loc, invalid_operands(bt, at));
  if (at->is_pointer() && bt->is_pointer() && at != bt) error_at(loc, invalid_operands(at, bt));
  if (at->is_pointer() != bt->is_pointer()) {
    const Type* pointer = at->is_pointer() ? at : bt;
    const Type* other = at->is_pointer() ? bt : at;
    if (!ir::is_integer(other->scalar_kind())) error_at(loc, invalid_operands(pointer, other));
  }
  if (arithmetic_check && !at->is_pointer() && !bt->is_pointer()) {
    ScalarKind ak = at->scalar_kind(), bk = bt->scalar_kind();
    ScalarKind result;
    bool decided = false;
    // A Python literal of a lower or equal kind than the tensor does not take part.
    if (lhs_scalar != rhs_scalar) {
      ScalarKind scalar_k = lhs_scalar ? ak : bk, tensor_k = lhs_scalar ? bk : ak;
      if (kind_rank(scalar_k) <= kind_rank(tensor_k)) {
        result = div_or_mod && is_fp16_like(tensor_k) ? ScalarKind::F32 : tensor_k;
        decided = true;
      }
    }
    if (!decided) {
      if (ak == ScalarKind::F64 || bk == ScalarKind::F64) {
        result = ScalarKind::F64;
      } else if (ak == ScalarKind::F32 || bk == ScalarKind::F32) {
        result = ScalarKind::F32;
      } else if (ak == ScalarKind::F16 || bk == ScalarKind::F16) {
        result = div_or_mod ? ScalarKind::F32 : ScalarKind::F16;
      } else if (ak == ScalarKind::BF16 && bk == ScalarKind::BF16) {
        result = div_or_mod ? ScalarKind::F32 : ScalarKind::BF16;
      } else if (ak == ScalarKind::BF16 || bk == ScalarKind::BF16) {
        result = ScalarKind::F32;
      } else if (ir::is_fp8(ak) && ir::is_fp8(bk)) {
        result = ak == bk ? ak : ScalarKind::F16;  // two different fp8 types meet in fp16
      } else if (ir::is_fp8(ak) || ir::is_fp8(bk)) {
        result = ScalarKind::F32;  // fp8 with an integer tensor
      } else {
        if (div_or_mod && ir::is_signed(ak) != ir::is_signed(bk)) {
          error_at(loc, "Cannot use /, #, or % with " + triton_repr(ak) + " and " + triton_repr(bk) +
                            " because they have different signedness;this is unlikely to result in a useful "
                            "answer. Cast them to the same signedness.");
        }
        result = integer_promote(ak, bk);
      }
    }
    // A negative literal or one out of range of the result type is an error, not a wrap.
    for (int side = 0; side < 2; ++side) {
      const LValue& v = side == 0 ? lhs : rhs;
      if (!v.is_const() || v.c.kind != ConstValue::Kind::Int || !ir::is_integer(result)) continue;
      __int128 x = v.c.i;
      if (x < 0 && !ir::is_signed(result)) {
        error_at(loc, "Cannot perform a binary operation between an unsigned tensor and a negative scalar. "
                          "Perform a explicit cast on one of them.");
      }
      int bits = ir::bit_width(result);
      __int128 lo = ir::is_signed(result) ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
      __int128 hi = ir::is_signed(result) ? (static_cast<__int128>(1) << (bits - 1)) - 1
                                          : (static_cast<__int128>(1) << bits) - 1;
      if (x < lo || x > hi) {
        error_at(loc, "Scalar " + int128_to_string(x) + " is out of range for type " + triton_str(result));
      }
    }
    a = lhs_scalar ? constant(result, lhs.c, loc) : cast(a, result, loc);
    b = rhs_scalar ? constant(result, rhs.c, loc) : cast(b, result, loc);
  }
  if (!a) a = to_tensor(lhs, loc);
  if (!b) b = to_tensor(rhs, loc);
  return broadcast(a, b, loc);
}

ir::Value* Lowerer::add(const LValue& lhs, const LValue& rhs, const Loc& loc) {
  auto [a, b] = binary_operands(lhs, rhs, true, true, true, false, loc);
  if (element_of(a)->is_pointer() && element_of(b)->is_pointer()) error_at(loc, "cannot add pointers together");
  if (element_of(b)->is_pointer()) std::swap(a, b);
  if (element_of(a)->is_pointer()) return emit(ir::OpKind::AddPtr, a->type(), {a, b}, loc);
  return fp8_op(ir::OpKind::Add, a, b, loc);
}

ir::Value* Lowerer::sub(const LValue& lhs, const LValue& rhs, const Loc& loc) {
  auto [a, b] = binary_operands(lhs, rhs, true, false, true, false, loc);
  if (element_of(a)->is_pointer()) {
    Value* zero = broadcast_to(builder_.int_constant(element_of(b), 0, loc), b->type()->shape(), loc);
    Value* negated = emit(ir::OpKind::Sub, b->type(), {zero, b}, loc);
    return emit(ir::OpKind::AddPtr, a->type(), {a, negated}, loc);
  }
  return fp8_op(ir::OpKind::Sub, a, b, loc);
}

ir::Value* Lowerer::fp8_op(ir::OpKind kind, ir::Value* a, ir::Value* b, const Loc& loc) {
  if (!is_fp8_value(a)) return emit(kind, a->type(), {a, b}, loc);
  // Triton keeps fp8 op fp8 in fp8; tritium computes it in fp32 and rounds once.
  const Type* fp8 = element_of(a);
  ir::Value* x = fp8_in_fp32(a, loc);
  ir::Value* y = fp8_in_fp32(b, loc);
  return cast(emit(kind, x->type(), {x, y}, loc), fp8, loc);
}

ir::Value* Lowerer::arith(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  auto [a, b] = binary_operands(lhs, rhs, false, false, true, false, loc);
  return fp8_op(kind, a, b, loc);
}

ir::Value* Lowerer::true_div(const LValue& lhs, const LValue& rhs, const Loc& loc) {
  auto [a, b] = binary_operands(lhs, rhs, false, false, true, true, loc);
  ScalarKind ak = element_of(a)->scalar_kind(), bk = element_of(b)->scalar_kind();
  if (ir::is_float(ak) && !ir::is_float(bk)) {
    b = cast(b, ak, loc);
  } else if (!ir::is_float(ak) && ir::is_float(bk)) {
    a = cast(a, bk, loc);
  } else if (!ir::is_float(ak) && !ir::is_float(bk)) {
    a = cast(a, ScalarKind::F32, loc);
    b = cast(b, ScalarKind::F32, loc);
  } else if (mantissa_bits(ak) > mantissa_bits(bk)) {
    b = cast(b, ak, loc);
  } else {
    a = cast(a, bk, loc);
  }
  return fp8_op(ir::OpKind::Div, a, b, loc);
}

ir::Value* Lowerer::int_div_rem(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  auto [a, b] = binary_operands(lhs, rhs, false, false, true, true, loc);
  ScalarKind k = element_of(a)->scalar_kind();
  if (kind == ir::OpKind::Div && ir::is_float(k)) {
    error_at(loc, "unexpected type " + triton_str(k));
  }
  if (ir::is_integer(k) && ir::is_signed(k) && ir::bit_width(k) < 32) {
    // int8/int16 divide as C does, in int32 (the promoted type), then truncate: the
    // minimum / -1 is then defined (it wraps; its remainder is 0) rather than an overflow
    // of the narrow type, and the GPU computes in 32-bit registers anyway.
    Value* x = cast(a, ScalarKind::I32, loc);
    Value* y = cast(b, ScalarKind::I32, loc);
    return cast(emit(kind, x->type(), {x, y}, loc), k, loc);
  }
  return emit(kind, a->type(), {a, b}, loc);
}

ir::Value* Lowerer::bitwise(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  // Triton's `>>` picks arithmetic or logical on the dtype of the tensor whose operator runs
  // (the left operand, or the right one when the left is a number), before promotion.
  const LValue& self = lhs.is_const() && !rhs.is_const() ? rhs : lhs;
  ScalarKind self_kind = self.is_const() ? literal_type(self.c, loc) : element_of(to_tensor(self, loc))->scalar_kind();
  // Triton's bitwise ops check their operands as arithmetic does (bitwise_op_type_checking_impl
  // calls binary_op_type_checking_impl): a number does not take part in the promotion and must
  // fit the result type, a negative one cannot meet an unsigned tensor.
  auto [a, b] = binary_operands(lhs, rhs, false, false, true, false, loc);
  const Type* at = element_of(a);
  const Type* bt = element_of(b);
  if (!ir::is_integer(at->scalar_kind()) || !ir::is_integer(bt->scalar_kind())) {
    error_at(loc, invalid_operands(at, bt));
  }
  ScalarKind result = integer_promote(at->scalar_kind(), bt->scalar_kind());
  a = cast(a, result, loc);
  b = cast(b, result, loc);
  if (kind == ir::OpKind::Shr && ir::is_signed(self_kind) && !ir::is_signed(result) && result != ScalarKind::I1) {
    // A signed operand shifts arithmetically even when the result type is unsigned.
    ScalarKind signed_kind = ir::bit_width(result) == 64 ? ScalarKind::I64
                           : ir::bit_width(result) == 32 ? ScalarKind::I32
                           : ir::bit_width(result) == 16 ? ScalarKind::I16 : ScalarKind::I8;
    Value* x = cast(a, signed_kind, loc);
    Value* y = cast(b, signed_kind, loc);
    return cast(emit(kind, x->type(), {x, y}, loc), result, loc);
  }
  return emit(kind, a->type(), {a, b}, loc);
}

ir::Value* Lowerer::cmp(ir::CmpPredicate predicate, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  // Triton's comparison operators turn a number into a tensor first (to_tensor: int32, uint32,
  // int64 or uint64; fp32 or fp64), so it takes part in the promotion like a tensor and is never
  // "out of range": `u8 < -1` compares in int32, `fp16 < 0.1` in fp32.
  auto [a, b] = binary_operands(as_tensor(lhs, loc), as_tensor(rhs, loc), true, true, true, false, loc);
  if (element_of(a) != element_of(b)) {
    error_at(loc, "cannot compare " + element_of(a)->str() + " with " + element_of(b)->str());
  }
  a = fp8_in_fp32(a, loc);
  b = fp8_in_fp32(b, loc);
  ir::Op* op = builder_.create(ir::OpKind::Cmp, {a->type()->with_element(Type::scalar(ScalarKind::I1))}, {a, b}, loc);
  ir::set_enum_attr(*op, predicate);
  return op->result();
}

ir::Value* Lowerer::min_max(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc, bool propagate_nan) {
  // Triton's minimum/maximum (and clamp) turn numbers into tensors first, as comparisons do,
  // and compute bf16 in fp32 (its _promote_bfloat16_to_float32): the result is fp32.
  auto operand = [&](const LValue& v) {
    Value* t = to_tensor(v, loc);
    if (element_of(t)->is_scalar() && element_of(t)->scalar_kind() == ScalarKind::BF16) t = cast(t, ScalarKind::F32, loc);
    return LValue::tensor(t);
  };
  LValue a = operand(lhs), b = operand(rhs);
  Value* result = arith(kind, a, b, loc);
  if (!propagate_nan || !result->type()->is_float()) return result;
  // x != x only for a NaN, and a sum with a NaN is NaN.
  LValue nan = LValue::tensor(arith(ir::OpKind::Or, LValue::tensor(cmp(ir::CmpPredicate::Ne, a, a, loc)),
                                    LValue::tensor(cmp(ir::CmpPredicate::Ne, b, b, loc)), loc));
  return where(nan, LValue::tensor(arith(ir::OpKind::Add, a, b, loc)), LValue::tensor(result), loc);
}

LValue Lowerer::as_tensor(const LValue& value, const Loc& loc) {
  return value.is_const() ? LValue::tensor(to_tensor(value, loc)) : value;
}

ir::Value* Lowerer::where(const LValue& cond, const LValue& lhs, const LValue& rhs, const Loc& loc,
                          ir::OpKind kind) {
  Value* c = to_tensor(cond, loc);
  if (!element_of(c)->is_scalar() || element_of(c)->scalar_kind() != ScalarKind::I1) {
    c = cast(c, ScalarKind::I1, loc);
  }
  auto [a, b] = binary_operands(lhs, rhs, true, true, true, false, loc);
  if (element_of(a) != element_of(b)) {
    error_at(loc, "where: the two values have different types " + element_of(a)->str() + " and " +
                      element_of(b)->str());
  }
  // Broadcast all three to one shape.
  auto [c2, a2] = broadcast(c, a, loc);
  auto [c3, b2] = broadcast(c2, b, loc);
  auto [a3, b3] = broadcast(a2, b2, loc);
  c3 = broadcast_to(c3, a3->type()->shape(), loc);
  return emit(kind, a3->type(), {c3, a3, b3}, loc);
}

ir::Value* Lowerer::logical(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  Value* a = to_tensor(lhs, loc);
  Value* b = to_tensor(rhs, loc);
  for (Value* v : {a, b}) {
    if (!v->type()->is_bool()) {
      error_at(loc, std::string("`and`/`or`/`not` on tensors need boolean (int1) operands, got ") +
                        v->type()->str() + "; compare first, e.g. `(x != 0)`");
    }
  }
  auto [x, y] = broadcast(a, b, loc);
  return emit(kind, x->type(), {x, y}, loc);
}

ir::Value* Lowerer::to_bool_scalar(const LValue& cond, const Loc& loc, const char* what) {
  Value* c = to_tensor(cond, loc);
  if (c->type()->is_block()) {
    error_at(loc, std::string(what) + " condition must be a scalar, got a block " + c->type()->str());
  }
  if (c->type()->is_bool()) return c;
  if (c->type()->is_pointer()) {
    // Triton's truth value of a pointer: its address is not null (`if bias_ptr:` on an
    // optional pointer argument that was given).
    c = cast(c, ir::Type::scalar(ir::ScalarKind::I64), loc);
  }
  LValue zero = LValue::constant(ConstValue::integer(0));
  if (c->type()->is_float()) zero = LValue::constant(ConstValue::floating(0));
  return cmp(ir::CmpPredicate::Ne, LValue::tensor(c), zero, loc);
}

}  // namespace tritium::lower

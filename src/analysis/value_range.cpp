// Value ranges by interval arithmetic. A bound is only claimed when the interval operation
// cannot wrap at the type's width (checked in 128 bits against the type's limits); loop-
// carried values get no bounds (no widening needed, and no claim that could be wrong).
#include "analysis/value_range.h"

#include <algorithm>

#include "ir/attrs.h"
#include "ir/int_arith.h"

namespace tritium::analysis {

using ir::OpKind;

std::string ValueRange::str() const {
  auto bound = [](const std::optional<int64_t>& b) { return b ? std::to_string(*b) : std::string("?"); };
  return "[" + bound(lower) + ", " + bound(upper) + "]";
}

namespace {

struct Limits {
  __int128 min, max;
};

// The values of an integer type in the signed 64-bit view the IR keeps them in (wrap_int):
// u64 values above 2^63 - 1 look negative there, so u64 gets no bounds at all.
std::optional<Limits> limits_of(const ir::Type* type) {
  const ir::Type* e = type->element();
  if (!e->is_scalar() || !ir::is_integer(e->scalar_kind())) return std::nullopt;
  ir::ScalarKind k = e->scalar_kind();
  int bits = ir::bit_width(k);
  if (k == ir::ScalarKind::U64) return std::nullopt;
  if (ir::is_signed(k)) return Limits{-(static_cast<__int128>(1) << (bits - 1)), (static_cast<__int128>(1) << (bits - 1)) - 1};
  return Limits{0, (static_cast<__int128>(1) << bits) - 1};
}

// [lo, hi] when both fit the type, else unknown.
ValueRange make(const ir::Type* type, __int128 lo, __int128 hi) {
  auto limits = limits_of(type);
  if (!limits || lo < limits->min || hi > limits->max || lo > hi) return {};
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

ValueRange full(const ir::Type* type) {
  auto limits = limits_of(type);
  if (!limits) return {};
  return {static_cast<int64_t>(limits->min), static_cast<int64_t>(limits->max)};
}

bool both(const ValueRange& r) { return r.lower && r.upper; }

}  // namespace

ValueRangeAnalysis::ValueRangeAnalysis(const ir::Function& function) {
  for (const ir::Param& param : function.params()) {
    if (param.arg) ranges_[param.arg] = full(param.arg->type());
  }
  visit_region(function.body());
}

ValueRange ValueRangeAnalysis::get(const ir::Value* value) const {
  auto it = ranges_.find(value);
  return it == ranges_.end() ? full(value->type()) : it->second;
}

void ValueRangeAnalysis::visit_region(const ir::Region& region) {
  for (const auto& op : region.ops()) visit_op(*op);
}

void ValueRangeAnalysis::visit_op(const ir::Op& op) {
  for (const auto& region : op.regions()) {
    for (const auto& arg : region->args()) ranges_[arg.get()] = full(arg->type());
    visit_region(*region);
  }
  if (op.kind() == OpKind::If) {
    // A result is one branch's yield or the other's: the hull of both.
    const ir::Op* a = op.region(0)->terminator();
    const ir::Op* b = op.region(1)->terminator();
    for (int i = 0; i < op.num_results(); ++i) {
      ValueRange x = get(a->operand(i)), y = get(b->operand(i));
      if (both(x) && both(y)) {
        ranges_[op.result(i)] = {std::min(*x.lower, *y.lower), std::max(*x.upper, *y.upper)};
      } else {
        ranges_[op.result(i)] = full(op.result(i)->type());
      }
    }
    return;
  }
  if (op.num_results() != 1) {
    for (const auto& result : op.results()) ranges_[result.get()] = full(result->type());
    return;
  }
  const ir::Value* result = op.result();
  const ir::Type* type = result->type();
  ValueRange r = full(type);
  auto operand = [&](int i) { return get(op.operand(i)); };
  switch (op.kind()) {
    case OpKind::Constant: {
      const ir::AttrValue* value = op.find_attr("value");
      if (value && std::holds_alternative<int64_t>(*value) && limits_of(type)) {
        int64_t v = std::get<int64_t>(*value);
        r = {v, v};
      }
      break;
    }
    case OpKind::MakeRange: r = make(type, op.int_attr("start"), op.int_attr("end") - 1); break;
    // Grid dimensions are at most 2^31 - 1 (x) and 65535 (y, z).
    case OpKind::ProgramId: r = make(type, 0, op.int_attr("axis") == 0 ? INT32_MAX - 1 : 65534); break;
    case OpKind::NumPrograms: r = make(type, 1, op.int_attr("axis") == 0 ? INT32_MAX : 65535); break;
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::ConvertLayout:
    case OpKind::DescriptorTile:
    case OpKind::Reshape: r = operand(0); break;
    case OpKind::Cast: {
      ValueRange s = operand(0);
      // The number survives when it fits the new type; otherwise claim only the type's range.
      if (both(s) && limits_of(op.operand(0)->type())) r = make(type, *s.lower, *s.upper);
      if (!r.known()) r = full(type);
      break;
    }
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Minimum:
    case OpKind::Maximum: {
      ValueRange a = operand(0), b = operand(1);
      if (!both(a) || !both(b)) break;
      __int128 al = *a.lower, ah = *a.upper, bl = *b.lower, bh = *b.upper;
      if (op.kind() == OpKind::Add) r = make(type, al + bl, ah + bh);
      if (op.kind() == OpKind::Sub) r = make(type, al - bh, ah - bl);
      if (op.kind() == OpKind::Mul) {
        __int128 p[] = {al * bl, al * bh, ah * bl, ah * bh};
        r = make(type, *std::min_element(p, p + 4), *std::max_element(p, p + 4));
      }
      if (op.kind() == OpKind::Minimum) r = make(type, std::min(al, bl), std::min(ah, bh));
      if (op.kind() == OpKind::Maximum) r = make(type, std::max(al, bl), std::max(ah, bh));
      if (!r.known()) r = full(type);
      break;
    }
    case OpKind::Div:
    case OpKind::Rem: {
      ValueRange a = operand(0), b = operand(1);
      if (!both(a) || !both(b)) break;
      const bool signed_type = ir::is_signed(type->element()->scalar_kind());
      if (*a.lower >= 0 && *b.lower > 0) {
        // A positive divisor of a non-negative dividend, where C and floor agree.
        if (op.kind() == OpKind::Div) r = make(type, *a.lower / *b.upper, *a.upper / *b.lower);
        else r = make(type, 0, std::min<__int128>(*a.upper, static_cast<__int128>(*b.upper) - 1));
      } else if (op.kind() == OpKind::Div && signed_type && *b.lower == *b.upper && *b.lower > 0) {
        // A positive constant divisor: truncation toward zero is monotonic in the dividend.
        r = make(type, *a.lower / *b.lower, *a.upper / *b.lower);
      } else if (op.kind() == OpKind::Rem && signed_type && *a.lower >= 0) {
        // C's remainder takes the dividend's sign and is smaller than the divisor in
        // magnitude (a zero divisor is undefined): [0, min(a, max |b| - 1)].
        const __int128 m = std::max<__int128>(-static_cast<__int128>(*b.lower), *b.upper);
        if (m > 0) r = make(type, 0, std::min<__int128>(*a.upper, m - 1));
      }
      if (!r.known()) r = full(type);
      break;
    }
    case OpKind::And:
    case OpKind::Or: {
      ValueRange a = operand(0), b = operand(1);
      if (type->is_bool()) {
        // Masks: both true (one true, for or) makes all true; the dual for all false.
        bool is_and = op.kind() == OpKind::And;
        bool a1 = a.lower && *a.lower == 1, b1 = b.lower && *b.lower == 1;
        bool a0 = a.upper && *a.upper == 0, b0 = b.upper && *b.upper == 0;
        if (is_and ? (a1 && b1) : (a1 || b1)) r = {1, 1};
        else if (is_and ? (a0 || b0) : (a0 && b0)) r = {0, 0};
        break;
      }
      if (op.kind() == OpKind::Or) break;
      // x & m with m >= 0 lies in [0, m] whatever x is.
      if (both(b) && *b.lower >= 0) r = make(type, 0, *b.upper);
      else if (both(a) && *a.lower >= 0) r = make(type, 0, *a.upper);
      if (!r.known()) r = full(type);
      break;
    }
    case OpKind::Not: {
      ValueRange a = operand(0);
      if (type->is_bool() && both(a)) r = {1 - *a.upper, 1 - *a.lower};
      break;
    }
    case OpKind::Cmp: {
      int decided = decide(op);
      r = decided < 0 ? make(type, 0, 1) : make(type, decided, decided);
      break;
    }
    case OpKind::Select: {
      ValueRange a = operand(1), b = operand(2);
      if (both(a) && both(b)) r = {std::min(*a.lower, *b.lower), std::max(*a.upper, *b.upper)};
      break;
    }
    default: break;
  }
  ranges_[result] = r;
}

int ValueRangeAnalysis::decide(const ir::Op& cmp) const {
  ValueRange a = get(cmp.operand(0)), b = get(cmp.operand(1));
  if (!both(a) || !both(b)) return -1;
  const ir::Type* element = cmp.operand(0)->type()->element();
  // Unsigned values compare as unsigned; the signed view agrees while both are >= 0.
  if (!ir::is_signed(element->scalar_kind()) && (*a.lower < 0 || *b.lower < 0)) return -1;
  int64_t al = *a.lower, ah = *a.upper, bl = *b.lower, bh = *b.upper;
  switch (ir::enum_attr<ir::CmpPredicate>(cmp)) {
    case ir::CmpPredicate::Lt: return ah < bl ? 1 : al >= bh ? 0 : -1;
    case ir::CmpPredicate::Le: return ah <= bl ? 1 : al > bh ? 0 : -1;
    case ir::CmpPredicate::Gt: return al > bh ? 1 : ah <= bl ? 0 : -1;
    case ir::CmpPredicate::Ge: return al >= bh ? 1 : ah < bl ? 0 : -1;
    case ir::CmpPredicate::Eq: return (al == ah && bl == bh && al == bl) ? 1 : (ah < bl || bh < al) ? 0 : -1;
    case ir::CmpPredicate::Ne: return (al == ah && bl == bh && al == bl) ? 0 : (ah < bl || bh < al) ? 1 : -1;
  }
  return -1;
}

bool ValueRangeAnalysis::always_true(const ir::Value* mask) const {
  ValueRange r = get(mask);
  return r.lower && *r.lower == 1;
}

bool ValueRangeAnalysis::always_false(const ir::Value* mask) const {
  ValueRange r = get(mask);
  return r.upper && *r.upper == 0;
}

}  // namespace tritium::analysis

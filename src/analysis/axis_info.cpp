// Axis info, one transfer rule per op family. The invariant every rule keeps, per dimension d:
//   contiguity c: each aligned group of c elements (positions [k*c, (k+1)*c)) increases by 1
//                 (modulo 2^width);
//   constancy  c: each aligned group of c elements holds one value;
//   divisibility: the first element of each contiguity group is a multiple of it (bytes for
//                 pointers); with contiguity 1 that is every element.
// All three are powers of two. The soundness oracle (tests) checks these against the
// interpreter's values. Rules follow triton-spec.md §4.3 with the later fixes of §4.5 and
// §9.11, and generalize "a contiguous operand counts as divisible by 1" to `effective`.
#include "analysis/axis_info.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>

#include "ir/attrs.h"
#include "ir/int_arith.h"
#include "ir/printer.h"

namespace tritium::analysis {

using ir::OpKind;
using ir::Type;
using ir::Value;

int64_t highest_power_of_two_divisor(int64_t value) {
  if (value == 0) return kMaxDivisor;
  uint64_t v = static_cast<uint64_t>(value);
  uint64_t p = v & (~v + 1);
  return p >= static_cast<uint64_t>(kMaxDivisor) ? kMaxDivisor : static_cast<int64_t>(p);
}

bool AxisInfo::operator==(const AxisInfo& other) const {
  return contiguity == other.contiguity && divisibility == other.divisibility && constancy == other.constancy &&
         constant == other.constant && non_negative == other.non_negative;
}

std::string AxisInfo::str() const {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) s += ", ";
      s += v[i] == kMaxDivisor ? std::string("max") : std::to_string(v[i]);
    }
    return s + "]";
  };
  std::string s = "contiguity = " + list(contiguity) + ", divisibility = " + list(divisibility) +
                  ", constancy = " + list(constancy);
  if (constant) s += ", constant = " + std::to_string(*constant);
  if (non_negative) s += ", non_negative";
  return s;
}

namespace {

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

int64_t saturating_mul(int64_t a, int64_t b) {
  if (a >= kMaxDivisor / b) return kMaxDivisor;
  return a * b;
}

std::vector<int64_t> shape_of(const Type* type) {
  return type->is_block() ? type->shape() : std::vector<int64_t>{1};
}

// Bytes per element for a pointer value (divisibility is in bytes), 1 for integers.
int64_t unit_of(const Type* type) {
  const Type* element = type->element();
  if (!element->is_pointer()) return 1;
  return std::max(1, ir::bit_width(element->pointee()->scalar_kind()) / 8);
}

bool is_unsigned_int(const Type* type) {
  const Type* e = type->element();
  return e->is_scalar() && ir::is_integer(e->scalar_kind()) && !ir::is_signed(e->scalar_kind());
}

// No facts: every element its own group; unsigned values are never negative.
AxisInfo bottom(const Type* type) {
  size_t rank = shape_of(type).size();
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  info.non_negative = is_unsigned_int(type);
  return info;
}

// The divisibility of `x` at the first element of each aligned group of `c` elements of a
// result: x's own group starts when its contiguity divides c; otherwise the position falls
// inside an x group at an offset that is a multiple of c (times the element size).
int64_t effective(const AxisInfo& x, int d, int64_t c, int64_t unit) {
  if (x.contiguity[d] <= c) return x.divisibility[d];
  return std::min(x.divisibility[d], saturating_mul(c, unit));
}

AxisInfo constant_info(const Type* type, int64_t value) {
  AxisInfo info = bottom(type);
  std::vector<int64_t> shape = shape_of(type);
  for (size_t d = 0; d < shape.size(); ++d) {
    info.divisibility[d] = highest_power_of_two_divisor(value);
    info.constancy[d] = shape[d];
  }
  info.constant = value;
  info.non_negative = is_unsigned_int(type) || value >= 0;
  return info;
}

// The facts that hold for both `a` and `b` (a value that is one or the other).
AxisInfo join(const AxisInfo& a, const AxisInfo& b, int64_t unit) {
  AxisInfo r = a;
  for (int d = 0; d < a.rank(); ++d) {
    r.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
    // A group start of the joined value is a group start of a value with at least that
    // contiguity: take each side's divisibility at the joined group size.
    r.divisibility[d] = gcd(effective(a, d, r.contiguity[d], unit), effective(b, d, r.contiguity[d], unit));
  }
  if (a.constant != b.constant) r.constant.reset();
  r.non_negative = a.non_negative && b.non_negative;
  return r;
}

void cap_to_shape(AxisInfo& info, const std::vector<int64_t>& shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    info.contiguity[d] = std::min(info.contiguity[d], shape[d]);
    info.constancy[d] = std::min(info.constancy[d], shape[d]);
  }
}

// The values tl.assume promises non-negative: an `assume` at the top of the body (it runs on
// every path, and a broken promise is undefined behaviour) of a signed integer compare
// `x >= c` or `x > c - 1` with a constant c >= 0, either way round (`c <= x`).
void add_promised_non_negative(const ir::Function& function, std::unordered_set<const Value*>& out) {
  using ir::CmpPredicate;
  auto constant = [](const Value* v) -> std::optional<int64_t> {
    const ir::AttrValue* a = ir::constant_value(v);
    if (a == nullptr || !std::holds_alternative<int64_t>(*a)) return std::nullopt;
    return std::get<int64_t>(*a);
  };
  for (const auto& op : function.body().ops()) {
    if (op->kind() != OpKind::Assume) continue;
    const ir::Op* cmp = op->operand(0)->def();
    if (cmp == nullptr || cmp->kind() != OpKind::Cmp) continue;
    const Value* lhs = cmp->operand(0);
    const Value* rhs = cmp->operand(1);
    const Type* type = lhs->type();
    if (type->is_block() || !type->is_scalar()) continue;
    const ir::ScalarKind k = type->scalar_kind();
    if (k != ir::ScalarKind::I8 && k != ir::ScalarKind::I16 && k != ir::ScalarKind::I32 && k != ir::ScalarKind::I64) {
      continue;  // unsigned compares say nothing of the sign bit
    }
    CmpPredicate p = ir::enum_attr<CmpPredicate>(*cmp);
    if (constant(lhs) && !constant(rhs)) {  // c <= x is x >= c, c < x is x > c
      if (p != CmpPredicate::Le && p != CmpPredicate::Lt) continue;
      std::swap(lhs, rhs);
      p = p == CmpPredicate::Le ? CmpPredicate::Ge : CmpPredicate::Gt;
    }
    std::optional<int64_t> c = constant(rhs);
    if (!c || constant(lhs)) continue;
    if ((p == CmpPredicate::Ge && *c >= 0) || (p == CmpPredicate::Gt && *c >= -1)) out.insert(lhs);
  }
}

}  // namespace

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function& function) : AxisInfoAnalysis(function, {}) {}

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function& function,
                                   std::unordered_set<const ir::Value*> assumed_non_negative)
    : function_(function), assumed_non_negative_(std::move(assumed_non_negative)) {
  add_promised_non_negative(function, assumed_non_negative_);
  for (const ir::Param& param : function.params()) {
    if (!param.arg) continue;
    AxisInfo info = bottom(param.arg->type());
    if (param.arg->type()->is_int() || param.arg->type()->is_ptr()) {
      info.divisibility[0] = std::max<int64_t>(1, param.facts.divisibility);
    }
    set(param.arg, info);
  }
  visit_region(function.body());
}

const AxisInfo& AxisInfoAnalysis::get(const Value* value) const {
  auto it = info_.find(value);
  if (it != info_.end()) return it->second;
  // A value the analysis never reached (none today) gets no facts, kept per analysis.
  return fallback_.emplace(value, bottom(value->type())).first->second;
}

void AxisInfoAnalysis::set(const Value* value, AxisInfo info) {
  cap_to_shape(info, shape_of(value->type()));
  if (assumed_non_negative_.count(value) != 0) info.non_negative = true;
  info_[value] = std::move(info);
}

bool AxisInfoAnalysis::join_into(const Value* value, const AxisInfo& info) {
  auto it = info_.find(value);
  if (it == info_.end()) {
    set(value, info);
    return true;
  }
  AxisInfo joined = join(it->second, info, unit_of(value->type()));
  if (joined == it->second) return false;
  set(value, std::move(joined));
  return true;
}

int AxisInfoAnalysis::vector_width(const Value* pointer) const {
  const Type* type = pointer->type();
  if (!type->is_block() || !type->is_ptr()) return 1;
  const AxisInfo& info = get(pointer);
  int d = info.rank() - 1;
  int64_t unit = unit_of(type);
  int64_t width = std::min({info.contiguity[d], std::max<int64_t>(1, info.divisibility[d] / unit),
                            std::max<int64_t>(1, 16 / unit)});
  return static_cast<int>(width);
}

int64_t AxisInfoAnalysis::mask_constancy(const Value* mask) const {
  const AxisInfo& info = get(mask);
  return info.constancy.back();
}

void AxisInfoAnalysis::visit_region(const ir::Region& region) {
  for (const auto& op : region.ops()) visit_op(*op);
}

void AxisInfoAnalysis::visit_op(const ir::Op& op) {
  switch (op.kind()) {
    case OpKind::For: {
      // iv = lower + k * step: a multiple of gcd(div(lower), div(step)); carried values meet
      // their inits and every yield until nothing changes.
      const ir::Region& body = *op.region(0);
      const AxisInfo& lower = get(op.operand(0));
      const AxisInfo& step = get(op.operand(2));
      AxisInfo iv = bottom(body.arg(0)->type());
      iv.divisibility[0] = gcd(lower.divisibility[0], step.divisibility[0]);
      iv.non_negative = lower.non_negative && step.constant && *step.constant > 0;
      set(body.arg(0), iv);
      for (int i = 3; i < op.num_operands(); ++i) {
        info_.erase(body.arg(i - 2));  // a re-visited inner loop starts again from its inits
        join_into(body.arg(i - 2), get(op.operand(i)));
      }
      for (int round = 0; round < 64; ++round) {
        visit_region(body);
        const ir::Op* yield = body.terminator();
        bool changed = false;
        for (int i = 0; i < yield->num_operands(); ++i) changed |= join_into(body.arg(i + 1), get(yield->operand(i)));
        if (!changed) break;
      }
      for (int i = 0; i < op.num_results(); ++i) set(op.result(i), get(body.arg(i + 1)));
      return;
    }
    case OpKind::While: {
      const ir::Region& before = *op.region(0);
      const ir::Region& after = *op.region(1);
      for (int i = 0; i < op.num_operands(); ++i) {
        info_.erase(before.arg(i));
        join_into(before.arg(i), get(op.operand(i)));
      }
      for (int round = 0; round < 64; ++round) {
        visit_region(before);
        const ir::Op* condition = before.terminator();
        for (int i = 1; i < condition->num_operands(); ++i) set(after.arg(i - 1), get(condition->operand(i)));
        visit_region(after);
        const ir::Op* yield = after.terminator();
        bool changed = false;
        for (int i = 0; i < yield->num_operands(); ++i) changed |= join_into(before.arg(i), get(yield->operand(i)));
        if (!changed) break;
      }
      const ir::Op* condition = before.terminator();
      for (int i = 0; i < op.num_results(); ++i) set(op.result(i), get(condition->operand(i + 1)));
      return;
    }
    case OpKind::If: {
      visit_region(*op.region(0));
      visit_region(*op.region(1));
      const ir::Op* then_yield = op.region(0)->terminator();
      const ir::Op* else_yield = op.region(1)->terminator();
      for (int i = 0; i < op.num_results(); ++i) {
        set(op.result(i), join(get(then_yield->operand(i)), get(else_yield->operand(i)), unit_of(op.result(i)->type())));
      }
      return;
    }
    default: break;
  }
  if (op.num_results() != 1) return;
  const Value* result = op.result();
  const Type* type = result->type();
  std::vector<int64_t> shape = shape_of(type);
  int rank = static_cast<int>(shape.size());
  AxisInfo r = bottom(type);
  auto operand = [&](int i) -> const AxisInfo& { return get(op.operand(i)); };

  switch (op.kind()) {
    case OpKind::Constant: {
      const ir::AttrValue* value = op.find_attr("value");
      if (value && std::holds_alternative<int64_t>(*value) && !type->is_float()) {
        r = constant_info(type, std::get<int64_t>(*value));
      } else {
        r.constancy = shape;  // a uniform float block: equal everywhere
      }
      break;
    }
    case OpKind::ProgramId:
    case OpKind::NumPrograms: r.non_negative = true; break;
    case OpKind::MakeRange: {
      // start, start + 1, ...: one group; its first element is `start`.
      int64_t start = op.int_attr("start");
      r.contiguity[0] = shape[0];
      r.divisibility[0] = highest_power_of_two_divisor(start);
      r.non_negative = true;
      break;
    }
    case OpKind::Splat: {
      const AxisInfo& s = operand(0);
      for (int d = 0; d < rank; ++d) {
        r.divisibility[d] = s.divisibility[0];
        r.constancy[d] = shape[d];
      }
      r.constant = s.constant;
      r.non_negative = s.non_negative;
      break;
    }
    case OpKind::Broadcast: {
      // Grown dimensions repeat one element: constant along them, each element a group.
      const AxisInfo& s = operand(0);
      const std::vector<int64_t>& from = op.operand(0)->type()->shape();
      r = s;
      for (int d = 0; d < rank; ++d) {
        if (from[d] == 1 && shape[d] != 1) {
          r.contiguity[d] = 1;
          r.constancy[d] = shape[d];
        }
      }
      break;
    }
    case OpKind::ConvertLayout:  // the same elements
    case OpKind::DescriptorTile: r = operand(0); break;
    case OpKind::Trans: {
      // The same elements with their dimensions permuted: result dimension i is source
      // dimension order[i], and so are its runs, divisibility and constancy.
      const AxisInfo& s = operand(0);
      const std::vector<int64_t>& order = op.ints_attr("order");
      r = s;
      for (size_t i = 0; i < order.size(); ++i) {
        const size_t from = static_cast<size_t>(order[i]);
        r.contiguity[i] = s.contiguity[from];
        r.divisibility[i] = s.divisibility[from];
        r.constancy[i] = s.constancy[from];
      }
      break;
    }
    case OpKind::ExpandDims: {
      // The new dimension has size 1: its groups are single elements, so its divisibility
      // must hold for every element.
      const AxisInfo& s = operand(0);
      int axis = static_cast<int>(op.int_attr("axis"));
      int64_t unit = unit_of(type);
      int64_t every = kMaxDivisor;
      for (int d = 0; d < s.rank(); ++d) every = std::min(every, effective(s, d, 1, unit));
      r = s;
      if (op.operand(0)->type()->is_block()) {
        r.contiguity.insert(r.contiguity.begin() + axis, 1);
        r.divisibility.insert(r.divisibility.begin() + axis, every);
        r.constancy.insert(r.constancy.begin() + axis, 1);
      } else {
        r = bottom(type);
        r.divisibility.assign(rank, s.divisibility[0]);
        r.constant = s.constant;
        r.non_negative = s.non_negative;
      }
      break;
    }
    case OpKind::Reshape: {
      // Claim only what holds for every element.
      const AxisInfo& s = operand(0);
      int64_t unit = unit_of(type);
      int64_t every = kMaxDivisor;
      for (int d = 0; d < s.rank(); ++d) every = std::min(every, effective(s, d, 1, unit));
      r.divisibility.assign(rank, every);
      r.constant = s.constant;
      r.non_negative = s.non_negative;
      if (s.constant) r.constancy = shape;
      break;
    }
    case OpKind::Cast: {
      const AxisInfo& s = operand(0);
      const Type* from = op.operand(0)->type()->element();
      const Type* to = type->element();
      bool int_like_from = from->is_pointer() || ir::is_integer(from->scalar_kind());
      bool int_like_to = to->is_pointer() || ir::is_integer(to->scalar_kind());
      r.constancy = s.constancy;  // equal inputs give equal outputs
      if (int_like_from && int_like_to && !op.has_attr("bitcast") &&
          !(to->is_scalar() && to->scalar_kind() == ir::ScalarKind::I1)) {
        int from_bits = from->is_pointer() ? 64 : ir::bit_width(from->scalar_kind());
        int to_bits = to->is_pointer() ? 64 : ir::bit_width(to->scalar_kind());
        if (to_bits >= from_bits) {
          // Widening (or same width): the bits, hence the groups, are unchanged modulo 2^width.
          r.contiguity = s.contiguity;
          r.divisibility = s.divisibility;
          // The number survives unless an unsigned value becomes a signed one of the same
          // width, where the top bit turns into a sign.
          bool from_unsigned = is_unsigned_int(op.operand(0)->type());
          r.non_negative = is_unsigned_int(type) || (from_unsigned ? to_bits > from_bits : s.non_negative);
        } else {
          // Narrowing wraps: a group may straddle the wrap; divisors beyond the width vanish.
          for (int d = 0; d < rank; ++d) {
            r.divisibility[d] = std::min(effective(s, d, 1, 1), int64_t{1} << std::min(to_bits, 62));
          }
        }
        if (s.constant && to->is_scalar()) {
          r.constant = ir::wrap_int(*s.constant, to->scalar_kind());
          r.non_negative = *r.constant >= 0 || is_unsigned_int(type);
        }
      }
      break;
    }
    case OpKind::Add:
    case OpKind::AddPtr:
    case OpKind::Sub: {
      if (!type->is_int() && !type->is_ptr()) {
        for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(operand(0).constancy[d], operand(1).constancy[d]);
        break;
      }
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      bool is_sub = op.kind() == OpKind::Sub;
      int64_t unit_a = unit_of(type), unit_b = 1;
      int64_t scale = op.kind() == OpKind::AddPtr ? unit_of(type) : 1;  // offsets count elements
      if (op.kind() == OpKind::AddPtr) unit_b = 1;
      for (int d = 0; d < rank; ++d) {
        // A constant group plus a consecutive group is consecutive; minus a consecutive
        // group decreases, so subtraction keeps only the left side's runs.
        int64_t c = is_sub ? gcd(a.contiguity[d], b.constancy[d])
                           : std::max(gcd(a.constancy[d], b.contiguity[d]), gcd(a.contiguity[d], b.constancy[d]));
        r.contiguity[d] = c;
        int64_t div_b = saturating_mul(effective(b, d, c, unit_b), scale);
        r.divisibility[d] = gcd(effective(a, d, c, unit_a), div_b);
        r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      }
      if (a.constant && b.constant && type->is_int()) {
        int64_t v;
        if (ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), *a.constant, *b.constant, &v)) {
          r.constant = v;
        }
      }
      r.non_negative = !is_sub && type->is_int() && a.non_negative && b.non_negative;
      if (is_unsigned_int(type)) r.non_negative = true;
      break;
    }
    case OpKind::Mul: {
      if (!type->is_int()) {
        for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(operand(0).constancy[d], operand(1).constancy[d]);
        break;
      }
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      for (int d = 0; d < rank; ++d) {
        // x * 1 keeps x's runs; any other factor spreads consecutive values apart.
        int64_t c = 1;
        if (b.constant && *b.constant == 1) c = std::max(c, a.contiguity[d]);
        if (a.constant && *a.constant == 1) c = std::max(c, b.contiguity[d]);
        r.contiguity[d] = c;
        r.divisibility[d] = saturating_mul(effective(a, d, c, 1), effective(b, d, c, 1));
        r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      }
      if (a.constant && b.constant) {
        int64_t v;
        if (ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), *a.constant, *b.constant, &v)) r.constant = v;
      }
      r.non_negative = is_unsigned_int(type) || (a.non_negative && b.non_negative);
      break;
    }
    case OpKind::Div:
    case OpKind::Rem: {
      if (!type->is_int()) {
        for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(operand(0).constancy[d], operand(1).constancy[d]);
        break;
      }
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      bool is_div = op.kind() == OpKind::Div;
      // Truncating division and remainder of a non-negative x by a positive or negative r
      // behave like floor division on |r|, which the grouping arguments below need.
      bool floor_like = is_unsigned_int(type) || a.non_negative;
      for (int d = 0; d < rank; ++d) {
        // Within an aligned group of g = gcd(contig(x), div(x), div(r), const(r)) elements,
        // x = s + j with s and r multiples of g: x / r is constant and x % r = s % r + j.
        int64_t g = gcd(gcd(a.contiguity[d], a.divisibility[d]), gcd(b.divisibility[d], b.constancy[d]));
        int64_t base_constancy = gcd(a.constancy[d], b.constancy[d]);
        if (is_div) {
          bool by_one = b.constant && *b.constant == 1;
          r.contiguity[d] = by_one ? a.contiguity[d] : 1;
          r.constancy[d] = floor_like ? std::max(base_constancy, g) : base_constancy;
          int64_t c = r.contiguity[d];
          if (by_one) {
            r.divisibility[d] = effective(a, d, c, 1);
          } else if (a.constant && *a.constant == 0) {
            r.divisibility[d] = kMaxDivisor;
          } else if (b.constant && *b.constant > 0 && highest_power_of_two_divisor(*b.constant) == *b.constant) {
            // An exact division by a power of two keeps the rest of the divisor.
            r.divisibility[d] = std::max<int64_t>(1, effective(a, d, 1, 1) / *b.constant);
          }
        } else {
          bool by_one = b.constant && *b.constant == 1;
          r.contiguity[d] = floor_like && !by_one ? g : 1;
          int64_t c = r.contiguity[d];
          r.divisibility[d] = by_one ? kMaxDivisor : gcd(effective(a, d, c, 1), effective(b, d, c, 1));
          r.constancy[d] = by_one ? shape[d] : base_constancy;
        }
      }
      if (a.constant && b.constant) {
        int64_t v;
        if (ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), *a.constant, *b.constant, &v)) r.constant = v;
      }
      if (!is_div && b.constant && *b.constant == 1) r.constant = 0;
      r.non_negative = is_unsigned_int(type) || (a.non_negative && (is_div ? b.non_negative : true));
      break;
    }
    case OpKind::Shl:
    case OpKind::Shr: {
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      int bits = ir::bit_width(type->element()->scalar_kind());
      bool known = b.constant && *b.constant >= 0 && *b.constant < bits;
      int64_t shift = known ? *b.constant : -1;
      for (int d = 0; d < rank; ++d) {
        r.contiguity[d] = shift == 0 ? a.contiguity[d] : 1;
        int64_t c = r.contiguity[d];
        int64_t base_constancy = gcd(a.constancy[d], b.constancy[d]);
        r.constancy[d] = base_constancy;
        if (op.kind() == OpKind::Shl) {
          // x << s is x * 2^s for any s that is not undefined; an unknown s is at least 0.
          r.divisibility[d] = known ? saturating_mul(effective(a, d, c, 1), int64_t{1} << std::min<int64_t>(shift, 62))
                                    : effective(a, d, 1, 1);
        } else if (known) {
          r.divisibility[d] = std::max<int64_t>(1, effective(a, d, c, 1) >> shift);
          // x >> s floors x / 2^s (also for negative x): constant over aligned groups of 2^s
          // inside a run that starts at a multiple of 2^s.
          int64_t group = std::min({a.contiguity[d], a.divisibility[d], int64_t{1} << std::min<int64_t>(shift, 62)});
          r.constancy[d] = std::max(base_constancy, group);
        }
      }
      if (a.constant && b.constant) {
        int64_t v;
        if (ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), *a.constant, *b.constant, &v)) r.constant = v;
      }
      r.non_negative = is_unsigned_int(type) || (op.kind() == OpKind::Shr && a.non_negative);
      break;
    }
    case OpKind::Minimum:
    case OpKind::Maximum: {
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      for (int d = 0; d < rank; ++d) {
        r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        if (!type->is_int()) continue;
        // Within common consecutive groups, a + j vs b + j: the smaller start wins throughout.
        r.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
        int64_t c = r.contiguity[d];
        r.divisibility[d] = gcd(effective(a, d, c, 1), effective(b, d, c, 1));
      }
      if (type->is_int()) {
        r.non_negative = is_unsigned_int(type) ||
                         (op.kind() == OpKind::Minimum ? a.non_negative && b.non_negative : a.non_negative || b.non_negative);
      }
      break;
    }
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor: {
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      if (a.constant && b.constant && type->is_int()) {
        int64_t v;
        if (ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), *a.constant, *b.constant, &v)) {
          r = constant_info(type, v);
        }
      }
      break;
    }
    case OpKind::Cmp: {
      const AxisInfo& a = operand(0);
      const AxisInfo& b = operand(1);
      using P = ir::CmpPredicate;
      P predicate = ir::enum_attr<P>(op);
      const std::vector<int64_t>& in_shape = shape_of(op.operand(0)->type());
      for (int d = 0; d < rank; ++d) {
        int64_t c = gcd(a.constancy[d], b.constancy[d]);
        // x < r over an aligned group of g consecutive x starting at a multiple of g, with
        // r a multiple of g constant over the group: s < r implies s + g - 1 < r.
        if ((predicate == P::Lt || predicate == P::Ge) && b.constancy[d] == in_shape[d]) {
          c = std::max(c, gcd(gcd(a.contiguity[d], a.divisibility[d]), b.divisibility[d]));
        }
        if ((predicate == P::Gt || predicate == P::Le) && a.constancy[d] == in_shape[d]) {
          c = std::max(c, gcd(gcd(b.contiguity[d], b.divisibility[d]), a.divisibility[d]));
        }
        r.constancy[d] = c;
      }
      if (a.constant && b.constant && op.operand(0)->type()->is_int()) {
        bool is_signed = ir::is_signed(op.operand(0)->type()->element()->scalar_kind());
        r = constant_info(type, ir::eval_int_compare(predicate, is_signed, *a.constant, *b.constant) ? 1 : 0);
      }
      r.non_negative = true;
      break;
    }
    case OpKind::Select: {
      const AxisInfo& cond = operand(0);
      const AxisInfo& a = operand(1);
      const AxisInfo& b = operand(2);
      if (cond.constant) {
        r = *cond.constant ? a : b;
        break;
      }
      if (op.operand(1) == op.operand(2) && op.operand(1)->type() == type) {
        r = a;  // either side, the same value
        break;
      }
      if (a.constant && b.constant && *a.constant == *b.constant && type->is_int()) {
        r = constant_info(type, *a.constant);
        break;
      }
      for (int d = 0; d < rank; ++d) {
        int64_t cc = cond.constancy[d];
        r.constancy[d] = std::min(gcd(a.constancy[d], cc), gcd(b.constancy[d], cc));
        if (!type->is_int() && !type->is_ptr()) continue;
        r.contiguity[d] = std::min(gcd(a.contiguity[d], cc), gcd(b.contiguity[d], cc));
        int64_t c = r.contiguity[d];
        int64_t unit = unit_of(type);
        r.divisibility[d] = gcd(effective(a, d, c, unit), effective(b, d, c, unit));
      }
      r.non_negative = a.non_negative && b.non_negative;
      break;
    }
    case OpKind::Neg: {
      const AxisInfo& a = operand(0);
      r.constancy = a.constancy;
      if (type->is_int()) {
        for (int d = 0; d < rank; ++d) r.divisibility[d] = effective(a, d, 1, 1);
        if (a.constant) r.constant = ir::wrap_int(-*a.constant, type->element()->scalar_kind());
      }
      break;
    }
    case OpKind::Load:
    case OpKind::AtomicRMW:
    case OpKind::AtomicCAS:
      // Memory may change between any two reads: nothing is known of loaded values.
      break;
    default:
      // Elementwise functions (not, exp, abs, ...) give equal results for equal inputs.
      if (has_trait(op.kind(), ir::kElementwise) && op.num_operands() >= 1) {
        r.constancy = operand(0).constancy;
        for (int i = 1; i < op.num_operands(); ++i) {
          for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(r.constancy[d], operand(i).constancy[d]);
        }
      }
      break;
  }
  // Hints replace what the analysis derived (Triton's semantics): the user vouches for them.
  static const char* const kHints[] = {"hint_contiguity", "hint_divisibility", "hint_constancy"};
  for (int h = 0; h < 3; ++h) {
    if (!op.has_attr(kHints[h])) continue;
    const std::vector<int64_t>& values = op.ints_attr(kHints[h]);
    std::vector<int64_t>& field = h == 0 ? r.contiguity : h == 1 ? r.divisibility : r.constancy;
    for (int d = 0; d < rank && d < static_cast<int>(values.size()); ++d) field[d] = values[d];
  }
  set(result, std::move(r));
}

std::string print_axis_info(const ir::Function& function) {
  AxisInfoAnalysis analysis(function);
  std::ostringstream out;
  out << "axis info of @" << function.name() << "\n";
  for (const ir::Param& param : function.params()) {
    if (!param.arg) continue;
    if (!param.arg->type()->is_int() && !param.arg->type()->is_ptr()) continue;
    out << "  %" << param.name << ": " << analysis.get(param.arg).str() << "\n";
  }
  std::function<void(const ir::Region&, int)> walk = [&](const ir::Region& region, int depth) {
    for (const auto& op : region.ops()) {
      for (const auto& result : op->results()) {
        if (!result->type()->is_int() && !result->type()->is_ptr()) continue;
        std::string line = ir::print(*op, &function);
        out << std::string(2 * depth, ' ') << line << "  // " << analysis.get(result.get()).str() << "\n";
      }
      for (const auto& nested : op->regions()) walk(*nested, depth + 1);
    }
  };
  walk(function.body(), 1);
  return out.str();
}

}  // namespace tritium::analysis

// The non-template helpers of ir/attrs.h and ir/op_views.h.
#include "ir/attrs.h"

#include <cmath>
#include <variant>

#include "ir/op_views.h"

#include "support/diagnostics.h"

namespace tritium::ir {

void unknown_enum_attr(const Op& op, const char* attr) {
  internal_error("ir", std::string("op '") + op.name() + "' has an unknown '" + attr + "' " + op.str_attr(attr),
                 op.loc());
}

void wrong_op_view(const Op& op, OpKind wanted) {
  internal_error("ir", std::string("a '") + op_name(wanted) + "' view of a '" + op.name() + "' op", op.loc());
}

bool is_load_cache(CacheModifier c) {
  return c == CacheModifier::Ca || c == CacheModifier::Cg || c == CacheModifier::Cv;
}

bool is_store_cache(CacheModifier c) {
  return c == CacheModifier::Wb || c == CacheModifier::Cg || c == CacheModifier::Cs || c == CacheModifier::Wt;
}

bool atomic_admits(AtomicKind k, ScalarKind element) {
  AtomicRule rule = atomic_rule(k);
  if (element == ScalarKind::F16 || element == ScalarKind::BF16) return rule == AtomicRule::Half;
  if (element == ScalarKind::F32 || element == ScalarKind::F64) return rule != AtomicRule::Int;
  return is_integer(element) && (bit_width(element) == 32 || bit_width(element) == 64);
}

bool atomic_ir_admits(AtomicKind k, ScalarKind element) {
  const bool half = element == ScalarKind::F16 || element == ScalarKind::BF16;
  return atomic_admits(k, element) || (half && (k == AtomicKind::Max || k == AtomicKind::Min || k == AtomicKind::Xchg));
}

bool is_volatile(const Op& op) {
  const AttrValue* attr = op.find_attr("volatile");
  return attr && *attr != AttrValue(int64_t{0});
}

const AttrValue* constant_value(const Value* v) {
  const Op* def = v->def();
  if (def != nullptr && def->kind() == OpKind::Splat) def = def->operand(0)->def();
  if (def == nullptr || def->kind() != OpKind::Constant) return nullptr;
  return def->find_attr("value");
}

bool is_zero_constant(const Value* v) {
  const AttrValue* value = constant_value(v);
  if (value == nullptr) return false;
  if (const int64_t* i = std::get_if<int64_t>(value)) return *i == 0;
  const double* f = std::get_if<double>(value);
  return f != nullptr && *f == 0.0 && !std::signbit(*f);
}

bool is_pure(const Op& op) {
  if (!has_trait(op.kind(), kPure)) return false;
  if (op.kind() != OpKind::ExternElementwise) return true;
  const AttrValue* pure = op.find_attr("pure");
  return pure == nullptr || *pure != AttrValue(int64_t{0});
}

}  // namespace tritium::ir

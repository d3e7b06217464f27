// Appends ops to a region. Constants are normalized here (integers wrapped to their type,
// integers given for a float type stored as floats) so the printed IR is canonical.
#include "ir/builder.h"

#include "support/diagnostics.h"

namespace tritium::ir {


Op* Builder::create(OpKind kind, const std::vector<const Type*>& result_types,
                    const std::vector<Value*>& operands, const Loc& loc) {
  if (region_ == nullptr) internal_error("builder", std::string("no region to add '") + op_name(kind) + "' to", loc);
  auto op = std::make_unique<Op>(kind, loc);
  for (Value* operand : operands) {
    if (operand == nullptr) {
      internal_error("builder", std::string("null operand for '") + op_name(kind) + "'", loc);
    }
  }
  op->operands() = operands;
  for (const Type* type : result_types) {
    if (type == nullptr) internal_error("builder", std::string("null result type for '") + op_name(kind) + "'", loc);
    op->add_result(type);
  }
  op->set_parent(region_);
  region_->ops().push_back(std::move(op));
  return region_->ops().back().get();
}

Value* Builder::create_value(OpKind kind, const Type* result_type,
                             const std::vector<Value*>& operands, const Loc& loc) {
  return create(kind, {result_type}, operands, loc)->result();
}

Value* Builder::int_constant(const Type* type, int64_t value, const Loc& loc) {
  const Type* element = type->element();
  if (element->is_scalar() && is_float(element->scalar_kind())) {
    return float_constant(type, static_cast<double>(value), loc);
  }
  Op* op = create(OpKind::Constant, {type}, {}, loc);
  // Pointers keep the 64-bit value (a null pointer for None arguments).
  op->set_attr("value", element->is_scalar() ? wrap_int(value, element->scalar_kind()) : value);
  return op->result();
}

Value* Builder::float_constant(const Type* type, double value, const Loc& loc) {
  if (!type->is_float()) {
    internal_error("builder", "float constant of non-float type " + type->str(), loc);
  }
  Op* op = create(OpKind::Constant, {type}, {}, loc);
  op->set_attr("value", value);
  return op->result();
}

}  // namespace tritium::ir

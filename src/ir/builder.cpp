// Creates ops at the builder's insertion point. Constants are normalized here (integers
// wrapped to their type, integers given for a float type stored as floats) so the printed
// IR is canonical.
#include "ir/builder.h"

#include "support/diagnostics.h"

namespace tritium::ir {

Builder Builder::before(Op* op) {
  Builder builder(op->parent());
  builder.set_insertion_point_before(op);
  return builder;
}

Builder Builder::after(Op* op) {
  Builder builder(op->parent());
  builder.set_insertion_point_after(op);
  return builder;
}

void Builder::set_insertion_point_before(Op* op) {
  if (op == nullptr || op->parent() == nullptr) internal_error("builder", "insertion point at an op outside any region");
  region_ = op->parent();
  anchor_ = op;
}

void Builder::set_insertion_point_after(Op* op) {
  if (op == nullptr || op->parent() == nullptr) internal_error("builder", "insertion point at an op outside any region");
  region_ = op->parent();
  size_t next = region_->index_of(op) + 1;
  anchor_ = next < region_->ops().size() ? region_->ops()[next].get() : nullptr;
}

Op* Builder::create(OpKind kind, const std::vector<const Type*>& result_types,
                    const std::vector<Value*>& operands, const Loc& loc) {
  if (region_ == nullptr) internal_error("builder", std::string("no region to add '") + op_name(kind) + "' to", loc);
  auto op = std::make_unique<Op>(kind, loc);
  for (Value* operand : operands) {
    if (operand == nullptr) {
      internal_error("builder", std::string("null operand for '") + op_name(kind) + "'", loc);
    }
  }
  op->set_operands(operands);
  for (const Type* type : result_types) {
    if (type == nullptr) internal_error("builder", std::string("null result type for '") + op_name(kind) + "'", loc);
    op->add_result(type);
  }
  size_t index = anchor_ == nullptr ? region_->ops().size() : region_->index_of(anchor_);
  return region_->insert(index, std::move(op));
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

// check_target_types (target_types.h): one walk over parameters, op results and operands.
#include "gpu/target_types.h"

#include "support/diagnostics.h"

namespace tritium::gpu {

namespace {

bool supported(ir::ScalarKind k, int sm) {
  if (k == ir::ScalarKind::F8E5 || k == ir::ScalarKind::F8E4B15) return true;
  if (k == ir::ScalarKind::F8E4NV) return sm >= 89;
  return !ir::is_fp8(k);
}

// The scalar a value of `type` holds or points to.
ir::ScalarKind scalar_of(const ir::Type* type) {
  const ir::Type* element = type->element();
  if (element->is_pointer()) element = element->pointee();
  return element->is_scalar() ? element->scalar_kind() : ir::ScalarKind::I32;
}

void check(const ir::Type* type, int sm, const Loc& loc) {
  const ir::ScalarKind k = scalar_of(type);
  if (supported(k, sm)) return;
  error_at(loc, "type " + ir::triton_dtype_name(k) + " not supported in this architecture. The supported fp8 dtypes are " +
                    supported_fp8_text(sm));
}

void check_region(const ir::Region& region, int sm) {
  for (const auto& op : region.ops()) {
    for (const ir::Value* operand : op->operands()) check(operand->type(), sm, op->loc());
    for (const auto& result : op->results()) check(result->type(), sm, op->loc());
    for (const auto& inner : op->regions()) check_region(*inner, sm);
  }
}

}  // namespace

std::string supported_fp8_text(int sm) {
  return sm >= 89 ? "('fp8e4b15', 'fp8e4nv', 'fp8e5')" : "('fp8e4b15', 'fp8e5')";
}

void check_target_types(const ir::Function& function, int sm) {
  for (const ir::Param& param : function.params()) {
    if (param.arg != nullptr && !supported(scalar_of(param.arg->type()), sm)) {
      error_at(function.loc(), "parameter '" + param.name + "': type " +
                                   ir::triton_dtype_name(scalar_of(param.arg->type())) +
                                   " not supported in this architecture. The supported fp8 dtypes are " +
                                   supported_fp8_text(sm));
    }
  }
  check_region(function.body(), sm);
}

}  // namespace tritium::gpu

// check_target_types (target_types.h): one walk over parameters, op results and operands.
#include "gpu/target_types.h"

#include "support/diagnostics.h"

namespace tritium::gpu {

std::string supported_fp8_text(int sm) {
  return sm >= 89 ? "('fp8e4b15', 'fp8e4nv', 'fp8e5')" : "('fp8e4b15', 'fp8e5')";
}

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

// Triton's words for a type the target lacks.
std::string unsupported(ir::ScalarKind k, int sm) {
  return "type " + ir::triton_dtype_name(k) + " not supported in this architecture. The supported fp8 dtypes are " +
         supported_fp8_text(sm);
}

void check(const ir::Type* type, int sm, const Loc& loc) {
  const ir::ScalarKind k = scalar_of(type);
  if (!supported(k, sm)) error_at(loc, unsupported(k, sm));
}

// A dot of fp8e4b15 operands: lowering widened them to fp16 right there (the casts carry the
// dot's location); from sm_90 Triton 3.6 warns that the format is deprecated.
bool widens_fp8e4b15(const ir::Op& dot) {
  for (int i = 0; i < 2; ++i) {
    const ir::Op* cast = dot.operand(i)->def();
    if (cast != nullptr && cast->kind() == ir::OpKind::Cast && cast->loc().line == dot.loc().line && cast->loc().col == dot.loc().col &&
        scalar_of(cast->operand(0)->type()) == ir::ScalarKind::F8E4B15) {
      return true;
    }
  }
  return false;
}

void check_region(const ir::Region& region, int sm) {
  for (const auto& op : region.ops()) {
    if (sm >= 90 && op->kind() == ir::OpKind::Dot && widens_fp8e4b15(*op)) {
      warn_at(op->loc(), "the use of fp8e4b15 is deprecated on Hopper and later architectures and can cause "
                         "significant slow down. It will be removed in a future triton release");
    }
    for (const ir::Value* operand : op->operands()) check(operand->type(), sm, op->loc());
    for (const auto& result : op->results()) check(result->type(), sm, op->loc());
    for (const auto& inner : op->regions()) check_region(*inner, sm);
  }
}

}  // namespace


void check_target_types(const ir::Function& function, int sm) {
  for (const ir::Param& param : function.params()) {
    if (param.arg != nullptr && !supported(scalar_of(param.arg->type()), sm)) {
      error_at(function.loc(), "parameter '" + param.name + "': " + unsupported(scalar_of(param.arg->type()), sm));
    }
  }
  check_region(function.body(), sm);
}

}  // namespace tritium::gpu

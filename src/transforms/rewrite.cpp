// Walking structured regions and reading constants, shared by the rewriting passes.
#include "transforms/rewrite.h"

namespace tritium::transforms {

void walk(ir::Region& region, const std::function<void(ir::Op&)>& fn) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    ir::Op& op = *region.ops()[i];
    fn(op);
    for (const auto& nested : op.regions()) walk(*nested, fn);
  }
}

bool int_constant_of(const ir::Value* value, int64_t* out) {
  const ir::Op* def = value->def();
  if (!def || def->kind() != ir::OpKind::Constant || !value->type()->is_int()) return false;
  const ir::AttrValue* attr = def->find_attr("value");
  if (!attr || !std::holds_alternative<int64_t>(*attr)) return false;
  *out = std::get<int64_t>(*attr);
  return true;
}

}  // namespace tritium::transforms

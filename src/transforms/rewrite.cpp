// Walking and use-replacement over structured regions (the IR keeps no use lists: passes
// are few and functions small, so a rewrite is one sweep over the function).
#include "transforms/rewrite.h"

namespace tritium::transforms {

void walk(ir::Region& region, const std::function<void(ir::Op&)>& fn) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    ir::Op& op = *region.ops()[i];
    fn(op);
    for (const auto& nested : op.regions()) walk(*nested, fn);
  }
}

void replace_uses(ir::Function& function, const std::unordered_map<ir::Value*, ir::Value*>& replacements) {
  if (replacements.empty()) return;
  auto resolve = [&](ir::Value* v) {
    for (auto it = replacements.find(v); it != replacements.end(); it = replacements.find(v)) v = it->second;
    return v;
  };
  walk(function.body(), [&](ir::Op& op) {
    for (ir::Value*& operand : op.operands()) operand = resolve(operand);
  });
}

std::unordered_map<const ir::Value*, int> count_uses(const ir::Function& function) {
  std::unordered_map<const ir::Value*, int> uses;
  walk(const_cast<ir::Region&>(function.body()), [&](ir::Op& op) {
    for (ir::Value* operand : op.operands()) ++uses[operand];
  });
  return uses;
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

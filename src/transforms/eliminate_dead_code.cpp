// eliminate_dead_code. Example:
//   %0 = constant {value = 2} : i32       (no uses)      =>   (removed)
//   %1 = if %c -> i32 { yield %x } else { yield %y }  (no uses, no stores)  =>  (removed)
// Repeats until nothing changes, so chains of dead values go at once.
#include "transforms/eliminate_dead_code.h"

#include <algorithm>

#include "transforms/rewrite.h"

namespace tritium::transforms {

namespace {

// An op whose removal nobody can observe once its results are unused.
bool removable(const ir::Op& op) {
  if (has_trait(op.kind(), ir::kPure)) return true;
  // A load has no effect besides its value (volatile loads are kept).
  if (op.kind() == ir::OpKind::Load) return !op.has_attr("volatile");
  if (op.kind() == ir::OpKind::If) {
    for (const auto& region : op.regions()) {
      for (const auto& inner : region->ops()) {
        if (inner->kind() != ir::OpKind::Yield && !removable(*inner)) return false;
      }
    }
    return true;
  }
  return false;
}

bool sweep(ir::Region& region, const std::unordered_map<const ir::Value*, int>& uses) {
  bool changed = false;
  for (const auto& op : region.ops()) {
    for (const auto& nested : op->regions()) changed |= sweep(*nested, uses);
  }
  auto dead = [&](const std::unique_ptr<ir::Op>& op) {
    if (!removable(*op)) return false;
    for (const auto& result : op->results()) {
      auto it = uses.find(result.get());
      if (it != uses.end() && it->second > 0) return false;
    }
    return true;
  };
  auto& ops = region.ops();
  size_t before = ops.size();
  ops.erase(std::remove_if(ops.begin(), ops.end(), dead), ops.end());
  return changed || ops.size() != before;
}

}  // namespace

void eliminate_dead_code(ir::Function& function) {
  while (sweep(function.body(), count_uses(function))) {
  }
}

}  // namespace tritium::transforms

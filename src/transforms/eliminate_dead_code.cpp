// eliminate_dead_code. Example:
//   %0 = constant {value = 2} : i32       (no uses)      =>   (removed)
//   %1 = if %c -> i32 { yield %x } else { yield %y }  (no uses, no stores)  =>  (removed)
// Repeats until nothing changes (a sweep already takes whole chains of dead values).
#include "transforms/eliminate_dead_code.h"

#include "ir/attrs.h"

namespace tritium::transforms {

namespace {

// An op whose removal nobody can observe once its results are unused.
bool removable(const ir::Op& op) {
  if (ir::is_pure(op)) return true;
  if (has_trait(op.kind(), ir::kPure)) return false;  // an inline asm with effects (is_pure=False)
  if (op.kind() == ir::OpKind::If) {
    for (const auto& region : op.regions()) {
      for (const auto& inner : region->ops()) {
        if (inner->kind() != ir::OpKind::Yield && !removable(*inner)) return false;
      }
    }
    return true;
  }
  // Loops may not end; terminators and ops with effects (ops.def's traits) stay.
  constexpr uint32_t kKept = ir::kHasRegions | ir::kTerminator | ir::kWritesGlobal | ir::kMaySync | ir::kSideEffect;
  if ((ir::op_traits(op.kind()) & kKept) != 0) return false;
  // What is left only reads (a load): no effect besides its value, unless volatile.
  return !ir::is_volatile(op);
}

// Removes the dead ops of `region`, last first, so an op whose only users were removed just
// before it goes in the same sweep; nested regions are swept before their op is judged.
bool sweep(ir::Region& region) {
  bool changed = false;
  for (size_t i = region.ops().size(); i-- > 0;) {
    ir::Op* op = region.ops()[i].get();
    for (const auto& nested : op->regions()) changed |= sweep(*nested);
    if (!removable(*op)) continue;
    bool used = false;
    for (const auto& result : op->results()) used = used || result->has_uses();
    if (used) continue;
    region.erase(op);
    changed = true;
  }
  return changed;
}

}  // namespace

void eliminate_dead_code(ir::Function& function) {
  while (sweep(function.body())) {
  }
}

}  // namespace tritium::transforms

// fold_masks. Example (B = 128):
//   %1 = make_range {end = 128, start = 0} : block<128xi32>
//   %3 = cmp %1, %2 {predicate = "lt"} : block<128xi1>        (%2 = constant 128)
//   %5 = load %4, %3 : block<128xfp32>          =>   %5 = load %4 : block<128xfp32>
// An atomic under an all-false mask stays when its (undefined) result is used.
#include "transforms/fold_masks.h"

#include <functional>
#include <unordered_map>

#include "analysis/value_range.h"
#include "ir/builder.h"
#include "transforms/rewrite.h"

namespace tritium::transforms {

namespace {

// Index of the mask operand of a memory op, or -1.
int mask_index(const ir::Op& op) {
  switch (op.kind()) {
    case ir::OpKind::Load: return op.num_operands() >= 2 ? 1 : -1;
    case ir::OpKind::Store: return op.num_operands() >= 3 ? 2 : -1;
    case ir::OpKind::AtomicRMW: return op.num_operands() >= 3 ? 2 : -1;
    default: return -1;
  }
}

}  // namespace

void fold_masks(ir::Function& function) {
  analysis::ValueRangeAnalysis ranges(function);
  auto uses = count_uses(function);
  std::unordered_map<ir::Value*, ir::Value*> replacements;
  std::function<void(ir::Region&)> visit = [&](ir::Region& region) {
    for (size_t i = 0; i < region.ops().size();) {
      ir::Op& op = *region.ops()[i];
      for (const auto& nested : op.regions()) visit(*nested);
      int mask = mask_index(op);
      if (mask < 0) {
        ++i;
        continue;
      }
      ir::Value* m = op.operand(mask);
      if (ranges.always_true(m)) {
        op.operands().resize(mask);  // drops the mask (and a load's `other` after it)
      } else if (ranges.always_false(m)) {
        bool erase = op.kind() == ir::OpKind::Store ||
                     (op.kind() == ir::OpKind::AtomicRMW && uses[op.result()] == 0);
        if (op.kind() == ir::OpKind::Load) {
          ir::Value* other = op.num_operands() >= 3 ? op.operand(2) : nullptr;
          if (!other) {
            // A new zero constant just before the load.
            auto zero = std::make_unique<ir::Op>(ir::OpKind::Constant, op.loc());
            ir::Value* value = zero->add_result(op.result()->type());
            if (value->type()->is_float()) zero->set_attr("value", 0.0);
            else zero->set_attr("value", int64_t{0});
            zero->set_parent(&region);
            region.ops().insert(region.ops().begin() + static_cast<long>(i), std::move(zero));
            ++i;
            other = value;
          }
          replacements[op.result()] = other;
          erase = true;
        }
        if (erase) {
          region.ops().erase(region.ops().begin() + static_cast<long>(i));
          continue;
        }
      }
      ++i;
    }
  };
  visit(function.body());
  replace_uses(function, replacements);
}

}  // namespace tritium::transforms

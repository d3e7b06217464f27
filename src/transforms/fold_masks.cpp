// fold_masks. Example (B = 128):
//   %1 = make_range {end = 128, start = 0} : block<128xi32>
//   %3 = cmp %1, %2 {predicate = "lt"} : block<128xi1>        (%2 = constant 128)
//   %5 = load %4, %3 : block<128xfp32>          =>   %5 = load %4 : block<128xfp32>
// An atomic under an all-false mask stays when its (undefined) result is used.
#include "transforms/fold_masks.h"

#include <functional>

#include "analysis/value_range.h"
#include "ir/builder.h"
#include "ir/op_views.h"

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
        op.truncate_operands(mask);  // drops the mask (and a load's `other` after it)
      } else if (ranges.always_false(m)) {
        bool erase = op.kind() == ir::OpKind::Store || (op.kind() == ir::OpKind::AtomicRMW && !op.result()->has_uses());
        if (op.kind() == ir::OpKind::Load) {
          ir::Value* other = ir::LoadOp(op).other();
          if (!other) {
            other = ir::Builder::before(&op).int_constant(op.result()->type(), 0, op.loc());
            ++i;
          }
          op.result()->replace_all_uses_with(other);
          erase = true;
        }
        if (erase) {
          region.erase(&op);
          continue;
        }
      }
      ++i;
    }
  };
  visit(function.body());
}

}  // namespace tritium::transforms

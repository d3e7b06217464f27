// sink_casts (sink_casts.h): widening block casts moved down to their first user.
#include "gpu/sink_casts.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Type;

// Whether `op` is a cast of a block to a block of wider scalar elements.
bool widening_cast(const Op& op) {
  if (op.kind() != OpKind::Cast || op.has_attr("bitcast") || op.num_operands() != 1 || op.num_results() != 1) return false;
  const Type* from = op.operand(0)->type();
  const Type* to = op.result(0)->type();
  if (!from->is_block() || !to->is_block()) return false;
  const Type* fe = from->element();
  const Type* te = to->element();
  if (!fe->is_scalar() || !te->is_scalar()) return false;
  return ir::bit_width(te->scalar_kind()) > ir::bit_width(fe->scalar_kind());
}

// The op of `region` that is `op` or holds it; null when `op` is outside `region`.
const Op* ancestor_in(const Region& region, const Op* op) {
  while (op != nullptr) {
    const Region* parent = op->parent();
    if (parent == &region) return op;
    op = parent == nullptr ? nullptr : parent->parent();
  }
  return nullptr;
}

void sink_in(Region& region) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) sink_in(*inner);
  }
  bool has_dot = false;
  std::vector<Op*> casts;
  for (const auto& op : region.ops()) {
    has_dot = has_dot || op->kind() == OpKind::Dot;
    if (widening_cast(*op)) casts.push_back(op.get());
  }
  if (has_dot) return;
  // Last first: a cast feeding a later cast lands before it once that one has moved.
  for (auto it = casts.rbegin(); it != casts.rend(); ++it) {
    Op* cast = *it;
    const size_t at = region.index_of(cast);
    size_t first = std::numeric_limits<size_t>::max();
    for (const Op* user : cast->result(0)->users()) {
      const Op* holder = ancestor_in(region, user);
      if (holder == nullptr) return;  // not expected (SSA dominance): leave the region as it is
      first = std::min(first, region.index_of(holder));
    }
    if (first == std::numeric_limits<size_t>::max() || first <= at + 1) continue;
    std::unique_ptr<Op> taken = region.take(cast);
    region.insert(first - 1, std::move(taken));  // the user moved up one place when taken
  }
}

}  // namespace

bool sinks_casts(const ir::Function&, const GpuOptions& options) { return options.sink_casts; }

void sink_casts(ir::Function& function, const GpuOptions& options) {
  if (!options.sink_casts) return;
  sink_in(function.body());
}

}  // namespace tritium::gpu

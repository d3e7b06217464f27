// hoist_invariants (hoist_invariants.h): pure ops computed once before the loop that
// contains them when nothing they read is defined inside it.
#include "gpu/hoist_invariants.h"

#include "ir/attrs.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

// Whether `v` is an integer constant (or a splat of one) other than zero.
bool nonzero_integer(const Value* v) {
  const ir::AttrValue* value = ir::constant_value(v);
  return value != nullptr && std::holds_alternative<int64_t>(*value) && std::get<int64_t>(*value) != 0;
}

bool movable(const Op& op) {
  if (!ir::is_pure(op) || !op.regions().empty() || op.kind() == OpKind::Dot || op.num_results() != 1) return false;
  // Index and pointer blocks stay: LLVM hoists or recomputes their arithmetic per element as
  // it sees fit, while a block computed before the loop is one live register (two for a
  // pointer) per element through it (a 16 x 64 pointer block at one warp: 64 registers).
  const ir::Type* type = op.result()->type();
  if (type->is_block() && !type->is_float()) return false;
  if (op.kind() == OpKind::Div || op.kind() == OpKind::Rem) {
    return !op.result()->type()->is_int() || nonzero_integer(op.operand(1));
  }
  return true;
}

// Whether `v` is defined inside `loop` (by an op of one of its regions, at any depth, or as
// one of their arguments).
bool defined_inside(const Value* v, const Op& loop) {
  const Region* region = v->is_region_arg() ? v->region() : v->def()->parent();
  while (region != nullptr) {
    const Op* parent = region->parent();
    if (parent == &loop) return true;
    if (parent == nullptr) return false;
    region = parent->parent();
  }
  return false;
}

// Moves the invariant top-level ops of `loop`'s regions before it, in their order.
void hoist_from(Op& loop) {
  Region& outer = *loop.parent();
  for (const auto& region : loop.regions()) {
    for (size_t i = 0; i < region->ops().size();) {
      Op* op = region->ops()[i].get();
      bool invariant = movable(*op);
      for (const Value* operand : op->operands()) invariant = invariant && !defined_inside(operand, loop);
      if (!invariant) {
        ++i;
        continue;
      }
      std::unique_ptr<Op> moved = region->take(op);
      outer.insert(outer.index_of(&loop), std::move(moved));
    }
  }
}

void hoist_region(Region& region) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op* op = region.ops()[i].get();
    for (const auto& inner : op->regions()) hoist_region(*inner);
    if (op->kind() != OpKind::For && op->kind() != OpKind::While) continue;
    hoist_from(*op);
    i = region.index_of(op);  // the moved ops now lie before it
  }
}

}  // namespace

void hoist_invariants(ir::Function& function, const GpuOptions&) { hoist_region(function.body()); }

}  // namespace tritium::gpu

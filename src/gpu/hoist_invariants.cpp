// hoist_invariants (hoist_invariants.h): pure ops computed once before the loop that
// contains them when nothing they read is defined inside it.
#include "gpu/hoist_invariants.h"

#include <algorithm>

#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "target/nvptx/layout.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

// The most bytes a thread holds of a hoisted block: 16 registers. With 32, real kernels
// already at 255 registers (mamba's chunked scans, fla's parallel attention) spilled more.
constexpr int64_t kMaxHoistedBytes = 64;

// Whether `v` is an integer constant (or a splat of one) other than zero.
bool nonzero_integer(const Value* v) {
  const ir::AttrValue* value = ir::constant_value(v);
  return value != nullptr && std::holds_alternative<int64_t>(*value) && std::get<int64_t>(*value) != 0;
}

// Whether `v` is a dot's result or computed from one by elementwise ops (at most `depth`
// of them up each chain).
bool from_dot(const Value* v, int depth) {
  const Op* def = v->def();
  if (def == nullptr) return false;
  if (def->kind() == OpKind::Dot) return true;
  if (depth == 0 || !ir::has_trait(def->kind(), ir::kElementwise)) return false;
  for (const Value* operand : def->operands()) {
    if (from_dot(operand, depth - 1)) return true;
  }
  return false;
}

// Whether elementwise ops combine `v` with a dot's result (attention's `s + g[:, None]`), or
// `v` is a dot's accumulator:
// the emitter computes such chains in the dot's fragment layout from the broadcast's source
// (nvptx fragment plans), which a broadcast made before the loop would defeat.
bool meets_dot_result(const Value* v, int depth) {
  for (const Op* user : v->users()) {
    // A dot's accumulator (`s + g` folded into the dot) starts in its fragment layout too.
    if (user->kind() == OpKind::Dot && user->num_operands() > 2 && user->operand(2) == v) return true;
    if (!ir::has_trait(user->kind(), ir::kElementwise) || user->num_results() != 1) continue;
    for (const Value* operand : user->operands()) {
      if (operand != v && from_dot(operand, 4)) return true;
    }
    if (depth > 0 && meets_dot_result(user->result(), depth - 1)) return true;
  }
  return false;
}

// A broadcast through shared memory, counted in the distinct values a thread keeps
// (nvptx::broadcast_classes: a [1, 128] fp16 scale broadcast down 64 rows with 16 columns a
// thread keeps 16 values, not 64): hoisting it saves a round trip with its barriers each
// iteration (w8a16's `b.to(tl.float16) * scale[None, :]`). Not where it meets a dot's result.
constexpr int64_t kMaxHoistedRoundTripBytes = 32;

bool cheap_round_trip(const Op& op, int threads, const VectorWidths& widths) {
  if (op.kind() != OpKind::Broadcast || !op.operand(0)->type()->is_block() || scratch_slots(op, widths, threads).empty()) {
    return false;
  }
  const ir::Type* type = op.result()->type();
  const int64_t n = type->num_elements();
  nvptx::Layout result(n, threads, widths.vector(n));
  const int64_t values = nvptx::distinct_broadcast_values(op.operand(0)->type()->shape(), type->shape(), result);
  return values * std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8) <= kMaxHoistedRoundTripBytes &&
         !meets_dot_result(op.result(), 4);
}

bool movable(const Op& op, int threads, const VectorWidths& widths) {
  if (!ir::is_pure(op) || !op.regions().empty() || op.kind() == OpKind::Dot || op.num_results() != 1) return false;
  if ((op.kind() == OpKind::Div || op.kind() == OpKind::Rem) && op.result()->type()->is_int() &&
      !nonzero_integer(op.operand(1))) {
    return false;
  }
  // Index and pointer blocks stay: LLVM hoists or recomputes their arithmetic per element as
  // it sees fit, while a block computed before the loop is one live register (two for a
  // pointer) per element through it (a 16 x 64 pointer block at one warp: 64 registers).
  const ir::Type* type = op.result()->type();
  if (type->is_block() && !type->is_float()) return false;
  // Float blocks: what moves data (a broadcast, possibly across threads through shared
  // memory) or costs nothing (splats, views) while the result stays within 16 registers a
  // thread, and arithmetic on blocks of at most one element a thread. The rest stays: a
  // hoisted result is live through the whole loop (a [128, 32] fp32 broadcast at 2 warps,
  // 64 registers, made fla's parallel attention spill 304 bytes instead of 216).
  if (!type->is_block()) return true;
  const bool moves_or_free = op.kind() == OpKind::Broadcast || op.kind() == OpKind::ExpandDims ||
                             op.kind() == OpKind::Reshape || op.kind() == OpKind::Splat ||
                             op.kind() == OpKind::Constant || op.kind() == OpKind::ConvertLayout;
  const int64_t per_thread = (type->num_elements() + threads - 1) / threads;
  const int64_t bytes = per_thread * std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8);
  return moves_or_free ? bytes <= kMaxHoistedBytes || cheap_round_trip(op, threads, widths) : per_thread <= 1;
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
void hoist_from(Op& loop, int threads, const VectorWidths& widths) {
  Region& outer = *loop.parent();
  for (const auto& region : loop.regions()) {
    for (size_t i = 0; i < region->ops().size();) {
      Op* op = region->ops()[i].get();
      bool invariant = true;
      for (const Value* operand : op->operands()) invariant = invariant && !defined_inside(operand, loop);
      invariant = invariant && movable(*op, threads, widths);  // the costlier test second
      if (!invariant) {
        ++i;
        continue;
      }
      std::unique_ptr<Op> moved = region->take(op);
      outer.insert(outer.index_of(&loop), std::move(moved));
    }
  }
}

void hoist_region(Region& region, int threads, const VectorWidths& widths) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op* op = region.ops()[i].get();
    for (const auto& inner : op->regions()) hoist_region(*inner, threads, widths);
    if (op->kind() != OpKind::For && op->kind() != OpKind::While) continue;
    hoist_from(*op, threads, widths);
    i = region.index_of(op);  // the moved ops now lie before it
  }
}

}  // namespace

void hoist_invariants(ir::Function& function, const GpuOptions& options) {
  const int threads = 32 * options.num_warps;
  hoist_region(function.body(), threads, choose_vector_widths(function, threads, options.vectorize));
}

}  // namespace tritium::gpu

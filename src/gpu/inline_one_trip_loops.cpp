// inline_one_trip_loops (inline_one_trip_loops.h): loops of constant trip count 0 or 1 go.
#include "gpu/inline_one_trip_loops.h"

#include <memory>
#include <vector>

#include "ir/op_views.h"
#include "ir/types.h"
#include "transforms/combine_dot_add.h"
#include "transforms/eliminate_dead_code.h"
#include "transforms/rewrite.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

// The trip count of a `for` with constant bounds and a positive constant step when it is 0
// or 1; -1 otherwise (unknown bounds, a non-positive step, or more trips).
int64_t small_trip_count(const Op& op) {
  ir::ForOp loop(op);
  int64_t lower = 0, upper = 0, step = 0;
  if (!transforms::int_constant_of(loop.lower(), &lower) || !transforms::int_constant_of(loop.upper(), &upper) ||
      !transforms::int_constant_of(loop.step(), &step) || step <= 0) {
    return -1;
  }
  // Unsigned counters compare unsigned: only bounds that read the same either way.
  if (!ir::is_signed(loop.lower()->type()->scalar_kind()) && (lower < 0 || upper < 0)) return -1;
  if (upper <= lower) return 0;
  // upper - lower as unsigned: no overflow for any pair with upper > lower.
  const uint64_t span = static_cast<uint64_t>(upper) - static_cast<uint64_t>(lower);
  return span <= static_cast<uint64_t>(step) ? 1 : -1;
}

// Replaces `op` (a `for` running `trips` times, 0 or 1) by its body or its initial values.
void inline_loop(Op* op, int64_t trips) {
  Region* parent = op->parent();
  ir::ForOp loop(*op);
  const int carried = op->num_results();
  std::vector<Value*> inits;
  for (int j = 0; j < carried; ++j) inits.push_back(op->operand(3 + j));
  Region* body = op->region(0);
  std::vector<Value*> results = inits;
  if (trips == 1) {
    body->arg(0)->replace_all_uses_with(loop.lower());
    for (int j = 0; j < carried; ++j) body->arg(1 + j)->replace_all_uses_with(inits[j]);
    Op* yield = body->terminator();
    results.assign(yield->operands().begin(), yield->operands().end());
    body->erase(yield);
    while (!body->ops().empty()) {
      std::unique_ptr<Op> moved = body->take(body->ops().front().get());
      parent->insert(parent->index_of(op), std::move(moved));
    }
  }
  for (int j = 0; j < carried; ++j) op->result(j)->replace_all_uses_with(results[j]);
  parent->erase(op);
}

}  // namespace

bool inlines_one_trip_loops(const ir::Function&, const GpuOptions& options) { return options.inline_one_trip_loops; }

void inline_one_trip_loops(ir::Function& function, const GpuOptions& options) {
  // Innermost first: an inner loop inlined leaves its parent's body flat, and a loop inside
  // a loop that goes is moved with its body (the pointer stays valid).
  std::vector<Op*> loops;
  transforms::walk(function.body(), [&](Op& op) {
    if (op.kind() == OpKind::For) loops.push_back(&op);
  });
  bool inlined = false;
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    const int64_t trips = small_trip_count(**it);
    if (trips == 0 || trips == 1) {
      inline_loop(*it, trips);
      inlined = true;
    }
  }
  // A dot that accumulated into a carried zero (`b_dk = tl.dot(v, dh, b_dk)` in the loop, then
  // `b_dk += tl.dot(...)` after it) now has a zero accumulator: an add of it folds into the
  // dot (combine_dot_add), which then stands at the add, as in Triton, where its canonicalizer
  // folds the loop before its Combine patterns run: the accumulator is not live in between.
  if (inlined && options.fold_inlined_dots) {
    transforms::eliminate_dead_code(function);
    transforms::combine_dot_add(function);
    transforms::eliminate_dead_code(function);
  }
}

}  // namespace tritium::gpu

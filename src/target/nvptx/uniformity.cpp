// The thread facts of uniformity.h: barrier-carrying ops (bottom-up over the regions, from
// what the GPU passes recorded) and possibly divergent scalars (a forward fixpoint, as
// loops carry values around).
#include "target/nvptx/uniformity.h"

#include "gpu/insert_barriers.h"

namespace tritium::nvptx {

using ir::OpKind;

namespace {

void collect_uses(const ir::Region& region, ThreadFacts& facts) {
  for (const auto& op : region.ops()) {
    for (const ir::Value* v : op->operands()) facts.used.insert(v);
    for (const auto& inner : op->regions()) collect_uses(*inner, facts);
  }
}

// Marks the ops that may run bar.sync; returns whether `region` holds any.
bool collect_syncs(const ir::Region& region, ThreadFacts& facts) {
  bool any = false;
  for (const auto& op : region.ops()) {
    bool syncs = op_syncs(*op, facts);
    for (const auto& inner : op->regions()) syncs = collect_syncs(*inner, facts) || syncs;
    if (syncs) facts.syncs.insert(op.get());
    any = any || syncs;
  }
  return any;
}

class Divergence {
 public:
  explicit Divergence(ThreadFacts& facts) : facts_(facts) {}

  // One pass over `region`; returns whether anything new was marked.
  bool region(const ir::Region& r) {
    bool changed = false;
    for (const auto& op : r.ops()) changed = this->op(*op) || changed;
    return changed;
  }

 private:
  bool mark(const ir::Value* v) {
    // Only scalars matter: blocks are per thread anyway, and conditions are scalars.
    if (v->type()->is_block()) return false;
    return facts_.may_diverge.insert(v).second;
  }
  bool div(const ir::Value* v) const { return facts_.diverges(v); }
  bool any_operand(const ir::Op& op, int first = 0) const {
    for (int i = first; i < op.num_operands(); ++i) {
      if (div(op.operand(i))) return true;
    }
    return false;
  }
  // The terminator's operand `i` (region ends in yield or condition).
  static const ir::Value* term(const ir::Region& r, int i) { return r.terminator()->operand(i); }

  bool op(const ir::Op& op) {
    bool changed = false;
    // A decision made from a divergent value is made uniform only around barriers.
    bool uniformized = facts_.has_sync(op);
    switch (op.kind()) {
      case OpKind::Load:
        if (!op.operand(0)->type()->is_block()) changed = mark(op.result());
        break;
      case OpKind::GlobalTimer: changed = mark(op.result()); break;  // each thread reads its own
      case OpKind::If: {
        bool cond = div(op.operand(0)) && !uniformized;
        for (int b = 0; b < 2; ++b) changed = region(*op.region(b)) || changed;
        for (int i = 0; i < op.num_results(); ++i) {
          if (cond || div(term(*op.region(0), i)) || div(term(*op.region(1), i))) {
            changed = mark(op.result(i)) || changed;
          }
        }
        break;
      }
      case OpKind::For: {
        const ir::Region& body = *op.region(0);
        bool bounds = (div(op.operand(0)) || div(op.operand(1)) || div(op.operand(2))) && !uniformized;
        if (bounds) changed = mark(body.arg(0)) || changed;
        for (int i = 0; i < op.num_results(); ++i) {
          if (bounds || div(op.operand(3 + i)) || div(term(body, i))) {
            changed = mark(body.arg(1 + i)) || changed;
            changed = mark(op.result(i)) || changed;
          }
        }
        changed = region(body) || changed;
        break;
      }
      case OpKind::While: {
        const ir::Region& before = *op.region(0);
        const ir::Region& after = *op.region(1);
        for (int i = 0; i < op.num_operands(); ++i) {
          if (div(op.operand(i)) || div(term(after, i))) changed = mark(before.arg(i)) || changed;
        }
        changed = region(before) || changed;
        bool cond = div(term(before, 0)) && !uniformized;
        for (int i = 0; i < op.num_results(); ++i) {
          if (cond || div(term(before, 1 + i))) {
            changed = mark(after.arg(i)) || changed;
            changed = mark(op.result(i)) || changed;
          }
        }
        changed = region(after) || changed;
        break;
      }
      case OpKind::MapElementwise: {
        // Its region runs on each element a thread holds: the arguments differ by thread.
        const ir::Region& body = *op.region(0);
        for (const auto& arg : body.args()) changed = mark(arg.get()) || changed;
        changed = region(body) || changed;
        break;
      }
      case OpKind::AtomicRMW:
      case OpKind::AtomicCAS:
        // A scalar atomic runs in thread 0 and its old value is broadcast: uniform.
        break;
      default:
        if (any_operand(op)) {
          for (const auto& result : op.results()) changed = mark(result.get()) || changed;
        }
        break;
    }
    return changed;
  }

  ThreadFacts& facts_;
};

}  // namespace

bool op_syncs(const ir::Op& op, const ThreadFacts& facts) {
  // The GPU passes' record: shared-memory buffers (allocate_shared, a barrier inside the
  // round trip), a barrier before the op (insert_barriers), debug_barrier.
  if (gpu::op_may_sync(op)) return true;
  switch (op.kind()) {
    // Round trips the emitter still places itself (emitter.h): a dot stages its operands;
    // thread 0 performs a scalar atomic and broadcasts the old value when it is read.
    // (Conversions of fragments are the emitter's fragment_barriers_.)
    case OpKind::Dot: return true;
    case OpKind::AtomicRMW:
    case OpKind::AtomicCAS: return !op.operand(0)->type()->is_block() && facts.is_used(op.result());
    default: return false;
  }
}

ThreadFacts analyze_threads(const ir::Function& function) {
  ThreadFacts facts;
  collect_uses(function.body(), facts);
  collect_syncs(function.body(), facts);
  Divergence divergence(facts);
  while (divergence.region(function.body())) {
  }
  return facts;
}

}  // namespace tritium::nvptx

// rebase_pointers (rebase_pointers.h). A pointer block's offset is carried in i64 and each
// step's increment sign-extended into it: p0 + (s1 + s2 + ...) is, modulo 2^64, the address
// that adding s1, s2, ... one at a time gives, so nothing changes where the kernel reads.
// An integer block's is carried in its own type: modulo 2^width, the same argument.
#include "gpu/rebase_pointers.h"

#include "gpu/coalesce.h"
#include "gpu/scratch.h"
#include "ir/attrs.h"
#include "ir/builder.h"
#include "transforms/eliminate_dead_code.h"

namespace tritium::gpu {

using ir::Op;
using ir::OpKind;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// The scalar that every element of `inc` equals (a splat, or a constant block), created at
// `b` where it must be; null when the elements may differ.
Value* uniform_increment(Value* inc, ir::Builder& b) {
  const Op* def = inc->def();
  if (def == nullptr) return nullptr;
  if (def->kind() == OpKind::Splat) return def->operand(0);
  if (def->kind() == OpKind::Constant && def->has_attr("value") && std::holds_alternative<int64_t>(*def->find_attr("value"))) {
    return b.int_constant(Type::scalar(inc->type()->element()->scalar_kind()), def->int_attr("value"), def->loc());
  }
  return nullptr;
}

// Whether every use of `p`, a carried pointer block, is `step` (its advance) or a load in
// the body whose value only dots' A and B read.
bool only_loads_dot_operands(const Value* p, const Op* step) {
  for (const ir::Use& use : p->uses()) {
    if (use.user == step) continue;
    if (use.user->kind() != OpKind::Load || use.index != 0 || use.user->parent() != step->parent() ||
        !reaches_only_dot_operands(use.user->result())) {
      return false;
    }
  }
  return true;
}

// The pointer s of `p0 = splat(s) + a` (one addptr of a block offset a, broadcasts and
// expand_dims around it), or null. With two offsets or more, each would be its own 64-bit
// add an address: p0 + splat(o), one, is no worse there.
Value* splat_base(Value* p0, int offsets = 0) {
  const Op* def = p0->def();
  if (def == nullptr) return nullptr;
  if (def->kind() == OpKind::Splat && def->operand(0)->type()->is_pointer()) return offsets == 1 ? def->operand(0) : nullptr;
  if (def->kind() == OpKind::Broadcast || def->kind() == OpKind::ExpandDims) return splat_base(def->operand(0), offsets);
  if (def->kind() != OpKind::AddPtr || !def->operand(1)->type()->is_block() || offsets > 0) return nullptr;
  return splat_base(def->operand(0), offsets + 1);
}

// That chain from splat(s2) in place of splat(s), at `b`.
Value* chain_from(Value* p0, Value* s2, ir::Builder& b, const Loc& loc) {
  const Op* def = p0->def();
  if (def->kind() == OpKind::Splat) return b.create_value(OpKind::Splat, p0->type(), {s2}, loc);
  Value* inner = chain_from(def->operand(0), s2, b, loc);
  if (def->kind() == OpKind::AddPtr) return b.create_value(OpKind::AddPtr, p0->type(), {inner, def->operand(1)}, loc);
  // A broadcast or expand_dims, with its attributes.
  Op* copy = b.create(def->kind(), {p0->type()}, {inner}, loc);
  for (const ir::Attr& a : def->attrs()) copy->set_attr(a.name, a.value);
  return copy->result();
}

// Rebases the carried argument k (>= 1) of `loop` when it qualifies; returns whether it did.
bool rebase(Op& loop, int k, bool loaded, bool scalar_base) {
  ir::Region& body = *loop.region(0);
  Op& yield = *body.terminator();
  Value* p = body.arg(k);
  Value* p0 = loop.operand(k + 2);
  const Type* type = p->type();
  if (!type->is_block()) return false;
  // Pointers move by addptr; integer offsets (`offsets_k += BLOCK_K`, a mask's index) by add,
  // p either operand.
  const bool pointers = type->element()->is_pointer();
  if (!pointers && !(type->element()->is_scalar() && ir::is_integer(type->element()->scalar_kind()) &&
                     type->element()->scalar_kind() != ScalarKind::I1)) {
    return false;
  }
  Value* next = yield.operand(k - 1);
  const Op* step = next->def();
  if (step == nullptr || step->parent() != &body) return false;
  int p_at = -1;
  if (pointers && step->kind() == OpKind::AddPtr && step->operand(0) == p) p_at = 0;
  if (!pointers && step->kind() == OpKind::Add) p_at = step->operand(0) == p ? 0 : step->operand(1) == p ? 1 : -1;
  if (p_at < 0) return false;
  int budget = kRecomputeBudget;
  // p0 not recomputable stays in registers either way: nothing to gain, unless the body
  // only loads dot operands through p (GpuOptions::rebase_loaded), those loads then made in
  // their slot from p0 as the prologue's are (coalesce.h).
  if (!recomputable(p0, &budget) && !(loaded && pointers && only_loads_dot_operands(p, step))) return false;
  ir::Builder in_body = ir::Builder::before(body.ops().front().get());
  ir::Builder at_step = ir::Builder::before(const_cast<Op*>(step));
  Value* inc = uniform_increment(step->operand(1 - p_at), at_step);
  if (inc == nullptr) return false;

  // A chain from a splat of one pointer s (GpuOptions::rebase_scalar_base): the loop carries
  // s itself, moved by each step's increment, and the body makes the chain from its splat:
  // one scalar add an iteration, the blocks' offsets loop-invariant and as narrow as they
  // were (32-bit offsets widened at each address, as Triton's `mad.wide`), where p0 + splat(o)
  // adds a 64-bit block to every element's 64-bit address. The same addresses modulo 2^64
  // (every addptr adds its offset, sign-extended, times the element size).
  if (Value* s = pointers && scalar_base ? splat_base(p0) : nullptr) {
    loop.add_operand(s);
    Value* sp = body.add_arg(s->type());
    Value* sp_final = loop.add_result(s->type());
    p->replace_all_uses_with(chain_from(p0, sp, in_body, loop.loc()));
    yield.add_operand(at_step.create_value(OpKind::AddPtr, s->type(), {sp, inc}, step->loc()));
    yield.set_operand(k - 1, p);  // p now passes through, unused
    Value* result = loop.result(k - 1);
    if (result->has_uses()) {
      ir::Builder after = ir::Builder::after(&loop);
      result->replace_all_uses_with(chain_from(p0, sp_final, after, loop.loc()));
    }
    return true;
  }
  // Pointers' offsets are carried in i64 (each increment sign-extended); integers' in their
  // own type, whose sums wrap as the step-by-step adds do.
  const Type* carried = pointers ? Type::scalar(ScalarKind::I64) : Type::scalar(type->element()->scalar_kind());
  const Type* offsets = type->with_element(carried);
  const OpKind move = pointers ? OpKind::AddPtr : OpKind::Add;
  ir::Builder before_loop = ir::Builder::before(&loop);
  loop.add_operand(before_loop.int_constant(carried, 0, loop.loc()));
  Value* o = body.add_arg(carried);
  Value* o_final = loop.add_result(carried);
  // The current iteration's block, for every use of p in the body.
  Value* q = in_body.create_value(move, type, {p0, in_body.create_value(OpKind::Splat, offsets, {o}, loop.loc())}, loop.loc());
  p->replace_all_uses_with(q);
  Value* wide = inc->type()->scalar_kind() == carried->scalar_kind() ? inc : at_step.create_value(OpKind::Cast, carried, {inc}, step->loc());
  yield.add_operand(at_step.create_value(OpKind::Add, carried, {o, wide}, step->loc()));
  yield.set_operand(k - 1, p);  // p now passes through, unused
  // After the loop, the block the loop left.
  Value* result = loop.result(k - 1);
  if (result->has_uses()) {
    ir::Builder after = ir::Builder::after(&loop);
    Value* splat = after.create_value(OpKind::Splat, offsets, {o_final}, loop.loc());
    Value* out = after.create_value(move, type, {p0, splat}, loop.loc());
    result->replace_all_uses_with(out);
  }
  return true;
}

bool rebase_region(ir::Region& region, bool loaded, bool scalar_base) {
  // rebase inserts ops around the loop: collect the ops first.
  std::vector<Op*> ops;
  for (const auto& op : region.ops()) ops.push_back(op.get());
  bool changed = false;
  for (Op* op : ops) {
    for (const auto& inner : op->regions()) changed = rebase_region(*inner, loaded, scalar_base) || changed;
    if (op->kind() != OpKind::For) continue;
    const int carried = op->num_results();  // the arguments added below are scalars
    for (int k = 1; k <= carried; ++k) changed = rebase(*op, k, loaded, scalar_base) || changed;
  }
  return changed;
}

}  // namespace

void rebase_pointers(ir::Function& function, const GpuOptions& options) {
  if (rebase_region(function.body(), options.rebase_loaded, options.rebase_scalar_base)) transforms::eliminate_dead_code(function);
}

}  // namespace tritium::gpu

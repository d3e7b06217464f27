// speculate_ifs (speculate_ifs.h): small pure `if`s yielding blocks become selects.
#include "gpu/speculate_ifs.h"

#include <unordered_map>
#include <vector>

#include "ir/builder.h"
#include "transforms/rewrite.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

// The most ops on blocks both branches may hold together (constants and splats not
// counted): each runs on every element of a thread whether or not the branch is taken.
constexpr int kMaxBlockOps = 4;

// Whether `op` may run when its branch is not taken: no memory, no fault or undefined
// lanes (divisions, shifts, float-to-integer conversions), nothing costly (math
// functions) and nothing that moves data between threads.
bool speculatable(const Op& op) {
  switch (op.kind()) {
    case OpKind::Constant:
    case OpKind::MakeRange:
    case OpKind::Splat:
    case OpKind::ExpandDims:
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
    case OpKind::Not:
    case OpKind::Neg:
    case OpKind::Minimum:
    case OpKind::Maximum:
    case OpKind::Abs:
    case OpKind::Fma:
    case OpKind::Cmp:
    case OpKind::Select: return !op.result()->type()->is_ptr();
    case OpKind::Cast: {
      const ir::Type* from = op.operand(0)->type();
      const ir::Type* to = op.result()->type();
      if (from->is_ptr() || to->is_ptr()) return false;
      return op.has_attr("bitcast") || !(from->is_float() && to->is_int());
    }
    default: return false;
  }
}

// Whether every op of `region` but its yield may be speculated; counts its ops on blocks.
bool speculatable_region(const Region& region, int* block_ops) {
  for (const auto& op : region.ops()) {
    if (op.get() == region.terminator()) continue;
    if (!op->regions().empty() || op->num_results() != 1 || !speculatable(*op)) return false;
    bool free = op->kind() == OpKind::Constant || op->kind() == OpKind::Splat;
    if (op->result()->type()->is_block() && !free) ++*block_ops;
  }
  return true;
}

bool should_speculate(const Op& op) {
  if (op.kind() != OpKind::If || op.num_results() == 0 || op.regions().size() != 2) return false;
  bool any_block = false;
  for (const auto& result : op.results()) {
    if (result->type()->is_ptr()) return false;
    any_block = any_block || result->type()->is_block();
  }
  if (!any_block) return false;
  int block_ops = 0;
  return speculatable_region(*op.region(0), &block_ops) && speculatable_region(*op.region(1), &block_ops) &&
         block_ops <= kMaxBlockOps;
}

// Moves the branches' ops before `op` (then's first) and replaces its results by selects
// on its condition; the `if` goes.
void speculate(Op* op) {
  Region* parent = op->parent();
  for (int r = 0; r < 2; ++r) {
    Region* branch = op->region(r);
    while (branch->ops().size() > 1) {
      std::unique_ptr<Op> moved = branch->take(branch->ops().front().get());
      parent->insert(parent->index_of(op), std::move(moved));
    }
  }
  const Op* then_yield = op->region(0)->terminator();
  const Op* else_yield = op->region(1)->terminator();
  Value* cond = op->operand(0);
  ir::Builder b = ir::Builder::before(op);
  std::vector<Value*> replacements;
  std::unordered_map<const ir::Type*, Value*> conds;  // the condition splat, once per shape
  for (int i = 0; i < op->num_results(); ++i) {
    Value* t = then_yield->operand(i);
    Value* e = else_yield->operand(i);
    const ir::Type* type = op->result(i)->type();
    const ir::Type* cond_type = type->with_element(ir::Type::scalar(ir::ScalarKind::I1));
    Value*& c = conds[cond_type];
    if (c == nullptr) c = type->is_block() ? b.create_value(OpKind::Splat, cond_type, {cond}, op->loc()) : cond;
    replacements.push_back(t == e ? t : b.create_value(OpKind::Select, type, {c, t, e}, op->loc()));
  }
  for (int i = 0; i < op->num_results(); ++i) op->result(i)->replace_all_uses_with(replacements[i]);
  parent->erase(op);
}

}  // namespace

void speculate_ifs(ir::Function& function, const GpuOptions&) {
  // Innermost first: a nested `if` speculated leaves its parent's branch flat.
  std::vector<Op*> ifs;
  transforms::walk(function.body(), [&](Op& op) {
    if (op.kind() == OpKind::If) ifs.push_back(&op);
  });
  for (auto it = ifs.rbegin(); it != ifs.rend(); ++it) {
    if (should_speculate(**it)) speculate(*it);
  }
}

}  // namespace tritium::gpu

// fold_constants. Example:
//   %0 = constant {value = 2} : i32          %0 = constant {value = 2} : i32
//   %1 = constant {value = 3} : i32    =>    %2 = constant {value = 6} : i32
//   %2 = mul %0, %1 : i32                    (uses of %2 use the new constant)
// Only integers fold: float folding would have to reproduce fp16/bf16 rounding exactly, and
// the interpreter is the single place that does. Dead constants are left to eliminate_dead_code.
#include "transforms/fold_constants.h"

#include <algorithm>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/int_arith.h"
#include "transforms/rewrite.h"

namespace tritium::transforms {

namespace {

using ir::OpKind;
using ir::ScalarKind;

bool is_binary_int(OpKind kind) {
  switch (kind) {
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
    case OpKind::Minimum: case OpKind::Maximum:
      return true;
    default: return false;
  }
}

class Folder {
 public:
  explicit Folder(ir::Function& function) : function_(function) {}

  void run() {
    fold_region(function_.body());
    replace_uses(function_, replacements_);
  }

 private:
  ir::Value* resolve(ir::Value* v) {
    for (auto it = replacements_.find(v); it != replacements_.end(); it = replacements_.find(v)) v = it->second;
    return v;
  }

  bool constant_of(ir::Value* v, int64_t* out) { return int_constant_of(resolve(v), out); }

  // A new integer constant placed just before the op at `index` in `region`.
  ir::Value* make_constant(ir::Region& region, size_t& index, const ir::Type* type, int64_t value, const Loc& loc) {
    auto op = std::make_unique<ir::Op>(OpKind::Constant, loc);
    op->add_result(type);
    op->set_attr("value", ir::wrap_int(value, type->element()->scalar_kind()));
    op->set_parent(&region);
    ir::Value* result = op->result();
    region.ops().insert(region.ops().begin() + static_cast<long>(index), std::move(op));
    ++index;
    return result;
  }

  void fold_region(ir::Region& region) {
    size_t i = 0;
    while (i < region.ops().size()) {
      ir::Op& op = *region.ops()[i];
      for (ir::Value*& operand : op.operands()) operand = resolve(operand);
      for (const auto& nested : op.regions()) fold_region(*nested);
      int64_t cond;
      if (op.kind() == OpKind::If && constant_of(op.operand(0), &cond)) {
        inline_branch(region, i, cond != 0);  // leaves i at the op after the inlined ones
        continue;
      }
      fold_op(region, i, op);
      ++i;
    }
  }

  void fold_op(ir::Region& region, size_t& index, ir::Op& op) {
    if (op.num_results() != 1) return;
    ir::Value* result = op.result();
    const ir::Type* type = result->type();
    int64_t a, b;
    switch (op.kind()) {
      case OpKind::Splat:
      case OpKind::Broadcast:
      case OpKind::ExpandDims:
      case OpKind::Reshape:
        if (constant_of(op.operand(0), &a)) replacements_[result] = make_constant(region, index, type, a, op.loc());
        return;
      case OpKind::Cast:
        if (type->is_int() && constant_of(op.operand(0), &a) && !op.operand(0)->type()->is_bool()) {
          ScalarKind to = type->element()->scalar_kind();
          int64_t v = to == ScalarKind::I1 ? (a != 0) : a;
          replacements_[result] = make_constant(region, index, type, v, op.loc());
        }
        return;
      case OpKind::Cmp:
        if (constant_of(op.operand(0), &a) && constant_of(op.operand(1), &b)) {
          bool is_signed = ir::is_signed(op.operand(0)->type()->element()->scalar_kind());
          bool r = ir::eval_int_compare(op.str_attr("predicate"), is_signed, a, b);
          replacements_[result] = make_constant(region, index, type, r ? 1 : 0, op.loc());
        }
        return;
      case OpKind::Select:
        if (constant_of(op.operand(0), &a)) {
          ir::Value* chosen = op.operand(a != 0 ? 1 : 2);
          if (chosen->type() == type) replacements_[result] = chosen;
        }
        return;
      case OpKind::AddPtr:
        if (constant_of(op.operand(1), &b) && b == 0 && op.operand(0)->type() == type) replacements_[result] = op.operand(0);
        return;
      default: break;
    }
    if (!is_binary_int(op.kind()) || !type->is_int()) return;
    bool lhs_const = constant_of(op.operand(0), &a);
    bool rhs_const = constant_of(op.operand(1), &b);
    int64_t folded;
    if (lhs_const && rhs_const && ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), a, b, &folded)) {
      replacements_[result] = make_constant(region, index, type, folded, op.loc());
      return;
    }
    // Identities: x + 0, 0 + x, x - 0, x * 1, 1 * x, x | 0, x ^ 0, x << 0, x >> 0.
    bool neutral_rhs = rhs_const && ((b == 0 && (op.kind() == OpKind::Add || op.kind() == OpKind::Sub ||
                                                 op.kind() == OpKind::Or || op.kind() == OpKind::Xor ||
                                                 op.kind() == OpKind::Shl || op.kind() == OpKind::Shr)) ||
                                     (b == 1 && (op.kind() == OpKind::Mul || op.kind() == OpKind::Div)));
    bool neutral_lhs = lhs_const && ((a == 0 && (op.kind() == OpKind::Add || op.kind() == OpKind::Or ||
                                                 op.kind() == OpKind::Xor)) ||
                                     (a == 1 && op.kind() == OpKind::Mul));
    if (neutral_rhs && op.operand(0)->type() == type) replacements_[result] = op.operand(0);
    else if (neutral_lhs && op.operand(1)->type() == type) replacements_[result] = op.operand(1);
  }

  // Replaces `if` at `index` by the ops of its taken region (already folded); its results
  // become the yielded values. Leaves `index` at the op that followed the if.
  void inline_branch(ir::Region& region, size_t& index, bool take_then) {
    ir::Op& if_op = *region.ops()[index];
    ir::Region& taken = *if_op.region(take_then ? 0 : 1);
    std::vector<std::unique_ptr<ir::Op>> moved;
    ir::Op* yield = taken.terminator();
    for (auto& op : taken.ops()) {
      if (op.get() == yield) continue;
      op->set_parent(&region);
      moved.push_back(std::move(op));
    }
    for (int r = 0; r < if_op.num_results(); ++r) replacements_[if_op.result(r)] = resolve(yield->operand(r));
    size_t count = moved.size();
    // The untaken branch never runs: the if goes away with it. It is kept alive until the
    // pass ends so no address in `replacements_` is reused by a new value.
    graveyard_.push_back(std::move(region.ops()[index]));
    region.ops().erase(region.ops().begin() + static_cast<long>(index));
    region.ops().insert(region.ops().begin() + static_cast<long>(index), std::make_move_iterator(moved.begin()),
                        std::make_move_iterator(moved.end()));
    size_t end = index + count;
    index = end;
  }

  ir::Function& function_;
  std::unordered_map<ir::Value*, ir::Value*> replacements_;
  std::vector<std::unique_ptr<ir::Op>> graveyard_;
};

}  // namespace

void fold_constants(ir::Function& function) { Folder(function).run(); }

}  // namespace tritium::transforms

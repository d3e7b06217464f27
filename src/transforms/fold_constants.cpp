// fold_constants. Example:
//   %0 = constant {value = 2} : i32          %0 = constant {value = 2} : i32
//   %1 = constant {value = 3} : i32    =>    %2 = constant {value = 6} : i32
//   %2 = mul %0, %1 : i32                    (uses of %2 use the new constant)
// Only integers fold, and the float identities that are exact (float_identity): float folding
// would have to reproduce fp16/bf16 rounding exactly, and the interpreter is the single place
// that does. Dead constants are left to eliminate_dead_code.
#include "transforms/fold_constants.h"

#include <cmath>
#include <variant>

#include "ir/builder.h"
#include "ir/attrs.h"
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

// A new integer constant just before `op`, at its location.
ir::Value* constant_before(ir::Op& op, const ir::Type* type, int64_t value) {
  return ir::Builder::before(&op).int_constant(type, value, op.loc());
}

void replace(ir::Op& op, ir::Value* with) { op.result()->replace_all_uses_with(with); }

// (x + c) - c, (c + x) - c, (x - c) + c and c + (x - c) are x: integers wrap, so exactly
// (tl.cdiv(n, 1) is (n + 1 - 1) // 1; the divisibility of n then reaches the masks built
// from it, as through MLIR's canonicalization in Triton). Null when `op` is none of these.
ir::Value* cancelled(const ir::Op& op) {
  const bool sub = op.kind() == OpKind::Sub;
  if (!sub && op.kind() != OpKind::Add) return nullptr;
  const ir::Type* type = op.result()->type();
  for (int side = 0; side < 2; ++side) {
    if (sub && side == 0) continue;  // c - (x + c) is not x
    int64_t c, c2;
    const ir::Op* inner = op.operand(1 - side)->def();
    if (!int_constant_of(op.operand(side), &c) || inner == nullptr ||
        inner->kind() != (sub ? OpKind::Add : OpKind::Sub) || inner->result()->type() != type) {
      continue;
    }
    for (int k = 0; k < 2; ++k) {
      if (!sub && k == 0) continue;  // (c - x) + c is not x
      if (int_constant_of(inner->operand(k), &c2) && c2 == c && inner->operand(1 - k)->type() == type) {
        return inner->operand(1 - k);
      }
    }
  }
  return nullptr;
}

// The float constant `value` is (a scalar, or a splat of one), or NaN when it is none.
double float_constant_of(const ir::Value* value) {
  const ir::AttrValue* attr = value->type()->is_float() ? ir::constant_value(value) : nullptr;
  const double* f = attr != nullptr ? std::get_if<double>(attr) : nullptr;
  return f != nullptr ? *f : std::nan("");
}

// The float operations that give their operand back exactly, in every float type and for
// every x (signed zeros, infinities and NaNs included): x * 1, 1 * x, x / 1, x - (+0) and
// x + (-0), (-0) + x — the ones MLIR's arith folds in Triton (x + (+0) is not among them:
// -0 + 0 is +0). vLLM's unified attention writes `tl.dot(P * p_scale, V) / p_scale` with
// p_scale 1.0 for 16-bit values; folded, `acc += ...` becomes the dot's accumulator
// (combine_dot_add) and the accumulator stays in the dot's fragments. Null when none applies.
ir::Value* float_identity(const ir::Op& op) {
  if (op.num_operands() != 2 || op.operand(0)->type() != op.result()->type() ||
      op.operand(1)->type() != op.result()->type()) {
    return nullptr;
  }
  const double a = float_constant_of(op.operand(0)), b = float_constant_of(op.operand(1));
  const bool neg_zero_b = b == 0.0 && std::signbit(b), pos_zero_b = b == 0.0 && !std::signbit(b);
  switch (op.kind()) {
    case OpKind::Mul:
      if (b == 1.0) return op.operand(0);
      if (a == 1.0) return op.operand(1);
      return nullptr;
    case OpKind::Div: return b == 1.0 ? op.operand(0) : nullptr;
    case OpKind::Sub: return pos_zero_b ? op.operand(0) : nullptr;
    case OpKind::Add:
      if (neg_zero_b) return op.operand(0);
      if (a == 0.0 && std::signbit(a)) return op.operand(1);
      return nullptr;
    default: return nullptr;
  }
}

void fold_op(ir::Op& op) {
  if (op.num_results() != 1) return;
  const ir::Type* type = op.result()->type();
  int64_t a, b;
  switch (op.kind()) {
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
      if (int_constant_of(op.operand(0), &a)) replace(op, constant_before(op, type, a));
      return;
    case OpKind::Cast:
      if (type->is_int() && int_constant_of(op.operand(0), &a) && !op.operand(0)->type()->is_bool()) {
        ScalarKind to = type->element()->scalar_kind();
        replace(op, constant_before(op, type, to == ScalarKind::I1 ? (a != 0) : a));
      }
      return;
    case OpKind::Cmp:
      if (int_constant_of(op.operand(0), &a) && int_constant_of(op.operand(1), &b)) {
        bool is_signed = ir::is_signed(op.operand(0)->type()->element()->scalar_kind());
        bool r = ir::eval_int_compare(ir::enum_attr<ir::CmpPredicate>(op), is_signed, a, b);
        replace(op, constant_before(op, type, r ? 1 : 0));
      }
      return;
    case OpKind::Not:
      // `if not FLAG:` on a flag assigned a literal (sglang's `SKIP_TILE = False`): the
      // `if` then folds too, and the loop body it wrapped is flat again.
      if (type->is_int() && int_constant_of(op.operand(0), &a)) {
        int64_t folded;
        if (type->is_bool()) {
          replace(op, constant_before(op, type, a == 0 ? 1 : 0));
        } else if (ir::eval_int_binary(OpKind::Xor, type->element()->scalar_kind(), a, -1, &folded)) {
          replace(op, constant_before(op, type, folded));
        }
      }
      return;
    case OpKind::Select:
      if (int_constant_of(op.operand(0), &a)) {
        ir::Value* chosen = op.operand(a != 0 ? 1 : 2);
        if (chosen->type() == type) replace(op, chosen);
      } else if (op.operand(1)->type() == type && op.operand(2)->type() == type &&
                 (op.operand(1) == op.operand(2) ||
                  (int_constant_of(op.operand(1), &a) && int_constant_of(op.operand(2), &b) && a == b))) {
        // Both sides alike, whatever the condition: xformers' tiled matmul picks a stride
        // `tl.where(pid_m < grid_m1, stride_ak1, tl.where(..., stride_ak2, stride_ak3))` of
        // three arguments specialized to 1 (MLIR folds such a select in Triton).
        replace(op, op.operand(1));
      }
      return;
    case OpKind::AddPtr:
      if (int_constant_of(op.operand(1), &b) && b == 0 && op.operand(0)->type() == type) replace(op, op.operand(0));
      return;
    default: break;
  }
  if (type->is_float()) {
    if (ir::Value* x = float_identity(op)) replace(op, x);
    return;
  }
  if (!is_binary_int(op.kind()) || !type->is_int()) return;
  bool lhs_const = int_constant_of(op.operand(0), &a);
  bool rhs_const = int_constant_of(op.operand(1), &b);
  int64_t folded;
  if (lhs_const && rhs_const && ir::eval_int_binary(op.kind(), type->element()->scalar_kind(), a, b, &folded)) {
    replace(op, constant_before(op, type, folded));
    return;
  }
  // x % 1, and x % -1 of a signed type: 0 whatever x is (MLIR's remsi / remui fold it in
  // Triton). fla's chunk_fwd_kernel_h stores the state under `if i_t % NTS == 0` with NTS =
  // BS // BT = 1: the comparison and the `if` then fold too, and the store sits in the loop
  // body, where its flat copy can come from the dot operand's tile.
  if (rhs_const && op.kind() == OpKind::Rem &&
      (b == 1 || (b == -1 && ir::is_signed(type->element()->scalar_kind())))) {
    replace(op, constant_before(op, type, 0));
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
  if (neutral_rhs && op.operand(0)->type() == type) replace(op, op.operand(0));
  else if (neutral_lhs && op.operand(1)->type() == type) replace(op, op.operand(1));
  else if (ir::Value* x = cancelled(op)) replace(op, x);
}

// Replaces `if_op` by the ops of its taken region (already folded); its results become the
// yielded values, and the untaken region goes with the if. Returns the number of ops moved.
size_t inline_branch(ir::Op& if_op, bool take_then) {
  ir::Region& region = *if_op.parent();
  ir::Region& taken = *if_op.region(take_then ? 0 : 1);
  ir::Op* yield = taken.terminator();
  for (int r = 0; r < if_op.num_results(); ++r) if_op.result(r)->replace_all_uses_with(yield->operand(r));
  size_t at = region.index_of(&if_op);
  size_t moved = 0;
  while (taken.ops().front().get() != yield) region.insert(at + moved++, taken.take(taken.ops().front().get()));
  region.erase(&if_op);
  return moved;
}

// Folds every op of `region` (nested regions first). A folded op's uses move to the new
// value at once; the op stays, dead, for eliminate_dead_code.
void fold_region(ir::Region& region) {
  size_t i = 0;
  while (i < region.ops().size()) {
    ir::Op* op = region.ops()[i].get();
    for (const auto& nested : op->regions()) fold_region(*nested);
    int64_t cond;
    if (op->kind() == OpKind::If && int_constant_of(op->operand(0), &cond)) {
      i += inline_branch(*op, cond != 0);  // the moved ops are folded already
      continue;
    }
    fold_op(*op);
    while (region.ops()[i].get() != op) ++i;  // constants were inserted before it
    ++i;
  }
}

}  // namespace

void fold_constants(ir::Function& function) { fold_region(function.body()); }

}  // namespace tritium::transforms

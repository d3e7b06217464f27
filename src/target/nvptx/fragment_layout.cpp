// The accumulator layout of tensor-core dots and the plan of which values carry it.
#include "target/nvptx/fragment_layout.h"

#include <functional>

#include "support/diagnostics.h"

namespace tritium::nvptx {

using ir::OpKind;

FragmentLayout FragmentLayout::make(const std::vector<int64_t>& shape, int num_warps, bool warpgroups) {
  FragmentLayout l;
  size_t rank = shape.size();
  if (rank < 2 || rank > 3) internal_error("nvptx", "a fragment layout of rank other than 2 or 3");
  l.batch = rank == 3 ? shape[0] : 1;
  l.m = shape[rank - 2];
  l.n = shape[rank - 1];
  if (l.m % 16 != 0 || l.n % 8 != 0) internal_error("nvptx", "a fragment layout of a shape tensor cores cannot hold");
  if (warpgroups && rank == 2 && num_warps % 4 == 0 && l.m % (16 * num_warps) == 0 && l.n >= 16) {
    l.warps_m = num_warps;
  }
  // Split the block between warps where it has more tiles left, as long as it has any.
  while (l.warps_m * l.warps_n < num_warps) {
    int64_t left_m = l.m / (16 * l.warps_m), left_n = l.n / (8 * l.warps_n);
    if (left_m >= left_n && left_m > 1) {
      l.warps_m *= 2;
    } else if (left_n > 1) {
      l.warps_n *= 2;
    } else {
      break;  // the other warps hold copies
    }
  }
  l.rep_m = static_cast<int>(l.m / (16 * l.warps_m));
  l.rep_n = static_cast<int>(l.n / (8 * l.warps_n));
  return l;
}

int64_t FragmentLayout::element(int warp, int lane, int reg) const {
  int c = reg % 4, tile = reg / 4;
  int in = tile % rep_n;
  tile /= rep_n;
  int im = tile % rep_m;
  int64_t b = tile / rep_m;
  int wm = warp % warps_m, wn = (warp / warps_m) % warps_n;
  int64_t row = tile_row(im, wm) + lane / 4 + 8 * (c / 2);
  int64_t col = tile_col(in, wn) + 2 * (lane % 4) + c % 2;
  return (b * m + row) * n + col;
}

namespace {

bool fits_fragments(const ir::Type* type) {
  if (!type->is_block() || type->element()->is_pointer()) return false;
  const std::vector<int64_t>& s = type->shape();
  return (s.size() == 2 || s.size() == 3) && s[s.size() - 2] % 16 == 0 && s.back() % 8 == 0;
}

// A block every thread holds as one value (emit_constant, emit_splat).
bool uniform_block(const ir::Value* v) {
  const ir::Op* def = v->def();
  return def != nullptr && v->type()->is_block() && (def->kind() == OpKind::Constant || def->kind() == OpKind::Splat);
}

void collect_ops(const ir::Region& region, std::vector<const ir::Op*>& ops) {
  for (const auto& op : region.ops()) {
    ops.push_back(op.get());
    for (const auto& inner : op->regions()) collect_ops(*inner, ops);
  }
}

// The op whose region holds `op` (null at the function's top level).
const ir::Op* enclosing_op(const ir::Op& op) { return op.parent() == nullptr ? nullptr : op.parent()->parent(); }

bool elementwise_candidate(const ir::Op& op) {
  return has_trait(op.kind(), ir::kElementwise) && op.kind() != OpKind::AddPtr && op.num_results() == 1 &&
         fits_fragments(op.result()->type());
}

}  // namespace

FragmentPlan plan_fragments(const ir::Function& function, int num_warps, int sm) {
  std::vector<const ir::Op*> ops;
  collect_ops(function.body(), ops);
  // Candidates: what a dot result reaches through elementwise ops and loop-carried values.
  std::unordered_set<const ir::Value*> in;
  std::vector<const ir::Value*> work;
  auto reach = [&](const ir::Value* v) {
    if (fits_fragments(v->type()) && in.insert(v).second) work.push_back(v);
  };
  for (const ir::Op* op : ops) {
    if (op->kind() == OpKind::Dot) reach(op->result());  // unless too small: then a flat dot
  }
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    for (const ir::Op* user : v->users()) {
      if (elementwise_candidate(*user)) reach(user->result());
      const ir::Op* loop = enclosing_op(*user);
      if (user->kind() == OpKind::Yield && loop != nullptr && loop->kind() == OpKind::For) {
        for (int i = 0; i < user->num_operands(); ++i) {
          if (user->operand(i) != v) continue;
          reach(loop->region(0)->arg(i + 1));
          reach(loop->result(i));
        }
      }
    }
  }
  // Then drop the candidates whose operands cannot all be read as fragments, until none is left.
  auto ok = [&](const ir::Value* v) { return in.count(v) != 0 || uniform_block(v); };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ir::Op* op : ops) {
      if (elementwise_candidate(*op) && in.count(op->result()) != 0) {
        bool any = false, all = true;
        for (const ir::Value* operand : op->operands()) {
          any = any || in.count(operand) != 0;
          all = all && ok(operand);
        }
        if (!any || !all) changed = in.erase(op->result()) != 0 || changed;
      }
      if (op->kind() == OpKind::For) {
        const ir::Op* yield = op->region(0)->terminator();
        for (int i = 0; i < op->num_results(); ++i) {
          const ir::Value* arg = op->region(0)->arg(i + 1);
          if (in.count(arg) == 0) continue;
          if (in.count(yield->operand(i)) == 0 || !ok(op->operand(i + 3))) {
            in.erase(arg);
            in.erase(op->result(i));
            changed = true;
          }
        }
      }
    }
  }
  FragmentPlan plan;
  for (const ir::Value* v : in) {
    plan.layouts_.emplace(v, FragmentLayout::make(v->type()->shape(), num_warps, /*warpgroups=*/sm == 90));
  }
  for (const ir::Value* v : in) {
    for (const ir::Use& use : v->uses()) {
      if (!reads_fragment(plan, *use.user, use.index)) plan.needs_flat_.insert(v);
    }
  }
  return plan;
}

bool uses_wgmma(const ir::Op& dot, const FragmentLayout& l, int sm, int num_warps) {
  using ir::ScalarKind;
  ScalarKind a = dot.operand(0)->type()->element()->scalar_kind();
  ScalarKind b = dot.operand(1)->type()->element()->scalar_kind();
  ScalarKind r = dot.result()->type()->element()->scalar_kind();
  bool f16 = (a == ScalarKind::F16 && b == ScalarKind::F16) || (ir::is_fp8(a) && ir::is_fp8(b));
  bool bf16 = a == ScalarKind::BF16 && b == ScalarKind::BF16;
  const int64_t k = dot.operand(0)->type()->shape().back();
  return sm == 90 && (f16 || bf16) && r != ScalarKind::F64 && l.batch == 1 && dot.result()->type()->rank() == 2 &&
         num_warps % 4 == 0 && l.warps_m == num_warps && l.warps_n == 1 && l.n >= 16 && k % 16 == 0;
}

bool any_wgmma(const ir::Function& function, const FragmentPlan& plan, int sm, int num_warps) {
  std::vector<const ir::Op*> ops;
  collect_ops(function.body(), ops);
  for (const ir::Op* op : ops) {
    const FragmentLayout* l = op->kind() == OpKind::Dot ? plan.layout(op->result()) : nullptr;
    if (l != nullptr && uses_wgmma(*op, *l, sm, num_warps)) return true;
  }
  return false;
}

bool reads_fragment(const FragmentPlan& plan, const ir::Op& user, int operand) {
  if (user.kind() == OpKind::Dot) return operand == 2;
  if (elementwise_candidate(user)) return plan.layout(user.result()) != nullptr;
  const ir::Op* loop = user.kind() == OpKind::Yield ? enclosing_op(user) : &user;
  if (loop == nullptr || loop->kind() != OpKind::For) return false;
  if (user.kind() == OpKind::Yield) return plan.layout(loop->region(0)->arg(operand + 1)) != nullptr;
  return operand >= 3 && plan.layout(loop->region(0)->arg(operand - 3 + 1)) != nullptr;
}

}  // namespace tritium::nvptx

// The accumulator layout of tensor-core dots and the plan of which values carry it.
#include "target/nvptx/fragment_layout.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "gpu/int8_wgmma.h"
#include "gpu/prefetch_operands.h"
#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"

namespace tritium::nvptx {

using ir::OpKind;

FragmentLayout FragmentLayout::make(const std::vector<int64_t>& shape, int num_warps, bool warpgroups,
                                    bool rows_first) {
  FragmentLayout l;
  size_t rank = shape.size();
  if (rank < 2 || rank > 3) internal_error("nvptx", "a fragment layout of rank other than 2 or 3");
  l.batch = rank == 3 ? shape[0] : 1;
  l.m = shape[rank - 2];
  l.n = shape[rank - 1];
  if (l.m % 16 != 0 || l.n % 8 != 0) internal_error("nvptx", "a fragment layout of a shape tensor cores cannot hold");
  if (warpgroups && rank == 2 && num_warps % 4 == 0 && l.m % (16 * num_warps) == 0 && l.n >= 16) {
    l.warps_m = num_warps;
  } else if (warpgroups && rank == 2 && num_warps % 4 == 0 && l.m % 64 == 0) {
    // Fewer rows than the warps can hold 16 of: the warpgroups go along m as far as the rows
    // allow, the rest side by side along n, each with at least 16 whole columns.
    int groups_m = num_warps / 4;
    while (l.m % (64 * groups_m) != 0) groups_m /= 2;
    const int groups_n = num_warps / 4 / groups_m;
    if (l.n % (16 * groups_n) == 0) {
      l.warps_m = 4 * groups_m;
      l.warps_n = groups_n;
      l.columns_blocked = true;
    }
  }
  // Split the block between warps where it has more tiles left, as long as it has any.
  while (l.warps_m * l.warps_n < num_warps) {
    int64_t left_m = l.m / (16 * l.warps_m), left_n = l.n / (8 * l.warps_n);
    if ((left_m >= left_n || rows_first) && left_m > 1) {
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

FragmentLayout FragmentLayout::rows_of(const FragmentLayout& full) {
  if (full.rows || full.batch != 1) internal_error("nvptx", "fragment rows of a layout other than a 2-D fragment");
  FragmentLayout l;
  l.m = full.m;
  l.n = 1;
  l.warps_m = full.warps_m;
  l.rep_m = full.rep_m;
  l.rows = true;
  return l;
}

int64_t FragmentLayout::element(int warp, int lane, int reg) const {
  if (rows) return tile_row(reg / 2, warp % warps_m) + lane / 4 + 8 * (reg % 2);
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

// The shape of fragment rows: [m] or [m, 1], m a multiple of 16.
bool fits_rows(const ir::Type* type) {
  if (!type->is_block() || type->element()->is_pointer()) return false;
  const std::vector<int64_t>& s = type->shape();
  return (s.size() == 1 || (s.size() == 2 && s[1] == 1)) && s[0] % 16 == 0;
}

// A block every thread holds as one value (emit_constant, emit_splat, and elementwise ops
// of such blocks: map_elements computes them once).
bool uniform_block(const ir::Value* v, int depth = 0) {
  const ir::Op* def = v->def();
  if (def == nullptr || !v->type()->is_block()) return false;
  if (def->kind() == OpKind::Constant || def->kind() == OpKind::Splat) return true;
  if (depth > 8 || !has_trait(def->kind(), ir::kElementwise) || def->kind() == OpKind::AddPtr) return false;
  for (const ir::Value* operand : def->operands()) {
    if (!uniform_block(operand, depth + 1)) return false;
  }
  return def->num_results() == 1;
}

void collect_ops(const ir::Region& region, std::vector<const ir::Op*>& ops) {
  for (const auto& op : region.ops()) {
    ops.push_back(op.get());
    for (const auto& inner : op->regions()) collect_ops(*inner, ops);
  }
}

// The op whose region holds `op` (null at the function's top level).
const ir::Op* enclosing_op(const ir::Op& op) { return op.parent() == nullptr ? nullptr : op.parent()->parent(); }

// The innermost `for` or `while` that holds `op` (null where none does).
const ir::Op* enclosing_loop(const ir::Op& op) {
  for (const ir::Op* parent = enclosing_op(op); parent != nullptr; parent = enclosing_op(*parent)) {
    if (parent->kind() == OpKind::For || parent->kind() == OpKind::While) return parent;
  }
  return nullptr;
}

// Whether `v`, an operand of `user`, is a block defined by an op outside the innermost loop
// that holds `user`, of `user`'s shape and at most kInvariantCopyElements a thread: one
// fragment copy of it, made where it is defined, serves every iteration (invariant_copy).
bool invariant_operand(const ir::Value* v, const ir::Op& user, int num_warps) {
  const ir::Op* loop = enclosing_loop(user);
  const ir::Op* def = v->def();
  if (loop == nullptr || def == nullptr || v->type()->shape() != user.result()->type()->shape() ||
      v->type()->element()->is_pointer() || v->type()->num_elements() > kInvariantCopyElements * 32 * num_warps) {
    return false;
  }
  for (const ir::Op* parent = def; parent != nullptr; parent = enclosing_op(*parent)) {
    if (parent == loop) return false;
  }
  return true;
}

bool elementwise_candidate(const ir::Op& op) {
  return has_trait(op.kind(), ir::kElementwise) && op.kind() != OpKind::AddPtr && op.num_results() == 1 &&
         (fits_fragments(op.result()->type()) || fits_rows(op.result()->type()));
}

// A reduction along the last axis of a 2-D block into [m]: its results can be fragment rows.
bool row_reduce(const ir::Op& op) {
  if (op.kind() != OpKind::Reduce || op.num_operands() < 1) return false;
  const ir::Type* in = op.operand(0)->type();
  return in->is_block() && in->rank() == 2 && op.int_attr("axis") == 1 && fits_fragments(in) &&
         fits_rows(op.result(0)->type());
}

// expand_dims / reshape between [m] and [m, 1]: the same rows.
bool rows_view(const ir::Op& op) {
  return (op.kind() == OpKind::ExpandDims || op.kind() == OpKind::Reshape) && fits_rows(op.operand(0)->type()) &&
         fits_rows(op.result()->type()) && op.operand(0)->type()->shape()[0] == op.result()->type()->shape()[0];
}

// A broadcast of [m, 1] to an [m, n] fragment.
bool rows_broadcast(const ir::Op& op) {
  return op.kind() == OpKind::Broadcast && op.operand(0)->type()->rank() == 2 && fits_rows(op.operand(0)->type()) &&
         fits_fragments(op.result()->type());
}

// A broadcast of a line, a row [1, n] down an [m, n] fragment (`mask[None, :]` added to a
// dot's result) or a column [m, 1] across it (`lse[:, None]` subtracted from it), from a value
// that is no fragment rows (a load: rows_broadcast covers reductions' rows): every register of
// the fragment is the line's element at its column, or at its row (Emitter::line_to_fragment:
// the line through shared memory once, each thread reading the 2 rep_n columns or 2 rep_m rows
// it holds). Inside an `if` too (an early return's else branch holds the rest of the kernel):
// its condition is a scalar, and Emitter::mark_fragment_barriers makes it uniform.
bool line_broadcast(const ir::Op& op) {
  if (op.kind() != OpKind::Broadcast || op.operand(0)->type()->rank() != 2 || op.result()->type()->rank() != 2 ||
      !fits_fragments(op.result()->type()) || op.operand(0)->type()->element()->is_pointer()) {
    return false;
  }
  const std::vector<int64_t>& from = op.operand(0)->type()->shape();
  const std::vector<int64_t>& to = op.result()->type()->shape();
  if (!((from[0] == 1 && from[1] == to[1]) || (from[1] == 1 && from[0] == to[0])) || (from[0] == 1 && from[1] == 1)) {
    return false;
  }
  return true;
}

// The load behind `v`, seen through the conversion of a load made in its slot (async_copy's
// loaded_value), when it is one gpu/prefetch_operands.h marked to be read back.
bool read_back_load(const ir::Value* v, const ir::Region* region) {
  const ir::Op* def = v->def();
  if (def != nullptr && def->kind() == OpKind::ConvertLayout && v->num_uses() == 1) def = def->operand(0)->def();
  return def != nullptr && def->kind() == OpKind::Load && def->parent() == region && def->has_attr(gpu::kReadBackAttr);
}

// A block a `for` carries that gpu/prefetch_operands.h made a read-back operand
// (target/nvptx/async_copy.h, AsyncOperand::read_back): its body argument, the yield passing
// down to it the later iterations' arguments and then a load of the body marked kReadBackAttr,
// the initial values loads so marked before the loop, and every use an op of the body
// itself other than its yield or a dot (async_copy's rule). The copies put it into a stage
// buffer, from which a thread can read any element, so an op of the plan may read it at its
// fragment positions (FragmentPlan::reads_back).
bool read_back_arg(const ir::Value* v, bool line = false) {
  if (!v->is_region_arg() || v->index() == 0) return false;
  if (line ? v->type()->rank() != 1 : !fits_fragments(v->type()) || v->type()->rank() != 2) return false;
  const ir::Region* body = v->region();
  const ir::Op* loop = body->parent();
  if (loop == nullptr || loop->kind() != OpKind::For || body->terminator() == nullptr) return false;
  const ir::Op* yield = body->terminator();
  for (const ir::Use& use : v->uses()) {
    if (use.user->parent() != body || use.user == yield || use.user->kind() == OpKind::Dot) return false;
  }
  std::vector<const ir::Value*> chain = {v};
  const ir::Value* next = yield->operand(v->index() - 1);
  while (next->is_region_arg() && next->region() == body && next->index() > 0 && next->num_uses() == 1 &&
         next->users()[0] == yield && chain.size() < 8) {
    chain.push_back(next);
    next = yield->operand(next->index() - 1);
  }
  if (!read_back_load(next, body)) return false;
  for (const ir::Value* c : chain) {
    if (!read_back_load(loop->operand(c->index() + 2), loop->parent())) return false;
  }
  return true;
}

// Whether `user` reads its operand `operand` in the layout `is_fragment` gives it.
bool reads_in(const std::function<bool(const ir::Value*)>& is_fragment, const ir::Op& user, int operand) {
  // A dot reads its accumulator as fragments, and stages A and B from theirs (stage_operand).
  if (user.kind() == OpKind::Dot) return operand <= 2 && is_fragment(user.operand(operand));
  // A conversion writes fragments into its round trip (emit_convert.cpp).
  if (user.kind() == OpKind::ConvertLayout) return is_fragment(user.operand(0));
  if (elementwise_candidate(user) || rows_view(user) || rows_broadcast(user) || line_broadcast(user)) {
    return is_fragment(user.result());
  }
  if (row_reduce(user)) return is_fragment(user.result(0));
  const ir::Op* loop = user.kind() == OpKind::Yield ? enclosing_op(user) : &user;
  // A branch yields its result's layout.
  if (user.kind() == OpKind::Yield && loop != nullptr && loop->kind() == OpKind::If) return is_fragment(loop->result(operand));
  if (loop == nullptr || loop->kind() != OpKind::For) return false;
  if (user.kind() == OpKind::Yield) return is_fragment(loop->region(0)->arg(operand + 1));
  return operand >= 3 && is_fragment(loop->region(0)->arg(operand - 3 + 1));
}

}  // namespace

bool index_computable(const ir::Value* value, int* budget) {
  return gpu::recomputable(value, budget);  // the allocator's rule, without blocks known uniform
}

namespace {

// Whether `v`, an operand of a fragment's elementwise op or a dot's accumulator, is a line
// broadcast or pure elementwise ops of line broadcasts, uniform and index-computable blocks
// (at most `*budget` ops): then its fragment registers are computed where they are, the
// broadcasts' lines read at each register's column or row. Collects those broadcasts and
// ops in `chain`.
bool line_chain(const ir::Value* v, int* budget, std::vector<const ir::Value*>& chain, bool read_backs) {
  int index_budget = kIndexComputeBudget;
  if (uniform_block(v) || index_computable(v, &index_budget)) return true;
  if (read_backs && read_back_arg(v)) return true;  // read at the fragments (FragmentPlan::reads_back)
  const ir::Op* def = v->def();
  if (def == nullptr || --*budget < 0) return false;
  if (line_broadcast(*def)) {
    chain.push_back(v);
    return true;
  }
  if (!elementwise_candidate(*def) || !fits_fragments(v->type()) || !ir::is_pure(*def)) return false;
  for (const ir::Value* operand : def->operands()) {
    if (operand->type()->shape() != v->type()->shape() || !line_chain(operand, budget, chain, read_backs)) return false;
  }
  chain.push_back(v);
  return true;
}

// Whether `op` may write global memory, or make other threads' writes visible (a barrier), at
// any depth of its regions.
bool may_write(const ir::Op& op) {
  if (has_trait(op.kind(), ir::kWritesGlobal) || op.kind() == OpKind::DebugBarrier) return true;
  if (op.kind() == OpKind::ExternElementwise && !ir::is_pure(op)) return true;
  for (const auto& region : op.regions()) {
    for (const auto& inner : region->ops()) {
      if (may_write(*inner)) return true;
    }
  }
  return false;
}

// Whether no write to global memory may come between `load` and `at`, an op after it in its
// region or nested in an op after it there (line_reloaded).
bool no_write_between(const ir::Op& load, const ir::Op& at) {
  for (const ir::Op* x = &at; x->parent() != nullptr;) {
    const ir::Region& region = *x->parent();
    const size_t end = region.index_of(x);
    if (&region == load.parent()) {
      for (size_t i = region.index_of(&load) + 1; i < end; ++i) {
        if (may_write(*region.ops()[i])) return false;
      }
      return true;
    }
    const ir::Op* parent = region.parent();
    if (parent == nullptr) return false;  // the load is in no region around `at`
    if (parent->kind() == OpKind::For || parent->kind() == OpKind::While) {
      if (may_write(*parent)) return false;  // another iteration's writes come between too
    } else {
      for (size_t i = 0; i < end; ++i) {
        if (may_write(*region.ops()[i])) return false;
      }
    }
    x = parent;
  }
  return false;
}

// line_reloaded's rule for `v`, a value of the line's chain.
bool reloadable(const ir::Value* v, const ir::Op& at, int* budget) {
  if (!v->type()->is_block()) return true;  // a scalar: every thread has it
  // A copied line (async_copy.h's AsyncOperand::line): read from its stage buffer at any element.
  // Read where the line is defined, at its loop body's top level (the barrier of the read,
  // Emitter::wait_for_read_backs, once for the iteration: not inside a branch).
  if (read_back_arg(v, true)) return at.parent() == v->region() && --*budget >= 0;
  int index_budget = kIndexComputeBudget;
  if (index_computable(v, &index_budget)) return true;
  const ir::Op* def = v->def();
  if (def == nullptr) return false;
  switch (def->kind()) {
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::ConvertLayout:
    case OpKind::Broadcast: return reloadable(def->operand(0), at, budget);
    case OpKind::Load: {
      if (ir::is_volatile(*def) || --*budget < 0 || !no_write_between(*def, at)) return false;
      for (const ir::Value* operand : def->operands()) {
        if (operand->type()->is_block() && !gpu::recomputable(operand, budget)) return false;
      }
      return true;
    }
    default: break;
  }
  if (!has_trait(def->kind(), ir::kElementwise) || !ir::is_pure(*def) || def->num_results() != 1 || --*budget < 0) {
    return false;
  }
  for (const ir::Value* operand : def->operands()) {
    if (!reloadable(operand, at, budget)) return false;
  }
  return true;
}

// The loads of a row line's chain (`v` a value of it, its last axis the row's) reached
// through expand_dims to the row, conversions and same-shape elementwise ops only: the
// index space where a thread's two adjacent columns share everything but the last index.
void row_loads(const ir::Value* v, std::vector<const ir::Op*>& loads) {
  const ir::Op* def = v->def();
  if (def == nullptr || !v->type()->is_block()) return;
  if (def->kind() == OpKind::Load) {
    if (std::find(loads.begin(), loads.end(), def) == loads.end()) loads.push_back(def);
    return;
  }
  const bool to_row = def->kind() == OpKind::ExpandDims && def->int_attr("axis") == 0 && v->type()->rank() == 2;
  if (to_row || def->kind() == OpKind::ConvertLayout) return row_loads(def->operand(0), loads);
  if (!has_trait(def->kind(), ir::kElementwise)) return;
  for (const ir::Value* operand : def->operands()) {
    if (operand->type()->is_block() && operand->type()->shape() == v->type()->shape()) row_loads(operand, loads);
  }
}

// The loads of a line's chain (line_reloaded's), each once: what a thread holds per position.
void line_loads(const ir::Value* v, std::vector<const ir::Op*>& loads) {
  const ir::Op* def = v->def();
  if (def == nullptr || !v->type()->is_block()) return;
  if (def->kind() == OpKind::Load) {
    if (std::find(loads.begin(), loads.end(), def) == loads.end()) loads.push_back(def);
    return;
  }
  for (const ir::Value* operand : def->operands()) line_loads(operand, loads);
}

// The registers a thread holds of a reloaded line: its loads' values at each column (a row
// line) or row (a column line) of `l` the thread holds.
int reloaded_registers(const ir::Op& broadcast, const FragmentLayout& l) {
  std::vector<const ir::Op*> loads;
  line_loads(broadcast.operand(0), loads);
  const bool row = broadcast.operand(0)->type()->shape()[0] == 1;
  return static_cast<int>(loads.size()) * 2 * (row ? l.rep_n : l.rep_m) * static_cast<int>(l.batch);
}

// The index in `region` of the op that holds `op` (itself, or an op of the region it is
// nested in); -1 where `op` is outside the region (before it).
int64_t position_in(const ir::Region& region, const ir::Op* op) {
  for (; op != nullptr; op = enclosing_op(*op)) {
    if (op->parent() == &region) return static_cast<int64_t>(region.index_of(op));
  }
  return -1;
}

// The latest position in `region` that the emitter's recompute_at of `v` (a value of a
// reloaded line's chain) needs before it: its loads (no write may come between a load and
// its value) and what it reads from registers (scalars, splats, constants); false where the
// chain reads a value that has no definition (a copied line, a loop-carried block).
bool chain_needs(const ir::Value* v, const ir::Region& region, std::unordered_set<const ir::Value*>& seen, int64_t* at) {
  if (!seen.insert(v).second) return true;
  const ir::Op* def = v->def();
  if (def == nullptr) return !v->type()->is_block();  // a region's scalar argument: there from its start
  if (!v->type()->is_block() || def->kind() == OpKind::Splat || def->kind() == OpKind::Constant) {
    *at = std::max(*at, position_in(region, def));
    return true;
  }
  if (def->kind() == OpKind::Load) *at = std::max(*at, position_in(region, def));
  for (const ir::Value* operand : def->operands()) {
    if (!chain_needs(operand, region, seen, at)) return false;
  }
  return true;
}

// Whether `reshape` flattens `l`'s block (every element in one register of one thread) to
// 1-D for reductions of all its elements by an exact, order-free integer combine only
// (FragmentPlan::reduces_fragments), its flat layout then as many registers a thread,
// each holding an element (Layout::full for any vector width up to 16).
bool full_reduce_view(const ir::Op& reshape, const FragmentLayout& l, int num_warps) {
  const ir::Type* type = reshape.result()->type();
  const int64_t n = type->num_elements();
  const int64_t threads = int64_t{32} * num_warps;
  if (reshape.kind() != OpKind::Reshape || type->rank() != 1 || l.rows || !type->element()->is_scalar() ||
      !ir::is_integer(type->element()->scalar_kind()) || int64_t{l.num_regs()} * threads != n || n % (threads * 16) != 0 ||
      !reshape.result()->has_uses()) {
    return false;
  }
  for (const ir::Use& use : reshape.result()->uses()) {
    const ir::Op& reduce = *use.user;
    if (reduce.kind() != OpKind::Reduce || reduce.num_operands() != 1 || reduce.int_attr("axis") != 0) return false;
    for (const auto& inner : reduce.region(0)->ops()) {
      switch (inner->kind()) {
        case OpKind::And:
        case OpKind::Or:
        case OpKind::Xor:
        case OpKind::Add:
        case OpKind::Mul:
        case OpKind::Maximum:
        case OpKind::Minimum:
        case OpKind::Yield: break;
        default: return false;
      }
    }
  }
  return true;
}

}  // namespace

bool line_reloaded(const ir::Op& broadcast) {
  const ir::Op* def = broadcast.operand(0)->def();
  if (!line_broadcast(broadcast) || def == nullptr) return false;
  int budget = kIndexComputeBudget;
  return reloadable(broadcast.operand(0), *def, &budget);
}

int fragment_pressure(const FragmentPlan& plan, const ir::Op& op, const FragmentLayout& l) {
  int regs = l.num_regs();
  for (const ir::Op* loop = enclosing_op(op); loop != nullptr; loop = enclosing_op(*loop)) {
    if (loop->kind() != OpKind::For) continue;
    for (const auto& arg : loop->region(0)->args()) {
      if (const FragmentLayout* carried = plan.layout(arg.get())) regs += carried->num_regs();
    }
    break;
  }
  return regs;
}

FragmentPlan plan_fragments(const ir::Function& function, int num_warps, int sm, const FragmentOptions& options) {
  const bool read_backs = options.read_backs, a_chains = options.a_chains, guard_reloads = options.guard_reloads;
  const bool a_chains_rows = options.a_chains_rows, early_reloads = options.early_reloads;
  std::vector<const ir::Op*> ops;
  collect_ops(function.body(), ops);
  const bool warpgroups = sm == 90;
  // Candidates: what a dot result reaches through elementwise ops, row reductions, views,
  // broadcasts and loop-carried values.
  std::unordered_set<const ir::Value*> in;
  std::vector<const ir::Value*> work;
  auto reach = [&](const ir::Value* v) {
    if ((fits_fragments(v->type()) || fits_rows(v->type())) && in.insert(v).second) work.push_back(v);
  };
  for (const ir::Op* op : ops) {
    if (op->kind() != OpKind::Dot) continue;
    reach(op->result());  // unless too small: then a flat dot
    // An accumulator chosen by a branch (a mask applied before the dot) is built in place.
    const ir::Value* acc = op->num_operands() > 2 ? op->operand(2) : nullptr;
    if (acc != nullptr && acc->def() != nullptr && acc->def()->kind() == OpKind::If) reach(acc);
  }
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    for (const ir::Op* user : v->users()) {
      if (elementwise_candidate(*user) || rows_view(*user) || rows_broadcast(*user)) reach(user->result());
      if (row_reduce(*user)) {
        for (int i = 0; i < user->num_results(); ++i) reach(user->result(i));
      }
      const ir::Op* loop = enclosing_op(*user);
      if (user->kind() == OpKind::Yield && loop != nullptr && loop->kind() == OpKind::For) {
        for (int i = 0; i < user->num_operands(); ++i) {
          if (user->operand(i) != v) continue;
          reach(loop->region(0)->arg(i + 1));
          reach(loop->result(i));
        }
      }
      if (user->kind() == OpKind::Yield && loop != nullptr && loop->kind() == OpKind::If) {
        for (int i = 0; i < user->num_operands(); ++i) {
          if (user->operand(i) == v) reach(loop->result(i));
        }
      }
    }
  }
  // The operands of candidates' elementwise ops that are computed from broadcast lines
  // (line_chain) become candidates too, held as fragments only while every use reads them so
  // (`line_side`): else the whole chain stays flat and its reader with it. A dot's accumulator
  // likewise (`tl.dot(q, k) + bias[None, :]` folded into the dot).
  std::unordered_set<const ir::Value*> line_side;
  for (const ir::Op* op : ops) {
    const bool dot = op->kind() == OpKind::Dot && in.count(op->result()) != 0 && op->num_operands() > 2;
    if (!dot && (!elementwise_candidate(*op) || in.count(op->result()) == 0 || fits_rows(op->result()->type()))) continue;
    for (int i = dot ? 2 : 0; i < op->num_operands(); ++i) {
      const ir::Value* operand = op->operand(i);
      if (in.count(operand) != 0) continue;
      int budget = kIndexComputeBudget;
      std::vector<const ir::Value*> chain;
      if (!line_chain(operand, &budget, chain, read_backs)) continue;
      for (const ir::Value* c : chain) {
        if (in.insert(c).second) line_side.insert(c);
      }
    }
  }
  // Blocks defined outside a loop that a candidate elementwise op of the loop reads (neither
  // candidates nor computed where each register is): each gets one fragment copy where it is
  // defined, kept below only while some op of the plan reads it.
  std::unordered_map<const ir::Value*, std::vector<const ir::Op*>> invariant;
  for (const ir::Op* op : ops) {
    if (!elementwise_candidate(*op) || in.count(op->result()) == 0 || fits_rows(op->result()->type())) continue;
    for (const ir::Value* operand : op->operands()) {
      int budget = kIndexComputeBudget;
      if (in.count(operand) != 0 || uniform_block(operand) || index_computable(operand, &budget)) continue;
      if (invariant_operand(operand, *op, num_warps)) invariant[operand].push_back(op);
    }
  }
  // Then drop the candidates whose operands cannot all be read in their layout, until none
  // is left. Fragment rows also need one warps_m (the rows' placement) along each chain:
  // a reduction gives its input's, the rest inherit it, and a broadcast back to a fragment
  // needs the fragment's.
  // A kernel that reduces fragments along rows splits their m first (FragmentLayout::make).
  bool rows_first = false;
  for (const ir::Op* op : ops) rows_first = rows_first || (row_reduce(*op) && in.count(op->operand(0)) != 0);
  auto make = [&](const ir::Value* v, bool rows) {
    return FragmentLayout::make(v->type()->shape(), num_warps, warpgroups, rows);
  };
  auto full = [&](const ir::Value* v) { return make(v, rows_first); };
  // A dots' A computed from read-back operands (plan_fragments' `a_chains`, fragment_layout.h):
  // its chain joins the line side when A's fragments are the ones the dot reads from
  // registers (a_in_registers' rule: the result's m and warps_m, whole rows a warp, k16 steps).
  // The chain of each such A (empty where there is none), and whether A's and the result's
  // layouts split m first (`rows`) allow it.
  auto a_chain = [&](const ir::Op& op, bool rows, std::vector<const ir::Value*>& chain) {
    chain.clear();
    if (op.kind() != OpKind::Dot || in.count(op.result()) == 0 || op.result()->type()->rank() != 2) return false;
    const ir::Value* a = op.operand(0);
    const ir::ScalarKind kind = a->type()->element()->scalar_kind();
    if (in.count(a) != 0 || a->def() == nullptr || a->def()->parent() != op.parent() ||
        (kind != ir::ScalarKind::F16 && kind != ir::ScalarKind::BF16) ||
        op.operand(1)->type()->element()->scalar_kind() != kind || !fits_fragments(a->type())) {
      return false;
    }
    const FragmentLayout la = make(a, rows), lr = make(op.result(), rows);
    if (la.batch != 1 || la.m != lr.m || la.warps_m != lr.warps_m || la.warps_n != 1 || lr.warps_n != 1 || la.n % 16 != 0) {
      return false;
    }
    int budget = kIndexComputeBudget;
    if (!line_chain(a, &budget, chain, true)) return false;
    bool reads = false;  // some op of the chain reads a read-back operand
    for (const ir::Value* c : chain) {
      if (c->def() == nullptr || line_broadcast(*c->def())) continue;
      for (const ir::Value* operand : c->def()->operands()) reads = reads || read_back_arg(operand);
    }
    return reads;
  };
  if (read_backs && a_chains) {
    std::vector<const ir::Value*> chain;
    // A chain that fits only where the warps split m first (`a_chains_rows`): the kernel's
    // fragments all split m first.
    for (const ir::Op* op : ops) {
      if (a_chains_rows && !rows_first && !a_chain(*op, false, chain) && a_chain(*op, true, chain)) rows_first = true;
    }
    for (const ir::Op* op : ops) {
      if (!a_chain(*op, rows_first, chain)) continue;
      for (const ir::Value* c : chain) {
        if (in.insert(c).second) line_side.insert(c);
      }
    }
  }
  std::unordered_map<const ir::Value*, int> rows_warps;  // 0 or absent: not known yet
  auto warps_of = [&](const ir::Value* v) {
    auto it = rows_warps.find(v);
    return it == rows_warps.end() ? 0 : it->second;
  };
  auto ok = [&](const ir::Value* v) {
    int budget = kIndexComputeBudget;
    return in.count(v) != 0 || uniform_block(v) || index_computable(v, &budget) || (read_backs && read_back_arg(v));
  };
  auto drop = [&](const ir::Value* v) { return in.erase(v) != 0; };
  auto reads_invariant = [&](const ir::Value* v, const ir::Op* op) {
    auto it = invariant.find(v);
    return it != invariant.end() && std::find(it->second.begin(), it->second.end(), op) != it->second.end();
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Agrees `v` (a rows candidate) with warps_m `w`; false on a conflict.
    auto agree = [&](const ir::Value* v, int w) {
      if (w == 0) return true;
      int& known = rows_warps[v];
      if (known == 0) {
        known = w;
        changed = true;
      }
      return known == w;
    };
    for (const ir::Op* op : ops) {
      if (elementwise_candidate(*op) && in.count(op->result()) != 0) {
        bool any = false, all = true;
        for (const ir::Value* operand : op->operands()) {
          any = any || in.count(operand) != 0;
          all = all && (ok(operand) || reads_invariant(operand, op));
        }
        if (all && any && fits_rows(op->result()->type())) {
          for (const ir::Value* operand : op->operands()) {
            if (in.count(operand) == 0) continue;
            all = all && agree(op->result(), warps_of(operand)) && agree(operand, warps_of(op->result()));
          }
        }
        // An op of a line chain may read index-computable blocks alone (vLLM's `q_mask[:, None]
        // & seq_mask`, each side within the index budget, the two together not): line_chain
        // took it, and each register is computed where it is.
        if (!any && line_side.count(op->result()) != 0) any = true;
        if (!any || !all) changed = drop(op->result()) || changed;
      }
      if (row_reduce(*op) && in.count(op->result(0)) != 0) {
        bool all = true;
        for (const ir::Value* operand : op->operands()) all = all && in.count(operand) != 0;
        int w = all ? full(op->operand(0)).warps_m : 0;
        for (int i = 0; i < op->num_results() && all; ++i) all = agree(op->result(i), w);
        if (!all) {
          for (int i = 0; i < op->num_results(); ++i) changed = drop(op->result(i)) || changed;
        }
      }
      if ((rows_view(*op) || rows_broadcast(*op)) && in.count(op->result()) != 0 && line_side.count(op->result()) == 0) {
        const ir::Value* source = op->operand(0);
        bool keep = in.count(source) != 0;
        if (keep && rows_view(*op)) keep = agree(op->result(), warps_of(source)) && agree(source, warps_of(op->result()));
        if (keep && rows_broadcast(*op)) {
          // Rows and fragment must cover the same rows in the same threads, and the broadcast
          // is worth it only when something reads it as a fragment (else a flat one is cheaper).
          FragmentLayout to = full(op->result());
          keep = (warps_of(source) == 0 || warps_of(source) == to.warps_m) && to.batch == 1;
          bool read = false;
          for (const ir::Use& use : op->result()->uses()) {
            read = read || reads_in([&](const ir::Value* x) { return in.count(x) != 0; }, *use.user, use.index);
          }
          keep = keep && read;
        }
        if (!keep) changed = drop(op->result()) || changed;
      }
      // An op of the candidates that reads a line broadcast's chain is worth its fragments only
      // where something reads it so: one whose readers are all flat (mamba's `dx = acc *
      // dt[:, None]` added to a loaded block) would be converted itself, besides the dot's
      // result the flat readers of that already convert.
      if (elementwise_candidate(*op) && line_side.count(op->result()) == 0 && in.count(op->result()) != 0 &&
          std::any_of(op->operands().begin(), op->operands().end(),
                      [&](const ir::Value* v) { return line_side.count(v) != 0 && in.count(v) != 0; })) {
        bool read = false;
        for (const ir::Use& use : op->result()->uses()) {
          read = read || reads_in([&](const ir::Value* x) { return in.count(x) != 0; }, *use.user, use.index);
        }
        if (!read) changed = drop(op->result()) || changed;
      }
      if (op->num_results() == 1 && line_side.count(op->result()) != 0 && in.count(op->result()) != 0) {
        bool read = true;
        for (const ir::Use& use : op->result()->uses()) {
          read = read && reads_in([&](const ir::Value* x) { return in.count(x) != 0; }, *use.user, use.index);
        }
        if (!read) changed = drop(op->result()) || changed;
      }
      if (op->kind() == OpKind::If) {
        // Both branches must yield values readable in the layout without a round trip (a
        // branch holds no barrier of its own making).
        for (int i = 0; i < op->num_results(); ++i) {
          const ir::Value* result = op->result(i);
          if (in.count(result) == 0) continue;
          bool keep = true;
          for (int r = 0; r < 2 && keep; ++r) {
            const ir::Value* yielded = op->region(r)->terminator()->operand(i);
            keep = ok(yielded);
            if (keep && fits_rows(result->type()) && in.count(yielded) != 0) {
              keep = agree(result, warps_of(yielded)) && agree(yielded, warps_of(result));
            }
          }
          if (!keep) changed = drop(result) || changed;
        }
      }
      if (op->kind() == OpKind::For) {
        const ir::Op* yield = op->region(0)->terminator();
        for (int i = 0; i < op->num_results(); ++i) {
          const ir::Value* arg = op->region(0)->arg(i + 1);
          if (in.count(arg) == 0) continue;
          const ir::Value* init = op->operand(i + 3);
          const ir::Value* next = yield->operand(i);
          // An initial value of the flat layout (`acc = tl.load(C)` before a K loop) goes to
          // the fragments once (an invariant copy where it is defined, below), with
          // `any_inits` (experiment "accfrag", the default): the loop then carries the
          // fragments as it does a zero one, not the flat block converted there and back
          // around each iteration's dot.
          bool keep = in.count(next) != 0 &&
                      (ok(init) || (options.any_inits && !fits_rows(arg->type()) && init->type()->is_block()));
          if (keep && fits_rows(arg->type())) {
            for (const ir::Value* v : std::initializer_list<const ir::Value*>{init, next, op->result(i)}) {
              if (in.count(v) == 0) continue;
              keep = keep && agree(arg, warps_of(v)) && agree(v, warps_of(arg));
            }
            keep = keep && agree(op->result(i), warps_of(arg));
          }
          if (!keep) {
            drop(arg);
            drop(op->result(i));
            changed = true;
          }
        }
      }
    }
    if (!changed) {
      // Rows whose placement no reduction decided (a cycle of loop-carried values only).
      for (const ir::Op* op : ops) {
        for (int i = 0; i < op->num_results(); ++i) {
          const ir::Value* v = op->result(i);
          if (in.count(v) != 0 && fits_rows(v->type()) && warps_of(v) == 0) changed = drop(v) || changed;
        }
        for (const auto& region : op->regions()) {
          for (const auto& arg : region->args()) {
            if (in.count(arg.get()) != 0 && fits_rows(arg->type()) && warps_of(arg.get()) == 0) {
              changed = drop(arg.get()) || changed;
            }
          }
        }
      }
    }
  }
  // A flat initial value of a loop that carries fragments which is a load, or pure
  // elementwise ops of one load with index-computable other operands (a C upcast to f32),
  // each read by the next alone, in the loop's region, the load's pointers, mask and `other`
  // index-computable: the chain is planned in the fragments and the load loads each
  // thread's fragment elements (FragmentPlan::loads_fragment, experiment "accload").
  std::vector<const ir::Op*> direct_loads;
  if (options.any_inits && options.direct_loads) {
    auto computable = [&](const ir::Value* v) {
      int budget = kIndexComputeBudget;
      return v == nullptr || uniform_block(v) || index_computable(v, &budget);
    };
    for (const ir::Op* op : ops) {
      if (op->kind() != OpKind::For) continue;
      for (int i = 0; i < op->num_results(); ++i) {
        const ir::Value* arg = op->region(0)->arg(i + 1);
        const ir::Value* init = op->operand(i + 3);
        if (in.count(arg) == 0 || fits_rows(arg->type()) || !init->type()->is_block() || in.count(init) != 0 || ok(init)) {
          continue;
        }
        std::vector<const ir::Value*> chain;
        const ir::Value* v = init;
        while (v->def() != nullptr && v->def()->parent() == op->parent() && v->num_uses() == 1 &&
               v->type()->shape() == arg->type()->shape() && chain.size() < 4) {
          chain.push_back(v);
          const ir::Op* def = v->def();
          if (def->kind() == OpKind::Load) break;
          if (!elementwise_candidate(*def) || !ir::is_pure(*def)) break;
          const ir::Value* next = nullptr;
          int moving = 0;
          for (const ir::Value* operand : def->operands()) {
            if (computable(operand)) continue;
            ++moving;
            next = operand;
          }
          if (moving != 1) break;
          v = next;
        }
        if (chain.empty() || chain.back()->def()->kind() != OpKind::Load) continue;
        const ir::Op& load = *chain.back()->def();
        const ir::Type* ptr = load.operand(0)->type();
        if (ir::is_volatile(load) || !ptr->is_block() || !ptr->element()->is_pointer() || !computable(load.operand(0)) ||
            !computable(ir::LoadOp(load).mask()) || !computable(ir::LoadOp(load).other())) {
          continue;
        }
        for (const ir::Value* c : chain) in.insert(c);
        direct_loads.push_back(&load);
      }
    }
  }
  FragmentPlan plan;
  for (const ir::Op* load : direct_loads) plan.direct_loads_.insert(load);
  plan.sm_ = sm;
  plan.num_warps_ = num_warps;
  plan.options_ = options;
  for (const ir::Value* v : in) {
    if (fits_rows(v->type())) {
      FragmentLayout l;
      l.m = v->type()->shape()[0];
      l.n = 1;
      l.warps_m = warps_of(v);
      l.rep_m = static_cast<int>(l.m / (16 * l.warps_m));
      l.rows = true;
      plan.layouts_.emplace(v, l);
    } else {
      plan.layouts_.emplace(v, full(v));
    }
  }
  // Full reductions of a flattened block of fragments read the fragments (reduces_fragments).
  for (const ir::Op* op : ops) {
    const FragmentLayout* l = op->kind() == OpKind::Reshape ? plan.layout(op->operand(0)) : nullptr;
    if (options.fragment_reduces && l != nullptr && full_reduce_view(*op, *l, num_warps)) plan.reduce_views_.insert(op);
  }
  for (const ir::Value* v : in) {
    for (const ir::Use& use : v->uses()) {
      if (!reads_fragment(plan, *use.user, use.index)) plan.needs_flat_.insert(v);
    }
  }
  // Read-back operands that ops of the plan read (an elementwise op's operand, a dot's
  // accumulator): read at their fragment positions from the stage buffer.
  if (read_backs) {
    for (const ir::Op* op : ops) {
      const bool dot = op->kind() == OpKind::Dot && op->num_operands() > 2 && in.count(op->result()) != 0;
      if (!dot && (!elementwise_candidate(*op) || in.count(op->result()) == 0)) continue;
      for (int i = dot ? 2 : 0; i < (dot ? 3 : op->num_operands()); ++i) {
        if (in.count(op->operand(i)) == 0 && read_back_arg(op->operand(i))) {
          plan.read_back_.insert(op->operand(i));
        }
      }
    }
  }
  for (const auto& [v, readers] : invariant) {
    const bool read = std::any_of(readers.begin(), readers.end(), [&](const ir::Op* op) { return in.count(op->result()) != 0; });
    if (read) plan.invariant_copies_.emplace(v, full(v));
  }
  // A flat initial value of a loop that carries fragments (any_inits) goes to them right
  // where it is defined (an invariant copy), not where the loop begins: there the loop's
  // prologue copies are in flight and a round trip would start past their stage buffers
  // (C += A @ B at 128 x 128 x 64, 4 warps, 4 stages: 231 KiB of shared memory instead of 194).
  if (options.any_inits) {
    for (const ir::Op* op : ops) {
      if (op->kind() != OpKind::For) continue;
      for (int i = 0; i < op->num_results(); ++i) {
        const FragmentLayout* l = plan.layout(op->region(0)->arg(i + 1));
        const ir::Value* init = op->operand(i + 3);
        if (l != nullptr && !l->rows && init->def() != nullptr && !ok(init)) plan.invariant_copies_.emplace(init, *l);
      }
    }
  }
  // Lines computed again at the fragments of their broadcasts (reloaded_broadcasts); a row's
  // columns come in adjacent pairs for a thread (2 (lane % 4) + {0, 1}), loaded as one where
  // the facts allow (paired_loads). Each thread holds a reloaded line's loaded values at all
  // its positions at once (ptxas issues the loads early), among the fragments live there: a
  // line is reloaded only while those stay within kReloadRegisterBudget, counting the lines
  // reloaded before it in the same loop (mamba's dcb at 64 x 128: 66 registers of two column
  // lines and a row line over 128 of fragments spilled 328 bytes; it takes the round trip).
  std::unique_ptr<analysis::AxisInfoAnalysis> facts;
  std::unordered_map<const ir::Op*, int> reloaded_in;  // by innermost loop (null: none)
  for (const ir::Op* op : ops) {
    if (op->kind() != OpKind::Broadcast || plan.layout(op->result()) == nullptr || plan.layout(op->operand(0)) != nullptr ||
        !line_reloaded(*op)) {
      continue;
    }
    const FragmentLayout& l = *plan.layout(op->result());
    const ir::Op* loop = enclosing_op(*op);
    while (loop != nullptr && loop->kind() != OpKind::For) loop = enclosing_op(*loop);
    const int cost = reloaded_registers(*op, l);
    if (guard_reloads && fragment_pressure(plan, *op, l) + reloaded_in[loop] + cost > kReloadRegisterBudget) continue;
    reloaded_in[loop] += cost;
    plan.reloaded_[op->operand(0)].push_back(op);
    // A row line ([1, n]) defined in a loop: its rep_n column pairs a thread loads there
    // (FragmentPlan::reloads_in_loop).
    const bool row_line = op->operand(0)->type()->shape()[0] == 1;
    for (const ir::Op* at = op->operand(0)->def(); row_line && at != nullptr && !plan.reloads_in_loop_; at = enclosing_op(*at)) {
      plan.reloads_in_loop_ = at != op->operand(0)->def() && at->kind() == OpKind::For;
    }
    if (op->operand(0)->type()->shape()[0] != 1) continue;
    std::vector<const ir::Op*> loads;
    row_loads(op->operand(0), loads);
    for (const ir::Op* load : loads) {
      if (facts == nullptr) facts = std::make_unique<analysis::AxisInfoAnalysis>(function);
      if (gpu::access_width(*load, *facts) >= 2) plan.paired_loads_[op].push_back(load);
    }
  }
  // Lines reloaded early (FragmentPlan::reloaded_early): after the last op their chains
  // need, where ops of the line's region come between that and the line's definition.
  // (In the kernel's order: lines anchored at one op are reloaded in that order.)
  std::unordered_set<const ir::Value*> placed;
  for (const ir::Op* op : ops) {
    if (!early_reloads || op->kind() != OpKind::Broadcast || plan.reloaded_.count(op->operand(0)) == 0 ||
        !placed.insert(op->operand(0)).second) {
      continue;
    }
    const ir::Value* line = op->operand(0);
    const std::vector<const ir::Op*>& broadcasts = plan.reloaded_.at(line);
    const ir::Op* def = line->def();
    if (def == nullptr || def->parent() == nullptr) continue;
    const ir::Region& region = *def->parent();
    int64_t at = -1;
    std::unordered_set<const ir::Value*> seen;
    if (!chain_needs(line, region, seen, &at) || at < 0 || at + 1 >= static_cast<int64_t>(region.index_of(def))) continue;
    int regs = 0;
    for (const ir::Op* b : broadcasts) regs += reloaded_registers(*b, *plan.layout(b->result()));
    if (regs > kEarlyReloadRegisters) continue;
    const ir::Op* anchor = region.ops()[static_cast<size_t>(at)].get();
    plan.early_[line] = anchor;
    plan.reloaded_after_[anchor].push_back(line);
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
  // tf32 (not tf32x3, whose split products run on mma.sync): k8 steps, both operands K-major.
  bool tf32 = gpu::tf32_dot(dot) && ir::DotOp(dot).input_precision() == ir::InputPrecision::Tf32;
  // int8: k32 steps, both operands K-major, where gpu/int8_wgmma.h chose it.
  bool int8 = gpu::int8_on_wgmma(dot);
  const int64_t k = dot.operand(0)->type()->shape().back();
  const bool warpgroups = (l.warps_m == num_warps && l.warps_n == 1) ||
                          (l.columns_blocked && l.warps_m % 4 == 0 && l.warps_m * l.warps_n == num_warps);
  return sm == 90 && (f16 || bf16 || tf32 || int8) && r != ScalarKind::F64 && l.batch == 1 &&
         dot.result()->type()->rank() == 2 && num_warps % 4 == 0 && warpgroups && l.n / l.warps_n >= 16 &&
         k % (tf32 ? 8 : int8 ? 32 : 16) == 0;
}

namespace {
// a_in_registers' conditions on the dot and its A.
bool a_fragment_fits(const ir::Op& dot, const FragmentPlan& plan) {
  const FragmentLayout* l = plan.layout(dot.result());
  const FragmentLayout* a = plan.layout(dot.operand(0));
  if (l == nullptr || a == nullptr || a->rows || l->batch != 1) return false;
  // The f16 / bf16 paths of both instructions (fp8 is widened from shared memory), and tf32.
  ir::ScalarKind kind = dot.operand(0)->type()->element()->scalar_kind();
  ir::ScalarKind b = dot.operand(1)->type()->element()->scalar_kind();
  ir::ScalarKind r = dot.result()->type()->element()->scalar_kind();
  const bool half = (kind == ir::ScalarKind::F16 || kind == ir::ScalarKind::BF16) && b == kind && r != ir::ScalarKind::F64;
  const bool tf32 = gpu::tf32_dot(dot);
  return (half || tf32) && a->batch == 1 && a->m == l->m && a->warps_m == l->warps_m && a->warps_n == 1 &&
         l->warps_n == 1 && a->n % (tf32 ? 8 : 16) == 0;
}
}  // namespace

bool a_in_registers(const ir::Op& dot, const FragmentPlan& plan) {
  if (!a_fragment_fits(dot, plan)) return false;
  if (!gpu::tf32_dot(dot)) return true;
  // tf32 reads K in SharedTile::evens_first order, B's as well: every dot that reads this B
  // reads it so (a copied B is one tile for all of them).
  for (const ir::Use& use : dot.operand(1)->uses()) {
    const ir::Op& user = *use.user;
    if (user.kind() == OpKind::Dot && (use.index != 1 || !gpu::tf32_dot(user) || !a_fragment_fits(user, plan))) return false;
  }
  return true;
}

bool k_evens_first(const ir::Op& dot, const FragmentPlan& plan) { return gpu::tf32_dot(dot) && a_in_registers(dot, plan); }

bool any_wgmma(const ir::Function& function, const FragmentPlan& plan, int sm, int num_warps) {
  std::vector<const ir::Op*> ops;
  collect_ops(function.body(), ops);
  for (const ir::Op* op : ops) {
    const FragmentLayout* l = op->kind() == OpKind::Dot ? plan.layout(op->result()) : nullptr;
    if (l != nullptr && uses_wgmma(*op, *l, sm, num_warps)) return true;
  }
  return false;
}

bool trans_a_m_major(const ir::Op& dot, const FragmentPlan& plan, int sm, int num_warps) {
  const FragmentLayout* l = dot.kind() == OpKind::Dot ? plan.layout(dot.result()) : nullptr;
  if (!plan.options_.trans_a_m_major || l == nullptr || l->batch != 1 || !uses_wgmma(dot, *l, sm, num_warps)) return false;
  using ir::ScalarKind;
  const ir::Value* a = dot.operand(0);
  ScalarKind ka = a->type()->element()->scalar_kind();
  ScalarKind kb = dot.operand(1)->type()->element()->scalar_kind();
  ScalarKind r = dot.result()->type()->element()->scalar_kind();
  if (!(ka == ScalarKind::F16 || ka == ScalarKind::BF16) || kb != ka || r == ScalarKind::F64) return false;
  if (a->def() == nullptr || !gpu::trans_staged_by_dots(*a->def())) return false;
  const FragmentLayout* source = plan.layout(a->def()->operand(0));
  return source != nullptr && !source->rows && source->batch == 1;
}

bool stages_trans_fragments(const ir::Op& dot, int operand, const FragmentPlan& plan, int sm, int num_warps) {
  const FragmentLayout* l = dot.kind() == OpKind::Dot ? plan.layout(dot.result()) : nullptr;
  if (l == nullptr || operand > 1) return false;
  // The tensor-core paths (emit_dot's choose_path other than fma).
  using ir::ScalarKind;
  ScalarKind a = dot.operand(0)->type()->element()->scalar_kind();
  ScalarKind b = dot.operand(1)->type()->element()->scalar_kind();
  ScalarKind r = dot.result()->type()->element()->scalar_kind();
  const bool half = ((a == ScalarKind::F16 && b == ScalarKind::F16) || (a == ScalarKind::BF16 && b == ScalarKind::BF16) ||
                     (ir::is_fp8(a) && ir::is_fp8(b))) &&
                    r != ScalarKind::F64;
  if (!half && !gpu::tf32_dot(dot) && !gpu::int8_dot(dot)) return false;
  const bool wgmma = uses_wgmma(dot, *l, sm, num_warps);
  if (operand == 0) {
    return !wgmma || trans_a_m_major(dot, plan, sm, num_warps) || (plan.options_.trans_a_fragments && !k_evens_first(dot, plan));
  }
  return !(wgmma && k_evens_first(dot, plan));  // an evens_first tile takes the flat copy
}

bool reads_fragment(const FragmentPlan& plan, const ir::Op& user, int operand) {
  if (plan.reduces_fragments(&user)) return operand == 0;
  if (gpu::trans_staged_by_dots(user)) {
    const FragmentLayout* source = plan.layout(user.operand(0));
    if (source == nullptr || source->rows || source->batch != 1) return false;
    for (const ir::Use& use : user.result()->uses()) {
      if (!stages_trans_fragments(*use.user, use.index, plan, plan.sm_, plan.num_warps_)) return false;
    }
    return operand == 0;
  }
  return reads_in([&](const ir::Value* v) { return plan.layout(v) != nullptr; }, user, operand);
}

}  // namespace tritium::nvptx

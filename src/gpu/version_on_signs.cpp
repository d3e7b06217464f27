// version_on_signs (version_on_signs.h).
#include "gpu/version_on_signs.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/axis_info.h"
#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "ir/builder.h"

namespace tritium::gpu {

using ir::OpKind;
using ir::Value;

namespace {

// A test of more scalars than this is not worth a second copy of the kernel.
constexpr size_t kMaxScalars = 4;

bool defined_in(const Value* v, const ir::Region& body) {
  return v->def() == nullptr ? v->region() == &body : v->def()->parent() == &body;
}

// The scalars of the function's body whose being >= 0 makes the int block `v` >= 0:
// through add, multiplication by a constant >= 0, splat, broadcast and expand_dims.
// False when `v` is built some other way.
bool sign_sources(const Value* v, const analysis::AxisInfoAnalysis& axis, const ir::Region& body,
                  std::vector<const Value*>& out) {
  if (axis.get(v).non_negative) return true;
  if (!v->type()->is_block()) {
    if (!defined_in(v, body) || !ir::is_signed(v->type()->scalar_kind())) return false;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return true;
  }
  const ir::Op* def = v->def();
  if (def == nullptr) return false;
  switch (def->kind()) {
    case OpKind::Add:
      return sign_sources(def->operand(0), axis, body, out) && sign_sources(def->operand(1), axis, body, out);
    case OpKind::Mul:
      for (int i = 0; i < 2; ++i) {
        const analysis::AxisInfo& factor = axis.get(def->operand(1 - i));
        if (factor.constant && *factor.constant >= 0) return sign_sources(def->operand(i), axis, body, out);
      }
      return false;
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
      return sign_sources(def->operand(0), axis, body, out);
    default:
      return false;
  }
}

// A remainder whose dividend's sign the facts do not know: for a dividend >= 0 the rem rule
// of axis_info.cpp may find runs (which the trial in `widens` asks the analysis about).
bool sign_unknown_rem(const ir::Op& op, const analysis::AxisInfoAnalysis& axis) {
  if (op.kind() != OpKind::Rem) return false;
  const ir::Type* type = op.result()->type();
  return type->is_block() && type->is_int() && ir::is_signed(type->element()->scalar_kind()) &&
         !axis.get(op.operand(0)).non_negative;
}

void collect(const ir::Region& region, const std::function<bool(const ir::Op&)>& which,
             std::vector<const ir::Op*>& out) {
  for (const auto& op : region.ops()) {
    if (which(*op)) out.push_back(op.get());
    for (const auto& inner : op->regions()) collect(*inner, which, out);
  }
}

void mark_loads_cold(ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == OpKind::Load) op->set_attr(kColdAttr, int64_t{1});
    for (const auto& inner : op->regions()) mark_loads_cold(*inner);
  }
}

// The width an access gets: the facts' width along its best axis (the last, or another that
// coalesce.h or a transposed dot-operand copy would use: an M-major A behind the tutorial's
// `% M`), at most the elements each thread has (vector_widths.h's cap; a wider proof changes
// nothing there).
int capped_width(const ir::Op& access, const analysis::AxisInfoAnalysis& axis, int threads) {
  const ir::Type* type = access.operand(0)->type();
  int64_t per_thread = std::max<int64_t>(1, type->num_elements() / threads);
  int64_t best = access_width(access, axis);
  if (type->is_block() && type->is_ptr() && axis.has(access.operand(0)) &&
      (access.kind() == OpKind::Load || access.kind() == OpKind::Store)) {
    for (int d = 0; d + 1 < type->rank(); ++d) best = std::max(best, access_width_along(access, d, axis));
  }
  return static_cast<int>(std::min<int64_t>(best, per_thread));
}

// Whether assuming `scalars` >= 0 makes some load or store wider than `widths` says; if so,
// `widths` becomes what they get then.
bool widens(const ir::Function& function, const std::vector<const Value*>& scalars,
            const std::vector<const ir::Op*>& accesses, std::vector<int>& widths, int threads) {
  analysis::AxisInfoAnalysis assumed(function, {scalars.begin(), scalars.end()});
  std::vector<int> now;
  for (const ir::Op* access : accesses) now.push_back(capped_width(*access, assumed, threads));
  for (size_t i = 0; i < accesses.size(); ++i) {
    if (now[i] > widths[i]) {
      widths = std::move(now);
      return true;
    }
  }
  return false;
}

// The scalars worth testing: those of each rem with a dividend of unknown sign, kept only
// when they make an access wider than the scalars kept before them do.
std::vector<const Value*> scalars_to_test(const ir::Function& function, int threads) {
  analysis::AxisInfoAnalysis axis(function);
  std::vector<const ir::Op*> accesses;
  collect(function.body(), [](const ir::Op& op) { return op.kind() == OpKind::Load || op.kind() == OpKind::Store; },
          accesses);
  std::vector<int> widths;
  for (const ir::Op* op : accesses) widths.push_back(capped_width(*op, axis, threads));
  std::vector<const ir::Op*> rems;
  collect(function.body(), [&](const ir::Op& op) { return sign_unknown_rem(op, axis); }, rems);
  std::vector<const Value*> chosen;
  for (const ir::Op* rem : rems) {
    std::vector<const Value*> scalars;
    if (!sign_sources(rem->operand(0), axis, function.body(), scalars) || scalars.empty()) continue;
    std::vector<const Value*> with = chosen;
    for (const Value* s : scalars) {
      if (std::find(with.begin(), with.end(), s) == with.end()) with.push_back(s);
    }
    if (with.size() > kMaxScalars || with.size() == chosen.size()) continue;
    if (widens(function, with, accesses, widths, threads)) chosen = std::move(with);
  }
  return chosen;
}

// Pure ops before `end` that read a tested scalar (directly or through each other) but that
// no tested scalar is computed from, moved down to just before `end` (their order kept), so
// that both versions compute them, each with its own facts: the tutorial's `% M` rows,
// computed from pid_m before pid_n's scalar is known. Returns where the test goes now.
size_t sink_below(ir::Region& body, const std::vector<const Value*>& scalars, size_t end) {
  std::unordered_set<const ir::Op*> feeds;  // ops some tested scalar is computed from
  std::vector<const ir::Op*> work;
  for (const Value* s : scalars) {
    if (s->def() != nullptr && s->def()->parent() == &body) work.push_back(s->def());
  }
  while (!work.empty()) {
    const ir::Op* op = work.back();
    work.pop_back();
    if (!feeds.insert(op).second) continue;
    for (const Value* v : op->operands()) {
      if (v->def() != nullptr && v->def()->parent() == &body) work.push_back(v->def());
    }
  }
  std::unordered_set<const Value*> reads(scalars.begin(), scalars.end());  // values computed from them
  std::vector<ir::Op*> sink;
  for (size_t i = 0; i < end; ++i) {
    ir::Op* op = body.ops()[i].get();
    bool reads_scalar = std::any_of(op->operands().begin(), op->operands().end(), [&](const Value* v) { return reads.count(v) != 0; });
    if (!reads_scalar || feeds.count(op) != 0 || !ir::is_pure(*op) || !op->regions().empty()) continue;
    for (int r = 0; r < op->num_results(); ++r) reads.insert(op->result(r));
    sink.push_back(op);
  }
  // Each taken op leaves the ops after it one place up: reinserted at end - 1, they keep
  // their order, and the test goes before the first of them.
  for (ir::Op* op : sink) {
    std::unique_ptr<ir::Op> taken = body.take(op);
    body.insert(end - 1, std::move(taken));
  }
  return end - sink.size();
}

}  // namespace

bool versions_on_signs(const ir::Function&, const GpuOptions& options) { return options.vectorize; }

void version_on_signs(ir::Function& function, const GpuOptions& options) {
  if (!versions_on_signs(function, options)) return;
  std::vector<const Value*> scalars = scalars_to_test(function, 32 * options.num_warps);
  if (scalars.empty()) return;
  ir::Region& body = function.body();
  ir::Op* last_op = body.terminator();
  if (last_op == nullptr || last_op->kind() != OpKind::Return) return;

  // The test goes right after the last of the scalars is defined.
  size_t first_moved = 0;
  for (const Value* s : scalars) {
    if (s->def() != nullptr) first_moved = std::max(first_moved, body.index_of(s->def()) + 1);
  }
  first_moved = sink_below(body, scalars, first_moved);
  ir::Builder b = ir::Builder::before(body.ops()[first_moved].get());  // at most the return
  const Loc& loc = body.ops()[first_moved]->loc();
  const ir::Type* i1 = ir::Type::scalar(ir::ScalarKind::I1);
  std::vector<Value*> zeros;
  Value* all = nullptr;
  for (const Value* s : scalars) {
    zeros.push_back(b.int_constant(s->type(), 0, loc));
    ir::Op* cmp = b.create(OpKind::Cmp, {i1}, {const_cast<Value*>(s), zeros.back()}, loc);
    ir::set_enum_attr(*cmp, ir::CmpPredicate::Ge);
    all = all == nullptr ? cmp->result() : b.create_value(OpKind::And, i1, {all, cmp->result()}, loc);
  }
  ir::Op* branch = b.create(OpKind::If, {}, {all}, loc);
  ir::Region* then_region = branch->add_region();
  ir::Region* else_region = branch->add_region();

  // The rest of the body, as written, becomes the else branch.
  size_t at = body.index_of(branch) + 1;
  while (body.ops()[at].get() != last_op) else_region->insert(else_region->ops().size(), body.take(body.ops()[at].get()));
  ir::Builder(else_region).create(OpKind::Yield, {}, {}, loc);

  // Its copy, with each scalar s read as maximum(s, 0), becomes the then branch.
  ir::Builder then_builder(then_region);
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < scalars.size(); ++i) {
    Value* s = const_cast<Value*>(scalars[i]);
    map[s] = then_builder.create_value(OpKind::Maximum, s->type(), {s, zeros[i]}, loc);
  }
  for (const auto& op : else_region->ops()) ir::clone_op(*op, *then_region, map);

  // Only now (the then branch's clones stay as they were): the else branch's loads are cold.
  mark_loads_cold(*else_region);
}

bool is_cold(const ir::Op& op) {
  const ir::AttrValue* attr = op.find_attr(kColdAttr);
  return attr != nullptr && *attr != ir::AttrValue(int64_t{0});
}

bool computes_cold_addresses(const ir::Op& load, int width) {
  int budget = kRecomputeBudget;
  return width == 1 && load.kind() == OpKind::Load && is_cold(load) && recomputable(load.operand(0), &budget);
}

bool loads_at_cold_addresses(const ir::Op& load, int width) {
  if (!load.result()->type()->is_block()) return false;
  bool in_loop = false;
  for (const ir::Region* region = load.parent(); region != nullptr && region->parent() != nullptr && !in_loop;
       region = region->parent()->parent()) {
    in_loop = region->parent()->kind() == OpKind::For || region->parent()->kind() == OpKind::While;
  }
  return in_loop && computes_cold_addresses(load, width);
}

}  // namespace tritium::gpu

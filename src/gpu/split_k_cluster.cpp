// split_k_cluster (split_k_cluster.h): the eligibility analysis and the loop split.
#include "gpu/split_k_cluster.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/attrs.h"
#include "ir/builder.h"
#include "ir/op_views.h"
#include "ir/types.h"
#include "transforms/rewrite.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

// How a carried value changes from one iteration to the next.
enum class Carried { Accumulator, Stepped, PassedThrough };

struct Plan {
  Op* loop = nullptr;
  int acc = -1;                 // index among the carried values
  std::vector<Carried> kinds;   // one per carried value
  std::vector<Value*> steps;    // the loop-invariant step of each Stepped value, else null
};

// Whether `op` lies inside `loop` (in one of its regions, at any depth).
bool inside(const Op* op, const Op* loop) {
  for (const Region* r = op->parent(); r != nullptr; r = r->parent() ? r->parent()->parent() : nullptr) {
    if (r->parent() == loop) return true;
  }
  return false;
}

bool defined_inside(const Value* v, const Op* loop) {
  if (v->def() != nullptr) return inside(v->def(), loop);
  for (const Region* r = v->region(); r != nullptr; r = r->parent() ? r->parent()->parent() : nullptr) {
    if (r->parent() == loop) return true;
  }
  return false;
}

// The first op in `region` (at any depth) with a side effect the second CTA must not repeat.
const Op* side_effect_in(const Region& region) {
  for (const auto& op : region.ops()) {
    if (ir::has_trait(op->kind(), ir::kWritesGlobal) || ir::has_trait(op->kind(), ir::kSideEffect)) return op.get();
    for (const auto& inner : op->regions()) {
      if (const Op* found = side_effect_in(*inner)) return found;
    }
  }
  return nullptr;
}

// Whether `v` has one value through the loop: defined outside it, or by pure ops of the
// loop's body (no region, no memory) from such values (`BLOCK_K * stride_ak`, splatted).
bool invariant(const Value* v, const Op* loop, int depth = 0) {
  if (!defined_inside(v, loop)) return true;
  const Op* def = v->def();
  if (def == nullptr || depth > 16 || def->parent() != loop->region(0) || !def->regions().empty() ||
      !ir::has_trait(def->kind(), ir::kPure) || ir::has_trait(def->kind(), ir::kMaySync)) {
    return false;
  }
  for (const Value* o : def->operands()) {
    if (!invariant(o, loop, depth + 1)) return false;
  }
  return true;
}

// `v` (invariant) computed before the loop: the ops of the body it needs copied there.
Value* before_loop(Value* v, Op* loop, std::unordered_map<const Value*, Value*>& map) {
  if (!defined_inside(v, loop)) return v;
  auto it = map.find(v);
  if (it != map.end()) return it->second;
  const Op* def = v->def();
  for (Value* o : def->operands()) before_loop(o, loop, map);
  Region* parent = loop->parent();
  Op* copy = ir::clone_op(*def, *parent, map);
  std::unique_ptr<Op> moved = parent->take(copy);
  parent->insert(parent->index_of(loop), std::move(moved));
  return map.at(v);
}

std::string carried_name(int j) { return "carried value #" + std::to_string(j); }

std::string analyse(const ir::Function& function, Plan* plan) {
  const Region& body = function.body();
  Op* loop = nullptr;
  for (const auto& op : body.ops()) {
    if (op->kind() == OpKind::While) return "a top-level while loop";
    if (op->kind() != OpKind::For) continue;
    if (loop != nullptr) return "more than one top-level loop";
    loop = op.get();
  }
  if (loop == nullptr) return "no top-level loop";
  for (const auto& op : body.ops()) {
    if (op.get() == loop) break;
    if (ir::has_trait(op->kind(), ir::kWritesGlobal) || ir::has_trait(op->kind(), ir::kSideEffect)) {
      return "a side effect before the loop (" + std::string(ir::op_name(op->kind())) + ")";
    }
    for (const auto& inner : op->regions()) {
      if (const Op* found = side_effect_in(*inner)) {
        return "a side effect before the loop (" + std::string(ir::op_name(found->kind())) + ")";
      }
    }
  }
  if (const Op* found = side_effect_in(*loop->region(0))) {
    return "a side effect in the loop (" + std::string(ir::op_name(found->kind())) + ")";
  }
  ir::ForOp view(*loop);
  int64_t step = 0;
  if (!transforms::int_constant_of(view.step(), &step) || step <= 0) return "the loop's step is not a positive constant";
  const ScalarKind iv = view.lower()->type()->scalar_kind();
  if (iv != ScalarKind::I32 && iv != ScalarKind::I64) return "the loop's iteration variable is not i32 or i64";

  const Region& loop_body = *loop->region(0);
  const Op* yield = loop_body.terminator();
  const int carried = loop->num_results();
  plan->loop = loop;
  plan->kinds.assign(carried, Carried::PassedThrough);
  plan->steps.assign(carried, nullptr);
  for (int j = 0; j < carried; ++j) {
    Value* arg = loop_body.arg(j + 1);
    Value* next = yield->operand(j);
    const Op* def = next->def();
    if (next == arg) continue;
    if (def != nullptr && def->kind() == OpKind::Dot && def->parent() == &loop_body && def->operand(2) == arg) {
      const ScalarKind k = arg->type()->element()->scalar_kind();
      if (k != ScalarKind::F32 && k != ScalarKind::I32) return "the accumulator is not fp32 or int32";
      if (arg->num_uses() != 1) return "the accumulator is read in the loop other than by its dot";
      if (next->num_uses() != 1) return "the dot's result is used in the loop other than as the next accumulator";
      if (plan->acc >= 0) return "more than one accumulator";
      plan->acc = j;
      plan->kinds[j] = Carried::Accumulator;
      continue;
    }
    if (def != nullptr && def->parent() == &loop_body &&
        ((def->kind() == OpKind::AddPtr && def->operand(0) == arg) ||
         (def->kind() == OpKind::Add && arg->type()->is_int() && (def->operand(0) == arg || def->operand(1) == arg)))) {
      Value* s = def->operand(0) == arg && def->kind() == OpKind::Add ? def->operand(1)
                 : def->kind() == OpKind::AddPtr                     ? def->operand(1)
                                                                     : def->operand(0);
      if (s == arg) return carried_name(j) + " is doubled each iteration";
      if (!invariant(s, loop)) return carried_name(j) + " moves by a step that changes in the loop";
      plan->kinds[j] = Carried::Stepped;
      plan->steps[j] = s;
      continue;
    }
    if (def != nullptr && def->kind() == OpKind::Dot) return "the accumulator is not the dot's own (acc = dot(a, b, acc))";
    return carried_name(j) + " is neither the accumulator nor moved by a loop-invariant step";
  }
  if (plan->acc < 0) return "no dot accumulator carried by the loop";
  // A stepped value used after the loop gets its final value recomputed there (each rank's
  // loop ends it after its own share); one passed through is the same in every rank.
  return "";
}

bool debug() {
  const char* v = std::getenv("TRITIUM_KSPLIT_DEBUG");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

Value* cast_to(ir::Builder& b, Value* v, const Type* type, const Loc& loc) {
  return v->type() == type ? v : b.create_value(OpKind::Cast, type, {v}, loc);
}

// The trip count's upper bound as the launch can compute it (runtime/kernel_gpu.cpp): one
// integer kernel parameter (its index in *param) through ops with constants, as pairs
// (TripOp, constant) in *ops, applied in order (apply_trip_formula); integer casts pass
// through.
bool trip_formula(const ir::Function& function, const Value* v, int depth, int64_t* param, std::vector<int64_t>* ops) {
  if (depth > 8 || !v->type()->is_int() || v->type()->is_block()) return false;
  if (v->is_region_arg()) {
    const auto& params = function.params();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].arg == v && params[i].part == ir::ArgPart::Whole) {
        *param = static_cast<int64_t>(params[i].source_index(i));
        return true;
      }
    }
    return false;
  }
  const Op* def = v->def();
  if (def->kind() == OpKind::Cast) return trip_formula(function, def->operand(0), depth + 1, param, ops);
  static const std::pair<OpKind, TripOp> kCodes[] = {{OpKind::Add, TripOp::Add}, {OpKind::Sub, TripOp::Sub},
                                                     {OpKind::Mul, TripOp::Mul}, {OpKind::Div, TripOp::Div},
                                                     {OpKind::Maximum, TripOp::Max}, {OpKind::Minimum, TripOp::Min}};
  std::optional<TripOp> code;
  for (const auto& [kind, c] : kCodes) {
    if (def->kind() == kind) code = c;
  }
  if (!code || def->num_operands() != 2) return false;
  int64_t c = 0;
  const bool right = transforms::int_constant_of(def->operand(1), &c);
  if (!right && !transforms::int_constant_of(def->operand(0), &c)) return false;
  if (!right && *code == TripOp::Sub) code = TripOp::SubFrom;  // c - x
  if (!right && *code == TripOp::Div) return false;            // c / x
  if (*code == TripOp::Div && c <= 0) return false;
  if (!trip_formula(function, def->operand(right ? 0 : 1), depth + 1, param, ops)) return false;
  ops->push_back(static_cast<int64_t>(*code));
  ops->push_back(c);
  return true;
}

// The split size for `requested` CTAs: where the loop's trip count is a constant, the
// largest of requested, requested / 2, ..., 2 that leaves each rank at least
// kMinTripsPerRank iterations (0: none does); else `requested`.
int fitted_size(const Plan& plan, int requested, int64_t* constant_trips) {
  ir::ForOp view(*plan.loop);
  int64_t lo = 0, hi = 0, step = 1;
  *constant_trips = -1;
  if (!transforms::int_constant_of(view.lower(), &lo) || !transforms::int_constant_of(view.upper(), &hi)) return requested;
  transforms::int_constant_of(view.step(), &step);
  const int64_t n = hi > lo ? (hi - lo + step - 1) / step : 0;
  *constant_trips = n;
  for (int size = requested; size >= 2; size /= 2) {
    if (n >= static_cast<int64_t>(size) * kMinTripsPerRank) return size;
  }
  return 0;
}

void split(const ir::Function& function, const Plan& plan, int size) {
  Op* loop = plan.loop;
  ir::ForOp view(*loop);
  // What the launch needs to count the trips (trip_formula), before the bounds change.
  int64_t param = -1, lower_constant = 0;
  std::vector<int64_t> ops;
  const bool formula = transforms::int_constant_of(view.lower(), &lower_constant) &&
                       trip_formula(function, view.upper(), 0, &param, &ops);
  const Loc& loc = loop->loc();
  ir::Builder b = ir::Builder::before(loop);
  const Type* i32 = Type::scalar(ScalarKind::I32);
  const Type* t = view.lower()->type();
  int64_t s = 0;
  transforms::int_constant_of(view.step(), &s);
  Op* rank_op = b.create(OpKind::ProgramId, {i32}, {}, loc);
  rank_op->set_attr("axis", kClusterRankAxis);
  Value* rank32 = rank_op->result();
  Value* rank = cast_to(b, rank32, t, loc);
  Value* lower = view.lower();
  Value* upper = view.upper();
  Value* span = b.create_value(OpKind::Maximum, t, {b.create_value(OpKind::Sub, t, {upper, lower}, loc), b.int_constant(t, 0, loc)}, loc);
  Value* trips = s == 1 ? span
                        : b.create_value(OpKind::Div, t,
                                         {b.create_value(OpKind::Add, t, {span, b.int_constant(t, s - 1, loc)}, loc),
                                          b.int_constant(t, s, loc)},
                                         loc);
  // Rank r runs iterations [r * h, min((r + 1) * h, n)) of the n, h = ceil(n / size).
  Value* share = b.create_value(OpKind::Div, t,
                                {b.create_value(OpKind::Add, t, {trips, b.int_constant(t, size - 1, loc)}, loc),
                                 b.int_constant(t, size, loc)},
                                loc);
  Value* skipped = b.create_value(OpKind::Mul, t, {rank, share}, loc);
  Value* scaled = s == 1 ? skipped : b.create_value(OpKind::Mul, t, {skipped, b.int_constant(t, s, loc)}, loc);
  Value* new_lower = b.create_value(OpKind::Add, t, {lower, scaled}, loc);
  Value* ended = b.create_value(OpKind::Add, t, {skipped, share}, loc);
  Value* end = b.create_value(OpKind::Add, t,
                              {lower, s == 1 ? ended : b.create_value(OpKind::Mul, t, {ended, b.int_constant(t, s, loc)}, loc)},
                              loc);
  Op* is_first = b.create(OpKind::Cmp, {Type::scalar(ScalarKind::I1)}, {rank32, b.int_constant(i32, 0, loc)}, loc);
  ir::set_enum_attr(*is_first, ir::CmpPredicate::Eq);
  Value* first = is_first->result();
  Value* new_upper = b.create_value(OpKind::Minimum, t, {end, upper}, loc);
  loop->set_operand(0, new_lower);
  loop->set_operand(1, new_upper);
  std::unordered_map<const Value*, Value*> invariant_copies;
  for (int j = 0; j < static_cast<int>(plan.kinds.size()); ++j) {
    Value* init = loop->operand(3 + j);
    if (plan.kinds[j] == Carried::Accumulator) {
      const Type* type = init->type();
      Value* zero = type->is_float() ? b.float_constant(type, 0.0, loc) : b.int_constant(type, 0, loc);
      Value* cond = type->is_block()
                        ? b.create_value(OpKind::Splat, type->with_element(Type::scalar(ScalarKind::I1)), {first}, loc)
                        : first;
      loop->set_operand(3 + j, b.create_value(OpKind::Select, type, {cond, init, zero}, loc));
    } else if (plan.kinds[j] == Carried::Stepped) {
      Value* step = before_loop(plan.steps[j], loop, invariant_copies);
      const Type* st = step->type();
      Value* k = cast_to(b, skipped, st->element(), loc);
      if (st->is_block()) k = b.create_value(OpKind::Splat, st, {k}, loc);
      Value* delta = b.create_value(OpKind::Mul, st, {k, step}, loc);
      const OpKind move = init->type()->element()->is_pointer() ? OpKind::AddPtr : OpKind::Add;
      loop->set_operand(3 + j, b.create_value(move, init->type(), {init, delta}, loc));
    }
  }
  // Stepped values used after the loop: init + n * step, as the unsplit loop ends them (each
  // rank's loop ends them after its own share).
  ir::Builder after = ir::Builder::after(loop);
  for (int j = 0; j < static_cast<int>(plan.kinds.size()); ++j) {
    Value* result = loop->result(j);
    if (plan.kinds[j] != Carried::Stepped || !result->has_uses()) continue;
    Value* init = loop->operand(3 + j);  // rank r's start: init + r * h * step
    Value* original = init->def()->operand(0);
    Value* step = before_loop(plan.steps[j], loop, invariant_copies);
    const Type* st = step->type();
    Value* k = cast_to(after, trips, st->element(), loc);
    if (st->is_block()) k = after.create_value(OpKind::Splat, st, {k}, loc);
    Value* delta = after.create_value(OpKind::Mul, st, {k, step}, loc);
    const OpKind move = original->type()->element()->is_pointer() ? OpKind::AddPtr : OpKind::Add;
    Value* final_value = after.create_value(move, original->type(), {original, delta}, loc);
    result->replace_all_uses_with(final_value);
  }
  loop->set_attr("cluster_sum", static_cast<int64_t>(plan.acc));
  loop->set_attr("cluster_ctas", static_cast<int64_t>(size));
  if (formula) {
    loop->set_attr("trips_param", param);
    loop->set_attr("trips_lower", lower_constant);
    loop->set_attr("trips_ops", ops);
  }
}

}  // namespace

std::optional<int64_t> apply_trip_formula(int64_t x, const std::vector<int64_t>& ops) {
  constexpr int64_t kLimit = int64_t{1} << 62;
  for (size_t i = 0; i + 1 < ops.size(); i += 2) {
    const int64_t c = ops[i + 1];
    if (x > kLimit || x < -kLimit || c > kLimit || c < -kLimit) return std::nullopt;
    switch (static_cast<TripOp>(ops[i])) {
      case TripOp::Add: x += c; break;
      case TripOp::Sub: x -= c; break;
      case TripOp::SubFrom: x = c - x; break;
      case TripOp::Mul:
        if (c != 0 && (x > kLimit / (c < 0 ? -c : c) || x < -kLimit / (c < 0 ? -c : c))) return std::nullopt;
        x *= c;
        break;
      case TripOp::Div:
        if (c <= 0) return std::nullopt;
        x /= c;
        break;
      case TripOp::Max: x = std::max(x, c); break;
      case TripOp::Min: x = std::min(x, c); break;
      default: return std::nullopt;
    }
  }
  return x;
}

std::string split_k_reason(const ir::Function& function) {
  Plan plan;
  return analyse(function, &plan);
}

bool splits_k(const ir::Function&, const GpuOptions& options) {
  return (options.split_k == 2 || options.split_k == 4 || options.split_k == 8) && options.sm >= 90;
}

void split_k_cluster(ir::Function& function, const GpuOptions& options) {
  Plan plan;
  std::string reason = analyse(function, &plan);
  // (The code generator runs the pass only where splits_k says so; `tritium opt` always,
  // over 2 CTAs unless its options ask for 4 or 8.)
  const int requested = options.split_k == 4 || options.split_k == 8 ? options.split_k : 2;
  int size = requested;
  int64_t trips = -1;
  if (reason.empty()) {
    size = fitted_size(plan, requested, &trips);
    if (size == 0) {
      reason = std::to_string(trips) + " iterations, fewer than " + std::to_string(2 * kMinTripsPerRank) +
               " (each of 2 CTAs would run fewer than " + std::to_string(kMinTripsPerRank) + ")";
    }
  }
  if (debug()) {
    std::fprintf(stderr, "ksplit: kernel '%s': %s\n", function.name().c_str(),
                 reason.empty() ? ("K loop split over a cluster of " + std::to_string(size)).c_str()
                                : ("not split: " + reason).c_str());
  }
  if (!reason.empty()) return;
  split(function, plan, size);
}

namespace {
int split_size_in(const Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == OpKind::For && op->has_attr("cluster_sum")) {
      return op->has_attr("cluster_ctas") ? static_cast<int>(op->int_attr("cluster_ctas")) : 2;
    }
    for (const auto& inner : op->regions()) {
      if (const int size = split_size_in(*inner)) return size;
    }
  }
  return 0;
}
}  // namespace

// (version_on_signs may have moved the loop into both branches of an `if`.)
bool has_split_k(const ir::Function& function) { return split_k_size(function) > 0; }

int split_k_size(const ir::Function& function) { return split_size_in(function.body()); }

}  // namespace tritium::gpu

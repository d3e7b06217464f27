// prefetch_loads (see prefetch_loads.h): the loads of iteration i + 1 issued in iteration i,
// before its dot, and carried into the next iteration; the first ones before the loop.
#include "transforms/prefetch_loads.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/attrs.h"
#include "ir/builder.h"
#include "ir/op_views.h"
#include "transforms/eliminate_dead_code.h"

namespace tritium::transforms {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Type;
using ir::Value;

namespace {

// The kernel arguments a pointer (or pointer block) is computed from, added to `bases`:
// through pointer arithmetic, views, layout changes, selects, pointer casts and the values
// loops and branches carry. False where some source is anything else (a pointer loaded from
// memory, made from an integer): then it may point anywhere.
bool pointer_bases(const Value* v, std::unordered_set<const Value*>& bases, std::unordered_set<const Value*>& seen) {
  if (!seen.insert(v).second) return true;
  if (v->is_region_arg()) {
    const Region* region = v->region();
    const Op* owner = region->parent();
    if (owner == nullptr) {  // an argument of the kernel
      bases.insert(v);
      return true;
    }
    if (owner->kind() != OpKind::For || v->index() == 0) return false;
    const Op* yield = region->terminator();
    return yield != nullptr && pointer_bases(owner->operand(v->index() + 2), bases, seen) &&
           pointer_bases(yield->operand(v->index() - 1), bases, seen);
  }
  const Op& op = *v->def();
  switch (op.kind()) {
    case OpKind::AddPtr:
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Trans:
    case OpKind::ConvertLayout:
    case OpKind::DescriptorTile:
      return pointer_bases(op.operand(0), bases, seen);
    case OpKind::Cast:
      return op.operand(0)->type()->is_ptr() && pointer_bases(op.operand(0), bases, seen);
    case OpKind::Select:
      return pointer_bases(op.operand(1), bases, seen) && pointer_bases(op.operand(2), bases, seen);
    case OpKind::Join:
    case OpKind::Cat:
      return pointer_bases(op.operand(0), bases, seen) && pointer_bases(op.operand(1), bases, seen);
    case OpKind::For:
    case OpKind::If:
      for (const auto& region : op.regions()) {
        const Op* yield = region->terminator();
        if (yield == nullptr || yield->kind() != OpKind::Yield || !pointer_bases(yield->operand(v->index()), bases, seen)) return false;
      }
      return true;
    default:
      return false;
  }
}

// What the ops of a loop body write: the kernel arguments their pointers come from, or
// `anywhere` (a write through a pointer of unknown source, a return, an op that orders all
// memory).
struct Writes {
  bool anywhere = false;
  std::unordered_set<const Value*> bases;

  void collect(const Region& region) {
    for (const auto& op : region.ops()) {
      if (op->kind() == OpKind::Return) anywhere = true;
      if (has_trait(op->kind(), ir::kWritesGlobal)) {
        std::unordered_set<const Value*> seen;
        bool known = (op->kind() == OpKind::Store || op->kind() == OpKind::AtomicRMW || op->kind() == OpKind::AtomicCAS) &&
                     pointer_bases(op->operand(0), bases, seen);
        anywhere = anywhere || !known;
      }
      for (const auto& inner : op->regions()) collect(*inner);
    }
  }
  bool any() const { return anywhere || !bases.empty(); }

  // Whether a load through `ptr`, issued iterations early, may read what the loop writes
  // meanwhile: it may unless its pointer comes from kernel arguments the loop writes through
  // none of. Distinct arguments are taken not to overlap within one loop (Triton's pipeliner
  // moves loads above every store of the loop without asking).
  bool may_reach(const Value* ptr) const {
    if (anywhere) return true;
    std::unordered_set<const Value*> read, seen;
    if (!pointer_bases(ptr, read, seen)) return true;
    return std::any_of(read.begin(), read.end(), [&](const Value* b) { return bases.count(b) != 0; });
  }
};

// A pure op without regions can be computed again anywhere its operands are available.
bool recomputable(const Op& op) {
  return ir::is_pure(op) && op.regions().empty() && op.num_results() == 1 &&
         op.kind() != OpKind::Dot;
}

// Copies `op` at `builder` with `operands`.
Value* copy_op(ir::Builder& builder, const Op& op, const std::vector<Value*>& operands) {
  Op* copy = builder.create(op.kind(), {op.result()->type()}, operands, op.loc());
  for (const ir::Attr& a : op.attrs()) copy->set_attr(a.name, a.value);
  return copy->result();
}

class LoopPrefetcher {
 public:
  // Loads run `distance` iterations ahead (num_stages - 1).
  LoopPrefetcher(Op& loop, Op& first_dot, int distance, bool descending)
      : loop_(loop), descending_(descending), body_(*loop.region(0)), yield_(*body_.terminator()), at_dot_(ir::Builder::before(&first_dot)),
        before_loop_(ir::Builder::before(&loop)), distance_(distance), ahead_(distance + 1), first_(distance),
        ahead_iv_(distance + 1, nullptr), ahead_in_range_(distance + 1, nullptr), first_iv_(distance, nullptr),
        first_in_range_(distance, nullptr) {
    for (size_t i = 0; i < body_.ops().size(); ++i) position_[body_.ops()[i].get()] = i;
    dot_position_ = position_.at(&first_dot);
  }

  // Rewrites those of `loads` (top-level loads of the body) whose operands can be computed
  // `distance` iterations ahead (not those that depend on another load, or on a nested
  // region); returns whether any was. The loop then carries `distance` loads of each: the
  // current iteration's, which replaces the load, and those of the iterations after it,
  // shifted by one each iteration. Before the loop the loads are issued iteration by
  // iteration (all of iteration 0, then all of 1, ...), the order their copies complete in.
  bool prefetch(const std::vector<Op*>& loads) {
    struct Rewrite {
      Op* load;
      std::vector<Value*> ahead;
      std::vector<std::vector<Value*>> first;
      Value* ahead_load = nullptr;
      std::vector<Value*> first_loads;
    };
    std::vector<Rewrite> rewrites;
    for (Op* load : loads) {
      Rewrite r{load, {}, std::vector<std::vector<Value*>>(distance_), nullptr, {}};
      bool ok = true;
      for (Value* v : load->operands()) {
        Value* n = ahead(v, distance_);
        ok = ok && n != nullptr;
        if (!ok) break;
        r.ahead.push_back(n);
        for (int j = 0; j < distance_ && ok; ++j) {
          Value* f = first(v, j);
          ok = f != nullptr;
          if (ok) r.first[j].push_back(f);
        }
      }
      if (ok) rewrites.push_back(std::move(r));
    }
    for (Rewrite& r : rewrites) r.ahead_load = guarded_load(at_dot_, *r.load, r.ahead, ahead_in_range(distance_));
    for (int j = 0; j < distance_; ++j) {
      for (Rewrite& r : rewrites) r.first_loads.push_back(guarded_load(before_loop_, *r.load, r.first[j], first_in_range(j)));
    }
    for (Rewrite& r : rewrites) {
      std::vector<Value*> carried;
      for (int j = 0; j < distance_; ++j) {
        loop_.add_operand(r.first_loads[j]);
        carried.push_back(body_.add_arg(r.load->result()->type()));
        loop_.add_result(r.load->result()->type());
      }
      for (int j = 1; j < distance_; ++j) yield_.add_operand(carried[j]);
      yield_.add_operand(r.ahead_load);
      r.load->result()->replace_all_uses_with(carried[0]);
    }
    return !rewrites.empty();
  }

 private:
  bool defined_in_body(const Value* v) const { return v->def() != nullptr && v->def()->parent() == &body_; }

  // `v` of the current iteration, available just before the first dot.
  Value* current(Value* v) {
    return rebuild(v, ahead_[0], at_dot_, [&](Value* x) -> Value* {
      if (!defined_in_body(x)) return x;
      auto at = position_.find(x->def());  // ops this pass inserted lie before the dot
      return at == position_.end() || at->second < dot_position_ ? x : nullptr;
    });
  }

  // `v` of iteration i + d (d >= 1), computed just before the first dot of iteration i: a
  // carried value is what iteration i + d - 1 yields.
  Value* ahead(Value* v, int d) {
    if (d == 0) return current(v);
    return rebuild(v, ahead_[d], at_dot_, [&, d](Value* x) -> Value* {
      if (x->is_region_arg() && x->region() == &body_) {
        return x->index() == 0 ? ahead_iv(d) : ahead(yield_.operand(x->index() - 1), d - 1);
      }
      return defined_in_body(x) ? nullptr : x;
    });
  }

  // `v` of iteration j (0 <= j < distance), computed before the loop.
  Value* first(Value* v, int j) {
    return rebuild(v, first_[j], before_loop_, [&, j](Value* x) -> Value* {
      if (x->is_region_arg() && x->region() == &body_) {
        if (x->index() == 0) return first_iv(j);
        return j == 0 ? loop_.operand(x->index() + 2) : first(yield_.operand(x->index() - 1), j - 1);
      }
      return defined_in_body(x) ? nullptr : x;
    });
  }

  // `v` recomputed at `at`: `known(x)` gives the values it maps directly (null for the
  // others, which must be pure ops of the body, copied with rebuilt operands); null when
  // some op on the way cannot be copied. Copies are made once per `cache`.
  Value* rebuild(Value* v, std::unordered_map<const Value*, Value*>& cache, ir::Builder& at,
                 const std::function<Value*(Value*)>& known) {
    if (Value* direct = known(v)) return direct;
    if (v->def() == nullptr) return nullptr;  // a region argument `known` does not map
    auto it = cache.find(v);
    if (it != cache.end()) return it->second;
    Value* out = nullptr;
    if (recomputable(*v->def())) {
      std::vector<Value*> operands;
      for (Value* o : v->def()->operands()) {
        Value* r = rebuild(o, cache, at, known);
        if (r == nullptr) break;
        operands.push_back(r);
      }
      if (operands.size() == v->def()->operands().size()) out = copy_op(at, *v->def(), operands);
    }
    cache[v] = out;
    return out;
  }

  // iv + d * step, as d additions (the step is a constant, not 0).
  Value* ahead_iv(int d) {
    if (d == 0) return body_.arg(0);
    if (ahead_iv_[d] == nullptr) {
      ahead_iv_[d] = at_dot_.create_value(OpKind::Add, body_.arg(0)->type(), {ahead_iv(d - 1), ir::ForOp(loop_).step()}, loop_.loc());
    }
    return ahead_iv_[d];
  }

  Value* first_iv(int j) {
    if (j == 0) return ir::ForOp(loop_).lower();
    if (first_iv_[j] == nullptr) {
      first_iv_[j] = before_loop_.create_value(OpKind::Add, body_.arg(0)->type(), {first_iv(j - 1), ir::ForOp(loop_).step()},
                                               loop_.loc());
    }
    return first_iv_[j];
  }

  Value* compare(ir::Builder& b, ir::CmpPredicate predicate, Value* x, Value* y) {
    Op* cmp = b.create(OpKind::Cmp, {Type::scalar(ir::ScalarKind::I1)}, {x, y}, loop_.loc());
    ir::set_enum_attr(*cmp, predicate);
    return cmp->result();
  }

  // The loop's test (iv < upper; iv > upper for a negative step) and "past", the order of
  // successive ivs (later > earlier; < for a negative step) that a wrap would break.
  ir::CmpPredicate runs() const { return descending_ ? ir::CmpPredicate::Gt : ir::CmpPredicate::Lt; }
  ir::CmpPredicate past() const { return descending_ ? ir::CmpPredicate::Lt : ir::CmpPredicate::Gt; }

  // Whether iteration i + d runs: iv + d * step < upper (> for a negative step), and
  // iv + d * step did not wrap.
  Value* ahead_in_range(int d) {
    if (ahead_in_range_[d] == nullptr) {
      Value* in = compare(at_dot_, runs(), ahead_iv(d), ir::ForOp(loop_).upper());
      Value* no_wrap = compare(at_dot_, past(), ahead_iv(d), body_.arg(0));
      ahead_in_range_[d] = at_dot_.create_value(OpKind::And, in->type(), {in, no_wrap}, loop_.loc());
    }
    return ahead_in_range_[d];
  }

  // Whether iteration j runs: lower + j * step < upper (> for a negative step; and, past the
  // first, did not wrap).
  Value* first_in_range(int j) {
    if (first_in_range_[j] == nullptr) {
      ir::ForOp loop(loop_);
      Value* in = compare(before_loop_, runs(), first_iv(j), loop.upper());
      if (j > 0) {
        Value* no_wrap = compare(before_loop_, past(), first_iv(j), loop.lower());
        in = before_loop_.create_value(OpKind::And, in->type(), {in, no_wrap}, loop_.loc());
      }
      first_in_range_[j] = in;
    }
    return first_in_range_[j];
  }

  // `load` with `operands`, masked off where `in_range` is false.
  Value* guarded_load(ir::Builder& b, const Op& load, std::vector<Value*> operands, Value* in_range) {
    const Type* type = load.result()->type();
    const Type* mask_type = type->is_block() ? type->with_element(Type::scalar(ir::ScalarKind::I1)) : in_range->type();
    Value* mask = type->is_block() ? b.create_value(OpKind::Splat, mask_type, {in_range}, load.loc()) : in_range;
    if (operands.size() >= 2) {
      operands[1] = b.create_value(OpKind::And, mask_type, {operands[1], mask}, load.loc());
    } else {
      operands.push_back(mask);
    }
    return copy_op(b, load, operands);
  }

  Op& loop_;
  bool descending_;  // a negative step
  Region& body_;
  Op& yield_;
  ir::Builder at_dot_;
  ir::Builder before_loop_;
  int distance_;
  std::unordered_map<const Op*, size_t> position_;
  size_t dot_position_ = 0;
  // Rebuilt values per iteration: ahead_[d] for i + d (ahead_[0]: the current one), first_[j]
  // for iteration j before the loop.
  std::vector<std::unordered_map<const Value*, Value*>> ahead_, first_;
  std::vector<Value*> ahead_iv_, ahead_in_range_, first_iv_, first_in_range_;
};

using LoadFilter = std::function<bool(const Op&)>;

// Returns whether anything changed.
// The stage buffers of a loop of several dots, at most (see prefetch_region).
constexpr int64_t kMultiDotStageBytes = 64 * 1024;

bool prefetch_region(Region& region, const LoadFilter& which, int num_stages) {
  bool changed = false;
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op& op = *region.ops()[i];
    for (const auto& inner : op.regions()) changed = prefetch_region(*inner, which, num_stages) || changed;
    if (op.kind() != OpKind::For) continue;
    Region& body = *op.region(0);
    // A constant step: positive, or negative on a signed iv (fla's backward recurrences run
    // their chunks last to first, `range(NT - 1, -1, -1)`; an unsigned iv only counts up).
    const Op* step = ir::ForOp(op).step()->def();
    const int64_t step_value = step != nullptr && step->kind() == OpKind::Constant && step->has_attr("value") &&
                                       std::holds_alternative<int64_t>(*step->find_attr("value"))
                                   ? step->int_attr("value")
                                   : 0;
    const bool descending = step_value < 0;
    bool constant_step = step_value > 0 || (descending && ir::is_signed(body.arg(0)->type()->scalar_kind()));
    // tl.range(num_stages=1) asks for the loop as written.
    const ir::AttrValue* stages = op.find_attr("num_stages");
    int64_t loop_stages = stages != nullptr && std::holds_alternative<int64_t>(*stages) ? std::get<int64_t>(*stages) : num_stages;
    if (!constant_step || loop_stages < 2) continue;
    Writes writes;
    writes.collect(body);
    if (writes.anywhere) continue;
    Op* first_dot = nullptr;
    int dots = 0;
    std::vector<Op*> loads;
    for (const auto& inner : body.ops()) {
      if (inner->kind() == OpKind::Dot) ++dots;
      if (inner->kind() == OpKind::Dot && first_dot == nullptr) first_dot = inner.get();
      if (inner->kind() == OpKind::Load && !ir::is_volatile(*inner) && inner->result()->type()->is_block() &&
          (!writes.any() || !writes.may_reach(inner->operand(0))) && (!which || which(*inner))) {
        loads.push_back(inner.get());
      }
    }
    if (first_dot == nullptr) continue;
    // num_stages - 1 iterations ahead, at most 4 (Triton's deepest default). Every load is
    // issued before the first dot, so with several dots each iteration commits its copies
    // as one batch there; a later dot's wait leaves that batch in flight (emit_dot.cpp).
    // Several dots (attention) also keep a hoisted operand and more live buffers: their
    // stage buffers stay within kMultiDotStageBytes, going fewer iterations ahead if need be.
    // 64 KiB: d=128 attention (32 KiB a stage) at two stages keeps two CTAs on an SM; three
    // stages (96 KiB, 131 KiB with Q) left one and ran 20-25% slower on the H200
    // (benchmarks/RESULTS.md 2026-12-04); d=64 (16 KiB a stage) still goes two ahead.
    int distance = static_cast<int>(std::min<int64_t>(loop_stages, 5)) - 1;
    if (dots > 1) {
      int64_t stage_bytes = 0;
      for (const Op* load : loads) stage_bytes += load->result()->type()->num_elements() * 2;  // f16/bf16
      while (distance > 1 && (distance + 1) * stage_bytes > kMultiDotStageBytes) --distance;
    }
    LoopPrefetcher prefetcher(op, *first_dot, distance, descending);
    changed = prefetcher.prefetch(loads) || changed;
    // Ops inserted before the loop moved it: continue after it.
    i = region.index_of(&op);
  }
  return changed;
}

}  // namespace

void prefetch_loads(ir::Function& function) { prefetch_loads(function, nullptr, 2); }

void prefetch_loads(ir::Function& function, const LoadFilter& which, int num_stages) {
  if (prefetch_region(function.body(), which, num_stages)) eliminate_dead_code(function);
}

}  // namespace tritium::transforms

// prefetch_loads (see prefetch_loads.h): the loads of iteration i + 1 issued in iteration i,
// before its dot, and carried into the next iteration; the first ones before the loop.
#include "transforms/prefetch_loads.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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

// The kernel's pointer arguments `ptr` (a pointer or a pointer block) is built from, through
// addptr, views, selects and the values loops and branches carry; false where some part of it
// comes from anywhere else (a pointer loaded from memory, an integer cast to one).
bool pointer_bases(const Value* ptr, std::unordered_set<const Value*>& bases, std::unordered_set<const Value*>& seen) {
  if (!seen.insert(ptr).second) return true;
  if (ptr->is_region_arg()) {
    const Op* owner = ptr->region()->parent();
    if (owner == nullptr) {
      bases.insert(ptr);  // an entry argument
      return true;
    }
    if (owner->kind() != OpKind::For || ptr->index() == 0) return false;
    return pointer_bases(owner->operand(ptr->index() + 2), bases, seen) &&
           pointer_bases(owner->region(0)->terminator()->operand(ptr->index() - 1), bases, seen);
  }
  const Op& def = *ptr->def();
  switch (def.kind()) {
    case OpKind::AddPtr:
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Trans:
    case OpKind::ConvertLayout:
    case OpKind::DescriptorTile: return pointer_bases(def.operand(0), bases, seen);
    case OpKind::Select: return pointer_bases(def.operand(1), bases, seen) && pointer_bases(def.operand(2), bases, seen);
    case OpKind::For:
      return pointer_bases(def.operand(ptr->index() + 3), bases, seen) &&
             pointer_bases(def.region(0)->terminator()->operand(ptr->index()), bases, seen);
    case OpKind::If:
      return pointer_bases(def.region(0)->terminator()->operand(ptr->index()), bases, seen) &&
             pointer_bases(def.region(1)->terminator()->operand(ptr->index()), bases, seen);
    default: return false;
  }
}

bool pointer_bases(const Value* ptr, std::unordered_set<const Value*>& bases) {
  std::unordered_set<const Value*> seen;
  return pointer_bases(ptr, bases, seen);
}

// The kernel arguments the memory writes of `region` go through (at any depth), where loads
// of other arguments may be issued before them: every write is a store, or an atomic whose
// old value nothing reads (no thread learns from it what another wrote: it synchronizes
// nothing), through pointers built from known arguments. False where some write is not
// (a return, an atomic read as a lock or counter, griddepcontrol, an unknown pointer).
bool written_bases(const Region& region, std::unordered_set<const Value*>& bases) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) {
      if (!written_bases(*inner, bases)) return false;
    }
    if (op->kind() == OpKind::Return) return false;
    if (!has_trait(op->kind(), ir::kWritesGlobal)) continue;
    const bool plain = op->kind() == OpKind::Store || (op->kind() == OpKind::AtomicRMW && !op->result()->has_uses());
    if (!plain || !pointer_bases(op->operand(0), bases)) return false;
  }
  return true;
}

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

// The loads of `body` whose values the addresses or masks of `loads` read through ops
// LoopPrefetcher can compute again (and through the values the loop carries): a paged
// cache's block-table entries, from which a K or V tile's pointers are computed. Those
// `index` accepts, of loads that depend on nothing else the prefetcher cannot recompute.
std::vector<Op*> index_loads(const Region& body, const std::vector<Op*>& loads, const LoadFilter& index) {
  std::vector<Op*> out;
  const Op& yield = *body.terminator();
  for (const Op* load : loads) {
    std::vector<Op*> found;
    std::vector<const Value*> stack(load->operands().begin(), load->operands().end());
    std::unordered_set<const Value*> seen;
    bool ok = true;
    while (ok && !stack.empty()) {
      const Value* v = stack.back();
      stack.pop_back();
      if (!seen.insert(v).second) continue;
      if (v->is_region_arg()) {
        if (v->region() == &body && v->index() > 0) stack.push_back(yield.operand(v->index() - 1));
        continue;
      }
      Op* def = v->def();
      if (def == nullptr || def->parent() != &body) continue;
      if (def->kind() == OpKind::Load && !ir::is_volatile(*def) && index(*def)) {
        found.push_back(def);
      } else if (recomputable(*def)) {
        for (const Value* o : def->operands()) stack.push_back(o);
      } else {
        ok = false;  // the load cannot run ahead whatever its indices do
      }
    }
    if (!ok) continue;
    for (Op* f : found) {
      if (std::find(out.begin(), out.end(), f) == out.end() && std::find(loads.begin(), loads.end(), f) == loads.end()) {
        out.push_back(f);
      }
    }
  }
  // In body order, as the loads before the loop are issued.
  std::sort(out.begin(), out.end(), [&](const Op* a, const Op* b) { return body.index_of(a) < body.index_of(b); });
  return out;
}

// Returns whether anything changed.
// The stage buffers of a loop of several dots, at most (see prefetch_region).
constexpr int64_t kMultiDotStageBytes = 64 * 1024;

bool prefetch_region(Region& region, const LoadFilter& which, const LoadFilter& index, int num_stages,
                     int64_t recurrence_stage_bytes) {
  bool changed = false;
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op& op = *region.ops()[i];
    for (const auto& inner : op.regions()) {
      changed = prefetch_region(*inner, which, index, num_stages, recurrence_stage_bytes) || changed;
    }
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
    // A loop that writes memory moves a load ahead of the writes of earlier iterations only
    // where the load's pointer and every written one come from different kernel arguments
    // (Triton's pipeliner moves them all: mamba's dB and dC loops add into a third buffer).
    std::unordered_set<const Value*> written;
    if (!written_bases(body, written)) continue;
    auto apart = [&](const Op& load) {
      if (written.empty()) return true;  // the loop writes nothing
      std::unordered_set<const Value*> read;
      if (!pointer_bases(load.operand(0), read)) return false;
      return std::none_of(read.begin(), read.end(), [&](const Value* b) { return written.count(b) != 0; });
    };
    Op* first_dot = nullptr;
    int dots = 0;
    std::vector<Op*> loads;
    for (const auto& inner : body.ops()) {
      if (inner->kind() == OpKind::Dot) ++dots;
      if (inner->kind() == OpKind::Dot && first_dot == nullptr) first_dot = inner.get();
      if (inner->kind() == OpKind::Load && !ir::is_volatile(*inner) && inner->result()->type()->is_block() &&
          (!which || which(*inner)) && apart(*inner)) {
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
    // A loop of several dots that writes memory (a state recurrence: fla's fwd_h stores each
    // chunk's state, 5 blocks of 8 KiB a stage) is no attention: with recurrence_stage_bytes
    // its buffers may take that much instead, so its copies run as far ahead as Triton's
    // (fwd_h at 3 stages: two chunks, 120 KiB; one CTA an SM either way at its grid).
    int distance = static_cast<int>(std::min<int64_t>(loop_stages, 5)) - 1;
    if (dots > 1) {
      int64_t stage_bytes = 0;
      for (const Op* load : loads) stage_bytes += load->result()->type()->num_elements() * 2;  // f16/bf16
      const int64_t budget =
          recurrence_stage_bytes > 0 && !written.empty() ? recurrence_stage_bytes : kMultiDotStageBytes;
      while (distance > 1 && (distance + 1) * stage_bytes > budget) --distance;
    }
    // The loads the chosen ones' addresses read (a block table's entries) first, one
    // iteration further ahead and carried in registers: the chosen loads of iteration
    // i + distance then compute their pointers from a carried value, as Triton's pipeliner
    // gives such a load an earlier stage than the copies that read it.
    if (index) {
      std::vector<Op*> indices = index_loads(body, loads, index);
      if (!indices.empty()) {
        LoopPrefetcher ahead(op, *first_dot, distance + 1, descending);
        changed = ahead.prefetch(indices) || changed;
      }
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

void prefetch_loads(ir::Function& function, const LoadFilter& which, int num_stages, const LoadFilter& index,
                    int64_t recurrence_stage_bytes) {
  if (prefetch_region(function.body(), which, index, num_stages, recurrence_stage_bytes)) eliminate_dead_code(function);
}

}  // namespace tritium::transforms

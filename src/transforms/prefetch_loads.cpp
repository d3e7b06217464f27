// prefetch_loads (see prefetch_loads.h): the loads of iteration i + 1 issued in iteration i,
// before its dot, and carried into the next iteration; the first ones before the loop.
#include "transforms/prefetch_loads.h"

#include <functional>
#include <unordered_map>

#include "ir/op_views.h"
#include "ir/builder.h"
#include "transforms/eliminate_dead_code.h"

namespace tritium::transforms {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Type;
using ir::Value;

namespace {

bool writes_memory(const Region& region) {
  for (const auto& op : region.ops()) {
    if (has_trait(op->kind(), ir::kWritesGlobal) || op->kind() == OpKind::Return) return true;
    for (const auto& inner : op->regions()) {
      if (writes_memory(*inner)) return true;
    }
  }
  return false;
}

// A pure op without regions can be computed again anywhere its operands are available.
bool recomputable(const Op& op) {
  return has_trait(op.kind(), ir::kPure) && op.regions().empty() && op.num_results() == 1 &&
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
  LoopPrefetcher(Op& loop, Op& first_dot)
      : loop_(loop), body_(*loop.region(0)), yield_(*body_.terminator()), at_dot_(ir::Builder::before(&first_dot)),
        before_loop_(ir::Builder::before(&loop)) {
    for (size_t i = 0; i < body_.ops().size(); ++i) position_[body_.ops()[i].get()] = i;
    dot_position_ = position_.at(&first_dot);
  }

  // Rewrites `load` (a top-level load of the body); false when its operands cannot be
  // computed one iteration ahead (they depend on another load, or on a nested region).
  bool prefetch(Op& load) {
    std::vector<Value*> next_operands, first_operands;
    for (Value* v : load.operands()) {
      Value* n = next(v);
      Value* f = first(v);
      if (n == nullptr || f == nullptr) return false;
      next_operands.push_back(n);
      first_operands.push_back(f);
    }
    Value* next_load = guarded_load(at_dot_, load, next_operands, next_in_range());
    Value* first_load = guarded_load(before_loop_, load, first_operands, first_in_range());
    loop_.add_operand(first_load);
    Value* carried = body_.add_arg(load.result()->type());
    loop_.add_result(load.result()->type());
    yield_.add_operand(next_load);
    load.result()->replace_all_uses_with(carried);
    return true;
  }

 private:
  bool defined_in_body(const Value* v) const { return v->def() != nullptr && v->def()->parent() == &body_; }

  // `v` of the current iteration, available just before the first dot.
  Value* current(Value* v) {
    return rebuild(v, current_, at_dot_, [&](Value* x) -> Value* {
      if (!defined_in_body(x)) return x;
      auto at = position_.find(x->def());  // ops this pass inserted lie before the dot
      return at == position_.end() || at->second < dot_position_ ? x : nullptr;
    });
  }

  // `v` of the next iteration, computed just before the first dot.
  Value* next(Value* v) {
    return rebuild(v, next_, at_dot_, [&](Value* x) -> Value* {
      if (x->is_region_arg() && x->region() == &body_) {
        return x->index() == 0 ? next_iv() : current(yield_.operand(x->index() - 1));
      }
      return defined_in_body(x) ? nullptr : x;
    });
  }

  // `v` of the first iteration, computed before the loop.
  Value* first(Value* v) {
    return rebuild(v, first_, before_loop_, [&](Value* x) -> Value* {
      if (x->is_region_arg() && x->region() == &body_) return loop_.operand(x->index() == 0 ? 0 : x->index() + 2);
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

  Value* next_iv() {
    if (next_iv_ == nullptr) {
      Value* iv = body_.arg(0);
      next_iv_ = at_dot_.create_value(OpKind::Add, iv->type(), {iv, ir::ForOp(loop_).step()}, loop_.loc());
    }
    return next_iv_;
  }

  Value* compare(ir::Builder& b, ir::CmpPredicate predicate, Value* x, Value* y) {
    Op* cmp = b.create(OpKind::Cmp, {Type::scalar(ir::ScalarKind::I1)}, {x, y}, loop_.loc());
    ir::set_enum_attr(*cmp, predicate);
    return cmp->result();
  }

  // Whether iteration i + 1 runs: iv + step < upper, and iv + step did not wrap.
  Value* next_in_range() {
    if (next_in_range_ == nullptr) {
      Value* in = compare(at_dot_, ir::CmpPredicate::Lt, next_iv(), ir::ForOp(loop_).upper());
      Value* no_wrap = compare(at_dot_, ir::CmpPredicate::Gt, next_iv(), body_.arg(0));
      next_in_range_ = at_dot_.create_value(OpKind::And, in->type(), {in, no_wrap}, loop_.loc());
    }
    return next_in_range_;
  }

  Value* first_in_range() {
    if (first_in_range_ == nullptr) {
      ir::ForOp loop(loop_);
      first_in_range_ = compare(before_loop_, ir::CmpPredicate::Lt, loop.lower(), loop.upper());
    }
    return first_in_range_;
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
  Region& body_;
  Op& yield_;
  ir::Builder at_dot_;
  ir::Builder before_loop_;
  std::unordered_map<const Op*, size_t> position_;
  size_t dot_position_ = 0;
  std::unordered_map<const Value*, Value*> current_, next_, first_;
  Value* next_iv_ = nullptr;
  Value* next_in_range_ = nullptr;
  Value* first_in_range_ = nullptr;
};

using LoadFilter = std::function<bool(const Op&)>;

// Returns whether anything changed.
bool prefetch_region(Region& region, const LoadFilter& which) {
  bool changed = false;
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op& op = *region.ops()[i];
    for (const auto& inner : op.regions()) changed = prefetch_region(*inner, which) || changed;
    if (op.kind() != OpKind::For) continue;
    Region& body = *op.region(0);
    const Op* step = ir::ForOp(op).step()->def();
    bool positive_step = step != nullptr && step->kind() == OpKind::Constant && step->has_attr("value") &&
                         std::holds_alternative<int64_t>(*step->find_attr("value")) && step->int_attr("value") > 0;
    // tl.range(num_stages=1) asks for the loop as written.
    const ir::AttrValue* stages = op.find_attr("num_stages");
    bool one_stage = stages != nullptr && std::holds_alternative<int64_t>(*stages) && std::get<int64_t>(*stages) < 2;
    if (!positive_step || one_stage || writes_memory(body)) continue;
    Op* first_dot = nullptr;
    std::vector<Op*> loads;
    for (const auto& inner : body.ops()) {
      if (inner->kind() == OpKind::Dot && first_dot == nullptr) first_dot = inner.get();
      if (inner->kind() == OpKind::Load && !ir::is_volatile(*inner) && inner->result()->type()->is_block() &&
          (!which || which(*inner))) {
        loads.push_back(inner.get());
      }
    }
    if (first_dot == nullptr) continue;
    LoopPrefetcher prefetcher(op, *first_dot);
    for (Op* load : loads) changed = prefetcher.prefetch(*load) || changed;
    // Ops inserted before the loop moved it: continue after it.
    i = region.index_of(&op);
  }
  return changed;
}

}  // namespace

void prefetch_loads(ir::Function& function) { prefetch_loads(function, nullptr); }

void prefetch_loads(ir::Function& function, const LoadFilter& which) {
  if (prefetch_region(function.body(), which)) eliminate_dead_code(function);
}

}  // namespace tritium::transforms

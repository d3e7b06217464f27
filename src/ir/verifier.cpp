// The tile IR verifier: per-op operand/result/type rules (the conventions of ops.def),
// region and terminator structure, and dominance within structured regions (a value is
// visible in its own region after its definition and in every region nested there).
#include "ir/verifier.h"

#include <unordered_set>

#include "ir/attrs.h"
#include "ir/op_views.h"
#include "ir/printer.h"
#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

class Verifier {
 public:
  Verifier(const Function& function, const std::string& after_pass, bool input = false)
      : function_(function), stage_("verifier (after " + after_pass + ")"), input_(input) {}

  void run() {
    check_params();
    region(function_.body(), nullptr);
  }

 private:
  [[noreturn]] void fail(const Op& op, const std::string& message) const {
    if (input_) error_at(op.loc(), std::string("invalid IR: '") + op.name() + "': " + message);
    internal_error(stage_, std::string("'") + op.name() + "': " + message + " in '" +
                               print(op, &function_) + "'",
                   op.loc());
  }

  static std::string types_text(const std::vector<const Type*>& types) {
    std::string out = "(";
    for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i]->str();
    return out + ")";
  }

  // Entry arguments are the unfolded parameters, in order (ir.h: Function::body_).
  void check_params() const {
    size_t next = 0;
    const auto& args = function_.body().args();
    for (const Param& param : function_.params()) {
      if (param.arg == nullptr) continue;
      if (next >= args.size() || args[next].get() != param.arg) {
        internal_error(stage_, "parameter '" + param.name + "' of '" + function_.name() +
                                   "' is not entry argument " + std::to_string(next),
                       function_.loc());
      }
      if (param.facts.divisibility < 1) {
        internal_error(stage_, "parameter '" + param.name + "' has divisibility " +
                                   std::to_string(param.facts.divisibility),
                       function_.loc());
      }
      ++next;
    }
    if (next != args.size()) {
      internal_error(stage_, "'" + function_.name() + "' has " + std::to_string(args.size()) +
                                 " entry arguments but " + std::to_string(next) +
                                 " unfolded parameters",
                     function_.loc());
    }
  }

  // Walks `r` (owned by `owner`, null for the body): structure, then each op, keeping the
  // values visible from here in `visible_` and removing the region's own on the way out.
  void region(const Region& r, const Op* owner) {
    size_t mark = defined_.size();
    for (const auto& arg : r.args()) {
      if (arg->type() == nullptr) internal_error(stage_, "region argument without a type");
      define(arg.get());
    }
    const auto& ops = r.ops();
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = *ops[i];
      if (op.parent() != &r) fail(op, "its parent() is not the region that holds it");
      if (has_trait(op.kind(), kTerminator) && i + 1 != ops.size()) {
        fail(op, "terminator is not the last op of its region");
      }
      for (int k = 0; k < op.num_operands(); ++k) {
        const Value* v = op.operand(k);
        if (v == nullptr) fail(op, "operand " + std::to_string(k) + " is null");
        if (visible_.count(v) == 0) {
          fail(op, "operand " + std::to_string(k) + " is used before its definition or outside its region");
        }
      }
      for (const auto& result : op.results()) {
        if (result->type() == nullptr) fail(op, "result without a type");
      }
      for (const auto& inner : op.regions()) {
        if (inner->parent() != &op) fail(op, "a region's parent() is not the op that holds it");
      }
      check_op(op, owner, r);
      for (const auto& inner : op.regions()) region(*inner, &op);
      for (const auto& result : op.results()) define(result.get());
    }
    check_terminator(r, owner);
    while (defined_.size() > mark) {
      visible_.erase(defined_.back());
      defined_.pop_back();
    }
  }

  void define(const Value* v) {
    visible_.insert(v);
    defined_.push_back(v);
  }

  // Which terminator each kind of region must end with.
  void check_terminator(const Region& r, const Op* owner) const {
    const Op* last = r.terminator();
    if (owner == nullptr) {
      if (last != nullptr && last->kind() != OpKind::Return) fail(*last, "only 'return' may end the function body");
      return;
    }
    OpKind want = OpKind::Yield;
    if (owner->kind() == OpKind::While && &r == owner->region(0)) want = OpKind::Condition;
    if (last == nullptr || last->kind() != want) {
      fail(*owner, std::string("a region does not end with '") + op_name(want) + "'");
    }
  }

  // The operand count ops.def's list allows (required, optional and variadic operands).
  void expect_operand_count(const Op& op) const {
    const OpSignature& sig = op_signature(op.kind());
    int n = op.num_operands();
    if (n >= sig.min_operands && (sig.max_operands < 0 || n <= sig.max_operands)) return;
    std::string want = sig.max_operands < 0            ? "at least " + std::to_string(sig.min_operands)
                       : sig.min_operands == sig.max_operands ? std::to_string(sig.min_operands)
                       : std::to_string(sig.min_operands) + " to " + std::to_string(sig.max_operands);
    fail(op, "expected " + want + " operands, got " + std::to_string(n));
  }

  // The result count (-1: any) and no regions unless the op has them.
  void expect_results(const Op& op, int results) const {
    if (results >= 0 && op.num_results() != results) {
      fail(op, "expected " + std::to_string(results) + " results, got " + std::to_string(op.num_results()));
    }
    if (!has_trait(op.kind(), kHasRegions) && !op.regions().empty()) fail(op, "unexpected regions");
  }

  const Type* operand_type(const Op& op, int i) const { return op.operand(i)->type(); }
  const Type* result_type(const Op& op) const { return op.result()->type(); }

  // Types are compared without their layouts: the tile IR's rules are about shapes and
  // elements; the GPU layer checks layouts (gpu/verify_gpu.h).
  void expect_type(const Op& op, const Type* got, const Type* want, const std::string& what) const {
    if (!Type::same_ignoring_layout(got, want)) fail(op, what + " has type " + got->str() + ", expected " + want->str());
  }

  void expect_int_attr(const Op& op, const std::string& name) const {
    const AttrValue* value = op.find_attr(name);
    if (value == nullptr || !std::holds_alternative<int64_t>(*value)) {
      fail(op, "missing integer attribute '" + name + "'");
    }
  }

  // The attribute EnumInfo<E>::attr spelled from its vocabulary (attr_enums.def); returns it,
  // nullopt when an optional one is absent.
  template <class E>
  std::optional<E> expect_enum_attr(const Op& op, bool required) const {
    const char* name = EnumInfo<E>::attr;
    const AttrValue* value = op.find_attr(name);
    if (value == nullptr) {
      if (required) fail(op, std::string("missing '") + name + "' (" + enum_choices<E>() + ")");
      return std::nullopt;
    }
    if (!std::holds_alternative<std::string>(*value)) fail(op, std::string("'") + name + "' is not a string");
    const std::string& text = std::get<std::string>(*value);
    std::optional<E> e = parse_enum<E>(text);
    if (!e) fail(op, std::string("unknown ") + name + " '" + text + "' (" + enum_choices<E>() + ")");
    return e;
  }

  // Memory ordering of atomics: optional, acq_rel at gpu scope when absent.
  void check_sem_scope(const Op& op) const {
    expect_enum_attr<MemSem>(op, false);
    expect_enum_attr<MemScope>(op, false);
  }

  void check_cache_hints(const Op& op, bool load) const {
    if (std::optional<CacheModifier> c = expect_enum_attr<CacheModifier>(op, false)) {
      if (load ? !is_load_cache(*c) : !is_store_cache(*c)) {
        fail(op, std::string("cache modifier '") + enum_text(*c) + "' is not a " +
                     (load ? "load's (.ca, .cg, .cv)" : "store's (.wb, .cg, .cs, .wt)"));
      }
    }
    expect_enum_attr<EvictionPolicy>(op, false);
  }

  void check_op(const Op& op, const Op* owner, const Region& r) {
    expect_operand_count(op);
    if (op_type_rule(op.kind()) != TypeRule::Custom) return check_type_rule(op);
    switch (op.kind()) {
      case OpKind::Constant: return check_constant(op);
      case OpKind::ProgramId:
      case OpKind::NumPrograms: {
        expect_results(op, 1);
        expect_int_attr(op, "axis");
        int64_t axis = op.int_attr("axis");
        // program_id {axis = 3}: the CTA's rank in its cluster (gpu/split_k_cluster.h).
        const int64_t top = op.kind() == OpKind::ProgramId ? 3 : 2;
        if (axis < 0 || axis > top) fail(op, "axis " + std::to_string(axis) + " is not 0, 1 or 2");
        expect_type(op, result_type(op), Type::scalar(ScalarKind::I32), "the result");
        return;
      }
      case OpKind::MakeRange: {
        expect_results(op, 1);
        expect_int_attr(op, "start");
        expect_int_attr(op, "end");
        int64_t start = op.int_attr("start"), end = op.int_attr("end");
        if (end <= start) fail(op, "empty range");
        expect_type(op, result_type(op), Type::block(Type::scalar(ScalarKind::I32), {end - start}), "the result");
        return;
      }
      case OpKind::Splat: {
        expect_results(op, 1);
        const Type* in = operand_type(op, 0);
        if (in->is_block()) fail(op, "the operand is a block, not a scalar");
        if (!result_type(op)->is_block() || result_type(op)->element() != in) {
          fail(op, "the result " + result_type(op)->str() + " is not a block of " + in->str());
        }
        return;
      }
      case OpKind::Broadcast: return check_broadcast(op);
      case OpKind::ExpandDims: return check_expand_dims(op);
      case OpKind::Reshape: {
        expect_results(op, 1);
        const Type* in = operand_type(op, 0);
        const Type* out = result_type(op);
        if (!out->is_block() || in->element() != out->element() || in->num_elements() != out->num_elements()) {
          fail(op, "cannot reshape " + in->str() + " to " + out->str());
        }
        return;
      }
      case OpKind::DescriptorTile: {
        expect_results(op, 1);
        const Type* ptr = operand_type(op, 0);
        if (!ptr->is_block() || !ptr->is_ptr() || result_type(op) != ptr) {
          fail(op, "descriptor_tile takes and gives one block of pointers, got " + ptr->str() + " -> " + result_type(op)->str());
        }
        if (!operand_type(op, 1)->is_pointer() || operand_type(op, 1)->is_block()) fail(op, "the base is not a scalar pointer");
        if (op.num_operands() - 2 != ptr->rank()) fail(op, "descriptor_tile needs one offset per dimension");
        for (int i = 2; i < op.num_operands(); ++i) {
          if (!operand_type(op, i)->is_scalar() || !operand_type(op, i)->is_int()) fail(op, "an offset is not an integer scalar");
        }
        return;
      }
      case OpKind::ConvertLayout: {
        // Only the layout changes: same shape, same element.
        expect_results(op, 1);
        const Type* in = operand_type(op, 0);
        const Type* out = result_type(op);
        if (!in->is_block() || !out->is_block() || !Type::same_ignoring_layout(in, out)) {
          fail(op, "convert_layout cannot change " + in->str() + " into " + out->str());
        }
        return;
      }
      case OpKind::Trans: return check_trans(op);
      case OpKind::Flip: return check_flip(op);
      case OpKind::Join: case OpKind::Cat: return check_join_cat(op);
      case OpKind::Split: return check_split(op);
      case OpKind::Reduce: case OpKind::Scan: return check_reduce_scan(op);
      case OpKind::MapElementwise: return check_map_elementwise(op);
      case OpKind::Histogram: {
        expect_results(op, 1);
        expect_int_attr(op, "num_bins");
        const Type* x = operand_type(op, 0);
        if (!x->is_block() || x->rank() != 1 || !x->is_int()) fail(op, "the input " + x->str() + " is not a 1-D integer block");
        if (op.num_operands() == 2) expect_type(op, operand_type(op, 1), x->with_element(Type::scalar(ScalarKind::I1)), "the mask");
        expect_type(op, result_type(op), Type::block(Type::scalar(ScalarKind::I32), {op.int_attr("num_bins")}), "the result");
        return;
      }
      case OpKind::Gather: {
        expect_results(op, 1);
        expect_int_attr(op, "axis");
        const Type* src = operand_type(op, 0);
        const Type* index = operand_type(op, 1);
        const int64_t axis = op.int_attr("axis");
        if (!src->is_block() || !index->is_block() || src->rank() != index->rank()) {
          fail(op, "the source " + src->str() + " and the index " + index->str() + " must be blocks of one rank");
        }
        if (!index->is_int() || index->is_bool()) fail(op, "the index " + index->str() + " is not an integer block");
        if (axis < 0 || axis >= src->rank()) fail(op, "axis " + std::to_string(axis) + " is outside the source's rank");
        for (int d = 0; d < src->rank(); ++d) {
          if (d != axis && src->shape()[d] != index->shape()[d]) {
            fail(op, "the index " + index->str() + " differs from the source " + src->str() + " off the axis");
          }
        }
        expect_type(op, result_type(op), index->with_element(src->element()), "the result");
        return;
      }
      case OpKind::Dot: return check_dot(op);
      case OpKind::Cmp: {
        expect_results(op, 1);
        const Type* a = operand_type(op, 0);
        if (!Type::same_ignoring_layout(operand_type(op, 1), a)) {
          fail(op, "operands have different types " + types_text({a, operand_type(op, 1)}));
        }
        expect_type(op, result_type(op), a->with_element(Type::scalar(ScalarKind::I1)), "the result");
        expect_enum_attr<CmpPredicate>(op, true);
        return;
      }
      case OpKind::ExternElementwise: {
        expect_results(op, 1);
        const AttrValue* symbol = op.find_attr("symbol");
        if (!symbol || !std::holds_alternative<std::string>(*symbol)) fail(op, "missing 'symbol'");
        for (size_t i = 0; i < op.operands().size(); ++i) {
          if (operand_type(op, static_cast<int>(i))->shape() != result_type(op)->shape()) {
            fail(op, "operand " + std::to_string(i) + " has another shape than the result");
          }
        }
        return;
      }
      case OpKind::Select: {
        expect_results(op, 1);
        const Type* out = result_type(op);
        expect_type(op, operand_type(op, 0), out->with_element(Type::scalar(ScalarKind::I1)), "the condition");
        expect_type(op, operand_type(op, 1), out, "the true value");
        expect_type(op, operand_type(op, 2), out, "the false value");
        return;
      }
      case OpKind::Cast: return check_cast(op);
      case OpKind::AddPtr: {
        expect_results(op, 1);
        const Type* ptr = operand_type(op, 0);
        if (!ptr->is_ptr()) fail(op, "the first operand " + ptr->str() + " is not a pointer");
        const Type* offset = operand_type(op, 1);
        if (!offset->is_int() || offset->shape() != ptr->shape()) {
          fail(op, "the offset " + offset->str() + " is not an integer of the pointer's shape");
        }
        expect_type(op, result_type(op), ptr, "the result");
        return;
      }
      case OpKind::Load: {
        expect_results(op, 1);
        const Type* value = pointee_shaped(op);
        expect_type(op, result_type(op), value, "the result");
        check_mask(op, LoadOp(op).mask());
        if (Value* other = LoadOp(op).other()) expect_type(op, other->type(), value, "'other'");
        check_cache_hints(op, true);
        return;
      }
      case OpKind::Store: {
        expect_results(op, 0);
        expect_type(op, operand_type(op, 1), pointee_shaped(op), "the stored value");
        check_mask(op, StoreOp(op).mask());
        check_cache_hints(op, false);
        return;
      }
      case OpKind::AtomicRMW: return check_atomic_rmw(op);
      case OpKind::AtomicCAS: {
        expect_results(op, 1);
        const Type* value = pointee_shaped(op);
        expect_type(op, operand_type(op, 1), value, "the compared value");
        expect_type(op, operand_type(op, 2), value, "the new value");
        expect_type(op, result_type(op), value, "the result");
        check_sem_scope(op);
        return;
      }
      case OpKind::For: return check_for(op);
      case OpKind::If: return check_if(op);
      case OpKind::While: return check_while(op);
      case OpKind::Yield: {
        expect_results(op, 0);
        bool ok = owner != nullptr &&
                  (owner->kind() == OpKind::For || owner->kind() == OpKind::If || owner->kind() == OpKind::Reduce ||
                   owner->kind() == OpKind::Scan || owner->kind() == OpKind::MapElementwise ||
                   (owner->kind() == OpKind::While && &r == owner->region(1)));
        if (!ok) fail(op, "'yield' outside a for body, an if branch or a while after-region");
        return;
      }
      case OpKind::Condition: {
        expect_results(op, 0);
        if (owner == nullptr || owner->kind() != OpKind::While || &r != owner->region(0)) {
          fail(op, "'condition' outside a while before-region");
        }
        return;
      }
      case OpKind::Return:
        expect_results(op, 0);
        if (owner != nullptr) fail(op, "'return' inside a region (only the function body may return)");
        return;
      case OpKind::Print: case OpKind::Assert: case OpKind::DebugBarrier:
        return check_debug_op(op);
      case OpKind::GdcWait: case OpKind::GdcLaunchDependents:
        expect_results(op, 0);
        return;
      case OpKind::Assume:
        expect_results(op, 0);
        expect_type(op, op.operand(0)->type(), Type::scalar(ScalarKind::I1), "the condition");
        return;
      case OpKind::Smid: case OpKind::GlobalTimer:
        expect_results(op, 1);
        expect_type(op, result_type(op), Type::scalar(op.kind() == OpKind::Smid ? ScalarKind::I32 : ScalarKind::I64),
                    "the result");
        return;
      default: break;  // the ops with a type rule in ops.def, checked above
    }
    fail(op, "unknown op kind");
  }

  void check_constant(const Op& op) {
    expect_results(op, 1);
    const Type* type = result_type(op);
    const AttrValue* value = op.find_attr("value");
    if (value == nullptr) fail(op, "missing attribute 'value'");
    if (type->is_float()) {
      if (!std::holds_alternative<double>(*value)) fail(op, "a float constant needs a float 'value'");
    } else if (!std::holds_alternative<int64_t>(*value)) {
      fail(op, "an integer or pointer constant needs an integer 'value'");
    }
  }

  void check_broadcast(const Op& op) {
    expect_results(op, 1);
    const Type* in = operand_type(op, 0);
    const Type* out = result_type(op);
    bool ok = in->is_block() && out->is_block() && in->element() == out->element() && in->rank() == out->rank();
    for (int d = 0; ok && d < in->rank(); ++d) {
      ok = in->shape()[d] == out->shape()[d] || in->shape()[d] == 1;
    }
    if (!ok) fail(op, "cannot broadcast " + in->str() + " to " + out->str());
  }

  void check_expand_dims(const Op& op) {
    expect_results(op, 1);
    expect_int_attr(op, "axis");
    const Type* in = operand_type(op, 0);
    int64_t axis = op.int_attr("axis");
    if (axis < 0 || axis > in->rank()) fail(op, "axis " + std::to_string(axis) + " out of range for " + in->str());
    std::vector<int64_t> shape = in->shape();
    shape.insert(shape.begin() + axis, 1);
    expect_type(op, result_type(op), Type::block(in->element(), shape), "the result");
  }

  void check_trans(const Op& op) {
    expect_results(op, 1);
    const Type* in = operand_type(op, 0);
    const AttrValue* order = op.find_attr("order");
    if (order == nullptr || !std::holds_alternative<std::vector<int64_t>>(*order)) fail(op, "missing 'order'");
    const std::vector<int64_t>& perm = std::get<std::vector<int64_t>>(*order);
    std::vector<bool> seen(in->rank(), false);
    if (!in->is_block() || static_cast<int>(perm.size()) != in->rank()) fail(op, "'order' does not match the rank of " + in->str());
    std::vector<int64_t> shape;
    for (int64_t d : perm) {
      if (d < 0 || d >= in->rank() || seen[d]) fail(op, "'order' is not a permutation");
      seen[d] = true;
      shape.push_back(in->shape()[d]);
    }
    expect_type(op, result_type(op), Type::block(in->element(), shape), "the result");
  }

  void check_flip(const Op& op) {
    expect_results(op, 1);
    expect_int_attr(op, "axis");
    const Type* in = operand_type(op, 0);
    const int64_t axis = op.int_attr("axis");
    if (!in->is_block() || axis < 0 || axis >= in->rank()) fail(op, "axis " + std::to_string(axis) + " out of range for " + in->str());
    const int64_t n = in->shape()[axis];
    if ((n & (n - 1)) != 0) fail(op, "flip along a dimension of " + std::to_string(n) + ", not a power of two");
    expect_type(op, result_type(op), in, "the result");
  }

  void check_join_cat(const Op& op) {
    expect_results(op, 1);
    const Type* a = operand_type(op, 0);
    expect_type(op, operand_type(op, 1), a, "the second operand");
    std::vector<int64_t> shape = a->shape();
    if (op.kind() == OpKind::Join) {
      shape.push_back(2);
    } else {
      if (!a->is_block()) fail(op, "cat of scalars");
      shape[0] *= 2;
    }
    expect_type(op, result_type(op), Type::block(a->element(), shape), "the result");
  }

  void check_split(const Op& op) {
    expect_results(op, 2);
    const Type* a = operand_type(op, 0);
    if (!a->is_block() || a->shape().back() != 2) fail(op, "the operand " + a->str() + " does not end in a dimension of 2");
    std::vector<int64_t> shape(a->shape().begin(), a->shape().end() - 1);
    const Type* half = shape.empty() ? a->element() : Type::block(a->element(), shape);
    for (int i = 0; i < 2; ++i) expect_type(op, op.result(i)->type(), half, "a result");
  }

  // reduce and scan: N inputs of one shape, a combine region over 2N scalars yielding N.
  void check_reduce_scan(const Op& op) {
    if (op.num_operands() < 1 || op.num_results() != op.num_operands()) fail(op, "expected as many results as inputs");
    expect_int_attr(op, "axis");
    const Type* first = operand_type(op, 0);
    int64_t axis = op.int_attr("axis");
    if (!first->is_block() || axis < 0 || axis >= first->rank()) fail(op, "axis " + std::to_string(axis) + " out of range for " + first->str());
    std::vector<const Type*> elements;
    for (int i = 0; i < op.num_operands(); ++i) {
      const Type* t = operand_type(op, i);
      if (!t->is_block() || t->shape() != first->shape()) fail(op, "inputs of different shapes " + types_text({first, t}));
      elements.push_back(t->element());
      std::vector<int64_t> shape = t->shape();
      const Type* want = t;
      if (op.kind() == OpKind::Reduce) {
        shape.erase(shape.begin() + axis);
        want = shape.empty() ? t->element() : Type::block(t->element(), shape);
      }
      expect_type(op, op.result(i)->type(), want, "result " + std::to_string(i));
    }
    if (op.kind() == OpKind::Scan) expect_int_attr(op, "reverse");
    expect_region_count(op, 1);
    std::vector<const Type*> args = elements;
    args.insert(args.end(), elements.begin(), elements.end());
    expect_region_args(op, *op.region(0), args, "combine");
    expect_terminator_operands(op, *op.region(0), 0, elements, "combined values");
  }

  void check_map_elementwise(const Op& op) {
    if (op.num_operands() < 1 || op.num_results() < 1) fail(op, "expected inputs and results");
    const Type* first = operand_type(op, 0);
    if (!first->is_block()) fail(op, "the inputs must be blocks, got " + first->str());
    // pack = P (absent: 1): the region takes P elements of each input in turn and yields P
    // values of each result in turn.
    int64_t pack = 1;
    if (op.find_attr("pack") != nullptr) {
      pack = op.int_attr("pack");
      if (pack < 2 || (pack & (pack - 1)) != 0 || pack > first->num_elements()) {
        fail(op, "pack " + std::to_string(pack) + " is not a power of two > 1 up to the block's elements");
      }
    }
    std::vector<const Type*> args, yields;
    for (int i = 0; i < op.num_operands(); ++i) {
      const Type* t = operand_type(op, i);
      if (!t->is_block() || t->shape() != first->shape()) fail(op, "inputs of different shapes " + types_text({first, t}));
      args.insert(args.end(), static_cast<size_t>(pack), t->element());
    }
    for (int i = 0; i < op.num_results(); ++i) {
      const Type* t = op.result(i)->type();
      if (!t->is_block() || t->shape() != first->shape()) fail(op, "result " + std::to_string(i) + " is not of the inputs' shape");
      yields.insert(yields.end(), static_cast<size_t>(pack), t->element());
    }
    expect_region_count(op, 1);
    expect_region_args(op, *op.region(0), args, "element");
    expect_terminator_operands(op, *op.region(0), 0, yields, "mapped values");
  }

  // dot: the operand convention of ops.def (shapes, element types, attributes).
  void check_dot(const Op& op) {
    expect_results(op, 1);
    const Type* a = operand_type(op, 0);
    const Type* b = operand_type(op, 1);
    const Type* out = result_type(op);
    if (!a->is_block() || !b->is_block() || !out->is_block() || a->rank() != b->rank() ||
        (a->rank() != 2 && a->rank() != 3)) {
      fail(op, "operands " + types_text({a, b}) + " are not two 2-D or two 3-D blocks");
    }
    expect_type(op, operand_type(op, 2), out, "the accumulator");
    const auto& as = a->shape();
    const auto& bs = b->shape();
    int r = a->rank();
    std::vector<int64_t> want(as.begin(), as.end() - 1);
    want.push_back(bs[r - 1]);
    if (as[r - 1] != bs[r - 2] || (r == 3 && as[0] != bs[0]) || out->shape() != want) {
      fail(op, "shapes do not multiply: " + types_text({a, b, out}));
    }
    using K = ScalarKind;
    K ta = a->element()->is_scalar() ? a->element()->scalar_kind() : K::I1;
    K tb = b->element()->is_scalar() ? b->element()->scalar_kind() : K::I1;
    K tr = out->element()->is_scalar() ? out->element()->scalar_kind() : K::I1;
    auto ocp_fp8 = [](K k) { return k == K::F8E4NV || k == K::F8E5; };
    bool ok = false;
    if (ocp_fp8(ta) && ocp_fp8(tb)) {
      ok = tr == K::F32 || tr == K::F16;
    } else if (ta == tb && a->element()->is_scalar()) {
      switch (ta) {
        case K::I8: ok = tr == K::I32; break;
        case K::F16: ok = tr == K::F32 || tr == K::F16; break;
        case K::BF16: case K::F32: ok = tr == K::F32; break;
        case K::F64: ok = tr == K::F64; break;
        default: break;
      }
    }
    if (!ok) fail(op, "element types " + types_text({a->element(), b->element(), out->element()}) + " are not a dot Triton allows");
    InputPrecision p = *expect_enum_attr<InputPrecision>(op, true);
    if (p != InputPrecision::Ieee && ta != K::F32) {
      fail(op, std::string("input_precision '") + enum_text(p) + "' on " + a->element()->str() + " inputs (only fp32 has one)");
    }
    expect_int_attr(op, "max_num_imprecise_acc");
    if (op.int_attr("max_num_imprecise_acc") < 0) fail(op, "negative max_num_imprecise_acc");
  }

  // ops.def's type rules: operands of one type of the rule's class, the result of that type.
  void check_type_rule(const Op& op) {
    expect_results(op, 1);
    TypeRule rule = op_type_rule(op.kind());
    std::vector<const Type*> types;
    for (int i = 0; i < op.num_operands(); ++i) types.push_back(operand_type(op, i));
    const Type* a = types[0];
    for (const Type* t : types) {
      if (!Type::same_ignoring_layout(t, a)) fail(op, "operands have different types " + types_text(types));
    }
    bool ok = rule == TypeRule::SameInt ? a->is_int() : rule == TypeRule::SameFloat ? a->is_float() : a->is_int() || a->is_float();
    if (!ok) {
      bool one = types.size() == 1;
      const char* want = rule == TypeRule::SameInt     ? (one ? "an integer" : "integers")
                         : rule == TypeRule::SameFloat ? (one ? "a float" : "floats")
                                                       : (one ? "a number" : "numbers");
      fail(op, std::string(one ? "operand" : "operands") + " of type " + a->str() + " (expected " + want + ")");
    }
    expect_type(op, result_type(op), a, "the result");
  }

  // print, assert and debug_barrier (ops.def, the debugging group).
  void check_debug_op(const Op& op) {
    auto expect_attr = [&](const char* name, size_t index) {
      const AttrValue* value = op.find_attr(name);
      if (value == nullptr || value->index() != index) fail(op, std::string("missing or mistyped attribute '") + name + "'");
    };
    switch (op.kind()) {
      case OpKind::Print:
        expect_results(op, 0);
        expect_attr("prefix", 2);
        expect_attr("hex", 0);
        return;
      case OpKind::Assert:
        expect_results(op, 0);
        if (!operand_type(op, 0)->is_bool()) fail(op, "the condition " + operand_type(op, 0)->str() + " is not i1");
        expect_attr("msg", 2);
        return;
      default: return expect_results(op, 0);  // debug_barrier
    }
  }

  static int element_bits(const Type* type) {
    const Type* e = type->element();
    return e->is_pointer() ? 64 : bit_width(e->scalar_kind());
  }

  void check_cast(const Op& op) {
    expect_results(op, 1);
    const Type* in = operand_type(op, 0);
    const Type* out = result_type(op);
    if (in->shape() != out->shape() || in->is_block() != out->is_block()) {
      fail(op, "cast changes the shape: " + in->str() + " to " + out->str());
    }
    if (const AttrValue* bitcast = op.find_attr("bitcast"); bitcast && *bitcast != AttrValue(int64_t{0})) {
      if (element_bits(in) != element_bits(out)) fail(op, "bitcast between different bit widths");
      return;
    }
    if ((in->is_ptr() && out->is_float()) || (in->is_float() && out->is_ptr())) {
      fail(op, "cast between a pointer and a float");
    }
  }

  // The type a load produces / a store takes: the pointee with the pointer's shape.
  const Type* pointee_shaped(const Op& op) const {
    const Type* ptr = operand_type(op, 0);
    if (!ptr->is_ptr()) fail(op, "the address " + ptr->str() + " is not a pointer");
    return ptr->with_element(ptr->element()->pointee());
  }

  void check_mask(const Op& op, const Value* mask) const {
    if (mask == nullptr) return;
    expect_type(op, mask->type(), operand_type(op, 0)->with_element(Type::scalar(ScalarKind::I1)), "the mask");
  }

  void check_atomic_rmw(const Op& op) {
    expect_results(op, 1);
    const Type* value = pointee_shaped(op);
    expect_type(op, operand_type(op, 1), value, "the value");
    expect_type(op, result_type(op), value, "the result");
    check_mask(op, AtomicRMWOp(op).mask());
    AtomicKind k = *expect_enum_attr<AtomicKind>(op, true);
    // The kind's rule (atomics.def): integers only, or fp16/bf16 where the IR takes them.
    AtomicRule rule = atomic_rule(k);
    bool f16 = value->element()->is_scalar() && (value->element()->scalar_kind() == ScalarKind::F16 ||
                                                 value->element()->scalar_kind() == ScalarKind::BF16);
    if ((rule == AtomicRule::Int && !value->is_int()) || (f16 && !atomic_ir_admits(k, value->element()->scalar_kind()))) {
      fail(op, std::string("atomic '") + enum_text(k) + "' on " + value->str());
    }
    check_sem_scope(op);
  }

  static std::vector<const Type*> bare(std::vector<const Type*> types) {
    for (const Type*& t : types) t = t->without_layout();
    return types;
  }

  // Region arguments and the terminator's operands against `want`.
  void expect_region_args(const Op& op, const Region& r, const std::vector<const Type*>& want,
                          const std::string& what) const {
    std::vector<const Type*> got;
    for (const auto& arg : r.args()) got.push_back(arg->type());
    if (bare(got) != bare(want)) fail(op, what + " arguments " + types_text(got) + " do not match " + types_text(want));
  }

  void expect_terminator_operands(const Op& op, const Region& r, size_t skip,
                                  const std::vector<const Type*>& want, const std::string& what) const {
    const Op* last = r.terminator();
    if (last == nullptr) return;  // check_terminator reports it
    std::vector<const Type*> got;
    for (int i = static_cast<int>(skip); i < last->num_operands(); ++i) {
      if (last->operand(i) == nullptr) fail(*last, "operand " + std::to_string(i) + " is null");
      got.push_back(last->operand(i)->type());
    }
    if (bare(got) != bare(want)) fail(op, what + " " + types_text(got) + " do not match " + types_text(want));
  }

  std::vector<const Type*> result_types(const Op& op) const {
    std::vector<const Type*> types;
    for (const auto& result : op.results()) types.push_back(result->type());
    return types;
  }

  void expect_region_count(const Op& op, size_t n) const {
    if (op.regions().size() != n) {
      fail(op, "expected " + std::to_string(n) + " regions, got " + std::to_string(op.regions().size()));
    }
  }

  void check_for(const Op& op) {
    const Type* iv = operand_type(op, 0);
    if (!iv->is_scalar() || !iv->is_int()) fail(op, "the lower bound " + iv->str() + " is not a scalar integer");
    expect_type(op, operand_type(op, 1), iv, "the upper bound");
    expect_type(op, operand_type(op, 2), iv, "the step");
    std::vector<const Type*> carried = result_types(op);
    std::vector<const Type*> init;
    for (int i = 3; i < op.num_operands(); ++i) init.push_back(operand_type(op, i));
    if (init != carried) fail(op, "initial values " + types_text(init) + " do not match results " + types_text(carried));
    expect_region_count(op, 1);
    std::vector<const Type*> args = {iv};
    args.insert(args.end(), carried.begin(), carried.end());
    expect_region_args(op, *op.region(0), args, "body");
    expect_terminator_operands(op, *op.region(0), 0, carried, "yielded values");
  }

  void check_if(const Op& op) {
    expect_type(op, operand_type(op, 0), Type::scalar(ScalarKind::I1), "the condition");
    expect_region_count(op, 2);
    std::vector<const Type*> results = result_types(op);
    for (int i = 0; i < 2; ++i) {
      expect_region_args(op, *op.region(i), {}, i == 0 ? "then-region" : "else-region");
      expect_terminator_operands(op, *op.region(i), 0, results, i == 0 ? "then-values" : "else-values");
    }
  }

  void check_while(const Op& op) {
    expect_region_count(op, 2);
    std::vector<const Type*> carried;
    for (int i = 0; i < op.num_operands(); ++i) carried.push_back(operand_type(op, i));
    std::vector<const Type*> passed = result_types(op);
    expect_region_args(op, *op.region(0), carried, "before-region");
    if (const Op* cond = op.region(0)->terminator(); cond && cond->num_operands() > 0 && cond->operand(0)) {
      expect_type(*cond, cond->operand(0)->type(), Type::scalar(ScalarKind::I1), "the condition");
    }
    expect_terminator_operands(op, *op.region(0), 1, passed, "values passed by 'condition'");
    expect_region_args(op, *op.region(1), passed, "after-region");
    expect_terminator_operands(op, *op.region(1), 0, carried, "yielded values");
  }

  const Function& function_;
  std::string stage_;
  bool input_;  // IR read from text: a broken rule is the text's error, not tritium's
  std::unordered_set<const Value*> visible_;
  std::vector<const Value*> defined_;
};

}  // namespace

void verify(const Function& function, const std::string& after_pass) {
  Verifier(function, after_pass).run();
}

void verify_input(const Function& function) { Verifier(function, "parse", true).run(); }

}  // namespace tritium::ir

// transpose_loads (transpose_loads.h).
#include "gpu/transpose_loads.h"

#include <unordered_map>
#include <vector>

#include "gpu/prefetch_operands.h"
#include "ir/attrs.h"
#include "ir/builder.h"
#include "transforms/eliminate_dead_code.h"

namespace tritium::gpu {

using ir::Op;
using ir::OpKind;
using ir::Value;

namespace {

// `t = trans(load(...))` with order [1, 0], the load used only there and t only as a dot's
// B operand. (Not A: the emitter copies A only along K, its last axis, and an A loaded
// transposed runs along M; the load and transpose as written are better there.)
bool qualifies(const Op& trans) {
  if (trans.kind() != OpKind::Trans || trans.result()->type()->rank() != 2) return false;
  if (trans.ints_attr("order") != std::vector<int64_t>{1, 0}) return false;
  const Value* t = trans.result();
  if (t->num_uses() != 1 || t->users()[0]->kind() != OpKind::Dot || t->uses()[0].index != 1) return false;
  const Value* x = trans.operand(0);
  const Op* load = x->def();
  return load != nullptr && load->kind() == OpKind::Load && x->num_uses() == 1 && load->parent() == trans.parent();
}

// `v` (2-D) transposed, written without a trans where the expression allows: a splat or
// constant is made again in the new shape, an expand_dims of a 1-D value inserts the other
// axis, a broadcast or an elementwise op is applied to transposed operands, and a trans is
// undone. So the pointer and mask blocks stay the make_range / expand_dims / broadcast
// chains that the axis facts understand and that any thread recomputes from an element's
// index (no trans of pointers through shared memory). Anything else goes through a trans.
class Transposer {
 public:
  explicit Transposer(ir::Builder& b) : b_(b) {}

  Value* operator()(Value* v) {
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    Value* out = rewrite(v);
    memo_[v] = out;
    return out;
  }

 private:
  static const ir::Type* swapped(const ir::Type* t) {
    const std::vector<int64_t>& s = t->shape();
    return ir::Type::block(t->element(), {s[1], s[0]});
  }

  Value* rewrite(Value* v) {
    const ir::Type* type = swapped(v->type());
    Op* def = v->def();
    const Loc loc = def != nullptr ? def->loc() : Loc{};
    if (def == nullptr || --budget_ < 0) return trans(v, type, loc);
    switch (def->kind()) {
      case OpKind::Splat: return b_.create_value(OpKind::Splat, type, {def->operand(0)}, loc);
      case OpKind::Constant: {
        Op* copy = b_.create(OpKind::Constant, {type}, {}, loc);
        for (const ir::Attr& attr : def->attrs()) copy->set_attr(attr.name, attr.value);
        return copy->result();
      }
      case OpKind::Trans: return def->operand(0);  // rank 2: its order is [1, 0]
      case OpKind::DescriptorTile: {  // still the descriptor's block, now transposed
        std::vector<Value*> operands = def->operands();
        operands[0] = (*this)(def->operand(0));
        Op* op = b_.create(OpKind::DescriptorTile, {type}, operands, loc);
        op->set_attr("transposed", int64_t{def->find_attr("transposed") == nullptr ? 1 : 1 - def->int_attr("transposed")});
        return op->result();
      }
      case OpKind::ExpandDims:
        if (def->operand(0)->type()->rank() == 1) {
          Op* op = b_.create(OpKind::ExpandDims, {type}, {def->operand(0)}, loc);
          op->set_attr("axis", int64_t{1 - def->int_attr("axis")});
          return op->result();
        }
        break;
      case OpKind::Broadcast:
        if (def->operand(0)->type()->rank() == 2) {
          return b_.create_value(OpKind::Broadcast, type, {(*this)(def->operand(0))}, loc);
        }
        break;
      default:
        if (ir::has_trait(def->kind(), ir::kElementwise) && ir::is_pure(*def) &&
            def->num_results() == 1) {
          std::vector<Value*> operands;
          for (Value* operand : def->operands()) {
            operands.push_back(operand->type()->is_block() ? (*this)(operand) : operand);
          }
          Op* op = b_.create(def->kind(), {type}, operands, loc);
          for (const ir::Attr& attr : def->attrs()) op->set_attr(attr.name, attr.value);
          return op->result();
        }
        break;
    }
    return trans(v, type, loc);
  }

  Value* trans(Value* v, const ir::Type* type, const Loc& loc) {
    Op* op = b_.create(OpKind::Trans, {type}, {v}, loc);
    op->set_attr("order", std::vector<int64_t>{1, 0});
    return op->result();
  }

  ir::Builder& b_;
  std::unordered_map<Value*, Value*> memo_;
  int budget_ = 64;  // ops rewritten per load, at most
};

void collect(ir::Region& region, std::vector<Op*>& out) {
  for (const auto& op : region.ops()) {
    if (qualifies(*op)) out.push_back(op.get());
    for (const auto& inner : op->regions()) collect(*inner, out);
  }
}

}  // namespace

bool transposes_loads(const ir::Function& function, const GpuOptions& options) {
  return options.sm >= 90 && pipelines_dots(function, options);
}

void transpose_loads(ir::Function& function, const GpuOptions& options) {
  if (!transposes_loads(function, options)) return;
  std::vector<Op*> found;
  collect(function.body(), found);
  for (Op* trans : found) {
    Op* load = const_cast<Op*>(trans->operand(0)->def());
    const ir::Type* type = trans->result()->type();
    // At the load's place, not the trans's: a store between the two may write what it reads.
    ir::Builder b = ir::Builder::before(load);
    Transposer transposed(b);
    std::vector<Value*> operands;
    for (Value* v : load->operands()) operands.push_back(v->type()->is_block() ? transposed(v) : v);
    Op* moved = b.create(OpKind::Load, {type}, operands, load->loc());
    for (const ir::Attr& attr : load->attrs()) moved->set_attr(attr.name, attr.value);
    trans->result()->replace_all_uses_with(moved->result());
    ir::Region* region = trans->parent();
    region->erase(trans);
    region->erase(load);
  }
  // The original pointer and mask chains, where nothing else reads them.
  if (!found.empty()) transforms::eliminate_dead_code(function);
}

}  // namespace tritium::gpu

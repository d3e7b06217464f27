// Flattening of tuples and aggregates into tensor leaves for loops and branches, and the
// removal of carried leaves a loop never changes (aggregate.h).
#include "lower/aggregate.h"

#include "lower/block_ptr.h"
#include "support/diagnostics.h"

namespace tritium::lower {

void flatten_leaves(const LValue& v, std::vector<ir::Value*>* leaves) {
  if (v.is_tensor()) {
    leaves->push_back(v.value);
  } else if (is_compound(v)) {
    for (const LValue& item : v.items) flatten_leaves(item, leaves);
  }
}

LValue rebuild_leaves(const LValue& like, const std::vector<ir::Value*>& leaves, size_t* cursor) {
  if (like.is_tensor()) return LValue::tensor(leaves.at((*cursor)++));
  if (!is_compound(like)) return like;
  LValue out = like;
  for (LValue& item : out.items) item = rebuild_leaves(item, leaves, cursor);
  return out;
}

std::string type_string(const LValue& v) {
  if (v.is_tensor()) return v.value->type()->str();
  if (v.kind == LValue::Kind::Aggregate) {
    // A block pointer or descriptor is named by the block it loads: block_ptr<block<16xfp32>>.
    size_t shape_field = v.name == "block_ptr" ? kBpBlockShape : v.name == "tensor_descriptor" ? kDescBlockShape : 0;
    if (shape_field == 0 || v.items.size() <= shape_field || !v.items[0].is_tensor()) return v.describe();
    std::vector<int64_t> shape;
    for (const LValue& d : v.items[shape_field].items) shape.push_back(static_cast<int64_t>(d.c.i));
    return v.name + "<" + ir::Type::block(v.items[0].value->type()->pointee(), shape)->str() + ">";
  }
  if (v.kind == LValue::Kind::Tuple) {
    std::string out = v.is_list ? "[" : "(";
    for (size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + type_string(v.items[i]);
    if (!v.is_list && v.items.size() == 1) out += ",";
    return out + (v.is_list ? "]" : ")");
  }
  return v.describe();
}

namespace {

bool same_constant(const LValue& a, const LValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case LValue::Kind::Const: return a.c.kind == b.c.kind && a.c == b.c;
    case LValue::Kind::Module: return a.name == b.name;
    case LValue::Kind::Builtin: return a.name == b.name && a.items.size() == b.items.size();
    case LValue::Kind::Function: return a.function && b.function && a.function->def == b.function->def;
    default: return false;
  }
}

std::string difference(const LValue& init, const LValue& now, const std::string& path) {
  std::string where = path.empty() ? "" : " (at " + path + ")";
  const char* keep_type = "; its type must stay the same";
  if (init.is_tensor() && now.is_tensor()) {
    if (init.value->type() == now.value->type()) return "";
    return "has type " + init.value->type()->str() + " before the loop and " + now.value->type()->str() +
           " after an iteration" + where + keep_type;
  }
  if (is_compound(init) && now.kind == init.kind && now.name == init.name && init.items.size() == now.items.size()) {
    for (size_t i = 0; i < init.items.size(); ++i) {
      std::string d = difference(init.items[i], now.items[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  bool init_leaf = !init.is_tensor() && !is_compound(init);
  if (init_leaf && same_constant(init, now)) return "";
  if (init_leaf && !now.is_tensor() && !is_compound(now)) {
    return "is " + init.describe() + " before the loop and " + now.describe() + " after an iteration" + where +
           "; a value known at compile time cannot change in a loop";
  }
  return "is " + type_string(init) + " before the loop and " + type_string(now) + " after an iteration" + where +
         keep_type;
}

}  // namespace

std::string structure_difference(const LValue& init, const LValue& now) { return difference(init, now, ""); }

ir::Op* drop_invariant_carried(ir::Op* loop, const std::vector<ir::Value*>& inits, std::vector<bool>* kept) {
  bool is_for = loop->kind() == ir::OpKind::For;
  size_t n = inits.size();
  kept->assign(n, true);
  ir::Region* body = loop->region(is_for ? 0 : 1);
  ir::Op* yield = body->terminator();
  ir::Op* condition = is_for ? nullptr : loop->region(0)->terminator();
  int first_arg = is_for ? 1 : 0;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    int k = static_cast<int>(i);
    bool invariant = yield->operand(k) == body->arg(k + first_arg);
    if (!is_for) invariant = invariant && condition->operand(k + 1) == loop->region(0)->arg(k);
    if (invariant) {
      (*kept)[i] = false;
      any = true;
    }
  }
  if (!any) return loop;
  if (loop->num_results() != 0) internal_error("lower", "a loop's results exist before its carried values are final", loop->loc());

  // A fresh op carrying only the kept leaves; the regions' ops move over unchanged.
  auto fresh = std::make_unique<ir::Op>(loop->kind(), loop->loc());
  for (const ir::Attr& attr : loop->attrs()) fresh->set_attr(attr.name, attr.value);
  size_t first_operand = is_for ? 3 : 0;
  std::vector<ir::Value*> operands(loop->operands().begin(), loop->operands().begin() + static_cast<long>(first_operand));
  for (size_t i = 0; i < n; ++i) {
    if ((*kept)[i]) operands.push_back(inits[i]);
  }
  fresh->set_operands(operands);
  for (const auto& old_region : loop->regions()) {
    ir::Region* region = fresh->add_region();
    int skip = is_for ? 1 : 0;  // the induction variable
    for (int i = 0; i < skip; ++i) old_region->arg(i)->replace_all_uses_with(region->add_arg(old_region->arg(i)->type()));
    for (size_t i = 0; i < n; ++i) {
      ir::Value* old_arg = old_region->arg(static_cast<int>(i) + skip);
      old_arg->replace_all_uses_with((*kept)[i] ? region->add_arg(old_arg->type()) : inits[i]);
    }
    std::vector<ir::Op*> moving;
    for (const auto& op : old_region->ops()) moving.push_back(op.get());
    for (ir::Op* op : moving) region->insert(region->ops().size(), old_region->take(op));
  }
  // Terminators forward only the kept leaves.
  auto filter = [&](ir::Op* term, size_t offset) {
    std::vector<ir::Value*> kept_operands(term->operands().begin(), term->operands().begin() + static_cast<long>(offset));
    for (size_t i = 0; i < n; ++i) {
      if ((*kept)[i]) kept_operands.push_back(term->operand(static_cast<int>(i + offset)));
    }
    term->set_operands(kept_operands);
  };
  filter(yield, 0);
  if (condition) filter(condition, 1);

  ir::Region* parent = loop->parent();
  ir::Op* result = parent->insert(parent->index_of(loop) + 1, std::move(fresh));
  parent->erase(loop);
  return result;
}

}  // namespace tritium::lower

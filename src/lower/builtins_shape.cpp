// Shape builtins: reshape/view, broadcast_to, broadcast, expand_dims.
#include <algorithm>

#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::Type;
using ir::Value;

namespace {

LValue reshape(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* x = L.to_tensor(a.get("input"), loc);
  std::vector<int64_t> shape = a.shape("shape");
  if (a.fn() == "broadcast_to") return LValue::tensor(L.broadcast_to(x, shape, loc));
  int64_t numel = 1;
  for (int64_t d : shape) {
    numel *= d;
    if (numel > (1 << 20)) error_at(loc, "a block of more than 1048576 elements exceeds the limit of 1048576");
  }
  int64_t have = x->type()->is_block() ? x->type()->num_elements() : 1;
  if (numel != have) {
    error_at(loc, "cannot reshape " + x->type()->str() + " (" + std::to_string(have) + " elements) to " +
                      std::to_string(numel) + " elements");
  }
  if (x->type()->shape() == shape) return LValue::tensor(x);
  if (!x->type()->is_block()) return LValue::tensor(L.broadcast_to(x, shape, loc));
  return LValue::tensor(L.emit(ir::OpKind::Reshape, Type::block(x->type()->element(), shape), {x}, loc));
}

LValue expand_dims(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* x = L.to_tensor(a.get("input"), loc);
  std::vector<int64_t> axes;
  const LValue& ax = a.get("axis");
  if (ax.kind == LValue::Kind::Tuple) {
    for (const LValue& i : ax.items) axes.push_back(i.is_const() ? static_cast<int64_t>(i.c.i) : 0);
  } else {
    axes.push_back(static_cast<int64_t>(a.const_int("axis")));
  }
  int new_rank = x->type()->rank() + static_cast<int>(axes.size());
  for (int64_t& axis : axes) {
    if (axis < 0) axis += new_rank;
    if (axis < 0 || axis >= new_rank) error_at(loc, "expand_dims axis is out of range for the result rank " + std::to_string(new_rank));
  }
  std::sort(axes.begin(), axes.end());
  for (int64_t axis : axes) {
    std::vector<int64_t> shape = x->type()->shape();
    shape.insert(shape.begin() + axis, 1);
    ir::Op* op = L.builder().create(ir::OpKind::ExpandDims, {Type::block(x->type()->element(), shape)}, {x}, loc);
    op->set_attr("axis", axis);
    x = op->result();
  }
  return LValue::tensor(x);
}

}  // namespace

void register_shape_builtins(BuiltinTable& t) {
  // Shapes come as a tuple or as separate ints: reshape(x, (4, 8)) or reshape(x, 4, 8).
  t.add("reshape", {"input", "*shape", "can_reorder="}, true, reshape);
  t.add("view", {"input", "*shape"}, true, reshape);
  t.add("broadcast_to", {"input", "*shape"}, true, reshape);
  t.add("expand_dims", {"input", "axis"}, true, expand_dims);
  t.add("broadcast", {"input", "other"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    auto [x, y] = L.broadcast(L.to_tensor(a.get("input"), loc), L.to_tensor(a.get("other"), loc), loc);
    return LValue::tuple({LValue::tensor(x), LValue::tensor(y)});
  });
}

}  // namespace tritium::lower

// Shape builtins: reshape/view, broadcast_to, broadcast, expand_dims, squeeze/unsqueeze.
#include <algorithm>

#include "lower/block_shape.h"
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
  int64_t numel = check_block_shape(shape, loc);
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
  std::vector<__int128> given;
  const LValue& ax = a.get("axis");
  if (ax.kind == LValue::Kind::Tuple) {
    for (const LValue& i : ax.items) {
      if (!i.is_const() || i.c.kind != ConstValue::Kind::Int)
        error_at(loc, "the axes of expand_dims must be constexpr ints, got " + i.describe());
      given.push_back(i.c.i);
    }
  } else {
    given.push_back(a.const_int("axis"));
  }
  // Triton's _wrap_axis against the result rank, then its duplicate check.
  int new_rank = x->type()->rank() + static_cast<int>(given.size());
  std::vector<int64_t> axes;
  std::string listed;
  for (__int128 axis : given) {
    if (axis < -new_rank || axis >= new_rank) {
      error_at(loc, "invalid axis " + int128_to_string(axis) + ". Expected " + std::to_string(-new_rank) +
                        " <= axis < " + std::to_string(new_rank));
    }
    axes.push_back(static_cast<int64_t>(axis < 0 ? axis + new_rank : axis));
    listed += (listed.empty() ? "" : ", ") + std::to_string(axes.back());
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    if (std::count(axes.begin(), axes.end(), axes[i]) > 1) {
      error_at(loc, "expand_dims received duplicate axes, normalized axes = [" + listed + "]");
    }
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

// squeeze: drops dimension `dim` (negative counts from the end), which must have size 1.
LValue squeeze(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* x = L.to_tensor(a.get("input"), loc);
  if (!x->type()->is_block()) error_at(loc, "tl.squeeze needs a block, got " + x->type()->str());
  int rank = x->type()->rank();
  __int128 dim = a.const_int("dim");
  if (dim < -rank || dim >= rank) {
    error_at(loc, "invalid axis " + int128_to_string(dim) + ". Expected " + std::to_string(-rank) + " <= axis < " +
                      std::to_string(rank));
  }
  if (dim < 0) dim += rank;
  std::vector<int64_t> shape = x->type()->shape();
  if (shape[static_cast<size_t>(dim)] != 1) {
    error_at(loc, "tl.squeeze: dimension " + int128_to_string(dim) + " of " + x->type()->str() + " has size " +
                      std::to_string(shape[static_cast<size_t>(dim)]) + ", not 1");
  }
  if (rank == 1) error_at(loc, "tl.squeeze of a 1-D block would make a scalar block, which tritium does not have; use tl.sum(x)");
  shape.erase(shape.begin() + static_cast<int64_t>(dim));
  return LValue::tensor(L.emit(ir::OpKind::Reshape, Type::block(x->type()->element(), shape), {x}, loc));
}

// trans and permute: `dims` as separate ints or one tuple; trans() of a 2-D block swaps.
LValue permute(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* x = L.to_tensor(a.get("input"), loc);
  std::vector<int64_t> order = a.has("dims") ? a.shape("dims") : std::vector<int64_t>{1, 0};
  int rank = x->type()->rank();
  std::vector<bool> seen(rank, false);
  bool ok = static_cast<int>(order.size()) == rank;
  for (int64_t d : order) {
    ok = ok && d < rank && !seen[d];
    if (ok) seen[d] = true;
  }
  if (!ok) {
    std::string dims;
    for (int64_t d : order) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    error_at(loc, "permute dims must be a permutation of 0, 1, ..., n-1, where n is the number of dimensions of the "
                  "input (" + std::to_string(rank) + "), got (" + dims + ")");
  }
  bool identity = true;
  for (int d = 0; d < rank; ++d) identity = identity && order[d] == d;
  if (identity) return LValue::tensor(x);
  std::vector<int64_t> shape;
  for (int64_t d : order) shape.push_back(x->type()->shape()[d]);
  ir::Op* op = L.builder().create(ir::OpKind::Trans, {Type::block(x->type()->element(), shape)}, {x}, loc);
  op->set_attr("order", order);
  return LValue::tensor(op->result());
}

// join: two values of one type (after promotion and broadcasting) -> a new last dim of 2.
Value* join(Lowerer& L, const LValue& a, const LValue& b, const Loc& loc) {
  auto [x, y] = L.binary_operands(a, b, /*allow_lhs_ptr=*/true, /*allow_rhs_ptr=*/true, /*arithmetic_check=*/false,
                                  /*div_or_mod=*/false, loc);
  // Shapes broadcast, dtypes do not (Triton's join op needs one type for both operands).
  if (x->type()->element() != y->type()->element()) {
    error_at(loc, "join: both operands must have the same dtype, got " + x->type()->element()->str() + " and " +
                      y->type()->element()->str());
  }
  std::vector<int64_t> shape = x->type()->shape();
  shape.push_back(2);
  check_block_shape(shape, loc);
  return L.emit(ir::OpKind::Join, Type::block(x->type()->element(), shape), {x, y}, loc);
}

}  // namespace

void register_shape_builtins(BuiltinTable& t) {
  // Shapes come as a tuple or as separate ints: reshape(x, (4, 8)) or reshape(x, 4, 8).
  t.add("reshape", {"input", "*shape", "can_reorder="}, true, reshape);
  t.add("view", {"input", "*shape"}, true, reshape);
  t.add("broadcast_to", {"input", "*shape"}, true, reshape);
  t.add("expand_dims", {"input", "axis"}, true, expand_dims);
  // The newer Triton's names: unsqueeze is expand_dims of one dim (negative from the end of
  // the result, so unsqueeze(x, -1) appends a dim), squeeze its inverse.
  t.add("squeeze", {"input", "dim"}, true, squeeze);
  t.add("unsqueeze", {"input", "dim"}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    a.const_int("dim");  // one dim, not a tuple
    return L.call_builtin(LValue::builtin("tl.expand_dims"), {a.get("input"), a.get("dim")}, {}, loc);
  });
  t.add("trans", {"input", "*dims"}, true, permute);
  t.add("permute", {"input", "*dims"}, true, permute);
  t.add("join", {"a", "b"}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return LValue::tensor(join(L, a.get("a"), a.get("b"), loc));
  });
  t.add("interleave", {"a", "b"}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* joined = join(L, a.get("a"), a.get("b"), loc);
    std::vector<int64_t> shape = joined->type()->shape();
    shape.pop_back();
    if (shape.empty()) return LValue::tensor(joined);
    shape.back() *= 2;
    return LValue::tensor(L.emit(ir::OpKind::Reshape, Type::block(joined->type()->element(), shape), {joined}, loc));
  });
  t.add("split", {"a"}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("a"), loc);
    if (!x->type()->is_block() || x->type()->shape().back() != 2) {
      error_at(loc, "split: the last dimension of the input must be 2, got " + x->type()->str());
    }
    std::vector<int64_t> shape(x->type()->shape().begin(), x->type()->shape().end() - 1);
    const Type* half = shape.empty() ? x->type()->element() : Type::block(x->type()->element(), shape);
    ir::Op* op = L.builder().create(ir::OpKind::Split, {half, half}, {x}, loc);
    return LValue::tuple({LValue::tensor(op->result(0)), LValue::tensor(op->result(1))});
  });
  t.add("cat", {"input", "other", "can_reorder="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    if (!a.const_bool("can_reorder", false)) error_at(loc, "current implementation of `cat` always may reorder elements");
    Value* x = L.to_tensor(a.get("input"), loc);
    Value* y = L.to_tensor(a.get("other"), loc);
    if (!x->type()->is_block() || x->type() != y->type()) {
      error_at(loc, "tl.cat needs two blocks of one type, got " + x->type()->str() + " and " + y->type()->str());
    }
    std::vector<int64_t> shape = x->type()->shape();
    shape[0] *= 2;
    check_block_shape(shape, loc);
    return LValue::tensor(L.emit(ir::OpKind::Cat, Type::block(x->type()->element(), shape), {x, y}, loc));
  });
  t.add("broadcast", {"input", "other"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    auto [x, y] = L.broadcast(L.to_tensor(a.get("input"), loc), L.to_tensor(a.get("other"), loc), loc);
    return LValue::tuple({LValue::tensor(x), LValue::tensor(y)});
  });
}

}  // namespace tritium::lower

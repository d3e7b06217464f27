// tl.flip, tl.sort and tl.topk the way Triton defines them in its language: sorting is a
// bitonic network of compare-and-swaps (where) over the block viewed as a hypercube of dims
// of 2. Where Triton's language exchanges each pair along a dim as `y ^ xor_sum(y, d)` on the
// bits (a reduction and a broadcast back), tritium has an op, `flip` along that dim of 2 (the
// pair swapped; its own tl.flip too), which the GPU emitter makes a register move, a warp
// shuffle, or one shared-memory round trip (emit_move.cpp) instead of the reduction's.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::Type;
using ir::Value;

namespace {

int log2_exact(int64_t n) {
  int log = 0;
  while ((int64_t{1} << log) < n) ++log;
  return log;
}

LValue int_const(int64_t v) { return LValue::constant(ConstValue::integer(v)); }

Value* reshape(Lowerer& L, Value* x, const std::vector<int64_t>& shape, const Loc& loc) {
  if (x->type()->shape() == shape) return x;
  return L.emit(ir::OpKind::Reshape, Type::block(x->type()->element(), shape), {x}, loc);
}

// x reversed along dim `d` (a power of two; for a dim of 2, each pair swapped).
Value* flip_dim(Lowerer& L, Value* x, int64_t d, const Loc& loc) {
  ir::Op* op = L.builder().create(ir::OpKind::Flip, {x->type()}, {x}, loc);
  op->set_attr("axis", d);
  return op->result();
}

// arange(0, 2) along dim n_dims - 1 - j of an n_dims hypercube (size 1 elsewhere).
LValue indicator(Lowerer& L, int n_dims, int j, const Loc& loc) {
  Value* range = L.call_builtin(LValue::builtin("tl.arange"), {int_const(0), int_const(2)}, {}, loc).value;
  std::vector<int64_t> shape(n_dims, 1);
  shape[n_dims - 1 - j] = 2;
  return LValue::tensor(reshape(L, range, shape, loc));
}

// One compare-and-swap along the i-th innermost dim of the hypercube `x`.
Value* compare_and_swap(Lowerer& L, Value* x, const LValue& flip, int i, const Loc& loc) {
  int n_dims = x->type()->rank();
  Value* y = flip_dim(L, x, n_dims - 1 - i, loc);
  LValue greater = LValue::tensor(L.cmp(ir::CmpPredicate::Gt, LValue::tensor(x), LValue::tensor(y), loc));
  LValue order = L.binary(ast::BinaryOp::BitXor, flip, indicator(L, n_dims, i, loc), loc);
  LValue swap = L.compare(ast::CompareOp::NotEq, greater, order, loc);
  return L.where(swap, LValue::tensor(y), LValue::tensor(x), loc);
}

// order: 0 ascending, 1 descending, 2 alternating (by the `stage` bit).
Value* bitonic_merge(Lowerer& L, Value* h, int stage, int order, const Loc& loc) {
  LValue flip = order == 2 ? indicator(L, h->type()->rank(), stage, loc) : int_const(order);
  for (int i = 0; i < stage; ++i) h = compare_and_swap(L, h, flip, stage - 1 - i, loc);
  return h;
}

// Triton's sort_impl: a bitonic sort of the last dim; with k, the k largest (descending)
// or smallest, found by halving with max/min between merges.
LValue sort_impl(Lowerer& L, const BuiltinArgs& a, int64_t k, bool descending, const Loc& loc) {
  Value* x = L.to_tensor(a.get("x"), loc);
  if (!x->type()->is_block()) error_at(loc, "tl." + a.fn() + " needs a block, got " + x->type()->str());
  std::vector<int64_t> shape = x->type()->shape();
  int rank = static_cast<int>(shape.size());
  if (a.has("dim")) {
    __int128 dim = a.const_int("dim");
    if (dim != rank - 1) error_at(loc, "only minor dimension is currently supported");
  }
  int log_n = log2_exact(shape.back());
  int log_k = k < 0 ? log_n : log2_exact(k);
  if (k >= 0 && (!is_power_of_two(k) || k > shape.back())) {
    error_at(loc, "k of tl.topk must be a power of two no larger than the last dim (" + std::to_string(shape.back()) +
                      "), got " + std::to_string(k));
  }
  int n_dims = log2_exact(x->type()->num_elements());
  if (n_dims == 0) return LValue::tensor(x);
  Value* h = reshape(L, x, std::vector<int64_t>(n_dims, 2), loc);
  for (int i = 1; i <= log_k; ++i) h = bitonic_merge(L, h, i, i < log_n ? 2 : descending, loc);
  for (int i = log_k + 1; i <= log_n; ++i) {
    int64_t axis = h->type()->rank() - 1 - log_k;
    h = L.call_builtin(LValue::builtin(descending ? "tl.max" : "tl.min"), {LValue::tensor(h), int_const(axis)}, {}, loc)
            .value;
    h = bitonic_merge(L, h, log_k, i < log_n ? 2 : descending, loc);
  }
  shape.back() = int64_t{1} << log_k;
  return LValue::tensor(reshape(L, h, shape, loc));
}

}  // namespace

void register_sort_builtins(BuiltinTable& t) {
  t.add("flip", {"x", "dim="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("x"), loc);
    if (!x->type()->is_block()) error_at(loc, "tl.flip needs a block, got " + x->type()->str());
    std::vector<int64_t> shape = x->type()->shape();
    int rank = static_cast<int>(shape.size());
    __int128 dim = a.has("dim") ? a.const_int("dim") : rank - 1;
    if (dim < -rank || dim >= rank) {
      error_at(loc, "invalid axis " + int128_to_string(dim) + ". Expected " + std::to_string(-rank) + " <= axis < " +
                        std::to_string(rank));
    }
    if (dim < 0) dim += rank;
    int64_t n = shape[static_cast<size_t>(dim)];
    if (!is_power_of_two(n)) error_at(loc, "tl.flip needs a power-of-two dimension, got " + std::to_string(n));
    if (n == 1) return LValue::tensor(x);
    return LValue::tensor(flip_dim(L, x, static_cast<int64_t>(dim), loc));
  });
  t.add("sort", {"x", "dim=", "descending="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return sort_impl(L, a, -1, a.const_bool("descending", false), loc);
  });
  // The last merge of the bitonic network over the last dim (a bitonic sequence sorted), as
  // Triton's tl.bitonic_merge: stage log2(n) of sort_impl, in one order.
  t.add("bitonic_merge", {"x", "dim=", "descending="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("x"), loc);
    if (!x->type()->is_block()) error_at(loc, "tl.bitonic_merge needs a block, got " + x->type()->str());
    const std::vector<int64_t>& shape = x->type()->shape();
    const int rank = static_cast<int>(shape.size());
    if (a.has("dim") && a.const_int("dim") != rank - 1) error_at(loc, "only minor dimension is currently supported");
    if (!is_power_of_two(shape.back())) {
      error_at(loc, "tl.bitonic_merge needs a power-of-two last dim, got " + std::to_string(shape.back()));
    }
    const int n_dims = log2_exact(x->type()->num_elements());
    const int stage = log2_exact(shape.back());
    if (stage == 0) return LValue::tensor(x);
    Value* h = reshape(L, x, std::vector<int64_t>(n_dims, 2), loc);
    h = bitonic_merge(L, h, stage, a.const_bool("descending", false) ? 1 : 0, loc);
    return LValue::tensor(reshape(L, h, shape, loc));
  });
  t.add("topk", {"x", "k", "dim="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    // topk is sort_impl(descending=True) keeping k.
    return sort_impl(L, a, static_cast<int64_t>(a.const_int("k")), true, loc);
  });
}

}  // namespace tritium::lower

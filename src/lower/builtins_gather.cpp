// tl.gather(src, index, axis) with Triton's checks, as the op `gather {axis}` (ir/ops.def):
// the interpreter reads each element by its index, the GPU stages the source through
// shared memory and every thread reads its elements there (nvptx/emit_move.cpp). A source
// at most kOneHotMaxAxis long along the axis is instead composed from existing ops, where no
// shared memory or barrier is needed: a one-hot compare of each index with arange(N) along
// a new axis selects the source element's bits, and an xor-reduction over that axis
// collects them (at most one term is non-zero). Both give zero for an index outside
// [0, N), which Triton leaves undefined.
#include "lower/block_shape.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// The longest source axis gathered by the one-hot compare (N compares and selects per
// element, and the source broadcast over the index's axis): tests/unit/test_nvptx.cpp's
// "gather" cases pin which path a shape takes; benchmarks/RESULTS.md, session 13's static
// count, says why this length.
constexpr int64_t kOneHotMaxAxis = 4;
constexpr int64_t kMaxNumel = int64_t{1} << 20;  // Triton's TRITON_MAX_TENSOR_NUMEL: the one-hot block's bound

// The signed integer kind of `kind`'s width: what the bits travel as.
ScalarKind bits_kind(const Type* element) {
  if (element->is_pointer()) return ScalarKind::I64;
  switch (ir::bit_width(element->scalar_kind())) {
    case 8: return ScalarKind::I8;
    case 16: return ScalarKind::I16;
    case 32: return ScalarKind::I32;
    default: return ScalarKind::I64;
  }
}

Value* expand(Lowerer& L, Value* x, int64_t axis, const Loc& loc) {
  return L.call_builtin(LValue::builtin("tl.expand_dims"), {LValue::tensor(x), LValue::constant(ConstValue::integer(axis))},
                        {}, loc)
      .value;
}

LValue gather(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* src = L.to_tensor(a.get("src"), loc);
  Value* index = L.to_tensor(a.get("index"), loc);
  const Type* index_element = index->type()->element();
  if (!index_element->is_scalar() || !ir::is_integer(index_element->scalar_kind()) ||
      index_element->scalar_kind() == ScalarKind::I1) {
    error_at(loc, "index must be an integer tensor, got " + index->type()->str());
  }
  if (!src->type()->is_block()) error_at(loc, "src must be a tensor, got a scalar");
  int rank = src->type()->rank();
  if (index->type()->rank() != rank) error_at(loc, "source and index tensors must have the same rank");
  __int128 axis = a.const_int("axis");
  if (axis < -rank || axis >= rank) {
    error_at(loc, "gather axis " + int128_to_string(axis) + " must be < source rank (" + std::to_string(rank) + ")");
  }
  if (axis < 0) axis += rank;
  const int64_t ax = static_cast<int64_t>(axis);
  const std::vector<int64_t>& src_shape = src->type()->shape();
  const std::vector<int64_t>& index_shape = index->type()->shape();
  for (int d = 0; d < rank; ++d) {
    if (d != ax && index_shape[d] != src_shape[d]) {
      error_at(loc, "index dim " + std::to_string(d) + " must match the corresponding source dim (index " +
                        index->type()->str() + ", source " + src->type()->str() + ")");
    }
  }
  const int64_t n = src_shape[ax];
  if (n > kOneHotMaxAxis || index->type()->num_elements() * n > kMaxNumel) {
    ir::Op* op = L.builder().create(ir::OpKind::Gather, {index->type()->with_element(src->type()->element())}, {src, index}, loc);
    op->set_attr("axis", ax);
    return LValue::tensor(op->result());
  }
  // The source as integer bits (bools widened to int8, pointers as int64).
  const Type* element = src->type()->element();
  bool is_bool = element->is_scalar() && element->scalar_kind() == ScalarKind::I1;
  const Type* bits_type = Type::scalar(bits_kind(element));
  Value* bits = is_bool ? L.cast(src, ScalarKind::I8, loc) : L.cast(src, bits_type, loc, /*bitcast=*/true);
  if (is_bool) bits_type = Type::scalar(ScalarKind::I8);
  // [.., K, 1, ..] indices against [.., 1, N, ..] positions and sources.
  Value* idx = expand(L, index, ax + 1, loc);
  Value* sources = expand(L, bits, ax, loc);
  std::vector<int64_t> range_shape(static_cast<size_t>(rank + 1), 1);
  range_shape[static_cast<size_t>(ax + 1)] = n;
  Value* range = L.call_builtin(LValue::builtin("tl.arange"), {LValue::constant(ConstValue::integer(0)),
                                                                LValue::constant(ConstValue::integer(n))}, {}, loc)
                     .value;
  range = L.call_builtin(LValue::builtin("tl.reshape"), {LValue::tensor(range), LValue::tuple([&] {
                           std::vector<LValue> dims;
                           for (int64_t s : range_shape) dims.push_back(LValue::constant(ConstValue::integer(s)));
                           return dims;
                         }())},
                         {}, loc)
              .value;
  LValue hit = L.compare(ast::CompareOp::Eq, LValue::tensor(idx), LValue::tensor(range), loc);
  Value* zero = L.constant(bits_type->scalar_kind(), ConstValue::integer(0), loc);
  Value* picked = L.where(hit, LValue::tensor(sources), LValue::tensor(zero), loc);
  Value* out = L.call_builtin(LValue::builtin("tl.xor_sum"), {LValue::tensor(picked), LValue::constant(ConstValue::integer(ax + 1))},
                              {}, loc)
                   .value;
  if (is_bool) return LValue::tensor(L.cast(out, ScalarKind::I1, loc));
  return LValue::tensor(L.cast(out, element, loc, /*bitcast=*/true));
}

}  // namespace

void register_gather_builtins(BuiltinTable& t) { t.add("gather", {"src", "index", "axis"}, true, gather); }

}  // namespace tritium::lower

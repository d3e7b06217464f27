// tl.gather(src, index, axis) with Triton's checks, as the op `gather {axis}` (ir/ops.def):
// the interpreter reads each element by its index, the GPU stages the source through
// shared memory and every thread reads its elements there (nvptx/emit_move.cpp). An index
// outside [0, N) gives zero (Triton leaves it undefined).
//
// Before, every gather was composed from existing ops: a one-hot compare of each index with
// arange(N) along a new axis and an xor-reduction of the selected bits. Measured statically
// (ptxas sm_90a, SASS of an i32 gather at 4 warps, 2026-12-04) it was never the faster one:
// 256x64 indices from 2..32 rows took 5568..32888 instructions and 18-20 barriers against
// 824..872 and one; 64x64 from 64x2 / 64x4 columns 536 / 1192 instructions at 136 / 255
// registers against 240 at 40. So no shape keeps it.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

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
  ir::Op* op = L.builder().create(ir::OpKind::Gather, {index->type()->with_element(src->type()->element())}, {src, index}, loc);
  op->set_attr("axis", ax);
  return LValue::tensor(op->result());
}

}  // namespace

void register_gather_builtins(BuiltinTable& t) { t.add("gather", {"src", "index", "axis"}, true, gather); }

}  // namespace tritium::lower

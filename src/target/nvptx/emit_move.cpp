// Ops that move elements to new flat positions: trans, flip, join, split and cat, the
// histogram, and gather (its source written to its buffer at the flat index, a barrier, then
// each result element read where its index points). Every size is a power of two, so each result element's source is a
// permutation of the bits of its flat index (plus constant bits): register moves when each
// thread already holds its results' sources (gpu::local_move), shuffles where each is in
// another lane of the warp at a distance fixed per register (gpu::shuffle_move: flip), else one round trip through
// shared memory (sources written at their flat index in the op's buffer, results read at
// their source's; the barrier between, and insert_barriers' before the op if needed).
#include "gpu/scratch.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;

void Emitter::emit_move(const ir::Op& op) {
  if (gpu::trans_staged_by_dots(op)) return;  // each dot stages the source (stage_operand)
  const ir::Type* in_type = op.operand(0)->type();
  Layout source = layout_of(in_type);
  int64_t per_operand = source.num_elements();
  std::vector<Regs> in;
  for (const ir::Value* v : op.operands()) in.push_back(materialize(get(v), in_type));
  // A uniform operand (a splat): every element is the same, so is the result (unless the
  // allocator, which sees only splats and constants, planned a round trip: then it is made).
  const bool planned = has_scratch(op);
  bool all_uniform = true;
  for (const ir::Value* v : op.operands()) all_uniform = all_uniform && get(v).uniform;
  if (all_uniform && !planned && op.kind() != OpKind::Join && op.kind() != OpKind::Cat) {
    for (int r = 0; r < op.num_results(); ++r) set(op.result(r), Regs::one(get(op.operand(0)).at(0), op.result(r)->type()->is_block()));
    return;
  }
  llvm::Type* element = element_type(in_type);
  llvm::Type* stored = stored_type(element);
  int64_t base = -1;  // the op's buffer, once the sources are written there
  for (int res = 0; res < op.num_results(); ++res) {
    const ir::Type* out_type = op.result(res)->type();
    gpu::MoveMap map = gpu::move_map(op, res);
    Layout result = layout_of(out_type->is_block() ? out_type : in_type);
    // Join and cat: operand j's element s is source element j * per_operand + s.
    if (std::optional<gpu::LocalMove> local = gpu::local_move(op, res, source, result)) {
      Regs out;
      for (int r = 0; r < result.num_regs(); ++r) out.values.push_back(in[local->operand[r]].at(local->reg[r]));
      set(op.result(res), std::move(out));
      continue;
    }
    if (std::optional<gpu::ShuffleMove> shuffle = gpu::shuffle_move(op, source, result)) {
      Regs out;
      for (int r = 0; r < result.num_regs(); ++r) {
        llvm::Value* v = in[0].at(shuffle->reg[r]);
        out.values.push_back(shuffle->lane_xor[r] == 0 ? v : shuffle_xor(v, shuffle->lane_xor[r]));
      }
      set(op.result(res), std::move(out));
      continue;
    }
    // Through shared memory: all sources at their flat index (once for both split results).
    int64_t sources = per_operand * op.num_operands();
    if (base < 0) {
      base = scratch(op, 0, sources * type_bytes(stored));
      for (size_t j = 0; j < in.size(); ++j) {
        for (int r = 0; r < source.num_regs(); ++r) {
          llvm::Value* index = element_index(source, r);
          if (j) index = b_.CreateAdd(index, b_.getInt32(static_cast<uint32_t>(per_operand * j)));
          llvm::Value* value = in[j].at(r);
          guarded(owns(source, r), [&]() -> llvm::Value* {
            b_.CreateStore(to_storage(value), shared_element_at(base, stored, index, sources));
            return nullptr;
          });
        }
      }
      barrier();
    }
    if (!out_type->is_block()) {
      // A split of two elements: every thread reads its scalar.
      llvm::Value* slot = shared_element_at(base, stored, b_.getInt32(static_cast<uint32_t>(map.apply(0))), sources);
      set(op.result(res), Regs::one(from_storage(b_.CreateLoad(stored, slot), element)));
      continue;
    }
    Regs out;
    for (int r = 0; r < result.num_regs(); ++r) {
      llvm::Value* e = element_index(result, r);
      llvm::Value* s = b_.getInt32(static_cast<uint32_t>(map.constant));
      for (size_t k = 0; k < map.from.size(); ++k) {
        llvm::Value* bit = b_.CreateAnd(b_.CreateLShr(e, b_.getInt32(static_cast<uint32_t>(k))), b_.getInt32(1));
        s = b_.CreateOr(s, b_.CreateShl(bit, b_.getInt32(static_cast<uint32_t>(map.from[k]))));
      }
      if (map.flip != 0) s = b_.CreateXor(s, b_.getInt32(static_cast<uint32_t>(map.flip)));
      out.values.push_back(guarded(owns(result, r), [&]() -> llvm::Value* {
        return from_storage(b_.CreateLoad(stored, shared_element_at(base, stored, s, sources)), element);
      }));
    }
    set(op.result(res), std::move(out));
  }
  // A planned buffer left unused would break insert_barriers' model (a barrier inside
  // every op with buffers): the rules are shared, so this cannot happen.
  if (planned && base < 0) internal_error("nvptx", "a planned round trip was not made", op.loc());
}

void Emitter::emit_histogram(const ir::Op& op) {
  // Counts in the op's buffer: zeroed, one atomic add per counted element, then read out in
  // the result's layout (a barrier between each; insert_barriers' before the op if needed).
  const ir::Type* in_type = op.operand(0)->type();
  const ir::Type* out_type = op.result()->type();
  Layout source = layout_of(in_type);
  Layout result = layout_of(out_type);
  int64_t bins = out_type->num_elements();
  Regs x = materialize(get(op.operand(0)), in_type);
  Regs mask;
  if (ir::Value* m = ir::HistogramOp(op).mask()) mask = materialize(get(m), in_type);
  llvm::Type* i32 = b_.getInt32Ty();
  const int64_t base = scratch(op, 0, bins * 4);
  for (int64_t first = 0; first < bins; first += result.threads()) {
    llvm::Value* bin = b_.CreateAdd(thread_id(), b_.getInt32(static_cast<uint32_t>(first)));
    guarded(b_.CreateICmpULT(bin, b_.getInt32(static_cast<uint32_t>(bins))), [&]() -> llvm::Value* {
      b_.CreateStore(b_.getInt32(0), shared_element_at(base, i32, bin, bins));
      return nullptr;
    });
  }
  barrier();
  bool is_signed = ir::is_signed(in_type->element()->scalar_kind());
  for (int r = 0; r < source.num_regs(); ++r) {
    llvm::Value* v = x.at(r);
    llvm::Value* wide = is_signed ? b_.CreateSExt(v, b_.getInt64Ty()) : b_.CreateZExt(v, b_.getInt64Ty());
    if (v->getType()->getIntegerBitWidth() == 64) wide = v;
    llvm::Value* in_range = b_.CreateICmpULT(wide, b_.getInt64(static_cast<uint64_t>(bins)));
    llvm::Value* pred = and_pred(owns(source, r), in_range);
    if (op.num_operands() == 2) pred = and_pred(pred, mask.at(r));
    guarded(pred, [&]() -> llvm::Value* {
      llvm::Value* slot = shared_element_at(base, i32, b_.CreateTrunc(wide, i32), bins);
      b_.CreateAtomicRMW(llvm::AtomicRMWInst::Add, slot, b_.getInt32(1), llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic);
      return nullptr;
    });
  }
  barrier();
  Regs out;
  for (int r = 0; r < result.num_regs(); ++r) {
    llvm::Value* e = element_index(result, r);
    out.values.push_back(guarded(owns(result, r), [&]() -> llvm::Value* {
      return b_.CreateLoad(i32, shared_element_at(base, i32, e, bins));
    }));
  }
  set(op.result(), std::move(out));
}

void Emitter::emit_gather(const ir::Op& op) {
  ir::GatherOp g(op);
  const ir::Type* src_type = g.src()->type();
  const ir::Type* index_type = g.index()->type();
  const ir::Type* out_type = op.result()->type();
  const int64_t axis = op.int_attr("axis");
  const int64_t n = src_type->shape()[static_cast<size_t>(axis)];
  Layout source = layout_of(src_type);
  Layout result = layout_of(out_type);
  Regs src = materialize(get(g.src()), src_type);
  Regs index = materialize(get(g.index()), index_type);
  llvm::Type* element = element_type(src_type);
  llvm::Type* stored = stored_type(element);
  const int64_t sources = source.num_elements();
  const int64_t base = scratch(op, 0, sources * type_bytes(stored));
  check_shared_fits(base + sources * type_bytes(stored), op, "tl.gather's source");
  for (int r = 0; r < source.num_regs(); ++r) {
    llvm::Value* value = src.at(r);
    guarded(owns(source, r), [&]() -> llvm::Value* {
      b_.CreateStore(to_storage(value), shared_element_at(base, stored, element_index(source, r), sources));
      return nullptr;
    });
  }
  barrier();
  // Element e of the result: e's coordinates in the index's shape, the axis one replaced by
  // index[e] (read only when inside [0, n): zero otherwise), flattened in the source's shape.
  const bool is_signed = ir::is_signed(index_type->element()->scalar_kind());
  llvm::Type* i64 = b_.getInt64Ty();
  Regs out;
  for (int r = 0; r < result.num_regs(); ++r) {
    llvm::Value* i = index.at(r);
    llvm::Value* wide = i->getType() == i64 ? i : is_signed ? b_.CreateSExt(i, i64) : b_.CreateZExt(i, i64);
    llvm::Value* in_range = b_.CreateICmpULT(wide, b_.getInt64(static_cast<uint64_t>(n)));
    std::vector<llvm::Value*> coords = delinearize(index_type->shape(), element_index(result, r));
    coords[static_cast<size_t>(axis)] = b_.CreateTrunc(wide, b_.getInt32Ty());
    llvm::Value* at = linearize(src_type->shape(), coords);
    out.values.push_back(guarded(and_pred(owns(result, r), in_range), [&]() -> llvm::Value* {
      return from_storage(b_.CreateLoad(stored, shared_element_at(base, stored, at, sources)), element);
    }));
  }
  set(op.result(), std::move(out));
}

}  // namespace tritium::nvptx

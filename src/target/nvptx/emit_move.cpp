// Ops that move elements to new flat positions: trans, join, split and cat, and the
// histogram. Every size is a power of two, so each result element's source is a
// permutation of the bits of its flat index (plus constant bits): register moves when each
// thread already holds its results' sources (local_moves), else one round trip through
// shared memory (sources written at their flat index, results read at their source's).
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;

namespace {

// The flat source index of result element e, as bits: result bit k is source bit
// `from[k]`, and `constant` is or-ed in. The source space of join and cat is operand 0's
// elements followed by operand 1's.
struct BitMap {
  std::vector<int> from;
  int64_t constant = 0;

  int64_t apply(int64_t e) const {
    int64_t s = constant;
    for (size_t k = 0; k < from.size(); ++k) s |= ((e >> k) & 1) << from[k];
    return s;
  }
};

std::vector<int> dim_bits(const std::vector<int64_t>& shape) {
  std::vector<int> bits;
  for (int64_t d : shape) bits.push_back(log2_exact(d));
  return bits;
}

// The bit map of result `result` of `op`.
BitMap bit_map(const ir::Op& op, int result) {
  BitMap m;
  const ir::Type* in = op.operand(0)->type();
  int in_bits = log2_exact(in->is_block() ? in->num_elements() : 1);
  switch (op.kind()) {
    case OpKind::Trans: {
      // Result dim d is operand dim order[d]; walk the result's bits from the innermost dim.
      const std::vector<int64_t>& order = op.ints_attr("order");
      std::vector<int> sizes = dim_bits(in->shape());
      std::vector<int> start(sizes.size(), 0);  // the operand's lowest bit of each dim
      for (int d = static_cast<int>(sizes.size()) - 2; d >= 0; --d) start[d] = start[d + 1] + sizes[d + 1];
      for (int d = static_cast<int>(order.size()) - 1; d >= 0; --d) {
        for (int b = 0; b < sizes[order[d]]; ++b) m.from.push_back(start[order[d]] + b);
      }
      return m;
    }
    case OpKind::Join:
      // Result bit 0 picks the operand; the others are the operand's index.
      m.from.push_back(in_bits);
      for (int b = 0; b < in_bits; ++b) m.from.push_back(b);
      return m;
    case OpKind::Split:
      for (int b = 1; b < in_bits; ++b) m.from.push_back(b);
      m.constant = result;
      return m;
    case OpKind::Cat:
      for (int b = 0; b <= in_bits; ++b) m.from.push_back(b);
      return m;
    default: internal_error("nvptx", std::string("'") + op.name() + "' does not move elements", op.loc());
  }
}

}  // namespace

void Emitter::emit_move(const ir::Op& op) {
  const ir::Type* in_type = op.operand(0)->type();
  Layout source = layout_of(in_type);
  int64_t per_operand = source.num_elements();
  std::vector<Regs> in;
  for (const ir::Value* v : op.operands()) in.push_back(materialize(get(v), in_type));
  // A uniform operand (a splat): every element is the same, so is the result.
  bool all_uniform = true;
  for (const ir::Value* v : op.operands()) all_uniform = all_uniform && get(v).uniform;
  if (all_uniform && op.kind() != OpKind::Join && op.kind() != OpKind::Cat) {
    for (int r = 0; r < op.num_results(); ++r) set(op.result(r), Regs::one(get(op.operand(0)).at(0), op.result(r)->type()->is_block()));
    return;
  }
  llvm::Type* element = element_type(in_type);
  llvm::Type* stored = stored_type(element);
  bool shared_written = false;
  for (int res = 0; res < op.num_results(); ++res) {
    const ir::Type* out_type = op.result(res)->type();
    BitMap map = bit_map(op, res);
    Layout result = layout_of(out_type->is_block() ? out_type : in_type);
    // Join and cat: operand j's element s is source element j * per_operand + s; locality is
    // checked per operand against the same layout.
    std::optional<std::vector<int>> local;
    if (out_type->is_block()) local = local_moves(source, result, [&](int64_t e) { return map.apply(e) % per_operand; });
    bool same_operand = true;
    if (local && op.num_operands() == 2) {
      // The operand must not depend on the thread either: it is a bit of e taken from the
      // register part (checked element by element, as local_moves does).
      std::vector<int> operand_of(result.num_regs(), -1);
      for (int r = 0; r < result.num_regs() && same_operand; ++r) {
        for (int t = 0; t < result.threads() && same_operand; ++t) {
          int64_t e = result.element(t, r);
          if (e >= result.num_elements()) continue;
          int j = static_cast<int>(map.apply(e) / per_operand);
          same_operand = operand_of[r] == -1 || operand_of[r] == j;
          operand_of[r] = j;
        }
      }
      if (same_operand) {
        Regs out;
        for (int r = 0; r < result.num_regs(); ++r) out.values.push_back(in[std::max(operand_of[r], 0)].at((*local)[r]));
        set(op.result(res), std::move(out));
        continue;
      }
    } else if (local) {
      Regs out;
      for (int r : *local) out.values.push_back(in[0].at(r));
      set(op.result(res), std::move(out));
      continue;
    }
    // Through shared memory: all sources at their flat index (once for both split results).
    int64_t sources = per_operand * op.num_operands();
    if (!shared_written) {
      for (size_t j = 0; j < in.size(); ++j) {
        for (int r = 0; r < source.num_regs(); ++r) {
          llvm::Value* index = element_index(source, r);
          if (j) index = b_.CreateAdd(index, b_.getInt32(static_cast<uint32_t>(per_operand * j)));
          llvm::Value* value = in[j].at(r);
          guarded(owns(source, r), [&]() -> llvm::Value* {
            b_.CreateStore(to_storage(value), shared_element(stored, index, sources));
            return nullptr;
          });
        }
      }
      barrier();
      shared_written = true;
    }
    if (!out_type->is_block()) {
      // A split of two elements: every thread reads its scalar.
      llvm::Value* slot = shared_element(stored, b_.getInt32(static_cast<uint32_t>(map.apply(0))), sources);
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
      out.values.push_back(guarded(owns(result, r), [&]() -> llvm::Value* {
        return from_storage(b_.CreateLoad(stored, shared_element(stored, s, sources)), element);
      }));
    }
    set(op.result(res), std::move(out));
  }
  if (shared_written) barrier();
}

void Emitter::emit_histogram(const ir::Op& op) {
  // Counts in shared memory: zeroed, one atomic add per counted element, then read out in
  // the result's layout.
  const ir::Type* in_type = op.operand(0)->type();
  const ir::Type* out_type = op.result()->type();
  Layout source = layout_of(in_type);
  Layout result = layout_of(out_type);
  int64_t bins = out_type->num_elements();
  Regs x = materialize(get(op.operand(0)), in_type);
  Regs mask;
  if (ir::Value* m = ir::HistogramOp(op).mask()) mask = materialize(get(m), in_type);
  llvm::Type* i32 = b_.getInt32Ty();
  for (int64_t first = 0; first < bins; first += result.threads()) {
    llvm::Value* bin = b_.CreateAdd(thread_id(), b_.getInt32(static_cast<uint32_t>(first)));
    guarded(b_.CreateICmpULT(bin, b_.getInt32(static_cast<uint32_t>(bins))), [&]() -> llvm::Value* {
      b_.CreateStore(b_.getInt32(0), shared_element(i32, bin, bins));
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
      llvm::Value* slot = shared_element(i32, b_.CreateTrunc(wide, i32), bins);
      b_.CreateAtomicRMW(llvm::AtomicRMWInst::Add, slot, b_.getInt32(1), llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic);
      return nullptr;
    });
  }
  barrier();
  Regs out;
  for (int r = 0; r < result.num_regs(); ++r) {
    llvm::Value* e = element_index(result, r);
    out.values.push_back(guarded(owns(result, r), [&]() -> llvm::Value* {
      return b_.CreateLoad(i32, shared_element(i32, e, bins));
    }));
  }
  barrier();
  set(op.result(), std::move(out));
}

}  // namespace tritium::nvptx

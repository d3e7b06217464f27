#include <algorithm>
// Ops that create or reshape blocks: program ids, make_range, splat, broadcast (in
// registers when every element stays on its thread, else through shared memory),
// expand_dims and reshape (free: layout.h keeps row-major order and owners).
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu/conversion.h"
#include "gpu/scratch.h"
#include "gpu/split_k_cluster.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "ir/attrs.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;

void Emitter::emit_program_id(const ir::Op& op) {
  static const llvm::Intrinsic::ID kCtaid[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                               llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                               llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  static const llvm::Intrinsic::ID kNctaid[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                                llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                                                llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z};
  int64_t axis = op.int_attr("axis");
  if (op.kind() == OpKind::ProgramId && axis == gpu::kClusterRankAxis) {
    // The CTA's rank in its cluster (gpu/split_k_cluster.h).
    set(op.result(), Regs::one(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank,
                                                  llvm::ArrayRef<llvm::Value*>())));
    return;
  }
  if (axis < 0 || axis > 2) internal_error("nvptx", "program axis " + std::to_string(axis), op.loc());
  // With clusters (num_ctas > 1) a program is a cluster: its id and count, as Triton.
  static const llvm::Intrinsic::ID kClusterid[] = {
      llvm::Intrinsic::nvvm_read_ptx_sreg_clusterid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_clusterid_y,
      llvm::Intrinsic::nvvm_read_ptx_sreg_clusterid_z};
  static const llvm::Intrinsic::ID kNclusterid[] = {
      llvm::Intrinsic::nvvm_read_ptx_sreg_nclusterid_x,
      llvm::Intrinsic::nvvm_read_ptx_sreg_nclusterid_y,
      llvm::Intrinsic::nvvm_read_ptx_sreg_nclusterid_z};
  bool cluster = num_ctas_ > 1;
  auto id = op.kind() == OpKind::ProgramId ? (cluster ? kClusterid : kCtaid)[axis]
                                           : (cluster ? kNclusterid : kNctaid)[axis];
  set(op.result(), Regs::one(b_.CreateIntrinsic(id, llvm::ArrayRef<llvm::Value*>())));
}

void Emitter::emit_make_range(const ir::Op& op) {
  // Element e of the range is start + e; each thread computes its own elements.
  const ir::Type* type = op.result()->type();
  Layout layout = layout_of(type);
  int64_t start = op.int_attr("start");
  Regs out;
  for (int r = 0; r < layout.num_regs(); ++r) {
    llvm::Value* e = element_index(layout, r);
    out.values.push_back(start == 0 ? e : b_.CreateAdd(e, b_.getInt32(static_cast<uint32_t>(start))));
  }
  set(op.result(), std::move(out));
}

void Emitter::emit_splat(const ir::Op& op) {
  set(op.result(), Regs::one(get(op.operand(0)).at(0), true));
}

void Emitter::emit_view(const ir::Op& op) {
  if (frags_.layout(op.result()) != nullptr) return emit_fragment_view(op);
  // Reductions read the source's fragments (FragmentPlan::reduces_fragments): no registers.
  if (frags_.reduces_fragments(&op)) return;
  // Same number of elements, same row-major order: the same registers in the same threads.
  set(op.result(), get(op.operand(0)));
}

namespace {
// At most this many elementwise ops are recomputed per element instead of a round trip
// through shared memory (two barriers).
constexpr int kRecomputeBudget = gpu::kRecomputeBudget;  // the allocator plans by it too
}  // namespace

bool Emitter::recomputable(const ir::Value* value, int* budget) const {
  // The allocator's rule, plus the blocks this thread already holds whole.
  return gpu::recomputable(value, budget, [this](const ir::Value* v) {
    auto it = values_.find(v);
    return it != values_.end() && it->second.uniform;
  });
}

llvm::Value* Emitter::recompute(const ir::Value* value, llvm::Value* e,
                                std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  if (!value->type()->is_block()) return get(value).at(0);
  return recompute_at(value, delinearize(value->type()->shape(), e), memo);
}

std::vector<llvm::Value*> Emitter::delinearize(const std::vector<int64_t>& shape, llvm::Value* e) {
  // A register's element of the flat rule (element_index: thread * V + a constant C whose
  // bits the thread part never has) in a block of power-of-two dimensions: each coordinate
  // is the thread part's plus C's, with no carry between the bit fields. Computed so, every
  // register's coordinates are one per-thread value plus constants, and addresses built
  // from them share a base register ([base+offset]); divided as one sum, LLVM keeps a
  // separate quotient per register, each address hoisted out of a loop and live through it
  // (a 1-warp dot's 16 x 64 operands: ~50 registers of addresses).
  auto* add = llvm::dyn_cast<llvm::BinaryOperator>(e);
  if (add != nullptr && add->getOpcode() == llvm::Instruction::Add && !shape.empty()) {
    auto* constant = llvm::dyn_cast<llvm::ConstantInt>(add->getOperand(1));
    llvm::Value* part = add->getOperand(0);
    int64_t vector = 1;
    auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(part);
    if (mul != nullptr && mul->getOpcode() == llvm::Instruction::Mul) {
      auto* v = llvm::dyn_cast<llvm::ConstantInt>(mul->getOperand(1));
      if (mul->getOperand(0) == thread_id_ && v != nullptr) vector = v->getSExtValue();
      else vector = 0;
    } else if (part != thread_id_) {
      vector = 0;
    }
    const bool pow2 = std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0 && (d & (d - 1)) == 0; });
    int64_t span = 1;  // a power of two above every thread part
    while (span < int64_t{threads_} * vector) span *= 2;
    if (constant != nullptr && vector > 0 && (vector & (vector - 1)) == 0 && pow2 && thread_id_ != nullptr) {
      const int64_t c = constant->getSExtValue();
      const int64_t part_bits = (span - 1) & ~(vector - 1);
      if (c >= 0 && (c & part_bits) == 0) {
        std::vector<llvm::Value*> coords = delinearize(shape, part);
        int64_t rest = c;
        for (size_t d = shape.size(); d-- > 0;) {
          const int64_t at = d == 0 ? rest : rest % shape[d];
          rest = d == 0 ? 0 : rest / shape[d];
          if (at != 0) coords[d] = b_.CreateAdd(coords[d], b_.getInt32(static_cast<uint32_t>(at)), "", true, true);
        }
        return coords;
      }
    }
  }
  // Innermost first; the outermost axis takes what is left (e is inside the block).
  std::vector<llvm::Value*> coords(shape.size());
  for (size_t d = shape.size(); d-- > 1;) {
    llvm::Value* size = b_.getInt32(static_cast<uint32_t>(shape[d]));
    coords[d] = shape[d] == 1 ? b_.getInt32(0) : b_.CreateURem(e, size);
    e = shape[d] == 1 ? e : b_.CreateUDiv(e, size);
  }
  if (!shape.empty()) coords[0] = e;
  return coords;
}

llvm::Value* Emitter::linearize(const std::vector<int64_t>& shape, const std::vector<llvm::Value*>& coords) {
  llvm::Value* e = b_.getInt32(0);
  for (size_t d = 0; d < shape.size(); ++d) {
    e = b_.CreateAdd(b_.CreateMul(e, b_.getInt32(static_cast<uint32_t>(shape[d]))), coords[d]);
  }
  return e;
}

llvm::Value* Emitter::broadcast_source_index(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                                             llvm::Value* e) {
  std::vector<llvm::Value*> coords = delinearize(to, e);
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] == 1) coords[d] = b_.getInt32(0);
  }
  return linearize(from, coords);
}

llvm::Value* Emitter::recompute_at(const ir::Value* value, const std::vector<llvm::Value*>& coords,
                                   std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  if (!value->type()->is_block()) return get(value).at(0);
  // The broadcast being emitted has no registers yet; everything below it has.
  if (auto it = values_.find(value); it != values_.end() && it->second.uniform) return it->second.at(0);
  if (auto it = memo.find(value); it != memo.end()) return it->second;
  const ir::Op* def = value->def();
  llvm::Value* out = nullptr;
  if (def == nullptr && async_.copied_line(value) != nullptr) {
    // A copied line (line_reloaded's, AsyncPlan::reads_copied_lines): read from its stage buffer.
    out = read_line_at(value, coords.at(0));
    memo[value] = out;
    return out;
  }
  switch (def->kind()) {
    case OpKind::MakeRange: {
      int64_t start = def->int_attr("start");
      out = start == 0 ? coords[0] : b_.CreateAdd(coords[0], b_.getInt32(static_cast<uint32_t>(start)));
      break;
    }
    case OpKind::ExpandDims: {
      std::vector<llvm::Value*> inner = coords;
      inner.erase(inner.begin() + def->int_attr("axis"));
      out = recompute_at(def->operand(0), inner, memo);
      break;
    }
    case OpKind::ConvertLayout:
    case OpKind::DescriptorTile: out = recompute_at(def->operand(0), coords, memo); break;
    case OpKind::Trans: {
      // Dimension i of the result is dimension order[i] of the source: another index
      // space below this point, with its own memo.
      const std::vector<int64_t>& order = def->ints_attr("order");
      std::vector<llvm::Value*> at(coords.size());
      for (size_t i = 0; i < order.size(); ++i) at[static_cast<size_t>(order[i])] = coords[i];
      std::unordered_map<const ir::Value*, llvm::Value*> inner;
      out = recompute_at(def->operand(0), at, inner);
      break;
    }
    case OpKind::Reshape: {
      const ir::Value* source = def->operand(0);
      out = recompute_at(source, delinearize(source->type()->shape(), linearize(value->type()->shape(), coords)), memo);
      break;
    }
    case OpKind::Broadcast: {
      // A new index space below this point: its own memo.
      std::unordered_map<const ir::Value*, llvm::Value*> inner;
      const ir::Value* source = def->operand(0);
      const std::vector<int64_t>& from = source->type()->shape();
      std::vector<llvm::Value*> at = coords;
      for (size_t d = 0; d < from.size(); ++d) {
        if (from[d] == 1) at[d] = b_.getInt32(0);
      }
      out = recompute_at(source, at, inner);
      break;
    }
    case OpKind::Load: out = reload_at(*def, coords, memo); break;
    case OpKind::Cmp:
      // A comparison of a moving value with one bound: against the bound moved (row_bound_parts;
      // opt-in, row_bound_recomputed_).
      if (row_bound_ && row_bound_recomputed_) {
        out = row_bound_compare(*def, coords, std::vector<int64_t>(coords.size(), 0));
        if (out != nullptr) break;
      }
      [[fallthrough]];
    default: {
      std::vector<llvm::Value*> args;
      for (const ir::Value* operand : def->operands()) args.push_back(recompute_at(operand, coords, memo));
      out = element_fn(*def)(args);
      break;
    }
  }
  memo[value] = out;
  return out;
}

llvm::Value* Emitter::shift_delta(const ir::Value* value, const std::vector<int64_t>& shift,
                                  std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  if (auto it = memo.find(value); it != memo.end()) return it->second;
  const ir::Type* type = value->type();
  const ir::ScalarKind kind = type->element()->scalar_kind();
  const bool pointer = type->element()->is_pointer();
  if (!pointer && (!ir::is_integer(kind) || kind == ir::ScalarKind::I1)) return memo[value] = nullptr;
  llvm::Type* delta_type = pointer ? b_.getInt64Ty() : llvm::Type::getIntNTy(context_, static_cast<unsigned>(ir::bit_width(kind)));
  llvm::Value* zero = llvm::ConstantInt::get(delta_type, 0);
  auto is_zero = [](llvm::Value* v) {
    auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(v);
    return c != nullptr && c->isZero();
  };
  // A scalar, or a block every element of which is one value (a splat, a constant).
  if (!type->is_block()) return memo[value] = zero;
  if (auto it = values_.find(value); it != values_.end() && it->second.uniform) return memo[value] = zero;
  if (std::all_of(shift.begin(), shift.end(), [](int64_t s) { return s == 0; })) return memo[value] = zero;
  const ir::Op* def = value->def();
  if (def == nullptr) return memo[value] = nullptr;
  llvm::Value* out = nullptr;
  // The block-uniform scalar of an operand (its one value), or null.
  auto uniform = [this](const ir::Value* v) -> llvm::Value* {
    if (!v->type()->is_block()) return get(v).at(0);
    auto it = values_.find(v);
    return it != values_.end() && it->second.uniform ? it->second.at(0) : nullptr;
  };
  switch (def->kind()) {
    case OpKind::MakeRange: out = llvm::ConstantInt::get(delta_type, static_cast<uint64_t>(shift.at(0)), true); break;
    case OpKind::ExpandDims: {
      std::vector<int64_t> inner = shift;
      inner.erase(inner.begin() + def->int_attr("axis"));
      std::unordered_map<const ir::Value*, llvm::Value*> own;
      out = shift_delta(def->operand(0), inner, own);
      break;
    }
    case OpKind::Broadcast: {
      const std::vector<int64_t>& from = def->operand(0)->type()->shape();
      std::vector<int64_t> inner = shift;
      for (size_t d = 0; d < from.size(); ++d) {
        if (from[d] == 1) inner[d] = 0;
      }
      std::unordered_map<const ir::Value*, llvm::Value*> own;
      out = shift_delta(def->operand(0), inner, own);
      break;
    }
    case OpKind::ConvertLayout:
    case OpKind::DescriptorTile: out = shift_delta(def->operand(0), shift, memo); break;
    case OpKind::Trans: {
      const std::vector<int64_t>& order = def->ints_attr("order");
      std::vector<int64_t> at(shift.size());
      for (size_t i = 0; i < order.size(); ++i) at[static_cast<size_t>(order[i])] = shift[i];
      std::unordered_map<const ir::Value*, llvm::Value*> own;
      out = shift_delta(def->operand(0), at, own);
      break;
    }
    case OpKind::Add:
    case OpKind::Sub: {
      llvm::Value* a = shift_delta(def->operand(0), shift, memo);
      llvm::Value* b = a == nullptr ? nullptr : shift_delta(def->operand(1), shift, memo);
      if (a != nullptr && b != nullptr) out = def->kind() == OpKind::Add ? b_.CreateAdd(a, b) : b_.CreateSub(a, b);
      break;
    }
    case OpKind::Mul: {
      // (x + d) * s == x * s + d * s for a factor s the same in every element.
      llvm::Value* a = shift_delta(def->operand(0), shift, memo);
      llvm::Value* b = shift_delta(def->operand(1), shift, memo);
      if (a != nullptr && b != nullptr && is_zero(a) && is_zero(b)) {
        out = zero;
      } else if (llvm::Value* s = uniform(def->operand(1)); a != nullptr && s != nullptr) {
        out = b_.CreateMul(a, s);
      } else if (llvm::Value* s0 = uniform(def->operand(0)); b != nullptr && s0 != nullptr) {
        out = b_.CreateMul(b, s0);
      }
      break;
    }
    case OpKind::AddPtr: {
      llvm::Value* p = shift_delta(def->operand(0), shift, memo);
      const ir::Value* offset = def->operand(1);
      llvm::Value* o = p == nullptr ? nullptr : shift_delta(offset, shift, memo);
      if (o == nullptr) break;
      const ir::ScalarKind offset_kind = offset->type()->element()->scalar_kind();
      bool by_range = false;
      if (!is_zero(o) && ir::bit_width(offset_kind) < 64) {
        // addptr widens the offset: the sum's only where the offset's values cannot wrap.
        const ir::Op* od = offset->def();
        by_range = (od == nullptr || od->kind() != OpKind::MakeRange) && shift_cannot_wrap(offset, o);
        if ((od == nullptr || od->kind() != OpKind::MakeRange) && !by_range) break;
      }
      if (by_range) {
        o = b_.getInt64(static_cast<uint64_t>(llvm::cast<llvm::ConstantInt>(o)->getSExtValue()));
      } else {
        o = ir::is_signed(offset_kind) ? b_.CreateSExtOrTrunc(o, b_.getInt64Ty()) : b_.CreateZExtOrTrunc(o, b_.getInt64Ty());
      }
      const ir::Type* pointee = def->operand(0)->type()->element()->pointee();
      const int64_t bytes = static_cast<int64_t>(module_.getDataLayout().getTypeAllocSize(memory_type(pointee)));
      out = b_.CreateAdd(p, b_.CreateMul(o, b_.getInt64(static_cast<uint64_t>(bytes))));
      break;
    }
    case OpKind::Cast: {
      llvm::Value* a = shift_delta(def->operand(0), shift, memo);
      if (a == nullptr || def->has_attr("bitcast")) break;
      const ir::ScalarKind from = def->operand(0)->type()->element()->scalar_kind();
      if (is_zero(a)) {
        out = zero;
        break;
      }
      // A range's values (start + coordinate, both inside it) never wrap: its widening is
      // the same sum, signed or not. Anything else only where its delta is 0.
      const ir::Op* od = def->operand(0)->def();
      if (!ir::is_integer(from) || from == ir::ScalarKind::I1 || ir::bit_width(kind) < ir::bit_width(from)) break;
      if (od == nullptr || od->kind() != OpKind::MakeRange || od->int_attr("start") < 0) {
        // Else where the operand's value ranges leave its sum no room to wrap (shift_wrap_).
        if (!shift_cannot_wrap(def->operand(0), a)) break;
        out = llvm::ConstantInt::get(delta_type, static_cast<uint64_t>(llvm::cast<llvm::ConstantInt>(a)->getSExtValue()), true);
        break;
      }
      out = b_.CreateZExtOrTrunc(a, delta_type);
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(a)) out = llvm::ConstantInt::get(delta_type, static_cast<uint64_t>(c->getSExtValue()), true);
      break;
    }
    default: {
      // A pure elementwise op of operands that do not move, nor does it.
      if (!ir::has_trait(def->kind(), ir::kPure) || !ir::has_trait(def->kind(), ir::kElementwise)) break;
      bool still = true;
      for (const ir::Value* operand : def->operands()) {
        if (!operand->type()->is_block()) continue;
        llvm::Value* d = shift_delta(operand, shift, memo);
        if (d == nullptr || !is_zero(d)) {
          still = false;
          break;
        }
      }
      if (still) out = zero;
      break;
    }
  }
  return memo[value] = out;
}

bool Emitter::shift_cannot_wrap(const ir::Value* value, llvm::Value* delta) {
  // value(x + shift) == value(x) + d modulo 2^w (shift_delta). Both lie in [lo, hi]
  // (ValueRangeAnalysis: every value the block computes), so the integer value(x) + d lies
  // within |d| of that span: where (hi - lo) + |d| < 2^w, no multiple of 2^w but 0 separates
  // it from value(x + shift), and the sum did not wrap.
  auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(delta);
  if (!shift_wrap_ || c == nullptr || !value->type()->element()->is_scalar()) return false;
  const ir::ScalarKind kind = value->type()->element()->scalar_kind();
  if (!ir::is_integer(kind) || kind == ir::ScalarKind::I1 || ir::bit_width(kind) >= 64) return false;
  const analysis::ValueRange r = value_ranges().get(value);
  if (!r.lower || !r.upper) return false;
  const __int128 d = c->getSExtValue();
  const __int128 span = static_cast<__int128>(*r.upper) - *r.lower + (d < 0 ? -d : d);
  return span < (static_cast<__int128>(1) << ir::bit_width(kind));
}

llvm::Value* Emitter::shifted_address(const ir::Value* ptr, const std::vector<llvm::Value*>& thread,
                                      const std::vector<int64_t>& shift,
                                      std::unordered_map<const ir::Value*, llvm::Value*>& base_memo,
                                      std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  if (copy_base_ && ptr->type()->is_block()) {
    std::unordered_map<const ir::Value*, llvm::Value*> deltas;
    if (llvm::Value* d = shift_delta(ptr, shift, deltas)) {
      llvm::Value* base = recompute_at(ptr, thread, base_memo);
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(d);
      if (c != nullptr && c->isZero()) return base;
      return b_.CreateGEP(b_.getInt8Ty(), base, d);
    }
  }
  std::vector<llvm::Value*> at(thread.size());
  for (size_t i = 0; i < thread.size(); ++i) {
    at[i] = shift[i] == 0 ? thread[i] : b_.CreateAdd(thread[i], b_.getInt32(static_cast<uint32_t>(shift[i])), "", true, true);
  }
  return recompute_at(ptr, at, memo);
}

const analysis::ValueRangeAnalysis& Emitter::value_ranges() {
  if (value_ranges_ == nullptr) value_ranges_ = std::make_unique<analysis::ValueRangeAnalysis>(function_);
  return *value_ranges_;
}

const analysis::AxisInfoAnalysis& Emitter::axis_info() {
  if (axis_info_ == nullptr) axis_info_ = std::make_unique<analysis::AxisInfoAnalysis>(function_);
  return *axis_info_;
}

llvm::Value* Emitter::shifted_mask(const ir::Value* mask, const std::vector<llvm::Value*>& thread,
                                   const std::vector<int64_t>& shift,
                                   std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  auto full = [&]() {
    std::vector<llvm::Value*> at(thread.size());
    for (size_t i = 0; i < thread.size(); ++i) {
      at[i] = shift[i] == 0 ? thread[i] : b_.CreateAdd(thread[i], b_.getInt32(static_cast<uint32_t>(shift[i])), "", true, true);
    }
    return recompute_at(mask, at, memo);
  };
  if (!row_bound_ || !mask->type()->is_block()) return full();
  if (auto it = values_.find(mask); it != values_.end() && it->second.uniform) return it->second.at(0);
  const ir::Op* def = mask->def();
  if (def == nullptr) return full();
  switch (def->kind()) {
    case OpKind::And: {
      if (def->operand(0)->type()->element()->scalar_kind() != ir::ScalarKind::I1) break;
      std::unordered_map<const ir::Value*, llvm::Value*> m0, m1;
      llvm::Value* a = shifted_mask(def->operand(0), thread, shift, m0);
      llvm::Value* b = shifted_mask(def->operand(1), thread, shift, m1);
      return b_.CreateAnd(a, b);
    }
    case OpKind::ConvertLayout: return shifted_mask(def->operand(0), thread, shift, memo);
    case OpKind::ExpandDims: {
      std::vector<llvm::Value*> t = thread;
      std::vector<int64_t> s = shift;
      const int64_t axis = def->int_attr("axis");
      t.erase(t.begin() + axis);
      s.erase(s.begin() + axis);
      std::unordered_map<const ir::Value*, llvm::Value*> inner;
      return shifted_mask(def->operand(0), t, s, inner);
    }
    case OpKind::Broadcast: {
      const std::vector<int64_t>& from = def->operand(0)->type()->shape();
      std::vector<llvm::Value*> t = thread;
      std::vector<int64_t> s = shift;
      for (size_t d = 0; d < from.size(); ++d) {
        if (from[d] == 1) {
          t[d] = b_.getInt32(0);
          s[d] = 0;
        }
      }
      std::unordered_map<const ir::Value*, llvm::Value*> inner;
      return shifted_mask(def->operand(0), t, s, inner);
    }
    case OpKind::Cmp:
      if (llvm::Value* bit = row_bound_compare(*def, thread, shift)) return bit;
      break;
    default: break;
  }
  return full();
}

bool Emitter::row_bound_parts(const ir::Op& cmp, RowBound* out) {
  // cmp(s + q, b) (or with its sides swapped) with s and b one value each in every element.
  if (!row_bound_) return false;
  const ir::Type* operand_type = cmp.operand(0)->type();
  const ir::ScalarKind kind = operand_type->element()->scalar_kind();
  if (!operand_type->is_block() || !ir::is_integer(kind) || !ir::is_signed(kind) || ir::bit_width(kind) > 64) return false;
  auto uniform = [this](const ir::Value* v) -> llvm::Value* {
    if (!v->type()->is_block()) return get(v).at(0);
    auto it = values_.find(v);
    return it != values_.end() && it->second.uniform ? it->second.at(0) : nullptr;
  };
  RowBound r;
  r.pred = ir::enum_attr<ir::CmpPredicate>(cmp);
  const ir::Value* moving = cmp.operand(0);
  const ir::Value* bound = cmp.operand(1);
  if (uniform(bound) == nullptr) {
    std::swap(moving, bound);
    switch (r.pred) {
      case ir::CmpPredicate::Lt: r.pred = ir::CmpPredicate::Gt; break;
      case ir::CmpPredicate::Le: r.pred = ir::CmpPredicate::Ge; break;
      case ir::CmpPredicate::Gt: r.pred = ir::CmpPredicate::Lt; break;
      case ir::CmpPredicate::Ge: r.pred = ir::CmpPredicate::Le; break;
      default: break;
    }
  }
  r.b = uniform(bound);
  if (r.b == nullptr || uniform(moving) != nullptr) return false;
  if (r.pred == ir::CmpPredicate::Eq || r.pred == ir::CmpPredicate::Ne) return false;
  // moving = s + q, q + s, or q alone (s = 0).
  r.q = moving;
  const ir::Value* s_value = nullptr;
  if (const ir::Op* d = moving->def(); d != nullptr && d->kind() == OpKind::Add) {
    if (uniform(d->operand(0)) != nullptr) {
      s_value = d->operand(0);
      r.q = d->operand(1);
    } else if (uniform(d->operand(1)) != nullptr) {
      s_value = d->operand(1);
      r.q = d->operand(0);
    }
  }
  r.s = s_value != nullptr ? uniform(s_value) : nullptr;
  // The ranges of q, s and b (analysis/value_range.h: they hold for every element in every
  // program, the values as the program computes them, wrapped or not).
  const analysis::ValueRangeAnalysis& ranges = value_ranges();
  const analysis::ValueRange qr = ranges.get(r.q), br = ranges.get(bound);
  const analysis::ValueRange sr = s_value != nullptr ? ranges.get(s_value) : analysis::ValueRange{0, 0};
  if (!qr.lower || !qr.upper || !br.lower || !br.upper || !sr.lower || !sr.upper) return false;
  const int bits = ir::bit_width(kind);
  r.min = -(static_cast<__int128>(1) << (bits - 1));
  r.max = (static_cast<__int128>(1) << (bits - 1)) - 1;
  r.ql = *qr.lower;
  r.qh = *qr.upper;
  const __int128 sl = *sr.lower, sh = *sr.upper, bl = *br.lower, bh = *br.upper;
  // s + q never wraps (the program's sum is the integer sum), nor does b - s: then
  // s + q < b exactly where q < b - s, all integers inside the type.
  if (!r.fits(sl + r.ql, sh + r.qh) || !r.fits(bl - sh, bh - sl)) return false;
  // Against b - s clamped to [ql - 1, qh + 1] every value of q compares the same, and 32 bits
  // hold them where q's range fits them.
  r.narrow = bits > 32 && r.ql - 1 >= INT32_MIN && r.qh + 1 <= INT32_MAX;
  r.lo = r.narrow ? r.ql - 1 : bl - sh;
  r.hi = r.narrow ? r.qh + 1 : bh - sl;
  *out = r;
  return true;
}

llvm::Value* Emitter::row_bound_limit(const RowBound& r, __int128 c) {
  // q(x) + c against the limit is q(x) against limit - c, which must not wrap either.
  if (!r.fits(r.lo - c, r.hi - c) || (r.narrow && (r.lo - c < INT32_MIN || r.hi - c > INT32_MAX))) return nullptr;
  llvm::Value* limit = r.b;
  if (r.s != nullptr) limit = b_.CreateSub(limit, r.s);  // modular: the true value fits
  if (r.narrow) {
    llvm::Type* wide = limit->getType();
    limit = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, limit, llvm::ConstantInt::get(wide, static_cast<uint64_t>(static_cast<int64_t>(r.ql - 1)), true));
    limit = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, limit, llvm::ConstantInt::get(wide, static_cast<uint64_t>(static_cast<int64_t>(r.qh + 1)), true));
    limit = b_.CreateTrunc(limit, b_.getInt32Ty());
  }
  if (c != 0) limit = b_.CreateSub(limit, llvm::ConstantInt::get(limit->getType(), static_cast<uint64_t>(static_cast<int64_t>(c)), true));
  return limit;
}

llvm::Value* Emitter::row_bound_bit(const RowBound& r, llvm::Value* qx, llvm::Value* limit) {
  if (r.narrow) qx = b_.CreateTrunc(qx, b_.getInt32Ty());  // inside q's range: exact
  switch (r.pred) {
    case ir::CmpPredicate::Lt: return b_.CreateICmpSLT(qx, limit);
    case ir::CmpPredicate::Le: return b_.CreateICmpSLE(qx, limit);
    case ir::CmpPredicate::Gt: return b_.CreateICmpSGT(qx, limit);
    case ir::CmpPredicate::Ge: return b_.CreateICmpSGE(qx, limit);
    default: internal_error("nvptx", "row_bound_bit: an equality");
  }
}

bool Emitter::emit_row_bound_compare(const ir::Op& op) {
  // Every register of the comparison is q's register against one limit (shift 0): q's
  // registers must be the comparison's elements, one for one (the same layout).
  RowBound r;
  if (!row_bound_parts(op, &r)) return false;
  const ir::Type* type = op.result()->type();
  if (r.q->type()->layout() != type->layout() || r.q->type()->shape() != type->shape()) return false;
  const Regs& q = get(r.q);
  if (q.uniform) return false;
  const int regs = layout_of(type).num_regs();
  if (static_cast<int>(q.values.size()) != regs) return false;
  llvm::Value* limit = row_bound_limit(r, 0);
  if (limit == nullptr) return false;
  Regs out;
  for (int i = 0; i < regs; ++i) out.values.push_back(row_bound_bit(r, q.at(i), limit));
  set(op.result(), std::move(out));
  return true;
}

llvm::Value* Emitter::row_bound_compare(const ir::Op& cmp, const std::vector<llvm::Value*>& thread,
                                        const std::vector<int64_t>& shift) {
  // At x + shift, s + q(x + shift) = s + q(x) + c where q's shift_delta is the constant c and
  // q(x) + c stays inside the type (then it is q(x + shift) itself).
  RowBound r;
  if (!row_bound_parts(cmp, &r)) return nullptr;
  std::unordered_map<const ir::Value*, llvm::Value*> deltas;
  auto* c_value = llvm::dyn_cast_or_null<llvm::ConstantInt>(shift_delta(r.q, shift, deltas));
  if (c_value == nullptr) return nullptr;
  const __int128 c = c_value->getSExtValue();
  if (!r.fits(r.ql + c, r.qh + c)) return nullptr;
  llvm::Value* limit = row_bound_limit(r, c);
  if (limit == nullptr) return nullptr;
  std::unordered_map<const ir::Value*, llvm::Value*> memo;
  return row_bound_bit(r, recompute_at(r.q, thread, memo), limit);
}

llvm::Value* Emitter::reload_at(const ir::Op& load, const std::vector<llvm::Value*>& coords,
                                std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
  // The element emit_load's flat rule loads, here from this thread, under its mask bit
  // (line_reloaded: nothing wrote to memory since).
  const ir::Type* pointee = load.operand(0)->type()->element()->pointee();
  llvm::Type* stored = memory_type(pointee);
  const llvm::Align align(module_.getDataLayout().getTypeAllocSize(stored));
  const ir::Value* mask = ir::LoadOp(load).mask();
  const ir::Value* other = ir::LoadOp(load).other();
  llvm::Value* ptr = recompute_at(load.operand(0), coords, memo);
  llvm::Value* pred = mask != nullptr ? recompute_at(mask, coords, memo) : nullptr;
  llvm::Value* fallback = other != nullptr ? to_storage(recompute_at(other, coords, memo)) : llvm::Constant::getNullValue(stored);
  return from_storage(global_load(load, stored, ptr, pred, fallback, align), element_type(load.result()->type()));
}

void Emitter::reload_pair(const ir::Op& load, const std::vector<std::vector<llvm::Value*>>& coords,
                          std::vector<std::unordered_map<const ir::Value*, llvm::Value*>>& memos) {
  // The load's own coordinates: the row's column last, and 0 for its leading axis where it
  // has one ([1, n]; an [n] load is the row before expand_dims).
  const ir::Type* type = load.result()->type();
  auto own = [&](size_t i) {
    return type->rank() == 2 ? std::vector<llvm::Value*>{b_.getInt32(0), coords[i][1]} : std::vector<llvm::Value*>{coords[i][1]};
  };
  const ir::Type* pointee = load.operand(0)->type()->element()->pointee();
  llvm::Type* stored = memory_type(pointee);
  llvm::Type* element = element_type(type);
  const llvm::Align align(2 * module_.getDataLayout().getTypeAllocSize(stored));
  const ir::Value* mask = ir::LoadOp(load).mask();
  const ir::Value* other = ir::LoadOp(load).other();
  // The facts (gpu::access_width >= 2) make the two addresses consecutive and 2-element
  // aligned and give them one mask bit: the first column's address and bit serve both.
  llvm::Value* ptr = recompute_at(load.operand(0), own(0), memos[0]);
  llvm::Value* pred = mask != nullptr ? recompute_at(mask, own(0), memos[0]) : nullptr;
  auto* pair = llvm::FixedVectorType::get(stored, 2);
  llvm::Value* fallback = llvm::Constant::getNullValue(pair);
  if (other != nullptr) {
    for (unsigned i = 0; i < 2; ++i) {
      fallback = b_.CreateInsertElement(fallback, to_storage(recompute_at(other, own(i), memos[i])), i);
    }
  }
  llvm::Value* loaded = global_load(load, pair, ptr, pred, fallback, align);
  for (unsigned i = 0; i < 2; ++i) memos[i][load.result()] = from_storage(b_.CreateExtractElement(loaded, i), element);
}

namespace {

// broadcast_classes for a broadcast held in a slot (gpu/conversion.h), whose register r holds
// element part ^ l.apply(r) (part: the thread's bits). With power-of-two dimensions the
// source element depends on the index bits of the dimensions not broadcast only, so
// registers whose constants agree there read one source element in every thread.
std::vector<int> slot_broadcast_classes(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                                        const ir::LinearLayout& l) {
  const int count = static_cast<int>(l.in_size(ir::LinearLayout::kRegister));
  std::vector<int> classes(static_cast<size_t>(count));
  for (int r = 0; r < count; ++r) classes[static_cast<size_t>(r)] = r;
  int64_t broadcast_bits = 0, stride = 1;
  for (int d = static_cast<int>(to.size()) - 1; d >= 0; --d) {
    if ((to[d] & (to[d] - 1)) != 0) return classes;
    if (from[d] == 1 && to[d] > 1) broadcast_bits |= (to[d] - 1) * stride;
    stride *= to[d];
  }
  for (int r = 0; r < count; ++r) {
    for (int c = 0; c < r; ++c) {
      if ((l.apply(r, 0, 0) & ~broadcast_bits) == (l.apply(c, 0, 0) & ~broadcast_bits)) {
        classes[static_cast<size_t>(r)] = c;
        break;
      }
    }
  }
  return classes;
}

}  // namespace

void Emitter::emit_broadcast(const ir::Op& op) {
  if (const FragmentLayout* l = frags_.layout(op.result())) return emit_fragment_broadcast(op, *l);
  const ir::Type* from_type = op.operand(0)->type();
  const ir::Type* to_type = op.result()->type();
  const Regs& in = get(op.operand(0));
  // allocate_shared planned a round trip exactly when none of the cheaper ways below works
  // (gpu/scratch.h: the same rules; it sees only splats and constants as uniform).
  const bool planned = has_scratch(op);
  if (from_type->shape() == to_type->shape() || (in.uniform && !planned)) {
    set(op.result(), in);
    return;
  }
  // A line held in the slot its broadcasts read (gpu/coalesce.cpp's lines_in_slot): each
  // thread holds the elements its result registers need (allocate_shared the same).
  const std::vector<int> moves = !planned && gpu::held_in_slot(op.operand(0), widths_, threads_)
                                     ? gpu::broadcast_moves(gpu::held_layout(op.operand(0), widths_, threads_),
                                                            gpu::held_layout(op.result(), widths_, threads_))
                                     : std::vector<int>();
  if (!moves.empty()) {
    Regs out;
    for (int r : moves) out.values.push_back(in.at(r));
    set(op.result(), std::move(out));
    return;
  }
  const std::vector<int64_t>& from = from_type->shape();
  const std::vector<int64_t>& to = to_type->shape();
  Layout source = layout_of(from_type);
  Layout result = layout_of(to_type);
  // Where each result register's element is: the flat rule's, or a slot's (a chain to a
  // dot computed where its load is coalesced: gpu/coalesce.cpp), whose every register is
  // owned; and the register whose source element it shares in every thread.
  const bool slot = gpu::held_in_slot(op.result(), widths_, threads_);
  const ir::LinearLayout slot_layout = slot ? gpu::held_layout(op.result(), widths_, threads_) : ir::LinearLayout();
  llvm::Value* part = slot ? slot_thread_part(slot_layout) : nullptr;
  const int count = slot ? static_cast<int>(slot_layout.in_size(ir::LinearLayout::kRegister)) : result.num_regs();
  auto element = [&](int r) {
    return slot ? b_.CreateXor(part, b_.getInt32(static_cast<uint32_t>(slot_layout.apply(r, 0, 0))))
                : element_index(result, r);
  };
  // Cheapest first: elements already on their threads, then elements computed from their
  // index where they are needed, and only then a round trip through shared memory.
  if (!planned) {
    if (auto regs = slot ? std::nullopt : local_broadcast(from, to, source, result)) {
      Regs out;
      for (int r : *regs) out.values.push_back(in.at(r));
      set(op.result(), std::move(out));
      return;
    }
    int budget = kRecomputeBudget;
    if (recomputable(op.operand(0), &budget)) {
      Regs out;
      for (int r = 0; r < count; ++r) {
        std::unordered_map<const ir::Value*, llvm::Value*> memo;
        out.values.push_back(recompute(op.result(), element(r), memo));
      }
      set(op.result(), std::move(out));
      return;
    }
    if (async_.reads_copied_lines(op)) {
      // A line computed from copied lines (AsyncPlan::reads_copied_lines): each thread reads
      // them from their stage buffers at the elements it holds, once a source element.
      const std::vector<int> classes =
          slot ? slot_broadcast_classes(from, to, slot_layout) : broadcast_classes(from, to, result);
      Regs out;
      for (int r = 0; r < count; ++r) {
        const int c = classes[static_cast<size_t>(r)];
        if (c != r) {
          out.values.push_back(out.values[static_cast<size_t>(c)]);
          continue;
        }
        std::unordered_map<const ir::Value*, llvm::Value*> memo;
        out.values.push_back(recompute_at(op.result(), delinearize(to, element(r)), memo));
      }
      set(op.result(), std::move(out));
      return;
    }
    internal_error("nvptx", "a broadcast needs shared memory that allocate_shared did not plan", op.loc());
  }
  if (source.num_elements() == 1) {
    // One element, owned by thread 0: every thread needs it.
    set(op.result(), Regs::one(from_thread0({in.at(0)}, scratch(op, 0, 8))[0], true));
    return;
  }
  // Through shared memory (the op's buffer): each thread writes the source elements it owns
  // at their flat index, then reads the source element of each result element it owns. The
  // barrier is in uniform control flow (uniformity.h marks this op as syncing).
  llvm::Type* elem = element_type(from_type);
  llvm::Type* stored = elem->isIntegerTy(1) ? b_.getInt8Ty() : elem;
  const int64_t base = scratch(op, 0, source.num_elements() * type_bytes(stored));
  for (int r = 0; r < source.num_regs(); ++r) {
    llvm::Value* index = element_index(source, r);
    llvm::Value* value = in.at(r);
    guarded(owns(source, r), [&]() -> llvm::Value* {
      b_.CreateStore(to_storage(value), shared_element_at(base, stored, index, source.num_elements()));
      return nullptr;
    });
  }
  barrier();
  // Registers that read the same source element in every thread share one read (a row
  // broadcast down many rows: a value a column, not one a register).
  const std::vector<int> classes =
      slot ? slot_broadcast_classes(from, to, slot_layout) : broadcast_classes(from, to, result);
  Regs out;
  for (int r = 0; r < count; ++r) {
    if (classes[static_cast<size_t>(r)] != r) {
      out.values.push_back(out.values[static_cast<size_t>(classes[static_cast<size_t>(r)])]);
      continue;
    }
    llvm::Value* e = element(r);
    llvm::Value* v = guarded(slot ? nullptr : owns(result, r), [&]() -> llvm::Value* {
      llvm::Value* at = shared_element_at(base, stored, broadcast_source_index(from, to, e), source.num_elements());
      return from_storage(b_.CreateLoad(stored, at), elem);
    });
    out.values.push_back(v);
  }
  set(op.result(), std::move(out));
}

}  // namespace tritium::nvptx

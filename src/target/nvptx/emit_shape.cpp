#include <algorithm>
// Ops that create or reshape blocks: program ids, make_range, splat, broadcast (in
// registers when every element stays on its thread, else through shared memory),
// expand_dims and reshape (free: layout.h keeps row-major order and owners).
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu/conversion.h"
#include "gpu/scratch.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
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

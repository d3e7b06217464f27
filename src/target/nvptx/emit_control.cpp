// Structured control flow to LLVM basic blocks: for, if and while, their carried values
// as phis (one per register of a block value). Decisions are uniform scalars; one that may
// diverge (uniformity.h) is made uniform when its regions hold a barrier.
#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "support/diagnostics.h"
#include "transforms/rewrite.h"
#include "target/nvptx/emitter.h"
#include "target/nvptx/loop_hints.h"

namespace tritium::nvptx {

using ir::OpKind;

namespace {

// Phis in the current block for carried values, one per register, except that 8-bit
// registers go four to an i32 phi, packed where they come in and unpacked once after the
// phis: each would otherwise take a 16-bit PTX register of its own, so a loop carrying a
// prefetched block (a load's words split into bytes) would hold four times the registers
// it needs; LLVM folds the packing of bytes just split from a word back into it.
struct PhiSet {
  std::vector<std::vector<llvm::PHINode*>> phis;
  std::vector<llvm::FixedVectorType*> packed;  // a word's elements as a vector, or null
  std::vector<Regs> unpacked;

  static llvm::FixedVectorType* word_of(const Regs& values) {
    if (values.values.empty()) return nullptr;
    llvm::Type* type = values.values[0]->getType();
    const unsigned bits = type->getPrimitiveSizeInBits().getFixedValue();
    // 16-bit elements are left one to a register: packed in pairs (the same code with
    // `bits == 16`) the prefetching copy loop's PTX is ideal, but ptxas then issues the next
    // loads before the stores and needs more registers (4096 fp16 at 4 warps: 45 -> 56).
    if (bits != 8 || values.values.size() % (32 / bits) != 0) return nullptr;
    for (llvm::Value* v : values.values) {
      if (v->getType() != type) return nullptr;
    }
    return llvm::FixedVectorType::get(type, 32 / bits);
  }
  // The phis for `init`'s registers at `b`'s insertion point (the loop's first block), then
  // the unpacking after all of them.
  void create(llvm::IRBuilder<>& b, const std::vector<Regs>& init) {
    for (const Regs& values : init) {
      packed.push_back(word_of(values));
      phis.emplace_back();
      const size_t per = packed.back() != nullptr ? packed.back()->getNumElements() : 1;
      for (size_t r = 0; r < values.values.size(); r += per) {
        phis.back().push_back(b.CreatePHI(per > 1 ? b.getInt32Ty() : values.values[r]->getType(), 2));
      }
    }
    for (size_t i = 0; i < phis.size(); ++i) {
      Regs out;
      for (llvm::PHINode* phi : phis[i]) {
        if (packed[i] == nullptr) {
          out.values.push_back(phi);
          continue;
        }
        llvm::Value* word = b.CreateBitCast(phi, packed[i]);
        for (unsigned k = 0; k < packed[i]->getNumElements(); ++k) out.values.push_back(b.CreateExtractElement(word, b.getInt32(k)));
      }
      unpacked.push_back(std::move(out));
    }
  }
  // `values` as the registers coming from `from` (packed at its end, before its branch).
  void add_incoming(const std::vector<Regs>& values, llvm::BasicBlock* from) {
    llvm::IRBuilder<> b(from);
    if (from->getTerminator() != nullptr) b.SetInsertPoint(from->getTerminator());
    for (size_t i = 0; i < phis.size(); ++i) {
      for (size_t r = 0; r < phis[i].size(); ++r) {
        if (packed[i] == nullptr) {
          phis[i][r]->addIncoming(values[i].at(static_cast<int>(r)), from);
          continue;
        }
        const int per = static_cast<int>(packed[i]->getNumElements());
        llvm::Value* word = llvm::PoisonValue::get(packed[i]);
        for (int k = 0; k < per; ++k) {
          word = b.CreateInsertElement(word, values[i].at(static_cast<int>(r) * per + k), b.getInt32(k));
        }
        phis[i][r]->addIncoming(b.CreateBitCast(word, b.getInt32Ty()), from);
      }
    }
  }
  Regs regs(size_t i) const { return unpacked[i]; }
};

}  // namespace

llvm::Value* Emitter::decision(const ir::Op& op, const ir::Value* value) {
  llvm::Value* v = get(value).at(0);
  // Thread 0's view decides for everyone (any view is right for a racy read; what matters
  // is that every thread reaches the same barriers).
  if ((facts_.has_sync(op) || fragment_barriers_.count(&op) != 0) && facts_.diverges(value)) v = from_thread0({v})[0];
  return v;
}

void Emitter::emit_if(const ir::Op& op) {
  llvm::Value* cond = decision(op, op.operand(0));
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "if.then", kernel_);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(context_, "if.else", kernel_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "if.end", kernel_);
  b_.CreateCondBr(cond, then_block, else_block);
  std::vector<Regs> yields[2];
  llvm::BasicBlock* ends[2];
  llvm::BasicBlock* starts[2] = {then_block, else_block};
  const int commits = body_commits_;  // a branch's copy groups may not be committed at run time
  for (int i = 0; i < 2; ++i) {
    b_.SetInsertPoint(starts[i]);
    const ir::Region& region = *op.region(i);
    body_commits_ = commits;
    emit_region(region);
    const ir::Op& terminator = *region.terminator();
    for (int k = 0; k < terminator.num_operands(); ++k) {
      const FragmentLayout* l = frags_.layout(op.result(k));
      yields[i].push_back(l ? fragment_operand(terminator.operand(k), *l, terminator) : get(terminator.operand(k)));
    }
    ends[i] = b_.GetInsertBlock();
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
  // Every result's phis first: set_fragment may emit a fragment's flat copy (a round trip),
  // which must come after all of them (LLVM: "PHI nodes not grouped at top of basic block",
  // an `if` yielding several fragments read flat, fla's kkt_solve with its one-trip loop
  // written out).
  std::vector<Regs> merged(static_cast<size_t>(op.num_results()));
  for (int k = 0; k < op.num_results(); ++k) {
    const ir::Type* type = op.result(k)->type();
    const bool fragment = frags_.layout(op.result(k)) != nullptr;
    Regs a = yields[0][k], b = yields[1][k];
    if (type->is_block() && !fragment && !(a.uniform && b.uniform)) {
      a = materialize(a, type);
      b = materialize(b, type);
    }
    Regs& out = merged[static_cast<size_t>(k)];
    out.uniform = a.uniform && !fragment;
    for (size_t r = 0; r < a.values.size(); ++r) {
      llvm::PHINode* phi = b_.CreatePHI(element_type(type), 2);
      phi->addIncoming(a.values[r], ends[0]);
      phi->addIncoming(b.values[r], ends[1]);
      out.values.push_back(phi);
    }
  }
  for (int k = 0; k < op.num_results(); ++k) {
    if (frags_.layout(op.result(k)) != nullptr) {
      set_fragment(op.result(k), std::move(merged[static_cast<size_t>(k)]));
    } else {
      set(op.result(k), std::move(merged[static_cast<size_t>(k)]));
    }
  }
  body_commits_ = commits;
}

void Emitter::emit_for(const ir::Op& op) {
  const ir::Type* iv_type = op.operand(0)->type();
  bool is_signed = ir::is_signed(iv_type->scalar_kind());
  unsigned width = static_cast<unsigned>(ir::bit_width(iv_type->scalar_kind()));
  std::vector<llvm::Value*> bounds;
  for (int i = 0; i < 3; ++i) bounds.push_back(get(op.operand(i)).at(0));
  if ((facts_.has_sync(op) || fragment_barriers_.count(&op) != 0) &&
      (facts_.diverges(op.operand(0)) || facts_.diverges(op.operand(1)) || facts_.diverges(op.operand(2)))) {
    bounds = from_thread0(bounds);
  }
  // A 32-bit iv with a constant positive step counts in 32 bits, as Triton's loops do, the
  // next iteration running while upper - iv > step (unsigned: upper - iv is exact in 32 bits
  // while iv < upper), so nothing wraps (Python's range has no wrap-around). A 64-bit counter
  // there made ptxas's whole-program compile serialize an unaligned row's loads
  // (codegen.h's iv32). Other loops count in 64 bits, so a narrower iv never overflows on its
  // way past `upper`; a 64-bit one stops when iv + step overflows. TRITIUM_REDUCE_EXPERIMENT=
  // noiv32: every loop in 64 bits, for comparisons.
  const auto* step_constant = llvm::dyn_cast<llvm::ConstantInt>(bounds[2]);
  const bool narrow = loop_iv32_ && width == 32 && step_constant != nullptr &&
                      (is_signed ? step_constant->getSExtValue() > 0 : !step_constant->isZero());
  llvm::Value* narrow_more = nullptr;
  if (narrow) {
    narrow_more = is_signed ? b_.CreateICmpSLT(bounds[0], bounds[1]) : b_.CreateICmpULT(bounds[0], bounds[1]);
  }
  llvm::Type* wide = narrow ? b_.getInt32Ty() : b_.getInt64Ty();
  if (!narrow) {
    for (llvm::Value*& v : bounds) v = is_signed ? b_.CreateSExt(v, wide) : b_.CreateZExt(v, wide);
  }
  llvm::Value* lower = bounds[0];
  llvm::Value* upper = bounds[1];
  llvm::Value* step = bounds[2];
  bool check_overflow = width == 64;

  const ir::Region& body = *op.region(0);
  std::vector<Regs> init;
  for (int i = 3; i < op.num_operands(); ++i) {
    const FragmentLayout* l = frags_.layout(body.arg(i - 2));
    init.push_back(l ? fragment_operand(op.operand(i), *l, op) : materialize(get(op.operand(i)), op.operand(i)->type()));
  }

  // Loop-invariant wgmma operands, written into their buffers once (async_copy.h): memory
  // that planned round trips before the loop may have used; live until the exit of the
  // last loop that reads them.
  const std::vector<const HoistedOperand*> hoisted = async_.hoisted_before(op);
  if (!hoisted.empty()) sync_past_operand_tiles();
  for (const HoistedOperand* h : hoisted) {
    stage_hoisted(*h);
    live_hoisted_ends_[h] = h->offset + h->tile.bytes();
  }
  // Written through the generic proxy, read by wgmma (async proxy): the dots of a loop whose
  // operands are TMA copies fence nothing themselves.
  if (!hoisted.empty() && sm_ >= 90) ptx_effect("fence.proxy.async.shared::cta;", "", {});
  // Loop-invariant mma.sync A operands: their fragments loaded once, held in registers.
  hoist_a_fragments(op);

  // A body holding planned ops is emitted as if every iteration started with no accesses of
  // theirs pending. Where an unplanned round trip then comes before the body's first barrier
  // of its own (clean_entries_), that holds by a barrier before the loop (when some are
  // pending there) and one at the body's end (when it leaves some): a body that ends at a
  // barrier anyway (a dot's) needs none in the iteration (fla's chunk_fwd_kernel_h, whose state's
  // round trip for its store began with one every chunk). Where none does, no barrier is
  // needed at all.
  const bool scratch_body = holds_scratch(op);
  const bool pre_dirty = dirty_;

  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context_, "for.header", kernel_);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(context_, "for.body", kernel_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, "for.exit", kernel_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(wide, 2, "iv");
  iv->addIncoming(lower, pre);
  llvm::PHINode* alive = nullptr;
  llvm::PHINode* narrow_alive = nullptr;
  if (narrow) {
    narrow_alive = b_.CreatePHI(b_.getInt1Ty(), 2, "more");
    narrow_alive->addIncoming(narrow_more, pre);
  }
  if (check_overflow) {
    alive = b_.CreatePHI(b_.getInt1Ty(), 2, "no_overflow");
    alive->addIncoming(b_.getTrue(), pre);
  }
  // The iteration count, for the TMA copies' stage mbarriers (emit_async.cpp).
  llvm::PHINode* trip = nullptr;
  for (const auto& o : async_.operands) {
    if (o->tma_map >= 0 && o->carried->region() == &body && trip == nullptr) {
      trip = b_.CreatePHI(b_.getInt32Ty(), 2, "trip");
      trip->addIncoming(b_.getInt32(0), pre);
      trips_[&body] = trip;
    }
  }
  PhiSet carried;  // of the types the registers hold (a stage buffer's offset for an async operand)
  carried.create(b_, init);
  carried.add_incoming(init, pre);
  // Python's range: while step > 0 ? iv < upper : iv > upper (unsigned ivs count up); a
  // step of 0 runs no iteration rather than hanging the GPU.
  llvm::Value* more = narrow_alive;
  if (!narrow) {
    more = is_signed ? b_.CreateSelect(b_.CreateICmpSGT(step, b_.getInt64(0)), b_.CreateICmpSLT(iv, upper),
                                       b_.CreateICmpSGT(iv, upper))
                     : b_.CreateICmpULT(iv, upper);
    more = b_.CreateAnd(more, b_.CreateICmpNE(step, b_.getInt64(0)));
  }
  if (alive) more = b_.CreateAnd(more, alive);
  b_.CreateCondBr(more, body_block, exit);

  b_.SetInsertPoint(body_block);
  set(body.arg(0), Regs::one(narrow ? static_cast<llvm::Value*>(iv) : b_.CreateTrunc(iv, scalar_type(iv_type->scalar_kind()))));
  // A carried fragment that the body also reads flat is converted here, before emit_region,
  // under the same rule (a row sum's reads pending at the back edge).
  if (scratch_body) {
    dirty_ = false;
    clean_entries_.push_back({&body, false, false});
  }
  for (size_t i = 0; i < init.size(); ++i) {
    const ir::Value* arg = body.arg(static_cast<int>(i) + 1);
    if (frags_.layout(arg)) {
      set_fragment(arg, carried.regs(i));
    } else {
      set(arg, carried.regs(i));
    }
  }
  lockstep_operands(body);
  const int outer_commits = body_commits_;
  body_commits_ = 0;
  emit_region(body);
  issue_deferred_copies();  // none left unless no dot consumed them
  body_commits_ = outer_commits;  // the loop's exit drains its groups; the outer count stays safe
  std::vector<Regs> yields;
  const ir::Op* yield = body.terminator();
  for (int i = 0; i < yield->num_operands(); ++i) {
    const FragmentLayout* l = frags_.layout(body.arg(i + 1));
    yields.push_back(l ? fragment_operand(yield->operand(i), *l, *yield)
                       : materialize(get(yield->operand(i)), yield->operand(i)->type()));
  }
  if (scratch_body) {
    const CleanEntry entry = clean_entries_.back();
    clean_entries_.pop_back();
    if (entry.needed && dirty_) barrier();  // the next iteration starts with none pending
    if (entry.needed && pre_dirty) {
      // The first iteration too: met once before the loop (where the loop began).
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(pre->getTerminator());
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all, llvm::ArrayRef<llvm::Value*>{b_.getInt32(0)});
    }
  }
  llvm::Value* next = nullptr;
  if (check_overflow) {
    auto id = is_signed ? llvm::Intrinsic::sadd_with_overflow : llvm::Intrinsic::uadd_with_overflow;
    llvm::Value* pair = b_.CreateBinaryIntrinsic(id, iv, step);
    next = b_.CreateExtractValue(pair, 0);
    alive->addIncoming(b_.CreateNot(b_.CreateExtractValue(pair, 1)), b_.GetInsertBlock());
  } else if (narrow) {
    next = b_.CreateAdd(iv, step);  // wraps only when the loop ends (more is false then)
    narrow_alive->addIncoming(b_.CreateICmpUGT(b_.CreateSub(upper, iv), step), b_.GetInsertBlock());
  } else {
    next = b_.CreateAdd(iv, step);  // |iv|, |step| < 2^32: no wrap in 64 bits
  }
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  iv->addIncoming(next, latch);
  if (trip != nullptr) trip->addIncoming(b_.CreateAdd(trip, b_.getInt32(1)), latch);
  carried.add_incoming(yields, latch);
  set_loop_hints(b_.CreateBr(header), op);

  b_.SetInsertPoint(exit);
  // The last iterations' copies for iterations that do not run are masked off, but cp.async
  // still writes their zero fill, asynchronously: drain them before anything (this loop
  // entered again inside an outer one) copies into the same buffers. Once no stage buffer is
  // live, round trips reuse their memory: every thread's copies and reads end first.
  // A dot left in flight (async_copy.h) completes first: its accumulators, and the reads of
  // its stage buffers.
  std::vector<Regs> results;
  for (size_t i = 0; i < init.size(); ++i) {
    results.push_back(carried.regs(i));
    const ir::Value* yielded = yield->operand(static_cast<int>(i));
    if (yielded->def() != nullptr && async_.in_flight_dots.count(yielded->def()) != 0) wgmma_wait(0, results[i].values);
  }
  int copied = 0, cp_async = 0;
  for (size_t i = 0; i < init.size(); ++i) {
    auto it = async_.carried.find(body.arg(static_cast<int>(i) + 1));
    const bool here = it != async_.carried.end() && it->second->carried == it->first;
    copied += here ? 1 : 0;
    if (here) live_stage_ends_.erase(it->second);
    cp_async += here && it->second->tma_map < 0 ? 1 : 0;  // TMA copies: only those of iterations that ran
  }
  if (cp_async > 0) ptx_effect("cp.async.wait_group 0;", "", {});
  // A hoisted buffer that a later loop still reads stays; the bytes of the stage buffers
  // are reused by what follows (round trips, the next loop's copies) once every thread is
  // done with them.
  const std::vector<const HoistedOperand*> released_buffers = async_.hoisted_released_at(op);
  for (const HoistedOperand* h : released_buffers) live_hoisted_ends_.erase(h);
  const int released = copied + static_cast<int>(released_buffers.size());
  // TMA stage mbarriers are invalidated once everyone is done waiting on them: their bytes
  // may hold other data next, and the next entry of this loop initializes them again
  // (initializing a valid mbarrier is undefined).
  std::vector<const AsyncOperand*> tma_operands;
  for (size_t i = 0; i < init.size(); ++i) {
    auto it = async_.carried.find(body.arg(static_cast<int>(i) + 1));
    if (it != async_.carried.end() && it->second->carried == it->first && it->second->tma_map >= 0) {
      tma_operands.push_back(it->second);
    }
  }
  if (!tma_operands.empty()) {
    barrier();
    for (const AsyncOperand* o : tma_operands) invalidate_tma_barriers(*o);
  }
  // After the invals too: until then the mbarriers' bytes are theirs, whatever else is live.
  if (!tma_operands.empty() || (released > 0 && live_stage_ends_.empty())) barrier();
  // The same for the results' conversions at the exit: reached from the body's end, or,
  // with no iteration, from where the loop began.
  dirty_ = dirty_ || entry_dirty_[&op] || holds_scratch(op);
  if (op.has_attr("cluster_sum")) {
    if (op.has_attr("trips_param")) {
      // For the launch's choice of the cluster size (gpu/split_k_cluster.h): how many trips.
      int64_t step = 1;
      transforms::int_constant_of(op.operand(2), &step);
      std::string text = "// tritium.ksplit.trips " + std::to_string(op.int_attr("trips_param")) + " " +
                         std::to_string(op.int_attr("trips_lower")) + " " + std::to_string(step);
      for (int64_t v : op.ints_attr("trips_ops")) text += " " + std::to_string(v);
      ptx_effect(text, "", {});
    }
    const int acc = static_cast<int>(op.int_attr("cluster_sum"));
    results[acc] = cluster_sum(std::move(results[acc]));
  }
  // Copies made here to the flat layout (set_fragment) may leave their ending barrier
  // pending in the kernel's top-level region (end_round_trip).
  lazy_round_trips_ = lazy_trailing_ && op.parent() != nullptr && op.parent()->parent() == nullptr;
  for (size_t i = 0; i < init.size(); ++i) {
    const ir::Value* result = op.result(static_cast<int>(i));
    if (frags_.layout(result)) {
      set_fragment(result, std::move(results[i]));
    } else {
      set(result, std::move(results[i]));
    }
  }
  lazy_round_trips_ = false;
}

Regs Emitter::cluster_sum(Regs acc) {
  // The accumulators of the cluster's C ranks (num_ctas_: 2, 4 or 8) summed into rank 0's by
  // a fixed tree, log2(C) levels: at the level of distance d (1, 2, 4) a rank r with
  // r % 2d == d writes its registers into its own shared memory, and rank r - d, after a
  // cluster barrier, reads them through distributed shared memory (mapa of the buffer's
  // start, ld.shared::cluster) and adds them to its own: rank 0 ends with
  // ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)), the same order every run. Each rank
  // writes once (its buffer holds until the end); the levels are one loop over d. Registers
  // go 4 at a time (a 16-byte access) where they come in fours: group g of thread t at bytes
  // (g * threads + t) * 16, so a warp's accesses are consecutive. A reader reads and adds in
  // chunks of kChunk groups (below). After the last level every rank arrives at a final
  // cluster barrier; the others wait at it until rank 0 has read (a rank's shared memory
  // must outlive the reads of it) and end; rank 0 runs the rest alone. The loop's stage
  // buffers were drained at its exit; a CTA barrier first lets every thread finish with them.
  barrier(false);
  const int ctas = num_ctas_;
  llvm::Value* rank = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank, llvm::ArrayRef<llvm::Value*>());
  const int n = static_cast<int>(acc.values.size());
  llvm::Type* type = acc.values.at(0)->getType();
  const int width = n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
  llvm::Type* group = width == 1 ? type : static_cast<llvm::Type*>(llvm::FixedVectorType::get(type, width));
  const int groups = n / width;
  llvm::Value* tid = thread_id();
  llvm::Value* base = shared_element(group, b_.getInt32(0), static_cast<int64_t>(groups) * threads_);
  auto index = [&](int g) { return b_.CreateAdd(b_.getInt32(static_cast<uint32_t>(g * threads_)), tid); };
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* level = llvm::BasicBlock::Create(context_, "ksplit.level", kernel_);
  auto* hand = llvm::BasicBlock::Create(context_, "ksplit.hand", kernel_);
  auto* met = llvm::BasicBlock::Create(context_, "ksplit.met", kernel_);
  auto* add = llvm::BasicBlock::Create(context_, "ksplit.add", kernel_);
  auto* next = llvm::BasicBlock::Create(context_, "ksplit.next", kernel_);
  auto* last = llvm::BasicBlock::Create(context_, "ksplit.last", kernel_);
  auto* done = llvm::BasicBlock::Create(context_, "ksplit.done", kernel_);
  auto* rest = llvm::BasicBlock::Create(context_, "ksplit.rest", kernel_);
  b_.CreateBr(level);
  b_.SetInsertPoint(level);
  llvm::PHINode* distance = b_.CreatePHI(b_.getInt32Ty(), 2);
  distance->addIncoming(b_.getInt32(1), pre);
  std::vector<llvm::PHINode*> mine(n);
  for (int i = 0; i < n; ++i) {
    mine[i] = b_.CreatePHI(type, 2);
    mine[i]->addIncoming(acc.values[i], pre);
  }
  llvm::Value* offset = b_.CreateAnd(rank, b_.CreateSub(b_.CreateShl(distance, 1), b_.getInt32(1)));
  b_.CreateCondBr(b_.CreateICmpEQ(offset, distance), hand, met);
  b_.SetInsertPoint(hand);
  for (int g = 0; g < groups; ++g) {
    llvm::Value* v = width == 1 ? static_cast<llvm::Value*>(mine[g]) : llvm::PoisonValue::get(group);
    for (int i = 0; i < width && width > 1; ++i) v = b_.CreateInsertElement(v, mine[g * width + i], i);
    b_.CreateAlignedStore(v, b_.CreateGEP(group, base, index(g)), llvm::Align(4 * width));
  }
  b_.CreateBr(met);
  b_.SetInsertPoint(met);
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cluster_arrive, llvm::ArrayRef<llvm::Value*>());
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cluster_wait, llvm::ArrayRef<llvm::Value*>());
  b_.CreateCondBr(b_.CreateICmpEQ(offset, b_.getInt32(0)), add, next);
  b_.SetInsertPoint(add);
  llvm::Value* remote =
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_mapa_shared_cluster, {}, {base, b_.CreateAdd(rank, distance)});
  // The reads and adds go kHandoverChunk groups at a time (32 registers at v4), each
  // chunk's loads after all of the previous chunk's adds: ptxas, left to itself, issues the
  // loads first and the adds late (128 more live registers where a thread holds 128
  // accumulators: 179 -> 255 at 128x128, 4 warps). Neither a fence (membar, bar.warp.sync:
  // adds are no memory operations) nor a dependence on one sum keeps them apart; what does
  // is a dependence on every sum of the chunk, which ptxas cannot see through: the next
  // chunk's addresses add cvt.rzi(min(the chunk's sums) * 0), which is 0 (+-0, or NaN, which
  // cvt.rzi turns to 0 alike), the product and conversion in inline PTX. Experiment
  // "ksplitwhole": no chunks, as session 37 built it.
  const int chunk = fused_handover_ ? groups : kHandoverChunk;
  std::vector<llvm::Value*> sums(n);
  llvm::Value* shift = nullptr;
  const bool is_float = type->isFloatingPointTy();
  for (int g0 = 0; g0 < groups; g0 += chunk) {
    const int g1 = std::min(groups, g0 + chunk);
    for (int g = g0; g < g1; ++g) {
      llvm::Value* at = index(g);
      if (shift != nullptr) at = b_.CreateAdd(at, shift);
      llvm::Value* other = b_.CreateAlignedLoad(group, b_.CreateGEP(group, remote, at), llvm::Align(4 * width));
      for (int i = 0; i < width; ++i) {
        llvm::Value* o = width == 1 ? other : b_.CreateExtractElement(other, i);
        llvm::Value* m = mine[g * width + i];
        sums[g * width + i] = is_float ? b_.CreateFAdd(m, o) : b_.CreateAdd(m, o);
      }
    }
    if (g1 < groups) {
      std::vector<llvm::Value*> level(sums.begin() + g0 * width, sums.begin() + g1 * width);
      while (level.size() > 1) {  // a tree: depth log2 of the chunk's registers
        std::vector<llvm::Value*> halved;
        for (size_t i = 0; i + 1 < level.size(); i += 2) {
          halved.push_back(is_float ? b_.CreateMinNum(level[i], level[i + 1])
                                    : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, level[i], level[i + 1]));
        }
        if (level.size() % 2) halved.push_back(level.back());
        level = std::move(halved);
      }
      llvm::Value* x = level[0];
      if (!type->isFloatTy()) x = is_float ? b_.CreateFPCast(x, b_.getFloatTy()) : b_.CreateSIToFP(x, b_.getFloatTy());
      auto* fn = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getFloatTy()}, false);
      shift = b_.CreateCall(
          llvm::InlineAsm::get(fn, "{ .reg .f32 z; mul.rn.f32 z, $1, 0f00000000; cvt.rzi.s32.f32 $0, z; }", "=r,f",
                               /*hasSideEffects=*/false),
          {x});
    }
  }
  llvm::BasicBlock* added = b_.GetInsertBlock();
  b_.CreateBr(next);
  b_.SetInsertPoint(next);
  Regs out;
  for (int i = 0; i < n; ++i) {
    llvm::PHINode* phi = b_.CreatePHI(type, 2);
    phi->addIncoming(mine[i], met);
    phi->addIncoming(sums[i], added);
    mine[i]->addIncoming(phi, next);
    out.values.push_back(phi);
  }
  llvm::Value* doubled = b_.CreateShl(distance, 1);
  distance->addIncoming(doubled, next);
  b_.CreateCondBr(b_.CreateICmpULT(doubled, b_.getInt32(static_cast<uint32_t>(ctas))), level, last);
  b_.SetInsertPoint(last);
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cluster_arrive, llvm::ArrayRef<llvm::Value*>());
  b_.CreateCondBr(b_.CreateICmpEQ(rank, b_.getInt32(0)), rest, done);
  b_.SetInsertPoint(done);
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cluster_wait, llvm::ArrayRef<llvm::Value*>());
  b_.CreateRetVoid();
  b_.SetInsertPoint(rest);
  // Rank 0 runs the rest alone (no wait: nothing of its own is read).
  out.uniform = acc.uniform && n == 1;
  return out;
}

void Emitter::emit_while(const ir::Op& op) {
  const ir::Region& before = *op.region(0);
  const ir::Region& after = *op.region(1);
  std::vector<Regs> init;
  for (const ir::Value* v : op.operands()) init.push_back(materialize(get(v), v->type()));

  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* before_block = llvm::BasicBlock::Create(context_, "while.before", kernel_);
  llvm::BasicBlock* after_block = llvm::BasicBlock::Create(context_, "while.after", kernel_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, "while.exit", kernel_);
  b_.CreateBr(before_block);
  b_.SetInsertPoint(before_block);
  PhiSet carried;
  carried.create(b_, init);
  carried.add_incoming(init, pre);
  for (size_t i = 0; i < init.size(); ++i) set(before.arg(static_cast<int>(i)), carried.regs(i));
  const int commits = body_commits_;  // its copy groups may be committed any number of times
  emit_region(before);
  const ir::Op* condition = before.terminator();
  llvm::Value* cond = decision(op, condition->operand(0));
  // The passed values dominate both successors: no phis for them.
  std::vector<Regs> passed;
  for (int i = 1; i < condition->num_operands(); ++i) passed.push_back(get(condition->operand(i)));
  b_.CreateCondBr(cond, after_block, exit);

  b_.SetInsertPoint(after_block);
  for (size_t i = 0; i < passed.size(); ++i) set(after.arg(static_cast<int>(i)), passed[i]);
  emit_region(after);
  std::vector<Regs> yields;
  const ir::Op* yield = after.terminator();
  for (int i = 0; i < yield->num_operands(); ++i) {
    yields.push_back(materialize(get(yield->operand(i)), yield->operand(i)->type()));
  }
  carried.add_incoming(yields, b_.GetInsertBlock());
  set_loop_hints(b_.CreateBr(before_block), op);

  b_.SetInsertPoint(exit);
  for (size_t i = 0; i < passed.size(); ++i) set(op.result(static_cast<int>(i)), passed[i]);
  body_commits_ = commits;
}

}  // namespace tritium::nvptx

#include "target/nvptx/late_passes.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>

namespace tritium::nvptx {

void mark_elidable_barrier(llvm::CallInst* barrier) {
  barrier->setMetadata(kElidableBarrier, llvm::MDNode::get(barrier->getContext(), {}));
}

int contract_across_blocks(llvm::Module& module) {
  int moved = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dominators(f);
    llvm::LoopInfo loops(dominators);
    std::vector<std::pair<llvm::Instruction*, llvm::Instruction*>> moves;  // (fadd, after)
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        if (inst.getOpcode() != llvm::Instruction::FAdd && inst.getOpcode() != llvm::Instruction::FSub) continue;
        if (!inst.getType()->isFloatTy() && !inst.getType()->isDoubleTy()) continue;
        for (unsigned k = 0; k < 2; ++k) {
          auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(inst.getOperand(k));
          if (mul == nullptr || mul->getOpcode() != llvm::Instruction::FMul || mul->getParent() == &block) continue;
          // Not out of a loop the fmul is in, nor into one it is outside of.
          if (loops.getLoopFor(mul->getParent()) != loops.getLoopFor(&block)) continue;
          // The fadd moves up to the fmul (which dominates it: one of its operands), or to the
          // other operand's definition where that comes later in the fmul's block; not where
          // that operand is defined only below the fmul's block.
          llvm::Instruction* after = mul;
          if (auto* other = llvm::dyn_cast<llvm::Instruction>(inst.getOperand(1 - k))) {
            if (llvm::isa<llvm::PHINode>(other) && other->getParent() == mul->getParent()) {
              // a phi of the fmul's block comes before it
            } else if (other->getParent() == mul->getParent()) {
              if (mul->comesBefore(other)) after = other;
            } else if (!dominators.dominates(other->getParent(), mul->getParent())) {
              continue;
            }
          }
          moves.emplace_back(&inst, after);
          break;
        }
      }
    }
    for (auto [fadd, after] : moves) {
      fadd->moveAfter(after);
      ++moved;
    }
  }
  return moved;
}

namespace {

bool is_cta_barrier(const llvm::Instruction& inst) {
  const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  if (call == nullptr || call->getIntrinsicID() != llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all) return false;
  const auto* id = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
  return id != nullptr && id->isZero();
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// Whether an instruction of inline assembly `text` starts with `op` (at the start, after a
// predicate, a newline, a tab or a `;`): "red." in "red.global", not in "shared.b16".
bool opcode_in(const std::string& text, const char* op) {
  for (size_t at = text.find(op); at != std::string::npos; at = text.find(op, at + 1)) {
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n' || text[at - 1] == ';') return true;
  }
  return false;
}

// Whether inline assembly `text` may access shared memory (or order it: barriers, fences).
bool asm_may_touch_shared(const std::string& text) {
  // One of cp.async's bookkeeping instructions alone: it waits for or groups the thread's own
  // copies, which the barrier it would follow did not order either. Or a proxy fence alone:
  // it orders the thread's own accesses for the async proxy, and the next barrier still
  // comes after it (the order that wgmma's and TMA's operands need: writes, fence, barrier).
  for (const char* alone : {"cp.async.wait_group", "cp.async.commit_group", "cp.async.wait_all", "fence.proxy.async"}) {
    if (text.rfind(alone, 0) == 0 && text.find('\n') == std::string::npos && text.find(';') == text.size() - 1) {
      return false;
    }
  }
  static const char* const kMemory[] = {"ld.", "st.", "atom", "red.", "cp.", "wgmma", "ldmatrix", "stmatrix",
                                        "mbarrier", "bar.", "barrier", "membar", "fence", "tensormap", "bulk",
                                        "shared", "griddepcontrol", "prefetch", "tcgen", "elect", "setmaxnreg"};
  bool memory = false;
  for (const char* m : kMemory) memory = memory || contains(text, m);
  if (!memory) return false;  // arithmetic, conversions, special registers
  // Global loads, stores and atomics only.
  const bool global_only = contains(text, ".global") && !contains(text, "shared") && !contains(text, "bar") &&
                           !contains(text, "fence") && !contains(text, "cp.") && !contains(text, "bulk") &&
                           !contains(text, "generic");
  return !global_only;
}

bool pointer_may_be_shared(const llvm::Value* pointer) {
  unsigned space = pointer->getType()->getPointerAddressSpace();
  return space != 1 && space != 4 && space != 5;  // global, constant, local are not
}

bool may_touch_shared(const llvm::Instruction& inst) {
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) return pointer_may_be_shared(load->getPointerOperand());
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) return pointer_may_be_shared(store->getPointerOperand());
  if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) return pointer_may_be_shared(rmw->getPointerOperand());
  if (const auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) return pointer_may_be_shared(cas->getPointerOperand());
  if (llvm::isa<llvm::FenceInst>(inst)) return true;
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
  if (call == nullptr) return false;
  if (const auto* text = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand())) {
    return asm_may_touch_shared(std::string(text->getAsmString()));
  }
  if (!call->mayReadOrWriteMemory() || call->onlyAccessesInaccessibleMemory()) return false;
  if (call->onlyAccessesArgMemory()) {
    for (const llvm::Value* arg : call->args()) {
      if (arg->getType()->isPointerTy() && pointer_may_be_shared(arg)) return true;
    }
    return false;
  }
  return true;
}

// Whether every path from just after `barrier` meets another barrier (not `barrier` itself)
// or leaves the kernel before an instruction that may access shared memory.
bool covered_by_next_barrier(llvm::Instruction* barrier) {
  // Scans `block` from `it`: true where the scan stops at another barrier or a return, false
  // at an access or `barrier` again; the successors to visit where it runs off the end.
  std::vector<std::pair<llvm::BasicBlock*, llvm::BasicBlock::iterator>> work;
  std::set<llvm::BasicBlock*> seen;
  work.emplace_back(barrier->getParent(), std::next(barrier->getIterator()));
  while (!work.empty()) {
    auto [block, it] = work.back();
    work.pop_back();
    bool stopped = false;
    for (; it != block->end(); ++it) {
      llvm::Instruction& inst = *it;
      if (&inst == barrier) return false;
      if (is_cta_barrier(inst)) {
        stopped = true;
        break;
      }
      if (may_touch_shared(inst)) return false;
    }
    if (stopped) continue;
    for (llvm::BasicBlock* next : llvm::successors(block)) {
      if (seen.insert(next).second) work.emplace_back(next, next->begin());
    }
  }
  return true;
}

}  // namespace

int elide_barriers(llvm::Module& module) {
  int removed = 0;
  for (llvm::Function& f : module) {
    std::vector<llvm::Instruction*> marked;
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        if (is_cta_barrier(inst) && inst.getMetadata(kElidableBarrier) != nullptr) marked.push_back(&inst);
      }
    }
    // One at a time: a barrier removed no longer covers the ones after it.
    for (llvm::Instruction* barrier : marked) {
      if (!covered_by_next_barrier(barrier)) continue;
      barrier->eraseFromParent();
      ++removed;
    }
  }
  return removed;
}

namespace {

// The text of `inst`'s inline assembly, or "" where it is none.
std::string asm_text(const llvm::Instruction& inst) {
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
  if (call == nullptr) return "";
  const auto* text = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand());
  return text == nullptr ? "" : std::string(text->getAsmString());
}

// What a proxy fence and the wait before it may not cross: shared memory, barriers, fences,
// and any cp.async instruction (a commit or copy would change what the wait retires).
bool pins_fence(const llvm::Instruction& inst) {
  return may_touch_shared(inst) || is_cta_barrier(inst) || contains(asm_text(inst), "cp.async") ||
         contains(asm_text(inst), "fence") || contains(asm_text(inst), "membar");
}

bool writes_global(const llvm::Instruction& inst) {
  auto global = [](const llvm::Value* pointer) { return pointer->getType()->getPointerAddressSpace() == 1; };
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) return global(store->getPointerOperand());
  if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) return global(rmw->getPointerOperand());
  if (const auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) return global(cas->getPointerOperand());
  const std::string text = asm_text(inst);
  return contains(text, ".global") && (opcode_in(text, "st.") || opcode_in(text, "atom") || opcode_in(text, "red."));
}

}  // namespace

int rotate_proxy_fences(llvm::Module& module) {
  int moved = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dominators(f);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      llvm::BasicBlock* header = loop->getHeader();
      llvm::BasicBlock* preheader = loop->getLoopPreheader();
      llvm::BasicBlock* latch = loop->getLoopLatch();
      if (preheader == nullptr || latch == nullptr) continue;
      // The header's first instruction that pins a fence: the wait, the fence right after it.
      llvm::Instruction* wait = nullptr;
      bool crosses_write = false;
      for (llvm::Instruction& inst : *header) {
        if (llvm::isa<llvm::PHINode>(inst)) continue;
        if (pins_fence(inst)) {
          wait = &inst;
          break;
        }
        crosses_write = crosses_write || writes_global(inst);
      }
      if (wait == nullptr || asm_text(*wait).rfind("cp.async.wait_group ", 0) != 0) continue;
      llvm::Instruction* fence = wait->getNextNode();
      if (fence == nullptr || asm_text(*fence) != "fence.proxy.async.shared::cta;") continue;
      // The latch's tail after its last instruction that pins a fence (the whole latch after
      // its phis where none does; in a one-block loop, the part after the header's own copies).
      llvm::Instruction* last_pin = nullptr;
      for (llvm::Instruction& inst : *latch) {
        if (pins_fence(inst)) last_pin = &inst;
      }
      llvm::Instruction* at = last_pin != nullptr ? last_pin->getNextNode() : &*latch->getFirstInsertionPt();
      for (llvm::Instruction* it = at; it != nullptr; it = it->getNextNode()) {
        crosses_write = crosses_write || writes_global(*it);
      }
      if (!crosses_write) continue;  // nothing the fence would wait for less
      for (llvm::Instruction* inst : {wait, fence}) inst->clone()->insertBefore(at->getIterator());
      for (llvm::Instruction* inst : {wait, fence}) inst->clone()->insertBefore(preheader->getTerminator()->getIterator());
      fence->eraseFromParent();
      wait->eraseFromParent();
      ++moved;
    }
  }
  return moved;
}

namespace {

// A weak store to global memory with no result in use: an LLVM store to address space 1, or
// inline assembly that is a (predicated) st.global alone.
bool plain_global_store(const llvm::Instruction& inst) {
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    return store->isSimple() && store->getPointerOperand()->getType()->getPointerAddressSpace() == 1;
  }
  const std::string text = asm_text(inst);
  if (text.empty() || !inst.use_empty()) return false;
  std::string body = text;
  if (body.rfind("@", 0) == 0) body = body.substr(std::min(body.size(), body.find(' ') + 1));  // "@$1 "
  return body.rfind("st.global", 0) == 0 && body.find('\n') == std::string::npos &&
         body.find(';') == body.size() - 1 && !contains(body, ".release") && !contains(body, ".volatile") &&
         !contains(body, ".relaxed") && !contains(body, ".mmio");
}

// What a global store may be moved down past: arithmetic, shared memory (LLVM accesses to
// address space 3, or inline assembly on shared memory only that reads no global memory),
// cp.async's waits and commits. Not barriers, fences, global or generic accesses, copies
// from global memory (cp.async reads it), other calls that touch memory.
bool store_may_pass(const llvm::Instruction& inst) {
  if (is_cta_barrier(inst) || llvm::isa<llvm::FenceInst>(inst)) return false;
  auto shared = [](const llvm::Value* pointer) { return pointer->getType()->getPointerAddressSpace() == 3; };
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) return load->isSimple() && shared(load->getPointerOperand());
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) return store->isSimple() && shared(store->getPointerOperand());
  if (llvm::isa<llvm::AtomicRMWInst>(inst) || llvm::isa<llvm::AtomicCmpXchgInst>(inst)) return false;
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
  if (call == nullptr) return !inst.mayReadOrWriteMemory();
  const std::string text = asm_text(inst);
  if (llvm::isa<llvm::InlineAsm>(call->getCalledOperand())) {
    for (const char* alone : {"cp.async.wait_group", "cp.async.commit_group"}) {
      if (text.rfind(alone, 0) == 0 && text.find('\n') == std::string::npos) return true;
    }
    if (contains(text, "global") || contains(text, "generic") || contains(text, "cp.") || contains(text, "bar") ||
        contains(text, "fence") || contains(text, "membar") || contains(text, "atom") || opcode_in(text, "red.") ||
        contains(text, "bulk") || contains(text, "tensormap") || contains(text, "prefetch")) {
      return false;
    }
    // Shared-memory instructions (stmatrix, ldmatrix, ld/st.shared) or none at all.
    const bool memory = contains(text, "ld.") || contains(text, "st.") || contains(text, "matrix") ||
                        contains(text, "wgmma") || contains(text, "mbarrier");
    return !memory || (contains(text, "shared") && !contains(text, "wgmma") && !contains(text, "mbarrier"));
  }
  return !call->mayReadOrWriteMemory();
}

}  // namespace

int sink_stores_past_fences(llvm::Module& module) {
  int moved = 0;
  for (llvm::Function& f : module) {
    std::vector<llvm::Instruction*> fences;
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        if (asm_text(inst) == "fence.proxy.async.shared::cta;") fences.push_back(&inst);
      }
    }
    for (llvm::Instruction* fence : fences) {
      std::vector<llvm::Instruction*> stores;  // last first
      for (llvm::Instruction* it = fence->getPrevNode(); it != nullptr; it = it->getPrevNode()) {
        if (plain_global_store(*it)) {
          stores.push_back(it);
        } else if (!store_may_pass(*it)) {
          break;
        }
      }
      llvm::Instruction* after = fence;
      for (auto it = stores.rbegin(); it != stores.rend(); ++it) {
        (*it)->moveAfter(after);
        after = *it;
        ++moved;
      }
    }
  }
  return moved;
}

}  // namespace tritium::nvptx

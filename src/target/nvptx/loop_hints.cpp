// The unrolling hints on the loops of a kernel (loop_hints.h).
#include "target/nvptx/loop_hints.h"

#include <map>
#include <vector>

#include <llvm/IR/Metadata.h>

namespace tritium::nvptx {

namespace {

constexpr const char* kRuntimeDisable = "llvm.loop.unroll.runtime.disable";
constexpr const char* kDisable = "llvm.loop.unroll.disable";
// Marks the IDs whose kDisable is tritium's (LLVM adds its own to loops it has unrolled).
constexpr const char* kOuter = "tritium.loop.holds_loop";

bool region_holds_loop(const ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::For || op->kind() == ir::OpKind::While) return true;
    for (const auto& inner : op->regions()) {
      if (region_holds_loop(*inner)) return true;
    }
  }
  return false;
}

bool names(const llvm::Metadata* operand, const char* name) {
  const auto* node = llvm::dyn_cast_or_null<llvm::MDNode>(operand);
  if (node == nullptr || node->getNumOperands() == 0) return false;
  const auto* text = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(0).get());
  return text != nullptr && text->getString() == name;
}

}  // namespace

bool holds_loop(const ir::Op& loop) {
  for (const auto& region : loop.regions()) {
    if (region_holds_loop(*region)) return true;
  }
  return false;
}

void set_loop_hints(llvm::BranchInst* back_edge, const ir::Op& loop) {
  llvm::LLVMContext& context = back_edge->getContext();
  auto property = [&](const char* name) -> llvm::Metadata* {
    return llvm::MDNode::get(context, llvm::MDString::get(context, name));
  };
  std::vector<llvm::Metadata*> operands{nullptr, property(kRuntimeDisable)};
  if (holds_loop(loop)) {
    operands.push_back(property(kDisable));
    operands.push_back(property(kOuter));
  }
  llvm::MDNode* id = llvm::MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);  // a loop ID refers to itself
  back_edge->setMetadata(llvm::LLVMContext::MD_loop, id);
}

void release_outer_loops(llvm::Module& module) {
  std::map<llvm::MDNode*, llvm::MDNode*> released;  // one loop's back edges share its ID
  for (llvm::Function& f : module) {
    for (llvm::BasicBlock& block : f) {
      llvm::Instruction* terminator = block.getTerminator();
      llvm::MDNode* id = terminator ? terminator->getMetadata(llvm::LLVMContext::MD_loop) : nullptr;
      if (id == nullptr) continue;
      auto done = released.find(id);
      if (done != released.end()) {
        terminator->setMetadata(llvm::LLVMContext::MD_loop, done->second);
        continue;
      }
      bool outer = false;
      for (const llvm::MDOperand& operand : id->operands()) outer = outer || names(operand.get(), kOuter);
      if (!outer) continue;
      std::vector<llvm::Metadata*> kept{nullptr};
      for (unsigned i = 1; i < id->getNumOperands(); ++i) {
        llvm::Metadata* operand = id->getOperand(i).get();
        if (!names(operand, kOuter) && !names(operand, kDisable)) kept.push_back(operand);
      }
      llvm::MDNode* plain = llvm::MDNode::getDistinct(module.getContext(), kept);
      plain->replaceOperandWith(0, plain);
      released[id] = plain;
      terminator->setMetadata(llvm::LLVMContext::MD_loop, plain);
    }
  }
}

}  // namespace tritium::nvptx

// Queries the LLVM linked into tritium (statically; see src/target/nvptx/CMakeLists.txt).
#include "target/nvptx/llvm_info.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Triple.h>

namespace tritium::nvptx {

std::string llvm_version() { return LLVM_VERSION_STRING; }

bool nvptx_target_available() {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  std::string error;
  return llvm::TargetRegistry::lookupTarget(llvm::Triple("nvptx64-nvidia-cuda"), error) != nullptr;
}

}  // namespace tritium::nvptx

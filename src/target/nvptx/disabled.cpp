// The NVPTX layer of a build configured with TRITIUM_ENABLE_NVPTX=OFF (a build that needs no
// GPU code generator): the same entry points, each
// a clear error; everything up to the optimized tile IR and the interpreter still works.
#include <llvm/Config/llvm-config.h>

#include "support/diagnostics.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/llvm_info.h"

namespace tritium::nvptx {

namespace {

[[noreturn]] void unavailable(const ir::Function& function) {
  error_at(function.loc(), "tritium was built without the NVPTX backend (TRITIUM_ENABLE_NVPTX=OFF); "
                           "cannot compile '" + function.name() + "' for the GPU");
}

}  // namespace

CompiledPtx compile_to_ptx(const ir::Function& function, const TargetOptions&) { unavailable(function); }

std::string emit_llvm_ir(const ir::Function& function, const TargetOptions&, bool) { unavailable(function); }

std::string emit_gpu_ir(const ir::Function& function, const TargetOptions&) { unavailable(function); }

int ptx_version_for(const TargetOptions& options) { return options.sm >= 90 ? 80 : 70; }

std::string llvm_version() { return LLVM_VERSION_STRING; }

bool nvptx_target_available() { return false; }

}  // namespace tritium::nvptx

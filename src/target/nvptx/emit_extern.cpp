// ExternElementwise on the GPU: a call of NVIDIA's libdevice function for the element type
// (ir/extern_math.h names it); codegen.cpp links libdevice's bitcode into the module.
#include "ir/extern_math.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

Emitter::ElementFn Emitter::extern_fn(const ir::Op& op) {
  const std::string name = op.str_attr("symbol");
  const ir::ExternMath* fn = ir::find_extern_math(name);
  if (fn == nullptr) internal_error("nvptx", "unknown extern function '" + name + "'", op.loc());
  ir::ScalarKind kind = op.result()->type()->element()->scalar_kind();
  const char* symbol = ir::extern_math_symbol(*fn, kind);
  if (symbol == nullptr) {
    error_at(op.loc(), "libdevice has no " + name + " for " + ir::scalar_name(kind) + " (only " +
                           (fn->f64 ? "fp32 and fp64" : "fp32") + ")");
  }
  llvm::Type* type = scalar_type(kind);
  std::vector<llvm::Type*> params(op.operands().size(), type);
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(symbol, llvm::FunctionType::get(type, params, false));
  return [this, callee](const std::vector<llvm::Value*>& a) { return b_.CreateCall(callee, a); };
}

}  // namespace tritium::nvptx

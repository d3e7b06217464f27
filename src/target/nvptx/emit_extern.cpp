// ExternElementwise on the GPU: a call of NVIDIA's libdevice function for the element type
// (ir/extern_math.h names it; codegen.cpp links libdevice's bitcode into the module), or,
// for tl.inline_asm_elementwise {symbol = "inline_asm"}, the asm called on each element.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/Support/Error.h>

#include "ir/extern_math.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

namespace {

// The asm's results: one type, or a struct of all the outputs' types (each op takes its own).
std::vector<llvm::Type*> asm_result_types(const ir::Op& op, const std::function<llvm::Type*(ir::ScalarKind)>& type_of) {
  std::vector<llvm::Type*> types;
  std::string list = op.str_attr("result_types");
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    ir::ScalarKind kind;
    if (!ir::parse_scalar_name(name, &kind)) internal_error("nvptx", "inline asm result type '" + name + "'", op.loc());
    types.push_back(type_of(kind));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return types;
}

}  // namespace

Emitter::ElementFn Emitter::extern_fn(const ir::Op& op) {
  const std::string name = op.str_attr("symbol");
  if (name == "inline_asm") {
    auto type_of = [this](ir::ScalarKind k) { return scalar_type(k); };
    std::vector<llvm::Type*> results = asm_result_types(op, type_of);
    llvm::Type* returned = results.size() == 1 ? results[0] : llvm::StructType::get(context_, results);
    std::vector<llvm::Type*> params;
    // A pointer argument is the global address ("l": a 64-bit register).
    for (const ir::Value* operand : op.operands()) params.push_back(element_type(operand->type()));
    llvm::FunctionType* type = llvm::FunctionType::get(returned, params, false);
    std::string constraints = op.str_attr("constraints");
    if (llvm::Error invalid = llvm::InlineAsm::verify(type, constraints)) {
      llvm::consumeError(std::move(invalid));
      error_at(op.loc(), "the constraints '" + constraints + "' of tl.inline_asm_elementwise do not match its " +
                             std::to_string(results.size()) + " result(s) and " + std::to_string(params.size()) +
                             " argument(s)");
    }
    llvm::InlineAsm* code = llvm::InlineAsm::get(type, op.str_attr("asm"), constraints, op.int_attr("pure") == 0);
    const unsigned output = static_cast<unsigned>(op.int_attr("output"));
    if (results.size() == 1) return [this, code](const std::vector<llvm::Value*>& a) { return b_.CreateCall(code, a); };
    // Several outputs are one op each (lowering makes them one after another, and passes
    // neither move nor copy an asm with effects): the first output's op makes the call and
    // the others read its fields, so the asm runs once. Without the call at hand (in another
    // block, or the first output removed as unused) an output makes its own.
    std::string text = op.str_attr("asm") + '\0' + constraints + '\0' + op.str_attr("result_types");
    return [this, code, output, text](const std::vector<llvm::Value*>& a) {
      auto key = std::make_pair(text, a);
      llvm::Value* call = nullptr;
      if (output != 0) {
        auto it = asm_calls_.find(key);
        if (it != asm_calls_.end() && llvm::cast<llvm::Instruction>(it->second)->getParent() == b_.GetInsertBlock()) {
          call = it->second;
        }
      }
      if (call == nullptr) {
        call = b_.CreateCall(code, a);
        if (output == 0) asm_calls_[key] = call;
      }
      return b_.CreateExtractValue(call, {output});
    };
  }
  const ir::ExternMath* fn = ir::find_extern_math(name);
  if (fn == nullptr) internal_error("nvptx", "unknown extern function '" + name + "'", op.loc());
  // The overload of the operands' types (lowering chose it): its symbol and result type.
  std::vector<ir::ScalarKind> kinds;
  std::vector<llvm::Type*> params;
  for (const ir::Value* operand : op.operands()) {
    kinds.push_back(operand->type()->element()->scalar_kind());
    params.push_back(scalar_type(kinds.back()));
  }
  const ir::ExternOverload* overload = ir::extern_math_overload(*fn, kinds);
  if (overload == nullptr) internal_error("nvptx", "no libdevice overload of " + name + " for its operands", op.loc());
  const std::string& symbol = overload->symbol;
  // tl.sqrt_rn and tl.div_rn on fp32 are Triton's sqrt.rn.f32 and div.rn.f32, which keep
  // denormals (libdevice's own flush them under Triton's ftz setting, see codegen.cpp).
  if (symbol == "__nv_fsqrt_rn") {
    return [this](const std::vector<llvm::Value*>& a) { return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_sqrt_rn_f, {}, a); };
  }
  if (symbol == "__nv_fdiv_rn") {
    return [this](const std::vector<llvm::Value*>& a) { return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_div_rn_f, {}, a); };
  }
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(symbol, llvm::FunctionType::get(scalar_type(overload->result), params, false));
  return [this, callee](const std::vector<llvm::Value*>& a) { return b_.CreateCall(callee, a); };
}

llvm::Value* Emitter::libdevice_call(const char* symbol, llvm::Value* a) {
  llvm::FunctionCallee callee = module_.getOrInsertFunction(symbol, llvm::FunctionType::get(a->getType(), {a->getType()}, false));
  return b_.CreateCall(callee, {a});
}

}  // namespace tritium::nvptx

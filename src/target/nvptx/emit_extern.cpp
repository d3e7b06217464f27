// ExternElementwise on the GPU: a call of NVIDIA's libdevice function for the element type
// (ir/extern_math.h names it; codegen.cpp links libdevice's bitcode into the module), or,
// for tl.inline_asm_elementwise {symbol = "inline_asm"}, the asm called on each element, or
// with `pack` = P > 1 on P elements of a thread at a time (emit_packed_asm).
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
      return b_.CreateExtractValue(asm_call(text, code, a, output), {output});
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

// pack = P: each asm call takes P registers of the thread (consecutive elements in the flat
// layout when V, the thread's run, is a multiple of P: vector_widths asks for V >= P; a
// thread's last group is filled with zeros when its registers are not a multiple of P). As
// Triton lowers it: per operand and output, elements narrower than 32 bits go min(32 / bits,
// P) to a register (4 x i8, 2 x f16 as one b32), wider ones one per register; the asm's
// operands are every output's registers, then every argument's, in that order.
void Emitter::emit_packed_asm(const ir::Op& op) {
  const int pack = static_cast<int>(op.int_attr("pack"));
  const ir::Type* type = op.result()->type();
  const FragmentLayout* fragment = frags_.layout(op.result());
  std::vector<Regs> inputs;
  bool uniform = true;
  for (const ir::Value* v : op.operands()) {
    inputs.push_back(fragment ? fragment_operand(v, *fragment, op) : get(v));
    uniform = uniform && (inputs.back().uniform || !v->type()->is_block());
  }
  const int num_regs = fragment ? fragment->num_regs() : !type->is_block() || uniform ? 1 : layout_of(type).num_regs();
  // How many elements of `element` share one asm register, and that register's type.
  auto per_register = [&](llvm::Type* element) {
    const unsigned bits = element->isPointerTy() ? 64 : element->getPrimitiveSizeInBits();
    return bits < 32 ? std::min(static_cast<int>(32 / bits), pack) : 1;
  };
  auto register_type = [&](llvm::Type* element) -> llvm::Type* {
    const int per = per_register(element);
    return per == 1 ? element : b_.getIntNTy(static_cast<unsigned>(per * element->getPrimitiveSizeInBits()));
  };
  std::vector<llvm::Type*> outputs = asm_result_types(op, [this](ir::ScalarKind k) { return scalar_type(k); });
  std::vector<llvm::Type*> returned, params;
  std::vector<int> first_return;  // each output's first register among the results
  for (llvm::Type* t : outputs) {
    first_return.push_back(static_cast<int>(returned.size()));
    for (int i = 0; i < pack / per_register(t); ++i) returned.push_back(register_type(t));
  }
  std::vector<llvm::Type*> arg_elements;
  for (const ir::Value* operand : op.operands()) {
    arg_elements.push_back(element_type(operand->type()));
    for (int i = 0; i < pack / per_register(arg_elements.back()); ++i) params.push_back(register_type(arg_elements.back()));
  }
  llvm::Type* result = returned.size() == 1 ? returned[0] : llvm::StructType::get(context_, returned);
  llvm::FunctionType* fn_type = llvm::FunctionType::get(result, params, false);
  const std::string constraints = op.str_attr("constraints");
  if (llvm::Error invalid = llvm::InlineAsm::verify(fn_type, constraints)) {
    llvm::consumeError(std::move(invalid));
    error_at(op.loc(), "the constraints '" + constraints + "' of tl.inline_asm_elementwise do not match its " +
                           std::to_string(returned.size()) + " result register(s) and " + std::to_string(params.size()) +
                           " argument register(s) (pack=" + std::to_string(pack) +
                           ": elements narrower than 32 bits share a register, up to pack of them)");
  }
  llvm::InlineAsm* code = llvm::InlineAsm::get(fn_type, op.str_attr("asm"), constraints, op.int_attr("pure") == 0);
  const unsigned output = static_cast<unsigned>(op.int_attr("output"));
  const std::string key_text = op.str_attr("asm") + '\0' + constraints + '\0' + op.str_attr("result_types");
  llvm::Type* out_element = outputs[output];
  const int out_per = per_register(out_element);
  Regs out;
  for (int g = 0; g < num_regs; g += pack) {
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      llvm::Type* element = arg_elements[i];
      const int per = per_register(element);
      for (int k = 0; k < pack; k += per) {
        auto element_at = [&](int j) {
          return g + j < num_regs ? inputs[i].at(g + j) : llvm::Constant::getNullValue(element);
        };
        if (per == 1) {
          args.push_back(element_at(k));
          continue;
        }
        llvm::Value* vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, static_cast<unsigned>(per)));
        for (int j = 0; j < per; ++j) vec = b_.CreateInsertElement(vec, element_at(k + j), static_cast<uint64_t>(j));
        args.push_back(b_.CreateBitCast(vec, register_type(element)));
      }
    }
    // Several outputs are one op each: the first output's op makes the call, the others read
    // its results (as extern_fn does for pack = 1).
    llvm::Value* call = asm_call(key_text, code, args, output);
    for (int k = 0; k < pack; k += out_per) {
      const int index = first_return[output] + k / out_per;
      llvm::Value* reg = returned.size() == 1 ? call : b_.CreateExtractValue(call, {static_cast<unsigned>(index)});
      if (out_per == 1) {
        if (g + k < num_regs) out.values.push_back(reg);
        continue;
      }
      llvm::Value* vec = b_.CreateBitCast(reg, llvm::FixedVectorType::get(out_element, static_cast<unsigned>(out_per)));
      for (int j = 0; j < out_per; ++j) {
        if (g + k + j < num_regs) out.values.push_back(b_.CreateExtractElement(vec, static_cast<uint64_t>(j)));
      }
    }
  }
  if (fragment != nullptr) return set_fragment(op.result(), std::move(out));
  out.uniform = fragment == nullptr && uniform && type->is_block();  // as map_elements: once for uniform inputs
  set(op.result(), std::move(out));
}

llvm::Value* Emitter::asm_call(const std::string& key_text, llvm::InlineAsm* code, const std::vector<llvm::Value*>& args,
                               int output) {
  // Output 0's op makes the call; a later output's op in the same block reads that call.
  auto key = std::make_pair(key_text, args);
  if (output != 0) {
    auto it = asm_calls_.find(key);
    if (it != asm_calls_.end() && llvm::cast<llvm::Instruction>(it->second)->getParent() == b_.GetInsertBlock()) {
      return it->second;
    }
  }
  llvm::Value* call = b_.CreateCall(code, args);
  if (output == 0) asm_calls_[key] = call;
  return call;
}

llvm::Value* Emitter::libdevice_call(const char* symbol, llvm::Value* a) {
  llvm::FunctionCallee callee = module_.getOrInsertFunction(symbol, llvm::FunctionType::get(a->getType(), {a->getType()}, false));
  return b_.CreateCall(callee, {a});
}

}  // namespace tritium::nvptx

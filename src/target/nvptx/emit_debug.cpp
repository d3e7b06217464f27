// device_print, device_assert and debug_barrier on the GPU. Printing goes through the
// driver's vprintf (format string, pointer to a local buffer of the arguments, each at its
// natural alignment); a failed assert prints the kernel's file:line and traps.
#include <cmath>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

namespace {

// The printf conversion of one element and the argument vprintf reads for it: floats as
// double, integers narrower than 32 bits widened, pointers as 64-bit addresses.
struct PrintArg {
  std::string format;
  llvm::Value* value;
};

}  // namespace

std::vector<llvm::Value*> Emitter::program_ids() {
  static const llvm::Intrinsic::ID kCtaid[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                               llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                               llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  std::vector<llvm::Value*> ids;
  for (auto id : kCtaid) ids.push_back(b_.CreateIntrinsic(id, llvm::ArrayRef<llvm::Value*>()));
  return ids;
}

void Emitter::call_vprintf(const std::string& format, const std::vector<llvm::Value*>& args) {
  llvm::Type* ptr = llvm::PointerType::get(context_, 0);
  llvm::FunctionCallee vprintf =
      module_.getOrInsertFunction("vprintf", llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr}, false));
  llvm::Value* text = b_.CreateGlobalString(format, "printf_format", 0, &module_);
  llvm::Value* buffer = llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0));
  if (!args.empty()) {
    std::vector<llvm::Type*> fields;
    for (llvm::Value* arg : args) fields.push_back(arg->getType());
    llvm::StructType* type = llvm::StructType::get(context_, fields);
    // In the entry block, so a print inside a loop reuses one buffer.
    llvm::IRBuilder<> entry(&kernel_->getEntryBlock(), kernel_->getEntryBlock().begin());
    llvm::Value* alloca = entry.CreateAlloca(type, nullptr, "printf_args");
    for (size_t i = 0; i < args.size(); ++i)
      b_.CreateStore(args[i], b_.CreateStructGEP(type, alloca, static_cast<unsigned>(i)));
    buffer = alloca;
    if (buffer->getType() != ptr) buffer = b_.CreateAddrSpaceCast(buffer, ptr);
  }
  b_.CreateCall(vprintf, {text, buffer});
}

// Triton's conversions (PrintOpToLLVM): %f, %i/%lli for signed, %u/%llu otherwise, %p,
// and 0x%0Nx (N hex digits of the type's width) with hex.
static PrintArg print_arg(llvm::IRBuilder<>& b, const ir::Type* type, llvm::Value* v, bool hex) {
  const ir::Type* e = type->element();
  if (e->is_pointer()) return {"%p", b.CreatePtrToInt(v, b.getInt64Ty())};
  ScalarKind kind = e->scalar_kind();
  int bits = ir::bit_width(kind);
  if (hex) {
    if (ir::is_float(kind)) v = b.CreateBitCast(v, b.getIntNTy(bits));
    v = bits > 32 ? v : b.CreateZExt(v, b.getInt32Ty());
    return {"0x%0" + std::to_string(std::max(bits / 4, 1)) + (bits > 32 ? "llx" : "x"), v};
  }
  if (ir::is_float(kind)) return {"%f", b.CreateFPExt(v, b.getDoubleTy())};
  bool is_signed = ir::is_signed(kind);
  if (bits < 32) v = is_signed ? b.CreateSExt(v, b.getInt32Ty()) : b.CreateZExt(v, b.getInt32Ty());
  if (bits > 32) return {is_signed ? "%lli" : "%llu", v};
  return {is_signed ? "%i" : "%u", v};
}

void Emitter::emit_print(const ir::Op& op) {
  bool hex = op.int_attr("hex") != 0;
  llvm::Value* prefix = b_.CreateGlobalString(op.str_attr("prefix"), "printf_prefix", 0, &module_);
  std::vector<llvm::Value*> pid = program_ids();
  llvm::Value* thread0 = b_.CreateICmpEQ(thread_id(), b_.getInt32(0));
  if (op.num_operands() == 0) {
    guarded(thread0, [&]() -> llvm::Value* {
      call_vprintf("pid (%u, %u, %u)%s\n", {pid[0], pid[1], pid[2], prefix});
      return nullptr;
    });
    return;
  }
  for (int n = 0; n < op.num_operands(); ++n) {
    const ir::Type* type = op.operand(n)->type();
    std::string operand = op.num_operands() > 1 ? "(operand " + std::to_string(n) + ") " : "";
    if (!type->is_block()) {
      // Every thread holds a scalar: the first one prints it.
      llvm::Value* v = get(op.operand(n)).at(0);
      guarded(thread0, [&]() -> llvm::Value* {
        PrintArg arg = print_arg(b_, type, v, hex);
        call_vprintf("pid (%u, %u, %u) idx ()%s" + operand + arg.format + "\n",
                     {pid[0], pid[1], pid[2], prefix, arg.value});
        return nullptr;
      });
      continue;
    }
    Regs regs = materialize(get(op.operand(n)), type);
    Layout layout = layout_of(type);
    const auto& shape = type->shape();
    std::string index_format = "idx (";
    for (size_t d = 0; d < shape.size(); ++d) {
      int width = static_cast<int>(std::ceil(std::log10(static_cast<double>(shape[d]))));
      index_format += (d ? ", %" : "%") + std::to_string(width) + "i";
    }
    index_format += ")";
    for (int r = 0; r < layout.num_regs(); ++r) {
      guarded(owns(layout, r), [&]() -> llvm::Value* {
        // The element's row-major index, one field per dimension.
        llvm::Value* flat = element_index(layout, r);
        std::vector<llvm::Value*> fields(shape.size());
        for (size_t d = shape.size(); d-- > 0;) {
          llvm::Value* dim = b_.getInt32(static_cast<uint32_t>(shape[d]));
          fields[d] = b_.CreateURem(flat, dim);
          flat = b_.CreateUDiv(flat, dim);
        }
        PrintArg arg = print_arg(b_, type, regs.at(r), hex);
        std::vector<llvm::Value*> args = {pid[0], pid[1], pid[2]};
        args.insert(args.end(), fields.begin(), fields.end());
        args.push_back(prefix);
        args.push_back(arg.value);
        call_vprintf("pid (%u, %u, %u) " + index_format + "%s" + operand + arg.format + "\n", args);
        return nullptr;
      });
    }
  }
}

void Emitter::emit_assert(const ir::Op& op) {
  const ir::Type* type = op.operand(0)->type();
  std::string file = op.loc().known() ? op.loc().file->path() : "<unknown>";
  int line = op.loc().known() ? op.loc().line : 0;
  llvm::Value* file_text = b_.CreateGlobalString(file, "assert_file", 0, &module_);
  llvm::Value* msg = b_.CreateGlobalString(op.str_attr("msg"), "assert_msg", 0, &module_);
  llvm::Value* function = b_.CreateGlobalString(function_.name(), "assert_function", 0, &module_);
  auto fail = [&]() -> llvm::Value* {
    std::vector<llvm::Value*> pid = program_ids();
    call_vprintf(
        "%s:%u: %s: block: [%u, %u, %u], thread: [%u, 0, 0] Assertion `%s` failed.\n",
        {file_text, b_.getInt32(static_cast<uint32_t>(line)), function, pid[0], pid[1], pid[2], thread_id(), msg});
    b_.CreateIntrinsic(llvm::Intrinsic::trap, llvm::ArrayRef<llvm::Value*>());
    return nullptr;
  };
  if (!type->is_block()) {
    guarded(b_.CreateNot(get(op.operand(0)).at(0)), fail);
    return;
  }
  Regs regs = materialize(get(op.operand(0)), type);
  Layout layout = layout_of(type);
  for (int r = 0; r < layout.num_regs(); ++r) {
    guarded(and_pred(owns(layout, r), b_.CreateNot(regs.at(r))), fail);
  }
}

}  // namespace tritium::nvptx

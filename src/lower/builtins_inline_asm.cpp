// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack): the
// arguments are broadcast to one shape (keeping their dtypes, as Triton's checking without
// arithmetic promotion does) and each output is one ExternElementwise {symbol =
// "inline_asm"} op that the GPU emits as an LLVM inline-asm call per element (a tuple of
// dtypes: one op per output, each taking its field of the asm's results, which the GPU
// computes once per element). Pointer arguments
// pass each element's address. is_pure=False is the op's attribute pure = 0: passes keep,
// never merge and never copy such an op (ir::is_pure). pack > 1 (the op's `pack`
// attribute): one asm call takes `pack` elements of a thread, elements narrower than 32 bits
// packed into 32-bit registers as Triton does (nvptx/emit_extern.cpp). The interpreter
// cannot run PTX and says so at the call.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

std::vector<ScalarKind> result_kinds(const BuiltinArgs& a) {
  const LValue& dtype = a.get("dtype");
  std::vector<ScalarKind> kinds;
  auto take = [&](const LValue& v) {
    if (!v.is_const() || v.c.kind != ConstValue::Kind::DType || v.c.pointer) {
      error_at(a.loc(), "dtype of tl.inline_asm_elementwise must be a scalar dtype or a tuple of them, got " + v.describe());
    }
    kinds.push_back(v.c.dtype);
  };
  if (dtype.kind == LValue::Kind::Tuple) {
    for (const LValue& item : dtype.items) take(item);
    if (kinds.empty()) error_at(a.loc(), "dtype of tl.inline_asm_elementwise is an empty tuple");
  } else {
    take(dtype);
  }
  return kinds;
}

LValue inline_asm(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  std::string asm_text = a.const_str("asm", "");
  std::string constraints = a.const_str("constraints", "");
  const __int128 pack = a.const_int("pack");
  if (pack < 1 || pack > 16 || (pack & (pack - 1)) != 0) {
    error_at(loc, "pack of tl.inline_asm_elementwise must be a power of two from 1 to 16, got " + int128_to_string(pack));
  }
  bool pure = a.const_bool("is_pure", true);
  const LValue& given = a.get("args");
  std::vector<LValue> items = given.kind == LValue::Kind::Tuple ? given.items : std::vector<LValue>{given};
  if (items.empty() || items.size() > 3) {
    error_at(loc, "tl.inline_asm_elementwise in tritium takes 1 to 3 arguments, got " + std::to_string(items.size()));
  }
  std::vector<Value*> args;
  for (const LValue& item : items) {
    args.push_back(L.to_tensor(item, loc));  // pointers too: the asm gets their addresses
  }
  // One shape for all, each keeping its dtype.
  Value* shape_of = args[0];
  for (Value* v : args) shape_of = L.broadcast(v, shape_of, loc).second;
  for (Value*& v : args) v = L.broadcast_to(v, shape_of->type()->shape(), loc);
  std::vector<ScalarKind> kinds = result_kinds(a);
  std::string result_types;  // every output's type: the asm returns them together
  for (ScalarKind k : kinds) result_types += (result_types.empty() ? "" : ",") + std::string(ir::scalar_name(k));
  std::vector<LValue> outputs;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const Type* type = shape_of->type()->with_element(Type::scalar(kinds[i]));
    ir::Op* op = L.builder().create(ir::OpKind::ExternElementwise, {type}, args, loc);
    op->set_attr("symbol", std::string("inline_asm"));
    op->set_attr("asm", asm_text);
    op->set_attr("constraints", constraints);
    op->set_attr("result_types", result_types);
    op->set_attr("output", static_cast<int64_t>(i));
    op->set_attr("pure", static_cast<int64_t>(pure ? 1 : 0));
    if (pack > 1) op->set_attr("pack", static_cast<int64_t>(pack));
    outputs.push_back(LValue::tensor(op->result()));
  }
  if (a.get("dtype").kind != LValue::Kind::Tuple) return outputs[0];
  return LValue::tuple(outputs);
}

}  // namespace

void register_inline_asm_builtins(BuiltinTable& t) {
  t.add("inline_asm_elementwise", {"asm", "constraints", "args", "dtype", "is_pure", "pack"}, false, inline_asm);
}

}  // namespace tritium::lower

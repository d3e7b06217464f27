// Atomic builtins: tl.atomic_{add,max,min,and,or,xor,xchg} and tl.atomic_cas, with Triton's
// element-type rules, memory semantics and scopes. Each returns the old values.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

LValue atomic(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const std::string& fn = a.fn();
  std::string kind = fn.substr(7);
  bool cas = kind == "cas";
  Value* ptr = L.to_tensor(a.get("pointer"), loc);
  if (!ptr->type()->is_ptr()) error_at(loc, "tl." + fn + " needs a pointer or a block of pointers, got " + ptr->type()->str());
  const Type* pointee = ptr->type()->element()->pointee();
  ScalarKind k = pointee->scalar_kind();
  std::string sem = a.const_str("sem", "acq_rel");
  if (sem != "acquire" && sem != "release" && sem != "acq_rel" && sem != "relaxed") error_at(loc, "unknown memory semantic '" + sem + "'");
  std::string scope = a.const_str("scope", "gpu");
  if (scope != "gpu" && scope != "cta" && scope != "sys") error_at(loc, "unknown memory scope '" + scope + "'");
  if (k == ScalarKind::I1 || k == ScalarKind::I8 || k == ScalarKind::U8 || k == ScalarKind::I16 ||
      k == ScalarKind::U16 || k == ScalarKind::BF16) {
    error_at(loc, "tl." + fn + " does not support " + std::string(ir::scalar_name(k)) + " elements");
  }
  if (k == ScalarKind::F16 && kind != "add" && kind != "xchg" && kind != "cas") error_at(loc, "tl." + fn + " does not support fp16 elements");
  if ((kind == "and" || kind == "or" || kind == "xor") && ir::is_float(k)) {
    error_at(loc, "tl." + fn + " needs integer elements, got " + std::string(ir::scalar_name(k)));
  }
  auto operand = [&](const std::string& n) {
    const LValue& v = a.get(n);
    Value* x = v.is_const() ? L.constant(k, v.c, loc) : L.cast(L.to_tensor(v, loc), pointee, loc);
    if (!ptr->type()->is_block() && x->type()->is_block()) error_at(loc, "the value of an atomic on a scalar pointer cannot be a block");
    return L.broadcast_to(x, ptr->type()->shape(), loc);
  };
  std::vector<Value*> operands = {ptr};
  if (cas) {
    operands.push_back(operand("cmp"));
    operands.push_back(operand("val"));
  } else {
    operands.push_back(operand("val"));
    if (a.has("mask")) {
      Value* mask = L.to_tensor(a.get("mask"), loc);
      if (!mask->type()->is_bool()) error_at(loc, "the mask of tl." + fn + " must be boolean (int1), got " + mask->type()->str());
      if (!ptr->type()->is_block() && mask->type()->is_block()) error_at(loc, "the mask cannot be a block when the pointer is a scalar");
      operands.push_back(L.broadcast_to(mask, ptr->type()->shape(), loc));
    }
  }
  ir::Op* op = L.builder().create(cas ? ir::OpKind::AtomicCAS : ir::OpKind::AtomicRMW, {ptr->type()->with_element(pointee)},
                                  operands, loc);
  if (!cas) op->set_attr("kind", kind);
  op->set_attr("sem", sem);
  op->set_attr("scope", scope);
  return LValue::tensor(op->result());
}

}  // namespace

void register_atomic_builtins(BuiltinTable& t) {
  for (const char* name : {"atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg"}) {
    t.add(name, {"pointer", "val", "mask=", "sem=", "scope="}, false, atomic);
  }
  t.add("atomic_cas", {"pointer", "cmp", "val", "sem=", "scope="}, false, atomic);
}

}  // namespace tritium::lower

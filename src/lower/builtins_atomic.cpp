// Atomic builtins: tl.atomic_{add,max,min,and,or,xor,xchg} and tl.atomic_cas, with Triton's
// element-type rules, memory semantics and scopes. Each returns the old values. The newer
// tl.atomic_load / tl.atomic_store are lowered onto them: an `or` with 0 through the
// pointer viewed as integers, and an exchange whose old values are dropped.
#include <optional>

#include "ir/attrs.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// tl.atomic_<kind> and tl.atomic_cas; `store_exchange`: tl.atomic_store's exchange, which
// also takes fp16 (the IR's atomic_ir_admits), unlike tl.atomic_xchg.
LValue atomic_op(Lowerer& L, const BuiltinArgs& a, const Loc& loc, bool store_exchange) {
  const std::string& fn = a.fn();
  bool cas = fn == "atomic_cas";
  // tl.atomic_<kind>: the registry names only rows of atomics.def.
  ir::AtomicKind kind = cas || store_exchange ? ir::AtomicKind::Xchg : *ir::parse_enum<ir::AtomicKind>(fn.substr(7));
  Value* ptr = L.to_tensor(a.get("pointer"), loc);
  if (!ptr->type()->is_ptr()) error_at(loc, "tl." + fn + " needs a pointer or a block of pointers, got " + ptr->type()->str());
  const Type* pointee = ptr->type()->element()->pointee();
  ScalarKind k = pointee->scalar_kind();
  std::string sem_text = a.const_str("sem", "acq_rel");
  std::optional<ir::MemSem> sem = ir::parse_enum<ir::MemSem>(sem_text);
  if (!sem) error_at(loc, "unknown memory semantic '" + sem_text + "'");
  std::string scope_text = a.const_str("scope", "gpu");
  std::optional<ir::MemScope> scope = ir::parse_enum<ir::MemScope>(scope_text);
  if (!scope) error_at(loc, "unknown memory scope '" + scope_text + "'");
  // atomic_cas takes any element of 16, 32 or 64 bits (Triton 3.6: int16 too, compared as
  // bits by cas.b16); the others refuse 16-bit integers and anything narrower.
  if (cas && ir::bit_width(k) < 16) {
    error_at(loc, "tl.atomic_cas only supports elements with width {16, 32, 64}, got " + dtype_text(pointee));
  }
  if (!cas && (k == ScalarKind::I1 || k == ScalarKind::I8 || k == ScalarKind::U8 || k == ScalarKind::I16 ||
               k == ScalarKind::U16)) {
    error_at(loc, "tl." + fn + " does not support " + std::string(ir::scalar_name(k)) + " elements");
  }
  // The kind's rule (atomics.def); atomic_cas compares bits, of any float. 16-bit floats on
  // pointers: add only, as Triton 3.6 allows ("atomic_xchg does not support fp16"); max and
  // min of them are the tensor descriptors' (lower/block_ptr.cpp, create_atomic_rmw), the
  // exchange tl.atomic_store's.
  if (!cas && !store_exchange && (k == ScalarKind::F16 || k == ScalarKind::BF16) && !ir::atomic_admits(kind, k)) {
    error_at(loc, "tl." + fn + " does not support " + std::string(ir::scalar_name(k)) + " elements");
  }
  if (!cas && ir::is_float(k) && ir::atomic_rule(kind) == ir::AtomicRule::Int) {
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
  if (!cas) ir::set_enum_attr(*op, kind);
  ir::set_enum_attr(*op, *sem);
  ir::set_enum_attr(*op, *scope);
  return LValue::tensor(op->result());
}

LValue atomic(Lowerer& L, const BuiltinArgs& a, const Loc& loc) { return atomic_op(L, a, loc, false); }

}  // namespace

Value* create_atomic_rmw(Lowerer& L, ir::AtomicKind kind, Value* ptr, Value* value, Value* mask, ir::MemSem sem,
                         ir::MemScope scope, const Loc& loc) {
  ir::Op* op = L.builder().create(ir::OpKind::AtomicRMW, {value->type()}, {ptr, value, mask}, loc);
  ir::set_enum_attr(*op, kind);
  ir::set_enum_attr(*op, sem);
  ir::set_enum_attr(*op, scope);
  return op->result();
}

namespace {

// A load orders with 'acquire' or 'relaxed', a store with 'release' or 'relaxed'.
std::string atomic_sem(const BuiltinArgs& a, const std::string& ordered) {
  std::string sem = a.const_str("sem", ordered);
  if (sem != ordered && sem != "relaxed") {
    error_at(a.loc(), "tl." + a.fn() + " takes sem='" + ordered + "' or 'relaxed', got '" + sem + "'");
  }
  return sem;
}

const Type* atomic_pointer(Lowerer& L, const BuiltinArgs& a, Value** ptr, const Loc& loc) {
  *ptr = L.to_tensor(a.get("pointer"), loc);
  if (!(*ptr)->type()->is_ptr()) error_at(loc, "tl." + a.fn() + " needs a pointer or a block of pointers, got " + (*ptr)->type()->str());
  return (*ptr)->type()->element()->pointee();
}

// atomic_load: an atomic `or` with 0 on the bits (floats through the pointer viewed as
// same-width integers), which reads the value with the ordering asked for and writes it
// back unchanged; masked-off elements are `other`.
LValue atomic_load(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* ptr = nullptr;
  const Type* pointee = atomic_pointer(L, a, &ptr, loc);
  ScalarKind k = pointee->scalar_kind();
  int bits = ir::bit_width(k);
  if (bits != 32 && bits != 64) {
    error_at(loc, "tl.atomic_load supports 32- and 64-bit elements in tritium, got " + pointee->str());
  }
  std::string sem = atomic_sem(a, "acquire");
  const Type* bits_type = Type::scalar(bits == 32 ? ScalarKind::I32 : ScalarKind::I64);
  Value* int_ptr = L.cast(ptr, Type::pointer(bits_type), loc, /*bitcast=*/true);
  std::vector<std::pair<std::string, LValue>> kwargs = {{"sem", LValue::constant(ConstValue::string(sem))}};
  if (a.has("scope")) kwargs.push_back({"scope", a.get("scope")});
  if (a.has("mask")) kwargs.push_back({"mask", a.get("mask")});
  LValue old = L.call_builtin(LValue::builtin("tl.atomic_or"),
                              {LValue::tensor(int_ptr), LValue::constant(ConstValue::integer(0))}, kwargs, loc);
  Value* value = L.cast(old.value, pointee, loc, /*bitcast=*/true);
  if (!a.has("mask") || !a.has("other")) return LValue::tensor(value);
  const LValue& other = a.get("other");
  Value* fill = other.is_const() ? L.constant(k, other.c, loc) : L.cast(L.to_tensor(other, loc), pointee, loc);
  return LValue::tensor(L.where(a.get("mask"), LValue::tensor(value), LValue::tensor(fill), loc));
}

// atomic_store: an exchange with release (or relaxed) ordering whose old values are dropped.
// A program is one thread in Triton's model, so a release orders all of its earlier writes:
// a CTA barrier first, as the exchange is done by the threads owning the elements only.
LValue atomic_store(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  Value* ptr = nullptr;
  const Type* pointee = atomic_pointer(L, a, &ptr, loc);
  ScalarKind k = pointee->scalar_kind();
  if (ir::bit_width(k) < 16 || k == ScalarKind::BF16 || k == ScalarKind::I16 || k == ScalarKind::U16) {
    error_at(loc, "tl.atomic_store supports fp16 and 32- and 64-bit elements in tritium, got " + pointee->str());
  }
  std::string sem = atomic_sem(a, "release");
  std::vector<std::pair<std::string, LValue>> kwargs = {{"sem", LValue::constant(ConstValue::string(sem))}};
  if (a.has("scope")) kwargs.push_back({"scope", a.get("scope")});
  if (a.has("mask")) kwargs.push_back({"mask", a.get("mask")});
  if (sem == "release") L.call_builtin(LValue::builtin("tl.debug_barrier"), {}, {}, loc);
  BuiltinArgs exchange(a.fn(), {LValue::tensor(ptr), a.get("value")}, std::move(kwargs),
                       {"pointer", "val", "mask=", "sem=", "scope="}, loc);
  atomic_op(L, exchange, loc, /*store_exchange=*/true);
  return LValue::constant(ConstValue::none());
}

}  // namespace

void register_atomic_builtins(BuiltinTable& t) {
  t.add("atomic_load", {"pointer", "mask=", "other=", "sem=", "scope="}, false, atomic_load);
  t.add("atomic_store", {"pointer", "value", "mask=", "sem=", "scope="}, false, atomic_store);
  // tl.atomic_add ... tl.atomic_xchg: one per row of atomics.def.
  for (size_t i = 0; i < ir::enum_count<ir::AtomicKind>(); ++i) {
    std::string name = std::string("atomic_") + ir::enum_text(static_cast<ir::AtomicKind>(i));
    t.add_table_row(name, {"pointer", "val", "mask=", "sem=", "scope="}, true, atomic);  // also ptrs.atomic_add(...)
  }
  t.add("atomic_cas", {"pointer", "cmp", "val", "sem=", "scope="}, true, atomic);
}

}  // namespace tritium::lower

// Memory builtins: tl.load and tl.store on pointers and blocks of pointers (bools live in
// memory as bytes), with masks, `other`, cache modifiers and eviction policies.
#include <optional>

#include "ir/attrs.h"
#include "lower/block_ptr.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// The cache_modifier and eviction_policy hints of a load or store ("" = none), checked.
struct CacheHints {
  std::optional<ir::CacheModifier> cache;
  std::optional<ir::EvictionPolicy> eviction;

  CacheHints(const BuiltinArgs& a, bool load, const Loc& loc) {
    std::string c = a.const_str("cache_modifier", "");
    if (!c.empty()) {
      cache = ir::parse_enum<ir::CacheModifier>(c);
      if (!cache || (load ? !ir::is_load_cache(*cache) : !ir::is_store_cache(*cache))) {
        error_at(loc, "unknown cache modifier '" + c + "'");
      }
    }
    std::string e = a.const_str("eviction_policy", "");
    if (!e.empty()) {
      eviction = ir::parse_enum<ir::EvictionPolicy>(e);
      if (!eviction) error_at(loc, "unknown eviction policy '" + e + "'");
    }
  }

  void set_on(ir::Op* op) const {
    if (cache) ir::set_enum_attr(*op, *cache);
    if (eviction) ir::set_enum_attr(*op, *eviction);
  }
};

// The pointer operand; a pointer to i1 becomes a pointer to i8 (memory holds bools as bytes).
Value* memory_pointer(Lowerer& L, const BuiltinArgs& a, const Loc& loc, bool* is_bool = nullptr) {
  Value* ptr = L.to_tensor(a.get("pointer"), loc);
  if (!ptr->type()->is_ptr()) error_at(loc, "tl." + a.fn() + " needs a pointer or a block of pointers, got " + ptr->type()->str());
  bool bools = ptr->type()->element()->pointee()->scalar_kind() == ScalarKind::I1;
  if (bools) ptr = L.cast(ptr, Type::pointer(Type::scalar(ScalarKind::I8)), loc);
  if (is_bool) *is_bool = bools;
  return ptr;
}

Value* memory_mask(Lowerer& L, const BuiltinArgs& a, Value* ptr, const Loc& loc) {
  Value* mask = L.to_tensor(a.get("mask"), loc);
  if (!mask->type()->is_bool()) error_at(loc, "the mask of tl." + a.fn() + " must be boolean (int1), got " + mask->type()->str());
  if (!ptr->type()->is_block() && mask->type()->is_block()) error_at(loc, "the mask cannot be a block when the pointer is a scalar");
  return L.broadcast_to(mask, ptr->type()->shape(), loc);
}

LValue load(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  if (LValue out; lower_block_ptr_access(L, a, true, loc, &out)) return out;
  bool is_bool = false;
  Value* ptr = memory_pointer(L, a, loc, &is_bool);
  CacheHints hints(a, /*load=*/true, loc);
  if (a.has("other") && !a.has("mask")) error_at(loc, "`other` cannot be given to tl.load without `mask`");
  const Type* pointee = ptr->type()->element()->pointee();
  std::vector<Value*> operands = {ptr};
  if (a.has("mask")) {
    operands.push_back(memory_mask(L, a, ptr, loc));
    if (a.has("other")) {
      const LValue& o = a.get("other");
      Value* other = o.is_const() ? L.constant(pointee->scalar_kind(), o.c, loc) : L.cast(L.to_tensor(o, loc), pointee, loc);
      if (!ptr->type()->is_block() && other->type()->is_block()) error_at(loc, "`other` cannot be a block when the pointer is a scalar");
      operands.push_back(L.broadcast_to(other, ptr->type()->shape(), loc));
    }
  }
  ir::Op* op = L.builder().create(ir::OpKind::Load, {ptr->type()->with_element(pointee)}, operands, loc);
  hints.set_on(op);
  if (a.const_bool("volatile", false)) op->set_attr("volatile", int64_t{1});
  Value* result = op->result();
  if (is_bool) result = L.cast(result, ScalarKind::I1, loc);
  return LValue::tensor(result);
}

LValue store(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  if (LValue out; lower_block_ptr_access(L, a, false, loc, &out)) return out;
  Value* ptr = memory_pointer(L, a, loc);
  if (L.is_const_pointer(ptr)) error_at(loc, "Cannot store to a constant pointer (a tl.const parameter's data)");
  CacheHints hints(a, /*load=*/false, loc);
  const Type* pointee = ptr->type()->element()->pointee();
  const LValue& v = a.get("value");
  Value* value = v.is_const() ? L.constant(pointee->scalar_kind(), v.c, loc) : L.to_tensor(v, loc);
  if (!ptr->type()->is_block() && value->type()->is_block()) error_at(loc, "the value stored through a scalar pointer cannot be a block");
  value = L.broadcast_to(L.cast(value, pointee, loc), ptr->type()->shape(), loc);
  std::vector<Value*> operands = {ptr, value};
  if (a.has("mask")) operands.push_back(memory_mask(L, a, ptr, loc));
  ir::Op* op = L.builder().create(ir::OpKind::Store, {}, operands, loc);
  hints.set_on(op);
  return LValue::constant(ConstValue::none());
}

}  // namespace

void register_memory_builtins(BuiltinTable& t) {
  t.add("load", {"pointer", "mask=", "other=", "boundary_check=", "padding_option=", "cache_modifier=",
                 "eviction_policy=", "volatile="}, false, load);
  // Also a method of pointer blocks (`ptrs.store(value, mask=...)`), as Triton's.
  t.add("store", {"pointer", "value", "mask=", "boundary_check=", "cache_modifier=", "eviction_policy="}, true, store);
}

}  // namespace tritium::lower

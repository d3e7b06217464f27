// The libdevice family: every function of triton.language.extra.libdevice (and the
// triton.language.math names beyond the core ones) as one ExternElementwise op each
// (ir/extern_math.h has the table), plus tl.erf, tl.div_rn, tl.sqrt_rn, tl.fdiv, tl.umulhi,
// tl.clamp and tl.assume. Arguments are matched against the function's overloads as
// Triton's extern_elementwise does (exactly, else after promotion): Triton's error names the
// accepted types otherwise.
#include "ir/extern_math.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

LValue extern_math_call(Lowerer& L, const std::string& name, const std::vector<LValue>& args, const Loc& loc) {
  const ir::ExternMath* fn = ir::find_extern_math(name);
  if (fn == nullptr) error_at(loc, "libdevice has no function '" + name + "' that tritium knows");
  if (static_cast<int>(args.size()) != fn->arity) {
    error_at(loc, name + "() takes " + std::to_string(fn->arity) + " argument" + (fn->arity == 1 ? "" : "s") +
                      ", got " + std::to_string(args.size()));
  }
  // Triton's extern_elementwise: arguments whose types are one overload's exactly are only
  // broadcast to one shape; otherwise they are promoted to one type as an arithmetic op's
  // would be, and that must then be an overload.
  std::vector<Value*> values;
  auto kinds_of = [&values] {
    std::vector<ScalarKind> kinds;
    for (Value* v : values) {
      const Type* e = v->type()->element();
      kinds.push_back(e->is_scalar() ? e->scalar_kind() : ScalarKind::I1);
      if (e->is_pointer()) return std::vector<ScalarKind>{};
    }
    return kinds;
  };
  for (const LValue& arg : args) values.push_back(L.to_tensor(arg, loc));
  const ir::ExternOverload* overload = ir::extern_math_overload(*fn, kinds_of());
  if (overload != nullptr) {
    for (size_t i = 1; i < values.size(); ++i) values[0] = L.broadcast(values[0], values[i], loc).first;
    for (Value*& v : values) v = L.broadcast_to(v, values[0]->type()->shape(), loc);
  } else if (args.size() > 1) {
    values.clear();
    LValue acc = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      auto [a, b] = L.binary_operands(acc, args[i], false, false, true, false, loc);
      acc = LValue::tensor(a);
      if (i == 1) values.push_back(a);
      values.push_back(b);
    }
    // The first ones may have been promoted further by later arguments: promote them again.
    const Type* last = values.back()->type();
    for (Value*& v : values) {
      v = L.cast(v, last->element(), loc);
      v = L.broadcast_to(v, last->shape(), loc);
    }
    overload = ir::extern_math_overload(*fn, kinds_of());
  }
  if (overload == nullptr) {
    std::string got;
    for (Value* v : values) {
      const Type* e = v->type()->element();
      got += (got.empty() ? "" : ", ") + (e->is_scalar() ? ir::extern_type_name(e->scalar_kind()) : e->str());
    }
    error_at(loc, "input arg type does not match. Expect one of " + ir::extern_math_expected(*fn) + ", got (" + got +
                      (values.size() == 1 ? ",)" : ")") + " for " + name);
  }
  const Type* result = values[0]->type()->with_element(Type::scalar(overload->result));
  ir::Op* op = L.builder().create(ir::OpKind::ExternElementwise, {result}, values, loc);
  op->set_attr("symbol", std::string(fn->name));
  Value* out = op->result();
  if (fn->to_bool) out = L.cast(out, ScalarKind::I1, loc);  // Triton's .to(int1): != 0
  return LValue::tensor(out);
}

void register_libdevice_builtins(BuiltinTable& t) {
  auto by_name = [](const char* name) {
    return [name](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
      std::vector<LValue> args{a.get("x")};
      if (ir::find_extern_math(name)->arity > 1) args.push_back(a.get("y"));
      return extern_math_call(L, name, args, loc);
    };
  };
  t.add("erf", {"x"}, true, by_name("erf"));
  t.add("sqrt_rn", {"x"}, true, by_name("sqrt_rn"));
  t.add("div_rn", {"x", "y"}, false, by_name("div_rn"));
  t.add("umulhi", {"x", "y"}, false, by_name("umulhi"));
  t.add("fdiv", {"x", "y", "ieee_rounding="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    // Triton: the precise (IEEE) division with ieee_rounding, else the fast one; floats only.
    for (const char* name : {"x", "y"}) {
      const ir::Type* e = L.to_tensor(a.get(name), loc)->type()->element();
      if (!e->is_scalar() || !ir::is_float(e->scalar_kind())) {
        error_at(loc, "both operands of fdiv must have floating scalar type");
      }
    }
    if (a.const_bool("ieee_rounding", false)) return extern_math_call(L, "div_rn", {a.get("x"), a.get("y")}, loc);
    return LValue::tensor(L.true_div(a.get("x"), a.get("y"), loc));
  });
  t.add("clamp", {"x", "min", "max", "propagate_nan="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("x"), loc);
    if (!x->type()->is_float()) error_at(loc, "Unexpected dtype " + x->type()->element()->str() + ". Only floating point values are supported.");
    const bool nan = propagates_nan(a, loc);
    LValue lower = LValue::tensor(L.min_max(ir::OpKind::Maximum, LValue::tensor(x), a.get("min"), loc, nan));
    return LValue::tensor(L.min_max(ir::OpKind::Minimum, lower, a.get("max"), loc, nan));
  });
  t.add("assume", {"cond"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    // A promise to the compiler: a run-time scalar condition becomes an `assume` op (LLVM's
    // llvm.assume on the GPU); a constant or a block is checked and dropped.
    const LValue& cond = a.get("cond");
    if (cond.is_const()) return LValue::constant(ConstValue::none());
    if (!L.to_tensor(cond, loc)->type()->is_block()) {
      L.builder().create(ir::OpKind::Assume, {}, {L.to_bool_scalar(cond, loc, "tl.assume")}, loc);
    }
    return LValue::constant(ConstValue::none());
  });
}

}  // namespace tritium::lower

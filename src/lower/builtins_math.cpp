// Elementwise math builtins: the unary functions (TRITIUM_BUILTIN entries of
// ir/elementwise.def), where, minimum/maximum (sigmoid is in the prelude, lower/prelude/).
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Value;

namespace {

// What a unary builtin accepts (elementwise.def's rule column).
enum class OperandRule { Float32Or64, Number };

struct UnaryBuiltin {
  const char* name;
  ir::OpKind op;
  OperandRule rule;
};

constexpr UnaryBuiltin kUnaryBuiltins[] = {
#define TRITIUM_BUILTIN(OP, NAME, RULE) {NAME, ir::OpKind::OP, OperandRule::RULE},
#include "ir/elementwise.def"
};

LValue min_max(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  bool minimum = a.fn() == "minimum";
  if (a.get("x").is_const() && a.get("y").is_const()) {
    bool less = const_compare(ast::CompareOp::Lt, a.get("y").c, a.get("x").c, loc).b;
    bool greater = const_compare(ast::CompareOp::Gt, a.get("y").c, a.get("x").c, loc).b;
    return (minimum ? less : greater) ? a.get("y") : a.get("x");
  }
  return LValue::tensor(L.min_max(minimum ? ir::OpKind::Minimum : ir::OpKind::Maximum, a.get("x"), a.get("y"), loc));
}

}  // namespace

void register_math_builtins(BuiltinTable& t) {
  for (const UnaryBuiltin& m : kUnaryBuiltins) {
    ir::OpKind op = m.op;
    OperandRule rule = m.rule;
    t.add(m.name, {"x"}, true, [op, rule](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
      Value* x = L.to_tensor(a.get("x"), loc);
      if (x->type()->is_ptr()) error_at(loc, "tl." + a.fn() + " of a pointer is not defined");
      ScalarKind k = x->type()->element()->scalar_kind();
      if (rule == OperandRule::Number) {
        if (!ir::is_signed(k) && !ir::is_float(k)) return LValue::tensor(x);  // unsigned: already non-negative
      } else if (k != ScalarKind::F32 && k != ScalarKind::F64) {
        error_at(loc, "tl." + a.fn() + " expects fp32 or fp64, got " + std::string(ir::scalar_name(k)) +
                          "; cast with .to(tl.float32) first");
      }
      return LValue::tensor(L.emit(op, x->type(), {x}, loc));
    });
  }
  t.add("where", {"condition", "x", "y"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return LValue::tensor(L.where(a.get("condition"), a.get("x"), a.get("y"), loc));
  });
  t.add("minimum", {"x", "y", "propagate_nan="}, false, min_max);
  t.add("maximum", {"x", "y", "propagate_nan="}, false, min_max);
}

}  // namespace tritium::lower

// Elementwise builtins: the TRITIUM_BUILTIN rows of ir/elementwise.def (exp, sqrt, ..., where,
// fma), each by the promotion rule its row names, and minimum/maximum (sigmoid is in the
// prelude, lower/prelude/).
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Value;

namespace {

// How a table builtin promotes and checks its arguments (elementwise.def's rule column).
enum class OperandRule { Float32Or64, Number, Select, Fused };

struct TableBuiltin {
  const char* name;
  const char* params;
  ir::OpKind op;
  OperandRule rule;
};

constexpr TableBuiltin kTableBuiltins[] = {
#define TRITIUM_BUILTIN(OP, NAME, PARAMS, RULE) {NAME, PARAMS, ir::OpKind::OP, OperandRule::RULE},
#include "ir/elementwise.def"
};

std::vector<std::string> split_params(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    size_t first = text.find_first_not_of(' ', start);
    size_t last = text.find_last_not_of(' ', comma - 1);
    if (first < comma) out.push_back(text.substr(first, last + 1 - first));
    start = comma + 1;
  }
  return out;
}

// One operand: Triton's math functions take fp32/fp64 only; abs returns unsigned unchanged.
LValue unary(Lowerer& L, const BuiltinArgs& a, const Loc& loc, const TableBuiltin& row, const std::string& param) {
  Value* x = L.to_tensor(a.get(param), loc);
  if (x->type()->is_ptr()) error_at(loc, "tl." + a.fn() + " of a pointer is not defined");
  ScalarKind k = x->type()->element()->scalar_kind();
  if (row.rule == OperandRule::Number) {
    if (!ir::is_signed(k) && !ir::is_float(k)) return LValue::tensor(x);  // unsigned: already non-negative
  } else if (k != ScalarKind::F32 && k != ScalarKind::F64) {
    error_at(loc, "tl." + a.fn() + " expects fp32 or fp64, got " + std::string(ir::scalar_name(k)) +
                      "; cast with .to(tl.float32) first");
  }
  return LValue::tensor(L.emit(row.op, x->type(), {x}, loc));
}

// Every argument promoted against the others as arithmetic operands (Triton's pairwise
// binary_op_type_legalization), then all of the final type and shape. fp8 computes in
// fp32, rounded back once, as tritium's fp8 arithmetic does.
LValue fused(Lowerer& L, const BuiltinArgs& a, const Loc& loc, const TableBuiltin& row,
             const std::vector<std::string>& params) {
  std::vector<Value*> values;
  LValue acc = a.get(params[0]);
  for (size_t i = 1; i < params.size(); ++i) {
    auto [x, y] = L.binary_operands(acc, a.get(params[i]), false, false, true, false, loc);
    if (i == 1) values.push_back(x);
    values.push_back(y);
    acc = LValue::tensor(y);
  }
  const ir::Type* last = values.back()->type();
  ScalarKind k = last->element()->scalar_kind();
  // Triton's tl.fma is math.fma, on floats only (its MLIR verifier rejects integers).
  if (!ir::is_float(k)) error_at(loc, "tl.fma expects floating-point operands, got " + ir::triton_dtype_name(k));
  const ir::Type* compute = ir::is_fp8(k) ? last->with_element(ir::Type::scalar(ScalarKind::F32)) : last;
  for (Value*& v : values) v = L.broadcast_to(L.cast(v, compute->element(), loc), last->shape(), loc);
  Value* out = L.emit(row.op, compute, values, loc);
  return LValue::tensor(compute == last ? out : L.cast(out, last->element(), loc));
}

LValue table_builtin(Lowerer& L, const BuiltinArgs& a, const Loc& loc, const TableBuiltin& row,
                     const std::vector<std::string>& params) {
  switch (row.rule) {
    case OperandRule::Float32Or64:
    case OperandRule::Number: return unary(L, a, loc, row, params[0]);
    case OperandRule::Select: {
      // Triton 3.6 warns (and converts) when the condition is not boolean.
      LValue condition = a.get(params[0]);
      Value* c = L.to_tensor(condition, loc);
      const ir::Type* element = c->type()->element();
      if (!L.checking() && (!element->is_scalar() || element->scalar_kind() != ScalarKind::I1)) {
        // Triton's dtype names: int32, uint8, ...; fp32, bf16, fp8e5, ...
        std::string name = element->is_pointer() ? element->str()
                           : ir::is_integer(element->scalar_kind()) ? ir::scalar_long_name(element->scalar_kind())
                                                                     : ir::scalar_name(element->scalar_kind());
        warn_at(loc, "tl.where with a non-boolean condition is deprecated and will error out in a future "
                     "triton release. Got " + name);
      }
      return LValue::tensor(L.where(LValue::tensor(c), a.get(params[1]), a.get(params[2]), loc, row.op));
    }
    case OperandRule::Fused: return fused(L, a, loc, row, params);
  }
  internal_error("lower", "unknown operand rule of tl." + a.fn(), loc);
}

}  // namespace

bool propagates_nan(const BuiltinArgs& a, const Loc& loc) {
  if (!a.has("propagate_nan")) return false;
  const LValue& v = a.get("propagate_nan");
  if (!v.is_const() || (v.c.kind != ConstValue::Kind::Int && v.c.kind != ConstValue::Kind::Bool)) {
    error_at(loc, "propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL");
  }
  return a.const_int("propagate_nan") != 0;
}

namespace {

LValue min_max(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  // Two numbers make a tensor too (Triton's tl.minimum/maximum call to_tensor on both; only the
  // Python builtins min/max fold numbers to a constant).
  bool minimum = a.fn() == "minimum";
  return LValue::tensor(L.min_max(minimum ? ir::OpKind::Minimum : ir::OpKind::Maximum, a.get("x"), a.get("y"), loc,
                                  propagates_nan(a, loc)));
}

}  // namespace

void register_math_builtins(BuiltinTable& t) {
  for (const TableBuiltin& row : kTableBuiltins) {
    std::vector<std::string> params = split_params(row.params);
    bool method = params.size() == 1;  // x.exp(), as Triton's one-operand math functions
    t.add_table_row(row.name, params, method, [row, params](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
      return table_builtin(L, a, loc, row, params);
    });
  }
  t.add("minimum", {"x", "y", "propagate_nan="}, false, min_max);
  t.add("maximum", {"x", "y", "propagate_nan="}, false, min_max);
}

}  // namespace tritium::lower

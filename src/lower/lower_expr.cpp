// Lowering of expressions: literals, names, operators, attributes, subscripts, calls and
// the ternary. Operations on two compile-time values fold with Python semantics; anything
// involving a tensor goes through the typing rules in semantic.cpp.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

std::string LValue::describe() const {
  switch (kind) {
    case Kind::Const: {
      switch (c.kind) {
        case ConstValue::Kind::None: return "None";
        case ConstValue::Kind::Bool: return "the constant " + c.str();
        case ConstValue::Kind::Int: return "the integer constant " + c.str();
        case ConstValue::Kind::Float: return "the float constant " + c.str();
        case ConstValue::Kind::Str: return "the string " + c.str();
        case ConstValue::Kind::DType: return "the dtype " + c.str();
      }
      return "a constant";
    }
    case Kind::Tensor: return "a tensor of type " + value->type()->str();
    case Kind::Module: return "the module " + name;
    case Kind::Function: return "the function " + (function && function->def ? function->def->name : std::string("?"));
    case Kind::Builtin: return "the builtin " + name;
    case Kind::Tuple: return is_list ? "a list" : "a tuple";
  }
  return "a value";
}

LValue Lowerer::eval(const ast::Expr& expr) {
  const Loc& loc = expr.loc;
  switch (expr.kind) {
    case ast::ExprKind::Name: return lookup(expr.name, loc);
    case ast::ExprKind::Int: {
      if (expr.int_value > static_cast<unsigned __int128>(~static_cast<uint64_t>(0))) {
        error_at(loc, "integer literal does not fit in 64 bits");
      }
      return LValue::constant(ConstValue::integer(static_cast<__int128>(expr.int_value)));
    }
    case ast::ExprKind::Float: return LValue::constant(ConstValue::floating(expr.float_value));
    case ast::ExprKind::Bool: return LValue::constant(ConstValue::boolean(expr.bool_value));
    case ast::ExprKind::None: return LValue::constant(ConstValue::none());
    case ast::ExprKind::Str: return LValue::constant(ConstValue::string(expr.str_value));
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      std::vector<LValue> items;
      for (const auto& item : expr.items) items.push_back(eval(*item));
      return LValue::tuple(std::move(items), expr.kind == ast::ExprKind::List);
    }
    case ast::ExprKind::Attribute: return eval_attribute(expr);
    case ast::ExprKind::Subscript: return eval_subscript(expr);
    case ast::ExprKind::Slice: error_at(loc, "a slice is only allowed inside a subscript");
    case ast::ExprKind::Call: return eval_call(expr);
    case ast::ExprKind::Unary: return unary(expr.unary_op, eval(*expr.lhs), loc);
    case ast::ExprKind::Binary: {
      LValue lhs = eval(*expr.lhs);
      LValue rhs = eval(*expr.rhs);
      return binary(expr.binary_op, lhs, rhs, loc);
    }
    case ast::ExprKind::BoolOp: {
      if (expr.items.size() != 2) {
        error_at(loc, "chained boolean operators (A or B or C) are not supported; use parentheses to split the chain");
      }
      LValue lhs = eval(*expr.items[0]);
      LValue rhs = eval(*expr.items[1]);
      if (lhs.is_const() && rhs.is_const()) {
        bool l = const_truth(lhs, loc);
        // Python returns an operand, not a bool.
        if (expr.bool_op == ast::BoolOp::And) return l ? rhs : lhs;
        return l ? lhs : rhs;
      }
      return LValue::tensor(logical(expr.bool_op == ast::BoolOp::And ? ir::OpKind::And : ir::OpKind::Or, lhs, rhs, loc));
    }
    case ast::ExprKind::Compare: {
      if (expr.compare_ops.size() != 1) {
        error_at(loc, "chained comparisons (a < b < c) are not supported in kernels; write (a < b) & (b < c)");
      }
      LValue lhs = eval(*expr.items[0]);
      LValue rhs = eval(*expr.items[1]);
      return compare(expr.compare_ops[0], lhs, rhs, loc);
    }
    case ast::ExprKind::Ternary: return eval_ternary(expr);
  }
  internal_error("lower", "unknown expression kind", loc);
}

bool Lowerer::const_truth(const LValue& value, const Loc& loc) {
  if (value.is_const()) return !const_unary(ast::UnaryOp::Not, value.c, loc).b;
  if (value.kind == LValue::Kind::Tuple) return !value.items.empty();
  if (value.is_tensor()) {
    error_at(loc, "the truth value of a tensor is only known when the kernel runs; this needs a compile-time constant");
  }
  return true;
}

LValue Lowerer::binary(ast::BinaryOp op, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  if (lhs.is_const() && rhs.is_const()) return LValue::constant(const_binary(op, lhs.c, rhs.c, loc));
  if (lhs.kind == LValue::Kind::Tuple && rhs.kind == LValue::Kind::Tuple && op == ast::BinaryOp::Add) {
    std::vector<LValue> items = lhs.items;
    items.insert(items.end(), rhs.items.begin(), rhs.items.end());
    return LValue::tuple(std::move(items), lhs.is_list);
  }
  for (const LValue* v : {&lhs, &rhs}) {
    if (!v->is_tensor() && !v->is_const()) {
      error_at(loc, std::string("unsupported operand for ") + ast::spelling(op) + ": " + v->describe());
    }
  }
  switch (op) {
    case ast::BinaryOp::Add: return LValue::tensor(add(lhs, rhs, loc));
    case ast::BinaryOp::Sub: return LValue::tensor(sub(lhs, rhs, loc));
    case ast::BinaryOp::Mul: return LValue::tensor(arith(ir::OpKind::Mul, lhs, rhs, loc));
    case ast::BinaryOp::Div: return LValue::tensor(true_div(lhs, rhs, loc));
    case ast::BinaryOp::FloorDiv: return LValue::tensor(int_div_rem(ir::OpKind::Div, lhs, rhs, loc));
    case ast::BinaryOp::Mod: return LValue::tensor(int_div_rem(ir::OpKind::Rem, lhs, rhs, loc));
    case ast::BinaryOp::LShift: return LValue::tensor(bitwise(ir::OpKind::Shl, lhs, rhs, loc));
    case ast::BinaryOp::RShift: return LValue::tensor(bitwise(ir::OpKind::Shr, lhs, rhs, loc));
    case ast::BinaryOp::BitAnd: return LValue::tensor(bitwise(ir::OpKind::And, lhs, rhs, loc));
    case ast::BinaryOp::BitOr: return LValue::tensor(bitwise(ir::OpKind::Or, lhs, rhs, loc));
    case ast::BinaryOp::BitXor: return LValue::tensor(bitwise(ir::OpKind::Xor, lhs, rhs, loc));
    case ast::BinaryOp::Pow:
      error_at(loc, "** is not supported on tensors (only on compile-time constants)");
    case ast::BinaryOp::MatMul:
      error_at(loc, "@ (matrix multiplication) is not supported yet; tl.dot arrives later");
  }
  internal_error("lower", "unknown binary operator", loc);
}

LValue Lowerer::unary(ast::UnaryOp op, const LValue& operand, const Loc& loc) {
  if (operand.is_const()) return LValue::constant(const_unary(op, operand.c, loc));
  if (!operand.is_tensor()) {
    if (op == ast::UnaryOp::Not) return LValue::constant(ConstValue::boolean(!const_truth(operand, loc)));
    error_at(loc, std::string("bad operand for unary ") + ast::spelling(op) + ": " + operand.describe());
  }
  Value* v = operand.value;
  const Type* element = v->type()->element();
  switch (op) {
    case ast::UnaryOp::Pos: return operand;
    case ast::UnaryOp::Neg: {
      if (element->is_pointer()) error_at(loc, "cannot negate a pointer");
      return LValue::tensor(sub(LValue::tensor(constant(element->scalar_kind(), ConstValue::integer(0), loc)), operand, loc));
    }
    case ast::UnaryOp::Invert: {
      if (!v->type()->is_int()) error_at(loc, "~ needs an integer operand, got " + v->type()->str());
      return LValue::tensor(emit(ir::OpKind::Not, v->type(), {v}, loc));
    }
    case ast::UnaryOp::Not: {
      if (!v->type()->is_bool()) {
        error_at(loc, "`not` on a tensor needs a boolean (int1) operand, got " + v->type()->str() +
                          "; compare first, e.g. `x == 0`");
      }
      return LValue::tensor(emit(ir::OpKind::Not, v->type(), {v}, loc));
    }
  }
  internal_error("lower", "unknown unary operator", loc);
}

LValue Lowerer::compare(ast::CompareOp op, const LValue& lhs, const LValue& rhs, const Loc& loc) {
  if (op == ast::CompareOp::Is || op == ast::CompareOp::IsNot) {
    if (lhs.is_const() && rhs.is_const()) return LValue::constant(const_compare(op, lhs.c, rhs.c, loc));
    // A tensor is never None nor any constant.
    bool same = false;
    if (lhs.is_tensor() && rhs.is_tensor()) same = lhs.value == rhs.value;
    return LValue::constant(ConstValue::boolean(op == ast::CompareOp::Is ? same : !same));
  }
  if (op == ast::CompareOp::In || op == ast::CompareOp::NotIn) {
    if (rhs.kind == LValue::Kind::Tuple && lhs.is_const()) {
      bool found = false;
      for (const LValue& item : rhs.items) {
        if (item.is_const() && const_compare(ast::CompareOp::Eq, lhs.c, item.c, loc).b) found = true;
      }
      return LValue::constant(ConstValue::boolean(op == ast::CompareOp::In ? found : !found));
    }
    error_at(loc, "`in` is only supported on compile-time tuples in kernels");
  }
  if (lhs.is_const() && rhs.is_const()) return LValue::constant(const_compare(op, lhs.c, rhs.c, loc));
  if (lhs.kind == LValue::Kind::Tuple && rhs.kind == LValue::Kind::Tuple &&
      (op == ast::CompareOp::Eq || op == ast::CompareOp::NotEq)) {
    // Python's sequence equality (`x.shape == [2]`): a list never equals a tuple.
    bool equal = lhs.is_list == rhs.is_list && lhs.items.size() == rhs.items.size();
    for (size_t i = 0; equal && i < lhs.items.size(); ++i) {
      LValue item = compare(ast::CompareOp::Eq, lhs.items[i], rhs.items[i], loc);
      if (!item.is_const()) error_at(loc, "sequences holding tensors cannot be compared with ==");
      equal = const_truth(item, loc);
    }
    return LValue::constant(ConstValue::boolean(op == ast::CompareOp::Eq ? equal : !equal));
  }
  if ((lhs.is_const() && lhs.c.kind == ConstValue::Kind::DType) || (rhs.is_const() && rhs.c.kind == ConstValue::Kind::DType)) {
    error_at(loc, "cannot compare a dtype with a tensor");
  }
  const char* predicate = "eq";
  switch (op) {
    case ast::CompareOp::Eq: predicate = "eq"; break;
    case ast::CompareOp::NotEq: predicate = "ne"; break;
    case ast::CompareOp::Lt: predicate = "lt"; break;
    case ast::CompareOp::LtE: predicate = "le"; break;
    case ast::CompareOp::Gt: predicate = "gt"; break;
    case ast::CompareOp::GtE: predicate = "ge"; break;
    default: break;
  }
  return LValue::tensor(cmp(predicate, lhs, rhs, loc));
}

namespace {

// A dotted name's source spelling (`tl`, `tritium.language`), or "" for anything else.
std::string dotted_source(const ast::Expr& expr) {
  if (expr.kind == ast::ExprKind::Name) return expr.name;
  if (expr.kind == ast::ExprKind::Attribute && expr.lhs) {
    std::string base = dotted_source(*expr.lhs);
    return base.empty() ? "" : base + "." + expr.name;
  }
  return "";
}

}  // namespace

LValue Lowerer::eval_attribute(const ast::Expr& expr) {
  LValue base = eval(*expr.lhs);
  const std::string& name = expr.name;
  const Loc& loc = expr.loc;
  if (base.kind == LValue::Kind::Module) {
    LValue out;
    if (module_attribute(base.name, name, &out)) return out;
    // Named as the user wrote it: `tl` (an alias of triton.language), `tritium.language`.
    std::string written = dotted_source(*expr.lhs);
    bool dotted = written.find('.') != std::string::npos;
    std::string message = "module '" + (dotted ? written : base.name) + "'" +
                          (!written.empty() && !dotted ? " (" + written + ")" : "") +
                          " has no attribute '" + name + "' that kernels can use";
    if (base.name.rfind("triton.language", 0) == 0) {
      std::string suggestion = closest_builtin(name);
      if (!suggestion.empty()) {
        message += "; did you mean `" + (written.empty() ? "tl" : written) + "." + suggestion + "`?";
      }
    }
    error_at(loc, message);
  }
  if (base.is_tensor()) {
    const Type* type = base.value->type();
    if (name == "dtype") {
      if (type->element()->is_pointer()) error_at(loc, "the dtype of a pointer tensor is not supported yet");
      return LValue::constant(ConstValue::type(type->element()->scalar_kind()));
    }
    if (name == "shape") {
      std::vector<LValue> dims;
      for (int64_t d : type->shape()) dims.push_back(LValue::constant(ConstValue::integer(d)));
      return LValue::tuple(std::move(dims), /*is_list=*/true);  // Triton's shape is a list
    }
    if (name == "numel") return LValue::constant(ConstValue::integer(type->is_block() ? type->num_elements() : 1));
    if (name == "T") return call_builtin(LValue::builtin("tl.trans"), {base}, {}, loc);
    LValue method = LValue::builtin("method." + name);
    method.items.push_back(base);
    return method;
  }
  if (base.is_const() && base.c.kind == ConstValue::Kind::DType) {
    ScalarKind k = base.c.dtype;
    if (name == "primitive_bitwidth") return LValue::constant(ConstValue::integer(ir::bit_width(k)));
    if (name == "is_floating") { LValue m = LValue::builtin("dtype.is_floating"); m.items.push_back(base); return m; }
  }
  error_at(loc, base.describe() + " has no attribute '" + name + "'");
}

LValue Lowerer::eval_subscript(const ast::Expr& expr) {
  LValue base = eval(*expr.lhs);
  const Loc& loc = expr.loc;
  if (base.kind == LValue::Kind::Tuple) {
    if (expr.items.size() != 1) error_at(loc, "a tuple takes one index");
    LValue index = eval(*expr.items[0]);
    if (!index.is_const() || index.c.kind != ConstValue::Kind::Int) {
      error_at(expr.items[0]->loc, "a tuple index must be a compile-time integer");
    }
    __int128 i = index.c.i;
    __int128 n = static_cast<__int128>(base.items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) error_at(loc, "tuple index out of range");
    return base.items[static_cast<size_t>(i)];
  }
  if (!base.is_tensor()) error_at(loc, base.describe() + " cannot be indexed");
  Value* v = base.value;
  if (!v->type()->is_block() && !expr.items.empty()) {
    // A scalar can only grow dimensions: x[None] is a block of one element.
  }
  int source_dim = 0;
  std::vector<int64_t> shape;
  const std::vector<int64_t>& src_shape = v->type()->shape();
  std::vector<int> new_axes;
  for (size_t i = 0; i < expr.items.size(); ++i) {
    const ast::Expr& item = *expr.items[i];
    if (item.kind == ast::ExprKind::None) {
      new_axes.push_back(static_cast<int>(i));
      continue;
    }
    if (item.kind == ast::ExprKind::Slice && !item.lhs && !item.rhs && !item.third) {
      if (source_dim >= v->type()->rank()) error_at(item.loc, "too many indices for a block of rank " + std::to_string(v->type()->rank()));
      ++source_dim;
      continue;
    }
    error_at(item.loc, "unsupported tensor index: only `:` and `None` are allowed");
  }
  if (source_dim != v->type()->rank()) {
    error_at(loc, "the index has " + std::to_string(source_dim) + " `:` but the block has rank " +
                      std::to_string(v->type()->rank()));
  }
  (void)src_shape;
  (void)shape;
  for (int axis : new_axes) {
    std::vector<int64_t> grown = v->type()->shape();
    grown.insert(grown.begin() + axis, 1);
    ir::Op* op = builder_.create(ir::OpKind::ExpandDims, {Type::block(v->type()->element(), grown)}, {v}, loc);
    op->set_attr("axis", int64_t{axis});
    v = op->result();
  }
  return LValue::tensor(v);
}

LValue Lowerer::eval_ternary(const ast::Expr& expr) {
  // lhs if rhs else third
  LValue cond = eval(*expr.rhs);
  if (!cond.is_tensor()) return const_truth(cond, expr.loc) ? eval(*expr.lhs) : eval(*expr.third);
  Value* c = to_bool_scalar(cond, expr.loc, "the ternary");
  ir::Op* op = builder_.create(ir::OpKind::If, {}, {c}, expr.loc);
  ir::Region* then_region = op->add_region();
  ir::Region* else_region = op->add_region();
  ir::Region* outer = builder_.region();
  builder_.set_region(then_region);
  Value* a = to_tensor(eval(*expr.lhs), expr.lhs->loc);
  builder_.set_region(else_region);
  Value* b = to_tensor(eval(*expr.third), expr.third->loc);
  if (a->type() != b->type()) {
    error_at(expr.loc, "the two values of the ternary have different types: " + a->type()->str() + " and " + b->type()->str());
  }
  builder_.set_region(then_region);
  builder_.create(ir::OpKind::Yield, {}, {a}, expr.loc);
  builder_.set_region(else_region);
  builder_.create(ir::OpKind::Yield, {}, {b}, expr.loc);
  builder_.set_region(outer);
  return LValue::tensor(op->add_result(a->type()));
}

LValue Lowerer::eval_call(const ast::Expr& expr) {
  LValue callee = eval(*expr.lhs);
  std::vector<LValue> args;
  for (const auto& arg : expr.items) args.push_back(eval(*arg));
  std::vector<std::pair<std::string, LValue>> kwargs;
  for (const auto& kw : expr.keywords) kwargs.emplace_back(kw.name, eval(*kw.value));
  if (callee.kind == LValue::Kind::Function) {
    return inline_call(*callee.function, std::move(args), std::move(kwargs), expr.loc);
  }
  if (callee.kind == LValue::Kind::Builtin) {
    return call_builtin(callee, std::move(args), std::move(kwargs), expr.loc);
  }
  error_at(expr.loc, callee.describe() + " is not callable in a kernel");
}

}  // namespace tritium::lower

// Lowering of expressions: literals, names, operators, attributes, subscripts, calls and
// the ternary. Operations on two compile-time values fold with Python semantics; anything
// involving a tensor goes through the typing rules in semantic.cpp.
#include <functional>
#include <optional>

#include "lower/aggregate.h"
#include "lower/block_ptr.h"
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
        case ConstValue::Kind::Object: return "the " + c.object_type() + " constant " + c.s;
      }
      return "a constant";
    }
    case Kind::Tensor: return "a tensor of type " + value->type()->str();
    case Kind::Module: return "the module " + name;
    case Kind::Function: return "the function " + (function && function->def ? function->def->name : std::string("?"));
    case Kind::Builtin: return "the builtin " + name;
    case Kind::Tuple: return is_list ? "a list" : "a tuple";
    case Kind::Aggregate:
      return name == "tensor_descriptor" ? "a tensor descriptor"
             : name == "block_ptr_dtype" ? "the dtype of a block pointer"
             : name == "block_type"      ? "the block type " + items[0].c.str()
                                         : "a block pointer";
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
      // A or B or C folds left. Compile-time operands follow Python (an operand is the
      // result, and a decided chain stops evaluating); tensors combine elementwise.
      // A tuple is a compile-time operand too, true when it is not empty.
      bool is_and = expr.bool_op == ast::BoolOp::And;
      auto is_tuple = [](const LValue& v) { return v.kind == LValue::Kind::Tuple; };
      auto known = [&](const LValue& v) { return v.is_const() || is_tuple(v); };
      auto truth = [&](const LValue& v) { return is_tuple(v) ? !v.items.empty() : const_truth(v, loc); };
      // As Triton: operands are evaluated in order; a compile-time one that decides the
      // chain (false for `and`, true for `or`) is the result, even after tensors
      // (`chunk == last and RETURN_STATES` with RETURN_STATES false is False, so an `if` on
      // it is a compile-time one: Mamba-3's kernels use names only defined when it is true);
      // one that does not decide it drops out. The tensors left combine elementwise; with
      // none left, the last operand is the result.
      std::vector<LValue> tensors;
      LValue last;
      for (size_t i = 0; i < expr.items.size(); ++i) {
        LValue v = eval(*expr.items[i]);
        if (known(v)) {
          if (truth(v) != is_and) return v;
          last = v;
          continue;
        }
        tensors.push_back(v);
      }
      if (tensors.empty()) return last;
      LValue acc = tensors.back();
      for (size_t i = tensors.size() - 1; i-- > 0;) {
        acc = LValue::tensor(logical(is_and ? ir::OpKind::And : ir::OpKind::Or, tensors[i], acc, loc));
      }
      return acc;
    }
    case ast::ExprKind::Compare: {
      // a < b <= c means (a < b) and (b <= c), each operand evaluated once (Python; Triton
      // 3.7+ in kernels): constants stop at the first false link, tensors combine with &.
      LValue lhs = eval(*expr.items[0]);
      LValue acc;
      for (size_t i = 0; i < expr.compare_ops.size(); ++i) {
        LValue rhs = eval(*expr.items[i + 1]);
        LValue link = compare(expr.compare_ops[i], lhs, rhs, loc);
        if (i == 0) {
          acc = link;
        } else if (acc.is_const() && link.is_const()) {
          acc = link;
        } else {
          acc = LValue::tensor(logical(ir::OpKind::And, acc, link, loc));
        }
        if (acc.is_const() && !const_truth(acc, loc)) return acc;
        lhs = rhs;
      }
      return acc;
    }
    case ast::ExprKind::Ternary: return eval_ternary(expr);
    case ast::ExprKind::ListComp: {
      // Unrolled at compile time over a tuple (or list) as Triton does; the result is a
      // tuple. The variable is the comprehension's own: the scope is restored afterwards.
      LValue iterable = eval(*expr.rhs);
      if (iterable.kind != LValue::Kind::Tuple) {
        error_at(expr.rhs->loc, "a list comprehension in a kernel iterates over a tuple or list, got " + iterable.describe());
      }
      Scope saved = scope_;
      // The variable takes each item as it is (a constant stays a constant, as Triton's
      // comprehension binds it), unpacking tuples for `for a, b in pairs`.
      std::function<void(const ast::Expr&, const LValue&)> take = [&](const ast::Expr& target, const LValue& item) {
        if (target.kind == ast::ExprKind::Name) {
          bind(target.name, item);
          return;
        }
        if (target.kind != ast::ExprKind::Tuple && target.kind != ast::ExprKind::List) {
          error_at(target.loc, "the variable of a list comprehension in a kernel must be a name or a tuple of names");
        }
        if (item.kind != LValue::Kind::Tuple || item.items.size() != target.items.size()) {
          error_at(target.loc, "cannot unpack " + item.describe() + " into " + std::to_string(target.items.size()) + " names");
        }
        for (size_t i = 0; i < target.items.size(); ++i) take(*target.items[i], item.items[i]);
      };
      std::vector<LValue> items;
      for (const LValue& item : iterable.items) {
        take(*expr.third, item);
        bool keep = true;
        for (const auto& cond : expr.items) {
          LValue c = eval(*cond);
          if (!c.is_const()) error_at(cond->loc, "the condition of a list comprehension must be known at compile time, got " + c.describe());
          if (!const_truth(c, cond->loc)) { keep = false; break; }
        }
        if (keep) items.push_back(eval(*expr.lhs));
      }
      scope_ = std::move(saved);
      return LValue::tuple(std::move(items));
    }
    case ast::ExprKind::Starred: error_at(loc, "a starred expression (*x) is only allowed as a call argument");
    case ast::ExprKind::FString: {
      // As Triton: each field must be a compile-time value, formatted as Python's "{}" (or
      // "{!r}") formats it; a format spec is not applied. Only evaluated where the code is
      // lowered, so a debug print in a branch a constexpr turns off costs nothing.
      std::string text = expr.fstring_parts.at(0);
      for (size_t i = 0; i < expr.items.size(); ++i) {
        LValue v = eval(*expr.items[i]);
        if (!v.is_const()) {  // located at the f-string, as Triton locates it
          error_at(loc, "an f-string in a kernel formats compile-time (constexpr) values only; field " +
                            std::to_string(i + 1) + " is " + v.describe());
        }
        const ConstValue& c = v.c;
        const bool repr = expr.fstring_conversions[i] == 'r' || expr.fstring_conversions[i] == 'a';
        if (c.kind == ConstValue::Kind::Str && !repr) text += c.s;
        else if (c.kind == ConstValue::Kind::Object) text += repr ? c.s : c.object_text();
        else if (c.kind == ConstValue::Kind::DType && !c.pointer)  // str(tl.uint8) is "uint8"
          text += (repr ? "triton.language." : "") + ir::triton_dtype_name(c.dtype);
        else text += c.str();
        text += expr.fstring_parts.at(i + 1);
      }
      return LValue::constant(ConstValue::string(std::move(text)));
    }
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
  if (op == ast::BinaryOp::Mul && (lhs.kind == LValue::Kind::Tuple) != (rhs.kind == LValue::Kind::Tuple)) {
    // (0,) * ndim: repetition by a compile-time integer, as in Python.
    const LValue& seq = lhs.kind == LValue::Kind::Tuple ? lhs : rhs;
    const LValue& count = lhs.kind == LValue::Kind::Tuple ? rhs : lhs;
    if (!count.is_const() || count.c.kind != ConstValue::Kind::Int) {
      error_at(loc, "a tuple can only be repeated by a compile-time integer, got " + count.describe());
    }
    if (count.c.i * static_cast<__int128>(seq.items.size()) > (1 << 16)) {
      error_at(loc, "a tuple repeated " + int128_to_string(count.c.i) + " times is too long for a kernel");
    }
    std::vector<LValue> items;
    for (__int128 i = 0; i < count.c.i; ++i) items.insert(items.end(), seq.items.begin(), seq.items.end());
    return LValue::tuple(std::move(items), seq.is_list);
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
      // a @ b is tl.dot(a, b) (Triton 3.6 has no `@` in kernels; tritium accepts it).
      return call_builtin(LValue::builtin("tl.dot"), {lhs, rhs}, {}, loc);
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
    // Sequence equality item by item (`x.shape == (M, N)`). In a Triton 3.6 kernel a list
    // literal is a tuple too, so a list equals the tuple of the same items.
    bool equal = lhs.items.size() == rhs.items.size();
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
  using P = ir::CmpPredicate;
  P predicate = P::Eq;
  switch (op) {
    case ast::CompareOp::Eq: predicate = P::Eq; break;
    case ast::CompareOp::NotEq: predicate = P::Ne; break;
    case ast::CompareOp::Lt: predicate = P::Lt; break;
    case ast::CompareOp::LtE: predicate = P::Le; break;
    case ast::CompareOp::Gt: predicate = P::Gt; break;
    case ast::CompareOp::GtE: predicate = P::Ge; break;
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

void Lowerer::check_result_used(const ast::Expr& statement) {
  if (statement.kind != ast::ExprKind::Call || !statement.lhs) return;
  const ast::Expr& callee = *statement.lhs;
  if (callee.kind != ast::ExprKind::Name && callee.kind != ast::ExprKind::Attribute) return;
  const LValue fn = eval(callee);  // a name or attribute: reading it twice changes nothing
  if (fn.kind != LValue::Kind::Function || !fn.function || fn.function->must_use_result.empty()) return;
  const std::string spelled = dotted_source(callee);
  const std::string& why = fn.function->must_use_result;
  error_at(statement.loc, "The result of " + (spelled.empty() ? std::string("the call") : spelled) +
                              " is not being used." + (why == "1" ? "" : " " + why));
}

namespace {

// `x.dtype`: the element type of a tensor (a pointer type for a tensor of pointers).
LValue eval_attribute_of_tensor_dtype(const Type* type) {
  const Type* e = type->element();
  if (e->is_pointer()) return LValue::constant(ConstValue::pointer_type(e->pointee()->scalar_kind()));
  return LValue::constant(ConstValue::type(e->scalar_kind()));
}

}  // namespace

LValue Lowerer::eval_attribute(const ast::Expr& expr) {
  return attribute_of(eval(*expr.lhs), expr.name, expr.loc, expr.lhs.get());
}

LValue Lowerer::attribute_of(const LValue& base, const std::string& name, const Loc& loc, const ast::Expr* written_base) {
  if (base.kind == LValue::Kind::Module) {
    LValue out;
    if (module_attribute(base.name, name, &out)) return out;
    // An attribute of a user module (`from pkg import helpers as h; h.fn(...)`): Python
    // hands it over as the global "<module>.<attribute>" (tritium/jit.py).
    if (context_->globals) {
      auto it = context_->globals->find(base.name + "." + name);
      if (it != context_->globals->end()) return binding_to_value(it->second);
    }
    // Named as the user wrote it: `tl` (an alias of triton.language), `tritium.language`.
    std::string written = written_base ? dotted_source(*written_base) : std::string();
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
    if (name == "dtype") return eval_attribute_of_tensor_dtype(type);
    if (name == "shape") {
      std::vector<LValue> dims;
      for (int64_t d : type->shape()) dims.push_back(LValue::constant(ConstValue::integer(d)));
      return LValue::tuple(std::move(dims), /*is_list=*/true);  // Triton's shape is a list
    }
    if (name == "numel") return LValue::constant(ConstValue::integer(type->is_block() ? type->num_elements() : 1));
    if (name == "type") {
      // Triton's `x.type`: a scalar's is its dtype (`ptr.type.element_ty`, the pointee); a
      // block's is a block_type (`.element_ty`/`.scalar`: the element dtype, `.shape`).
      LValue dtype = eval_attribute_of_tensor_dtype(type);
      if (!type->is_block()) return dtype;
      std::vector<LValue> dims;
      for (int64_t d : type->shape()) dims.push_back(LValue::constant(ConstValue::integer(d)));
      return LValue::aggregate("block_type", {dtype, LValue::tuple(std::move(dims), /*is_list=*/false)});
    }
    if (name == "T") return call_builtin(LValue::builtin("tl.trans"), {base}, {}, loc);
    LValue method = LValue::builtin("method." + name);
    method.items.push_back(base);
    return method;
  }
  if (base.kind == LValue::Kind::Aggregate && base.name == "block_type") {
    if (name == "element_ty" || name == "scalar") return base.items[0];
    if (name == "shape") return base.items[1];
    if (name == "numel") {
      __int128 n = 1;
      for (const LValue& d : base.items[1].items) n *= d.c.i;
      return LValue::constant(ConstValue::integer(n));
    }
    if (name == "is_block" || name == "is_ptr" || name == "get_block_shapes") {
      LValue m = LValue::builtin("block_type." + name);
      m.items.push_back(base);
      return m;
    }
    error_at(loc, "a block type has no attribute '" + name + "' that kernels can use");
  }
  if (base.kind == LValue::Kind::Aggregate) return aggregate_attribute(base, name, loc);
  if (base.kind == LValue::Kind::Tuple && base.fields) {
    // A named tuple (a NamedTuple argument, or one a kernel made with its type): its fields.
    const std::vector<std::string>& fields = *base.fields;
    for (size_t i = 0; i < fields.size() && i < base.items.size(); ++i) {
      if (fields[i] == name) return base.items[i];
    }
    std::string known;
    for (const std::string& f : fields) known += (known.empty() ? "" : ", ") + f;
    error_at(loc, "the named tuple " + base.name + " has no field '" + name + "' (its fields: " + known + ")");
  }
  // `c.value`: Triton passes every non-tensor argument of a @jit callee as a tl.constexpr,
  // whose `.value` is what it holds (FlagGems' get_dtype_min(dtype) reads `dtype.value`);
  // tritium's compile-time constants are that value already.
  if (base.is_const() && name == "value") return base;
  if (base.is_const() && base.c.kind == ConstValue::Kind::DType) {
    // Triton's dtype attributes (from the one dtype table) and predicate methods.
    ScalarKind k = base.c.dtype;
    bool ptr = base.c.pointer;
    auto integer = [](int64_t v) { return LValue::constant(ConstValue::integer(v)); };
    if (name == "element_ty" && ptr) return LValue::constant(ConstValue::type(k));
    if (name == "scalar") return base;
    if (name == "name") return LValue::constant(ConstValue::string(base.c.str()));
    if (name == "primitive_bitwidth") return integer(ptr ? 64 : ir::bit_width(k));
    if (!ptr && ir::is_float(k) && name == "fp_mantissa_width") return integer(ir::fp_mantissa_width(k));
    if (!ptr && ir::is_float(k) && name == "exponent_bias") return integer(ir::exponent_bias(k));
    if (!ptr && ir::is_integer(k) && name == "int_bitwidth") return integer(ir::bit_width(k));
    if (!ptr && ir::is_integer(k) && name == "int_signedness") return integer(ir::is_signed(k) ? 0 : 1);
    if (name.rfind("is_", 0) == 0 || name == "kind") {
      LValue m = LValue::builtin("dtype." + name);
      m.items.push_back(base);
      return m;
    }
  }
  error_at(loc, base.describe() + " has no attribute '" + name + "'");
}

LValue Lowerer::dtype_method(const std::string& method, const ConstValue& dtype, const Loc& loc) {
  ScalarKind k = dtype.dtype;
  bool ptr = dtype.pointer;
  bool scalar = !ptr;
  std::string name = ir::scalar_name(k);
  bool result;
  if (method == "is_floating") result = scalar && ir::is_float(k);
  else if (method == "is_int") result = scalar && ir::is_integer(k);
  else if (method == "is_int_signed") result = scalar && ir::is_signed(k);
  else if (method == "is_int_unsigned") result = scalar && ir::is_integer(k) && !ir::is_signed(k);
  else if (method == "is_bool") result = scalar && k == ScalarKind::I1;
  else if (method == "is_ptr") result = ptr;
  else if (method == "is_block") result = false;
  else if (method == "is_fp8") result = scalar && ir::is_fp8(k);
  else if (method == "is_standard_floating") {
    result = scalar && ir::is_float(k) && !ir::is_fp8(k);
  } else if (method.rfind("is_", 0) == 0) {
    // is_fp16, is_bf16, is_fp32, is_fp8e4nv, ..., is_int8, is_uint32: by the type's name.
    std::string which = method.substr(3);
    bool known = false;
    for (int i = 0; i < ir::kNumScalarKinds; ++i) {
      auto kind = static_cast<ScalarKind>(i);
      const std::string long_name = ir::scalar_long_name(kind);
      if (which == ir::scalar_name(kind) || which == long_name) known = true;
    }
    if (!known) error_at(loc, "dtype has no method '" + method + "'");
    result = scalar && (which == name || which == ir::scalar_long_name(k));
  } else if (method == "kind") {
    error_at(loc, "dtype.kind() is not available in kernels; use is_floating() or is_int()");
  } else {
    error_at(loc, "dtype has no method '" + method + "'");
  }
  return LValue::constant(ConstValue::boolean(result));
}

LValue Lowerer::eval_subscript(const ast::Expr& expr) {
  LValue base = eval(*expr.lhs);
  const Loc& loc = expr.loc;
  if (base.kind == LValue::Kind::Tuple) {
    if (expr.items.size() != 1) error_at(loc, "a tuple takes one index");
    if (expr.items[0]->kind == ast::ExprKind::Slice) {
      // t[a:b:c] with compile-time bounds, as Python slices (Triton's tuples slice so:
      // triton.tools.ragged_tma's `coords[:ragged_dim] + [row] + coords[ragged_dim + 1:]`)
      const ast::Expr& slice = *expr.items[0];
      auto bound = [&](const ast::ExprPtr& part, const char* what) -> std::optional<__int128> {
        if (!part) return std::nullopt;
        LValue v = eval(*part);
        if (v.is_none()) return std::nullopt;
        if (!v.is_const() || (v.c.kind != ConstValue::Kind::Int && v.c.kind != ConstValue::Kind::Bool)) {
          error_at(part->loc, std::string("a tuple slice's ") + what + " must be a compile-time integer");
        }
        return v.c.kind == ConstValue::Kind::Bool ? __int128{v.c.b} : v.c.i;
      };
      const __int128 n = static_cast<__int128>(base.items.size());
      const __int128 step = bound(slice.third, "step").value_or(1);
      if (step == 0) error_at(slice.third->loc, "slice step cannot be zero");
      auto clamp = [&](std::optional<__int128> b, __int128 if_absent) {
        if (!b) return if_absent;
        __int128 i = *b < 0 ? *b + n : *b;
        if (step > 0) return std::min(std::max(i, __int128{0}), n);
        return std::min(std::max(i, __int128{-1}), n - 1);
      };
      const __int128 start = clamp(bound(slice.lhs, "start"), step > 0 ? 0 : n - 1);
      const __int128 stop = clamp(bound(slice.rhs, "stop"), step > 0 ? n : -1);
      std::vector<LValue> picked;
      for (__int128 i = start; step > 0 ? i < stop : i > stop; i += step) {
        picked.push_back(base.items[static_cast<size_t>(i)]);
      }
      return LValue::tuple(std::move(picked), base.is_list);
    }
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
  // As Triton's tensor.__getitem__: each `None` at position i inserts an axis of size one at
  // i (in order, on the block grown so far); a `:` keeps whatever axis is there and is not
  // counted against the rank (a scalar pointer indexed `p[None, None, :]` is a 1x1 block,
  // a scalar `s[:, None]` a block of one).
  std::vector<int> new_axes;
  for (size_t i = 0; i < expr.items.size(); ++i) {
    const ast::Expr& item = *expr.items[i];
    if (item.kind == ast::ExprKind::None) {
      new_axes.push_back(static_cast<int>(i));
      continue;
    }
    if (item.kind == ast::ExprKind::Slice && !item.lhs && !item.rhs && !item.third) continue;
    error_at(item.loc, "unsupported tensor index: only `:` and `None` are allowed");
  }
  for (int axis : new_axes) {
    std::vector<int64_t> grown = v->type()->shape();
    // A scalar becomes a block of one element whatever the position (Triton splats it to
    // [1]): FlagGems' paged attention writes `max_index[:, None]` of a scalar.
    if (grown.empty()) axis = 0;
    if (axis > static_cast<int>(grown.size())) {
      error_at(loc, "invalid axis " + std::to_string(axis) + " for None in the index: the block has rank " +
                        std::to_string(grown.size()) + " there");
    }
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
  LValue then_value = eval(*expr.lhs);
  builder_.set_region(else_region);
  LValue else_value = eval(*expr.third);
  auto is_none = [](const LValue& v) { return v.is_const() && v.c.kind == ConstValue::Kind::None; };
  if (is_none(then_value) && is_none(else_value)) {
    // `f(a) if c else g(b)` as a statement, both calls returning nothing (Triton's
    // "if_exp_dynamic_void"): an if with no results.
    builder_.set_region(then_region);
    builder_.create(ir::OpKind::Yield, {}, {}, expr.loc);
    builder_.set_region(else_region);
    builder_.create(ir::OpKind::Yield, {}, {}, expr.loc);
    builder_.set_region(outer);
    return LValue::constant(ConstValue::none());
  }
  if (is_compound(then_value) || is_compound(else_value)) {
    // Tuples and block pointers merge leaf by leaf, as the names of an `if` statement do.
    LValue merged = then_value;
    std::vector<Value*> then_yields, else_yields;
    std::vector<std::pair<LValue*, size_t>> fixups;
    merge_into(merged, "the value of the ternary", nullptr, then_value, else_value, &then_yields, &else_yields,
               &fixups, expr.loc);
    builder_.set_region(then_region);
    builder_.create(ir::OpKind::Yield, {}, then_yields, expr.loc);
    builder_.set_region(else_region);
    builder_.create(ir::OpKind::Yield, {}, else_yields, expr.loc);
    builder_.set_region(outer);
    for (size_t i = 0; i < then_yields.size(); ++i) {
      Value* r = op->add_result(then_yields[i]->type());
      if (is_const_pointer(then_yields[i]) && is_const_pointer(else_yields[i])) mark_const_pointer(r);
    }
    for (auto& [dest, index] : fixups) *dest = LValue::tensor(op->result(static_cast<int>(index)));
    return merged;
  }
  builder_.set_region(then_region);
  Value* a = to_tensor(then_value, expr.lhs->loc);
  builder_.set_region(else_region);
  Value* b = to_tensor(else_value, expr.third->loc);
  if (a->type() != b->type()) {
    error_at(expr.loc, "the two values of the ternary have different types: " + a->type()->str() + " and " + b->type()->str());
  }
  if (is_const_pointer(a) != is_const_pointer(b)) {
    error_at(expr.loc, "Ternary expression with dynamic condition has inconsistent type: a pointer to constant "
                       "data (tl.const) in one branch, a plain pointer in the other");
  }
  builder_.set_region(then_region);
  builder_.create(ir::OpKind::Yield, {}, {a}, expr.loc);
  builder_.set_region(else_region);
  builder_.create(ir::OpKind::Yield, {}, {b}, expr.loc);
  builder_.set_region(outer);
  Value* result = op->add_result(a->type());
  if (is_const_pointer(a)) mark_const_pointer(result);
  return LValue::tensor(result);
}

LValue Lowerer::eval_call(const ast::Expr& expr) {
  LValue callee = eval(*expr.lhs);
  std::vector<LValue> args;
  for (const auto& arg : expr.items) {
    if (arg->kind != ast::ExprKind::Starred) {
      args.push_back(eval(*arg));
      continue;
    }
    LValue spread = eval(*arg->lhs);  // f(a, *t): t's items are positional arguments
    if (spread.kind != LValue::Kind::Tuple) error_at(arg->loc, "a star argument (*x) in a kernel must be a tuple, got " + spread.describe());
    args.insert(args.end(), spread.items.begin(), spread.items.end());
  }
  std::vector<std::pair<std::string, LValue>> kwargs;
  for (const auto& kw : expr.keywords) kwargs.emplace_back(kw.name, eval(*kw.value));
  if (callee.kind == LValue::Kind::Function) {
    return inline_call(*callee.function, std::move(args), std::move(kwargs), expr.loc);
  }
  if (callee.kind == LValue::Kind::Builtin && callee.fields && callee.name.rfind("namedtuple.", 0) == 0) {
    return make_named_tuple(callee, std::move(args), std::move(kwargs), expr.loc);
  }
  if (callee.kind == LValue::Kind::Builtin) {
    return call_builtin(callee, std::move(args), std::move(kwargs), expr.loc);
  }
  error_at(expr.loc, callee.describe() + " is not callable in a kernel");
}

// `Point(x, y=v)` with Point a NamedTuple class the kernel reads as a global: its fields
// bound as Python binds them (positional, then by name, then the class's defaults, which
// `type.items` holds for the last fields).
LValue Lowerer::make_named_tuple(const LValue& type, std::vector<LValue> args,
                                 std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc) {
  const std::vector<std::string>& fields = *type.fields;
  const std::string name = type.name.substr(std::string("namedtuple.").size());
  if (args.size() > fields.size()) {
    error_at(loc, name + "() takes " + std::to_string(fields.size()) + " positional arguments but " +
                      std::to_string(args.size()) + " were given");
  }
  std::vector<LValue> items(fields.size());
  std::vector<bool> given(fields.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    items[i] = std::move(args[i]);
    given[i] = true;
  }
  for (auto& [key, value] : kwargs) {
    auto it = std::find(fields.begin(), fields.end(), key);
    if (it == fields.end()) error_at(loc, name + "() got an unexpected keyword argument '" + key + "'");
    size_t i = static_cast<size_t>(it - fields.begin());
    if (given[i]) error_at(loc, name + "() got multiple values for argument '" + key + "'");
    items[i] = std::move(value);
    given[i] = true;
  }
  const size_t first_default = fields.size() - std::min(fields.size(), type.items.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (given[i]) continue;
    if (i >= first_default) {
      items[i] = type.items[i - first_default];
      continue;
    }
    error_at(loc, name + "() missing required argument '" + fields[i] + "'");
  }
  LValue tuple = LValue::tuple(std::move(items));
  name_tuple(tuple, name, fields);
  return tuple;
}

}  // namespace tritium::lower

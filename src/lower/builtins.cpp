// The tl.* builtins, tensor methods (x.to, x.reshape, ...) and the few Python builtins
// kernels may call. Each checks its arguments the way Triton does and expands to IR.
#include <algorithm>
#include <set>

#include "lower/block_shape.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// Binds call arguments to a builtin's parameter list ("name" required, "name=" optional).
class BuiltinArgs {
 public:
  BuiltinArgs(const std::string& fn, std::vector<LValue> args, std::vector<std::pair<std::string, LValue>> kwargs,
              std::vector<std::string> params, const Loc& loc)
      : fn_(fn), loc_(loc) {
    std::vector<bool> required;
    for (std::string& p : params) {
      bool optional = !p.empty() && p.back() == '=';
      if (optional) p.pop_back();
      names_.push_back(p);
      required.push_back(!optional);
    }
    values_.resize(names_.size());
    present_.assign(names_.size(), false);
    if (args.size() > names_.size()) {
      error_at(loc, fn + "() takes at most " + std::to_string(names_.size()) + " arguments but " +
                        std::to_string(args.size()) + " were given");
    }
    for (size_t i = 0; i < args.size(); ++i) {
      values_[i] = std::move(args[i]);
      present_[i] = true;
    }
    for (auto& [name, value] : kwargs) {
      auto it = std::find(names_.begin(), names_.end(), name);
      if (it == names_.end()) error_at(loc, fn + "() got an unexpected keyword argument '" + name + "'");
      size_t i = static_cast<size_t>(it - names_.begin());
      if (present_[i]) error_at(loc, fn + "() got multiple values for argument '" + name + "'");
      values_[i] = std::move(value);
      present_[i] = true;
    }
    for (size_t i = 0; i < names_.size(); ++i) {
      if (required[i] && !present_[i]) error_at(loc, fn + "() missing required argument '" + names_[i] + "'");
      // An explicit None counts as absent, as in Triton's signatures.
      if (present_[i] && values_[i].is_none()) present_[i] = false;
    }
  }

  bool has(const std::string& name) const { return present_[index(name)]; }
  const LValue& get(const std::string& name) const { return values_[index(name)]; }

  __int128 const_int(const std::string& name) const {
    const LValue& v = get(name);
    if (!v.is_const() || (v.c.kind != ConstValue::Kind::Int && v.c.kind != ConstValue::Kind::Bool)) {
      error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a tl.constexpr integer, got " + v.describe() +
                         " (a name assigned from a literal is a runtime value; declare it as `NAME: tl.constexpr = ...`)");
    }
    return v.c.kind == ConstValue::Kind::Bool ? (v.c.b ? 1 : 0) : v.c.i;
  }

  std::string const_str(const std::string& name, const std::string& fallback) const {
    if (!has(name)) return fallback;
    const LValue& v = get(name);
    if (!v.is_const() || v.c.kind != ConstValue::Kind::Str) {
      error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a string, got " + v.describe());
    }
    return v.c.s;
  }

  ScalarKind dtype(const std::string& name) const {
    const LValue& v = get(name);
    if (!v.is_const() || v.c.kind != ConstValue::Kind::DType) {
      error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a dtype such as tl.float32, got " + v.describe());
    }
    return v.c.dtype;
  }

  // A shape: one compile-time int, or a tuple/list of them.
  std::vector<int64_t> shape(const std::string& name) const {
    const LValue& v = get(name);
    std::vector<int64_t> dims;
    auto take = [&](const LValue& d) {
      if (!d.is_const() || d.c.kind != ConstValue::Kind::Int) {
        error_at(loc_, "the shape given to " + fn_ + "() must hold tl.constexpr integers, got " + d.describe());
      }
      if (d.c.i < 0 || d.c.i > (1 << 20)) error_at(loc_, "shape dimension " + int128_to_string(d.c.i) + " is out of range");
      dims.push_back(static_cast<int64_t>(d.c.i));
    };
    if (v.kind == LValue::Kind::Tuple) {
      for (const LValue& d : v.items) take(d);
    } else {
      take(v);
    }
    return dims;
  }

 private:
  size_t index(const std::string& name) const {
    return static_cast<size_t>(std::find(names_.begin(), names_.end(), name) - names_.begin());
  }

  std::string fn_;
  Loc loc_;
  std::vector<std::string> names_;
  std::vector<LValue> values_;
  std::vector<bool> present_;
};

const std::set<std::string>& language_builtins() {
  static const std::set<std::string> names = {
      "program_id", "num_programs", "arange", "zeros", "zeros_like", "full", "load", "store", "where",
      "minimum", "maximum", "cdiv", "cast", "reshape", "view", "expand_dims", "broadcast_to", "broadcast",
      "multiple_of", "max_contiguous", "max_constancy", "static_assert", "static_print", "static_range", "range",
      "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg",
      "atomic_cas", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "abs", "floor", "ceil",
      "sigmoid", "fma", "device_print", "debug_barrier", "constexpr", "sum", "max", "min", "argmax", "argmin",
      "reduce", "dot", "trans", "permute", "cumsum", "associative_scan", "rand", "randn", "make_block_ptr",
      "advance", "join", "split", "cat", "device_assert", "clamp", "umulhi", "div_rn", "sqrt_rn", "fdiv"};
  return names;
}

const std::set<std::string>& unsupported_builtins() {
  static const std::set<std::string> names = {"sum", "max", "min", "argmax", "argmin", "reduce", "dot", "trans",
                                              "permute", "cumsum", "associative_scan", "rand", "randn",
                                              "make_block_ptr", "advance", "join", "split", "cat",
                                              "clamp", "umulhi", "div_rn", "sqrt_rn", "fdiv"};
  return names;
}

ir::OpKind math_op(const std::string& name) {
  if (name == "exp") return ir::OpKind::Exp;
  if (name == "exp2") return ir::OpKind::Exp2;
  if (name == "log") return ir::OpKind::Log;
  if (name == "log2") return ir::OpKind::Log2;
  if (name == "sqrt") return ir::OpKind::Sqrt;
  if (name == "rsqrt") return ir::OpKind::Rsqrt;
  if (name == "sin") return ir::OpKind::Sin;
  if (name == "cos") return ir::OpKind::Cos;
  if (name == "floor") return ir::OpKind::Floor;
  if (name == "ceil") return ir::OpKind::Ceil;
  return ir::OpKind::Abs;
}

bool is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

bool dtype_from_name(const std::string& name, ScalarKind* out) {
  static const std::pair<const char*, ScalarKind> table[] = {
      {"int1", ScalarKind::I1},     {"int8", ScalarKind::I8},       {"int16", ScalarKind::I16},
      {"int32", ScalarKind::I32},   {"int64", ScalarKind::I64},     {"uint8", ScalarKind::U8},
      {"uint16", ScalarKind::U16},  {"uint32", ScalarKind::U32},    {"uint64", ScalarKind::U64},
      {"float16", ScalarKind::F16}, {"bfloat16", ScalarKind::BF16}, {"float32", ScalarKind::F32},
      {"float64", ScalarKind::F64}};
  for (const auto& [n, k] : table) {
    if (name == n) {
      *out = k;
      return true;
    }
  }
  return false;
}

bool Lowerer::module_attribute(const std::string& module, const std::string& name, LValue* out) {
  if (module == "triton") {
    if (name == "language") { *out = LValue::module("triton.language"); return true; }
    if (name == "jit" || name == "cdiv" || name == "next_power_of_2") { *out = LValue::builtin("triton." + name); return true; }
    return false;
  }
  if (module == "triton.language" || module == "triton.language.math" || module == "triton.language.core" ||
      module == "triton.language.standard") {
    ScalarKind k;
    if (dtype_from_name(name, &k)) { *out = LValue::constant(ConstValue::type(k)); return true; }
    if (name == "math" || name == "core" || name == "standard") { *out = LValue::module("triton.language." + name); return true; }
    if (language_builtins().count(name)) { *out = LValue::builtin("tl." + name); return true; }
    return false;
  }
  return false;
}

LValue Lowerer::call_builtin(const LValue& callee, std::vector<LValue> args,
                             std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc) {
  std::string name = callee.name;
  // Methods take their object as the first argument.
  if (name.rfind("method.", 0) == 0) {
    std::string method = name.substr(7);
    args.insert(args.begin(), callee.items[0]);
    if (method == "to") {
      BuiltinArgs a("to", std::move(args), std::move(kwargs), {"input", "dtype", "fp_downcast_rounding=", "bitcast="}, loc);
      bool bit = a.has("bitcast") && const_truth(a.get("bitcast"), loc);
      return LValue::tensor(cast(to_tensor(a.get("input"), loc), Type::scalar(a.dtype("dtype")), loc, bit));
    }
    static const std::set<std::string> forwarded = {"reshape", "view", "expand_dims", "broadcast_to", "to"};
    if (forwarded.count(method)) name = "tl." + method;
    else if (language_builtins().count(method)) name = "tl." + method;
    else error_at(loc, "tensors have no method '" + method + "' that kernels can use");
  }
  if (name == "dtype.is_floating") return LValue::constant(ConstValue::boolean(ir::is_float(callee.items[0].c.dtype)));
  if (name.rfind("py.", 0) == 0) {
    std::string fn = name.substr(3);
    if (fn == "range") error_at(loc, "range() can only be used as the iterable of a for loop");
    if (fn == "print") return LValue::constant(ConstValue::none());
    if (fn == "min" || fn == "max") {
      if (args.size() < 2 || !kwargs.empty()) error_at(loc, fn + "() in a kernel takes two or more positional arguments");
      LValue acc = args[0];
      for (size_t i = 1; i < args.size(); ++i) {
        const LValue& b = args[i];
        if (acc.is_const() && b.is_const()) {
          bool less = const_compare(ast::CompareOp::Lt, b.c, acc.c, loc).b;
          bool take_b = fn == "min" ? less : const_compare(ast::CompareOp::Gt, b.c, acc.c, loc).b;
          if (take_b) acc = b;
        } else {
          acc = LValue::tensor(min_max(fn == "min" ? ir::OpKind::Minimum : ir::OpKind::Maximum, acc, b, loc));
        }
      }
      return acc;
    }
    if (args.size() != 1 || !kwargs.empty()) error_at(loc, fn + "() takes exactly one argument here");
    const LValue& x = args[0];
    if (fn == "len") {
      if (x.kind == LValue::Kind::Tuple) return LValue::constant(ConstValue::integer(static_cast<__int128>(x.items.size())));
      if (x.is_tensor() && x.value->type()->is_block()) return LValue::constant(ConstValue::integer(x.value->type()->shape()[0]));
      error_at(loc, "len() of " + x.describe() + " is not defined");
    }
    if (fn == "abs" && x.is_tensor()) {
      name = "tl.abs";
    } else {
      if (!x.is_const()) error_at(loc, fn + "() of a tensor is not supported; use .to(dtype)");
      const ConstValue& c = x.c;
      if (fn == "abs") return LValue::constant(c.kind == ConstValue::Kind::Float ? ConstValue::floating(std::abs(c.f)) : ConstValue::integer(c.i < 0 ? -c.i : c.i));
      if (fn == "int") {
        if (c.kind == ConstValue::Kind::Float) return LValue::constant(ConstValue::integer(static_cast<__int128>(c.f)));
        if (c.kind == ConstValue::Kind::Bool) return LValue::constant(ConstValue::integer(c.b ? 1 : 0));
        if (c.kind == ConstValue::Kind::Int) return x;
      }
      if (fn == "float") {
        if (c.kind == ConstValue::Kind::Int) return LValue::constant(ConstValue::floating(static_cast<double>(c.i)));
        if (c.kind == ConstValue::Kind::Float) return x;
        if (c.kind == ConstValue::Kind::Bool) return LValue::constant(ConstValue::floating(c.b ? 1 : 0));
      }
      if (fn == "bool") return LValue::constant(ConstValue::boolean(const_truth(x, loc)));
      error_at(loc, fn + "() is not supported on " + x.describe());
    }
  }
  if (name == "triton.jit") error_at(loc, "@jit cannot be called inside a kernel");
  if (name == "triton.cdiv") name = "tl.cdiv";
  if (name == "triton.next_power_of_2") {
    BuiltinArgs a("next_power_of_2", std::move(args), std::move(kwargs), {"n"}, loc);
    __int128 n = a.const_int("n"), p = 1;
    while (p < n) p <<= 1;
    return LValue::constant(ConstValue::integer(p));
  }
  if (name.rfind("tl.", 0) != 0) internal_error("lower", "unknown builtin " + name, loc);
  std::string fn = name.substr(3);
  if (unsupported_builtins().count(fn)) {
    error_at(loc, "tl." + fn + " is not supported by tritium yet");
  }

  if (fn == "constexpr") {
    if (args.size() != 1) error_at(loc, "tl.constexpr() takes one value");
    if (args[0].is_tensor()) error_at(loc, "tl.constexpr() needs a compile-time value");
    return args[0];
  }
  if (fn == "program_id" || fn == "num_programs") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"axis"}, loc);
    __int128 axis = a.const_int("axis");
    if (axis < 0 || axis > 2) error_at(loc, "program_id axis must be 0, 1 or 2, got " + int128_to_string(axis));
    ir::Op* op = builder_.create(fn == "program_id" ? ir::OpKind::ProgramId : ir::OpKind::NumPrograms,
                                 {Type::scalar(ScalarKind::I32)}, {}, loc);
    op->set_attr("axis", static_cast<int64_t>(axis));
    return LValue::tensor(op->result());
  }
  if (fn == "arange") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"start", "end"}, loc);
    __int128 start = a.const_int("start"), end = a.const_int("end");
    if (start < 0 || (start >> 32) != 0 || (end >> 32) != 0) error_at(loc, "tl.arange bounds must fit in 32 bits and start must not be negative");
    if (end <= start) error_at(loc, "tl.arange needs end > start, got arange(" + int128_to_string(start) + ", " + int128_to_string(end) + ")");
    __int128 n = end - start;
    if (n > (1 << 20)) error_at(loc, "tl.arange of " + int128_to_string(n) + " elements exceeds the block limit of 1048576");
    if (!is_power_of_two(static_cast<int64_t>(n))) error_at(loc, "tl.arange's range must be a power of two, got " + int128_to_string(n));
    ir::Op* op = builder_.create(ir::OpKind::MakeRange, {Type::block(Type::scalar(ScalarKind::I32), {static_cast<int64_t>(n)})}, {}, loc);
    op->set_attr("start", static_cast<int64_t>(start));
    op->set_attr("end", static_cast<int64_t>(end));
    return LValue::tensor(op->result());
  }
  if (fn == "zeros" || fn == "full" || fn == "zeros_like") {
    std::vector<int64_t> shape;
    ScalarKind kind;
    LValue value = LValue::constant(ConstValue::integer(0));
    if (fn == "zeros_like") {
      BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "dtype="}, loc);
      Value* x = to_tensor(a.get("input"), loc);
      shape = x->type()->shape();
      if (x->type()->is_ptr()) error_at(loc, "zeros_like of a pointer tensor is not supported");
      kind = a.has("dtype") ? a.dtype("dtype") : x->type()->element()->scalar_kind();
    } else if (fn == "zeros") {
      BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"shape", "dtype"}, loc);
      shape = a.shape("shape");
      kind = a.dtype("dtype");
    } else {
      BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"shape", "value", "dtype"}, loc);
      shape = a.shape("shape");
      kind = a.dtype("dtype");
      value = a.get("value");
    }
    check_block_shape(shape, loc);
    Value* scalar = value.is_const() ? constant(kind, value.c, loc) : cast(to_tensor(value, loc), kind, loc);
    if (scalar->type()->is_block()) error_at(loc, "the value of tl.full must be a scalar");
    if (shape.empty()) return LValue::tensor(scalar);
    return LValue::tensor(broadcast_to(scalar, shape, loc));
  }
  if (fn == "load") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs),
                  {"pointer", "mask=", "other=", "boundary_check=", "padding_option=", "cache_modifier=",
                   "eviction_policy=", "volatile="}, loc);
    Value* ptr = to_tensor(a.get("pointer"), loc);
    if (!ptr->type()->is_ptr()) error_at(loc, "tl.load needs a pointer or a block of pointers, got " + ptr->type()->str());
    std::string cache = a.const_str("cache_modifier", "");
    if (cache != "" && cache != ".ca" && cache != ".cg" && cache != ".cv") error_at(loc, "unknown cache modifier '" + cache + "'");
    std::string eviction = a.const_str("eviction_policy", "");
    if (eviction != "" && eviction != "evict_first" && eviction != "evict_last") error_at(loc, "unknown eviction policy '" + eviction + "'");
    if (a.has("other") && !a.has("mask")) error_at(loc, "`other` cannot be given to tl.load without `mask`");
    const Type* pointee = ptr->type()->element()->pointee();
    bool is_bool = pointee->scalar_kind() == ScalarKind::I1;
    if (is_bool) {  // memory holds bools as bytes
      pointee = Type::scalar(ScalarKind::I8);
      ptr = cast(ptr, Type::pointer(pointee), loc);
    }
    std::vector<Value*> operands = {ptr};
    if (a.has("mask")) {
      Value* mask = to_tensor(a.get("mask"), loc);
      if (!mask->type()->is_bool()) error_at(loc, "the mask of tl.load must be boolean (int1), got " + mask->type()->str());
      if (!ptr->type()->is_block() && mask->type()->is_block()) error_at(loc, "the mask cannot be a block when the pointer is a scalar");
      operands.push_back(broadcast_to(mask, ptr->type()->shape(), loc));
      if (a.has("other")) {
        const LValue& o = a.get("other");
        Value* other = o.is_const() ? constant(pointee->scalar_kind(), o.c, loc) : cast(to_tensor(o, loc), pointee, loc);
        if (!ptr->type()->is_block() && other->type()->is_block()) error_at(loc, "`other` cannot be a block when the pointer is a scalar");
        operands.push_back(broadcast_to(other, ptr->type()->shape(), loc));
      }
    }
    ir::Op* op = builder_.create(ir::OpKind::Load, {ptr->type()->with_element(pointee)}, operands, loc);
    if (!cache.empty()) op->set_attr("cache_modifier", cache);
    if (!eviction.empty()) op->set_attr("eviction_policy", eviction);
    if (a.has("volatile") && const_truth(a.get("volatile"), loc)) op->set_attr("volatile", int64_t{1});
    Value* result = op->result();
    if (is_bool) result = cast(result, ScalarKind::I1, loc);
    return LValue::tensor(result);
  }
  if (fn == "store") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs),
                  {"pointer", "value", "mask=", "boundary_check=", "cache_modifier=", "eviction_policy="}, loc);
    Value* ptr = to_tensor(a.get("pointer"), loc);
    if (!ptr->type()->is_ptr()) error_at(loc, "tl.store needs a pointer or a block of pointers, got " + ptr->type()->str());
    std::string cache = a.const_str("cache_modifier", "");
    if (cache != "" && cache != ".wb" && cache != ".cg" && cache != ".cs" && cache != ".wt") error_at(loc, "unknown cache modifier '" + cache + "'");
    std::string eviction = a.const_str("eviction_policy", "");
    if (eviction != "" && eviction != "evict_first" && eviction != "evict_last") error_at(loc, "unknown eviction policy '" + eviction + "'");
    const Type* pointee = ptr->type()->element()->pointee();
    if (pointee->scalar_kind() == ScalarKind::I1) {
      pointee = Type::scalar(ScalarKind::I8);
      ptr = cast(ptr, Type::pointer(pointee), loc);
    }
    const LValue& v = a.get("value");
    Value* value = v.is_const() ? constant(pointee->scalar_kind(), v.c, loc) : to_tensor(v, loc);
    if (!ptr->type()->is_block() && value->type()->is_block()) error_at(loc, "the value stored through a scalar pointer cannot be a block");
    value = broadcast_to(cast(value, pointee, loc), ptr->type()->shape(), loc);
    std::vector<Value*> operands = {ptr, value};
    if (a.has("mask")) {
      Value* mask = to_tensor(a.get("mask"), loc);
      if (!mask->type()->is_bool()) error_at(loc, "the mask of tl.store must be boolean (int1), got " + mask->type()->str());
      if (!ptr->type()->is_block() && mask->type()->is_block()) error_at(loc, "the mask cannot be a block when the pointer is a scalar");
      operands.push_back(broadcast_to(mask, ptr->type()->shape(), loc));
    }
    ir::Op* op = builder_.create(ir::OpKind::Store, {}, operands, loc);
    if (!cache.empty()) op->set_attr("cache_modifier", cache);
    if (!eviction.empty()) op->set_attr("eviction_policy", eviction);
    return LValue::constant(ConstValue::none());
  }
  if (fn == "where") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"condition", "x", "y"}, loc);
    return LValue::tensor(where(a.get("condition"), a.get("x"), a.get("y"), loc));
  }
  if (fn == "minimum" || fn == "maximum") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"x", "y", "propagate_nan="}, loc);
    if (a.get("x").is_const() && a.get("y").is_const()) {
      bool less = const_compare(ast::CompareOp::Lt, a.get("y").c, a.get("x").c, loc).b;
      bool greater = const_compare(ast::CompareOp::Gt, a.get("y").c, a.get("x").c, loc).b;
      return (fn == "minimum" ? less : greater) ? a.get("y") : a.get("x");
    }
    return LValue::tensor(min_max(fn == "minimum" ? ir::OpKind::Minimum : ir::OpKind::Maximum, a.get("x"), a.get("y"), loc));
  }
  if (fn == "cdiv") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"x", "div"}, loc);
    LValue one = LValue::constant(ConstValue::integer(1));
    LValue sum = binary(ast::BinaryOp::Sub, binary(ast::BinaryOp::Add, a.get("x"), a.get("div"), loc), one, loc);
    return binary(ast::BinaryOp::FloorDiv, sum, a.get("div"), loc);
  }
  if (fn == "cast") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "dtype", "fp_downcast_rounding=", "bitcast="}, loc);
    bool bit = a.has("bitcast") && const_truth(a.get("bitcast"), loc);
    return LValue::tensor(cast(to_tensor(a.get("input"), loc), Type::scalar(a.dtype("dtype")), loc, bit));
  }
  if (fn == "reshape" || fn == "view" || fn == "broadcast_to") {
    // Shapes come as a tuple or as separate ints: reshape(x, (4, 8)) or reshape(x, 4, 8).
    if (args.size() > 2 || (args.size() == 2 && args[1].kind != LValue::Kind::Tuple)) {
      std::vector<LValue> dims(args.begin() + 1, args.end());
      args.resize(1);
      args.push_back(LValue::tuple(std::move(dims)));
    }
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "shape", "can_reorder="}, loc);
    Value* x = to_tensor(a.get("input"), loc);
    std::vector<int64_t> shape = a.shape("shape");
    if (fn == "broadcast_to") return LValue::tensor(broadcast_to(x, shape, loc));
    int64_t numel = check_block_shape(shape, loc);
    int64_t have = x->type()->is_block() ? x->type()->num_elements() : 1;
    if (numel != have) {
      error_at(loc, "cannot reshape " + x->type()->str() + " (" + std::to_string(have) + " elements) to " +
                        std::to_string(numel) + " elements");
    }
    if (x->type()->shape() == shape) return LValue::tensor(x);
    if (!x->type()->is_block()) return LValue::tensor(broadcast_to(x, shape, loc));
    return LValue::tensor(emit(ir::OpKind::Reshape, Type::block(x->type()->element(), shape), {x}, loc));
  }
  if (fn == "expand_dims") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "axis"}, loc);
    Value* x = to_tensor(a.get("input"), loc);
    std::vector<int64_t> axes;
    const LValue& ax = a.get("axis");
    if (ax.kind == LValue::Kind::Tuple) {
      for (const LValue& i : ax.items) axes.push_back(i.is_const() ? static_cast<int64_t>(i.c.i) : 0);
    } else {
      axes.push_back(static_cast<int64_t>(a.const_int("axis")));
    }
    int new_rank = x->type()->rank() + static_cast<int>(axes.size());
    for (int64_t& axis : axes) {
      if (axis < 0) axis += new_rank;
      if (axis < 0 || axis >= new_rank) error_at(loc, "expand_dims axis is out of range for the result rank " + std::to_string(new_rank));
    }
    std::sort(axes.begin(), axes.end());
    for (int64_t axis : axes) {
      std::vector<int64_t> shape = x->type()->shape();
      shape.insert(shape.begin() + axis, 1);
      ir::Op* op = builder_.create(ir::OpKind::ExpandDims, {Type::block(x->type()->element(), shape)}, {x}, loc);
      op->set_attr("axis", axis);
      x = op->result();
    }
    return LValue::tensor(x);
  }
  if (fn == "broadcast") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "other"}, loc);
    auto [x, y] = broadcast(to_tensor(a.get("input"), loc), to_tensor(a.get("other"), loc), loc);
    return LValue::tuple({LValue::tensor(x), LValue::tensor(y)});
  }
  if (fn == "multiple_of" || fn == "max_contiguous" || fn == "max_constancy") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"input", "values"}, loc);
    const LValue& input = a.get("input");
    if (!input.is_tensor()) error_at(loc, "tl." + fn + " needs a tensor");
    std::vector<int64_t> values = a.shape("values");
    int rank = std::max(1, input.value->type()->rank());
    if (static_cast<int>(values.size()) != rank) {
      error_at(loc, "tl." + fn + " needs one value per dimension (" + std::to_string(rank) + "), got " + std::to_string(values.size()));
    }
    for (int64_t v : values) {
      if (!is_power_of_two(v)) error_at(loc, "tl." + fn + " values must be powers of two, got " + std::to_string(v));
    }
    // Like Triton, the hint is an attribute of the op that defines the value (a function
    // argument has no defining op, and the hint is dropped).
    if (ir::Op* def = input.value->def()) {
      const char* attr = fn == "multiple_of" ? "hint_divisibility" : fn == "max_contiguous" ? "hint_contiguity" : "hint_constancy";
      def->set_attr(attr, values);
    }
    return input;
  }
  if (fn == "static_assert") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"cond", "msg="}, loc);
    const LValue& cond = a.get("cond");
    if (!cond.is_const()) error_at(loc, "tl.static_assert needs a condition known at compile time, got " + cond.describe());
    if (!const_truth(cond, loc)) {
      std::string msg = a.has("msg") && a.get("msg").is_const() ? a.get("msg").c.s : "";
      error_at(loc, "static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
    }
    return LValue::constant(ConstValue::none());
  }
  if (fn == "static_print" || fn == "device_print" || fn == "debug_barrier" || fn == "device_assert") {
    return LValue::constant(ConstValue::none());
  }
  if (fn == "static_range" || fn == "range") error_at(loc, "tl." + fn + "() can only be used as the iterable of a for loop");
  if (fn.rfind("atomic_", 0) == 0) {
    std::string kind = fn.substr(7);
    bool cas = kind == "cas";
    BuiltinArgs a(fn, std::move(args), std::move(kwargs),
                  cas ? std::vector<std::string>{"pointer", "cmp", "val", "sem=", "scope="}
                      : std::vector<std::string>{"pointer", "val", "mask=", "sem=", "scope="}, loc);
    Value* ptr = to_tensor(a.get("pointer"), loc);
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
      Value* x = v.is_const() ? constant(k, v.c, loc) : cast(to_tensor(v, loc), pointee, loc);
      if (!ptr->type()->is_block() && x->type()->is_block()) error_at(loc, "the value of an atomic on a scalar pointer cannot be a block");
      return broadcast_to(x, ptr->type()->shape(), loc);
    };
    std::vector<Value*> operands = {ptr};
    if (cas) {
      operands.push_back(operand("cmp"));
      operands.push_back(operand("val"));
    } else {
      operands.push_back(operand("val"));
      if (a.has("mask")) {
        Value* mask = to_tensor(a.get("mask"), loc);
        if (!mask->type()->is_bool()) error_at(loc, "the mask of tl." + fn + " must be boolean (int1), got " + mask->type()->str());
        if (!ptr->type()->is_block() && mask->type()->is_block()) error_at(loc, "the mask cannot be a block when the pointer is a scalar");
        operands.push_back(broadcast_to(mask, ptr->type()->shape(), loc));
      }
    }
    ir::Op* op = builder_.create(cas ? ir::OpKind::AtomicCAS : ir::OpKind::AtomicRMW, {ptr->type()->with_element(pointee)}, operands, loc);
    if (!cas) op->set_attr("kind", kind);
    op->set_attr("sem", sem);
    op->set_attr("scope", scope);
    return LValue::tensor(op->result());
  }
  if (fn == "sigmoid") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"x"}, loc);
    LValue x = a.get("x");
    LValue e = call_builtin(LValue::builtin("tl.exp"), {unary(ast::UnaryOp::Neg, x, loc)}, {}, loc);
    LValue one = LValue::constant(ConstValue::floating(1.0));
    return LValue::tensor(true_div(one, LValue::tensor(add(one, e, loc)), loc));
  }
  if (fn == "fma") {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"x", "y", "z"}, loc);
    return LValue::tensor(add(LValue::tensor(arith(ir::OpKind::Mul, a.get("x"), a.get("y"), loc)), a.get("z"), loc));
  }
  static const std::set<std::string> math = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "abs", "floor", "ceil"};
  if (math.count(fn)) {
    BuiltinArgs a(fn, std::move(args), std::move(kwargs), {"x"}, loc);
    Value* x = to_tensor(a.get("x"), loc);
    if (x->type()->is_ptr()) error_at(loc, "tl." + fn + " of a pointer is not defined");
    ScalarKind k = x->type()->element()->scalar_kind();
    if (fn == "abs") {
      if (!ir::is_signed(k) && !ir::is_float(k)) return LValue::tensor(x);  // unsigned: already non-negative
    } else if (k != ScalarKind::F32 && k != ScalarKind::F64) {
      error_at(loc, "tl." + fn + " expects fp32 or fp64, got " + std::string(ir::scalar_name(k)) + "; cast with .to(tl.float32) first");
    }
    return LValue::tensor(emit(math_op(fn), x->type(), {x}, loc));
  }
  error_at(loc, "tl." + fn + " is not supported by tritium yet");
}

}  // namespace tritium::lower

// Calls of builtins: tl.* (dispatched through the registry, builtin_registry.h), tensor
// methods (x.to, x.sum, ...), names of the `triton` module and the few Python builtins
// kernels may call.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <variant>

#include "ir/extern_math.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "lower/prelude.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

bool dtype_from_name(const std::string& name, ScalarKind* out) {
  // tl.<long name> (tl.float32, tl.float8e4nv): the rows of the one dtype table.
  for (int i = 0; i < ir::kNumScalarKinds; ++i) {
    if (name == ir::scalar_long_name(static_cast<ScalarKind>(i))) {
      *out = static_cast<ScalarKind>(i);
      return true;
    }
  }
  return false;
}

namespace {

// Python's float(str): "inf", "-Infinity", "nan", " 1e3 " ... (kernels write -float("inf")).
double float_of_string(const std::string& text, const Loc& loc) {
  std::string t;
  for (char ch : text) {
    if (!std::isspace(static_cast<unsigned char>(ch)))
      t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  double sign = 1;
  std::string body = t;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    sign = body[0] == '-' ? -1 : 1;
    body = body.substr(1);
  }
  if (body == "inf" || body == "infinity") return sign * std::numeric_limits<double>::infinity();
  if (body == "nan") return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  double value = t.empty() || t.find_first_of("x_") != std::string::npos ? 0 : std::strtod(t.c_str(), &end);
  if (end == nullptr || *end != '\0') error_at(loc, "could not convert string to float: '" + text + "'");
  return value;
}

}  // namespace

namespace {

// isinstance(x, T) with T tl.tensor, tl.tensor_descriptor (tl.core.tensor_descriptor_base),
// int, float, tl.constexpr or a tuple of them: decided at compile time, as Triton's frontend
// does. Triton unwraps a constexpr before the test, so `isinstance(BLOCK, int)` holds for a
// constexpr integer (or bool) and `isinstance(x, tl.constexpr)` never does.
LValue isinstance_of(const std::vector<LValue>& args, const std::vector<std::pair<std::string, LValue>>& kwargs,
                     const Loc& loc) {
  if (args.size() != 2 || !kwargs.empty()) error_at(loc, "isinstance() takes two positional arguments");
  const LValue& x = args[0];
  std::vector<LValue> types = args[1].kind == LValue::Kind::Tuple ? args[1].items : std::vector<LValue>{args[1]};
  bool result = false;
  for (const LValue& t : types) {
    bool python_type = t.kind == LValue::Kind::Builtin &&
                       (t.name == "py.int" || t.name == "py.float" || t.name == "tl.constexpr");
    if (t.kind != LValue::Kind::Builtin || (t.name.rfind("type.", 0) != 0 && !python_type)) {
      error_at(loc, "isinstance() in a kernel takes tl.tensor, tl.tensor_descriptor, int, float or "
                    "tl.constexpr, got " + t.describe());
    }
    if (t.name == "py.int") {
      result |= x.is_const() && (x.c.kind == ConstValue::Kind::Int || x.c.kind == ConstValue::Kind::Bool);
    } else if (t.name == "py.float") {
      result |= x.is_const() && x.c.kind == ConstValue::Kind::Float;
    } else if (t.name == "type.tensor") {
      result |= x.is_tensor();
    } else if (t.name != "tl.constexpr") {
      result |= x.kind == LValue::Kind::Aggregate && x.name == "tensor_descriptor";
    }
  }
  return LValue::constant(ConstValue::boolean(result));
}

}  // namespace

bool Lowerer::module_attribute(const std::string& module, const std::string& name, LValue* out) {
  if (module == "triton") {
    if (name == "language") { *out = LValue::module("triton.language"); return true; }
    if (name == "jit" || name == "cdiv" || name == "next_power_of_2") { *out = LValue::builtin("triton." + name); return true; }
    return false;
  }
  if (module == "triton.language" || module == "triton.language.math" || module == "triton.language.core" ||
      module == "triton.language.standard" || module == "triton.language.random") {
    ScalarKind k;
    if (dtype_from_name(name, &k)) { *out = LValue::constant(ConstValue::type(k)); return true; }
    if (name == "pi32_t") { *out = LValue::constant(ConstValue::pointer_type(ScalarKind::I32)); return true; }
    if (name == "math" || name == "core" || name == "standard" || name == "random") { *out = LValue::module("triton.language." + name); return true; }
    if (name == "extra") { *out = LValue::module("triton.language.extra"); return true; }
    // Its functions are the globals "triton.language.target_info.<name>" (tritium/jit.py).
    if (name == "target_info") { *out = LValue::module("triton.language.target_info"); return true; }
    if (name == "PropagateNan") { *out = LValue::module("triton.language.PropagateNan"); return true; }
    // Triton's plain functions of language/core.py that kernels call through tl.core.
    if (module == "triton.language.core" && name == "get_int_dtype") { *out = LValue::builtin("tl.get_int_dtype"); return true; }
    if (module == "triton.language.core" && name == "_unwrap_if_constexpr") {
      *out = LValue::builtin("tl.unwrap_if_constexpr");
      return true;
    }
    // Types kernels name in isinstance() (Triton's tutorials: a host-made descriptor or a
    // pointer to make one from).
    if (name == "tensor" || name == "tensor_descriptor" || name == "tensor_descriptor_base") {
      *out = LValue::builtin("type." + name);
      return true;
    }
    const Builtin* builtin = builtin_table().find(name);
    if ((builtin && builtin->function) || planned_builtins().count(name)) { *out = LValue::builtin("tl." + name); return true; }
    // tl.math.<libdevice function> beyond the core ones.
    if (module == "triton.language.math" && ir::find_extern_math(name)) { *out = LValue::builtin("libdevice." + name); return true; }
    return false;
  }
  if (module == "triton.language.PropagateNan") {  // Triton's enum values
    if (name == "NONE" || name == "ALL") { *out = LValue::constant(ConstValue::integer(name == "ALL" ? 0xFFFF : 0)); return true; }
    return false;
  }
  if (module == "triton.language.extra" || module == "triton.language.extra.cuda") {
    if (name == "libdevice") { *out = LValue::module(module + ".libdevice"); return true; }
    if (name == "cuda") { *out = LValue::module("triton.language.extra.cuda"); return true; }
    // Triton's own submodules of tl.extra.cuda (gdc.py, utils.py): the same names.
    if (module == "triton.language.extra.cuda" && (name == "gdc" || name == "utils")) {
      *out = LValue::module(module);
      return true;
    }
    if (name == "convert_custom_float8_sm80" || name == "convert_custom_float8_sm70") {
      *out = LValue::builtin("cuda." + name);
      return true;
    }
    // Programmatic dependent launch (Triton's tl.extra.cuda.gdc_wait / gdc_launch_dependents).
    if (name == "gdc_wait" || name == "gdc_launch_dependents") { *out = LValue::builtin("cuda." + name); return true; }
    // Triton 3.6's tl.extra.cuda utilities.
    if (name == "num_threads" || name == "num_warps" || name == "smid" || name == "globaltimer") {
      *out = LValue::builtin("cuda." + name);
      return true;
    }
    return false;
  }
  if (module == "triton.language.extra.libdevice" || module == "triton.language.extra.cuda.libdevice") {
    if (ir::find_extern_math(name)) { *out = LValue::builtin("libdevice." + name); return true; }
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
    const Builtin* builtin = builtin_table().find(method);
    if (!builtin || !builtin->method) {
      if (planned_builtins().count(method)) error_at(loc, "tl." + method + " is not supported by tritium yet");
      std::string suggestion = closest_builtin(method, /*methods=*/true);
      error_at(loc, "tensors have no method '" + method + "' that kernels can use" +
                        (suggestion.empty() ? "" : "; did you mean `." + suggestion + "`?"));
    }
    name = "tl." + method;
  }
  if (name.rfind("dtype.", 0) == 0) return dtype_method(name.substr(6), callee.items[0].c, loc);
  if (callee.host) {
    // A tl.constexpr_function: Python runs on the constant arguments now, and its result is
    // a compile-time constant (Triton unwraps the constexprs and wraps the result).
    std::string fn = name.substr(5);
    std::vector<ConstValue> values;
    std::vector<std::pair<std::string, ConstValue>> named;
    auto constant = [&](const LValue& v, const std::string& which) {
      if (callee.host_builtin && v.is_tensor() && v.value->def() && v.value->def()->kind() == ir::OpKind::Constant &&
          !v.value->type()->is_block() && v.value->type()->is_int()) {
        // Triton's frontend holds a folded scalar (an argument equal to 1) as a constexpr.
        const ir::AttrValue* attr = v.value->def()->find_attr("value");
        if (attr && std::holds_alternative<int64_t>(*attr)) return ConstValue::integer(std::get<int64_t>(*attr));
      }
      if (!v.is_const()) {
        if (callee.host_builtin) {
          error_at(loc, "the @builtin " + fn + "() runs in Python at compile time, on compile-time constants only "
                        "(tritium's frontend is C++: there are no Python tensor objects to give it); its " +
                            which + " is " + v.describe());
        }
        error_at(loc, "the constexpr_function " + fn + "() takes compile-time constants; its " + which +
                          " is " + v.describe());
      }
      return v.c;
    };
    for (size_t i = 0; i < args.size(); ++i) values.push_back(constant(args[i], "argument " + std::to_string(i + 1)));
    for (const auto& [key, v] : kwargs) named.emplace_back(key, constant(v, "argument '" + key + "'"));
    ConstValue result;
    std::shared_ptr<const GlobalBinding> function;
    std::string error;
    if (!(*callee.host)(values, named, &result, &function, &error)) error_at(loc, fn + "(): " + error);
    if (function) return binding_to_value(*function);  // a @jit function, callable in the kernel
    return LValue::constant(result);
  }
  if (name.rfind("block_type.", 0) == 0) {
    // `x.type.is_block()` and friends on a block's type (lower_expr.cpp).
    if (!args.empty() || !kwargs.empty()) error_at(loc, name.substr(11) + "() takes no arguments");
    if (name == "block_type.get_block_shapes") return callee.items[0].items[1];
    return LValue::constant(ConstValue::boolean(name == "block_type.is_block"));
  }
  if (name.rfind("libdevice.", 0) == 0) {
    if (!kwargs.empty()) error_at(loc, name.substr(10) + "() takes positional arguments only");
    return extern_math_call(*this, name.substr(10), args, loc);
  }
  if (name == "cuda.num_threads" || name == "cuda.num_warps" || name == "cuda.smid" || name == "cuda.globaltimer") {
    if (!args.empty() || !kwargs.empty()) error_at(loc, name.substr(5) + "() takes no arguments");
    // num_warps() and num_threads() are compile-time constants of the launch's num_warps.
    if (name == "cuda.num_warps") return LValue::constant(ConstValue::integer(num_warps));
    if (name == "cuda.num_threads") return LValue::constant(ConstValue::integer(int64_t{32} * num_warps));
    const bool smid = name == "cuda.smid";
    ir::Op* op = builder().create(smid ? ir::OpKind::Smid : ir::OpKind::GlobalTimer,
                                  {ir::Type::scalar(smid ? ScalarKind::I32 : ScalarKind::I64)}, {}, loc);
    return LValue::tensor(op->result());
  }
  if (name == "cuda.convert_custom_float8_sm80" || name == "cuda.convert_custom_float8_sm70") {
    // Triton's conversions to and from fp8e4b15 (the sm70 form differs only in the
    // instructions Triton uses): e4b15 up to dst_ty; fp16 down to e4b15, fp32 first to fp16
    // rounding toward zero. dst_ty is not read on the way down, as in Triton.
    std::string fn = name.substr(5);
    if (args.size() < 2 || args.size() > 3) error_at(loc, fn + "() takes (arg, dst_ty, fp_downcast_rounding=None)");
    for (const auto& [key, v] : kwargs) {
      if (key != "fp_downcast_rounding") error_at(loc, fn + "() got an unexpected keyword argument '" + key + "'");
    }
    Value* x = to_tensor(args[0], loc);
    const ScalarKind from = x->type()->element()->scalar_kind();
    if (from == ScalarKind::F8E4B15) {
      if (!args[1].is_const() || args[1].c.kind != ConstValue::Kind::DType || args[1].c.pointer) {
        error_at(loc, fn + "(): dst_ty must be a dtype, got " + args[1].describe());
      }
      return LValue::tensor(cast(x, args[1].c.dtype, loc));
    }
    if (from != ScalarKind::F16 && from != ScalarKind::F32) {
      error_at(loc, fn + "() converts fp8e4b15 to a wider float, or fp16 / fp32 to fp8e4b15; got " + x->type()->str());
    }
    if (from == ScalarKind::F32) {
      const LValue rtz = LValue::constant(ConstValue::string("rtz"));
      x = cast_rounded(x, ir::Type::scalar(ScalarKind::F16), &rtz, loc, /*bitcast=*/false);
    }
    return LValue::tensor(cast(x, ScalarKind::F8E4B15, loc));
  }
  if (name == "cuda.gdc_wait" || name == "cuda.gdc_launch_dependents") {
    if (!args.empty() || !kwargs.empty()) error_at(loc, name.substr(5) + "() takes no arguments");
    builder().create(name == "cuda.gdc_wait" ? ir::OpKind::GdcWait : ir::OpKind::GdcLaunchDependents, {}, {}, loc);
    return LValue::constant(ConstValue::none());
  }
  if (name.rfind("py.", 0) == 0) {
    std::string fn = name.substr(3);
    if (fn == "range") error_at(loc, "range() can only be used as the iterable of a for loop");
    if (fn == "print") return call_builtin(LValue::builtin("tl.device_print"), std::move(args), std::move(kwargs), loc);
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
    if (fn == "isinstance") return isinstance_of(args, kwargs, loc);
    if (fn == "getattr") {
      // getattr(obj, "name") with a compile-time string: the attribute, as `obj.name`
      // (Triton's tests pick tl functions and enum values by constexpr name). A third
      // argument is the default when the attribute is missing.
      if ((args.size() != 2 && args.size() != 3) || !kwargs.empty()) {
        error_at(loc, "getattr() takes an object, a compile-time attribute name and an optional default");
      }
      if (!args[1].is_const() || args[1].c.kind != ConstValue::Kind::Str) {
        error_at(loc, "getattr(): the attribute name must be a compile-time string, got " + args[1].describe());
      }
      if (args.size() == 3) {
        try {
          return attribute_of(args[0], args[1].c.s, loc);
        } catch (const CompileError&) {
          return args[2];
        }
      }
      return attribute_of(args[0], args[1].c.s, loc);
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
        if (c.kind == ConstValue::Kind::Str) return LValue::constant(ConstValue::floating(float_of_string(c.s, loc)));
      }
      if (fn == "bool") return LValue::constant(ConstValue::boolean(const_truth(x, loc)));
      error_at(loc, fn + "() is not supported on " + x.describe());
    }
  }
  if (name.rfind("type.", 0) == 0) {
    error_at(loc, "tl." + name.substr(5) + " is a type: kernels can use it in isinstance() only");
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
  const Builtin* builtin = builtin_table().find(fn);
  if (!builtin) {
    if (planned_builtins().count(fn)) error_at(loc, "tl." + fn + " is not supported by tritium yet");
    error_at(loc, "tl." + fn + " is not a builtin tritium knows");
  }
  if (builtin->prelude) return call_prelude(*this, fn, std::move(args), std::move(kwargs), loc);
  BuiltinArgs bound(fn, std::move(args), std::move(kwargs), builtin->params, loc);
  return builtin->handler(*this, bound, loc);
}

}  // namespace tritium::lower

// Binding a builtin call's arguments to its parameter list (builtin_args.h).
#include "lower/builtin_args.h"

#include <algorithm>

#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;

BuiltinArgs::BuiltinArgs(const std::string& fn, std::vector<LValue> args,
                         std::vector<std::pair<std::string, LValue>> kwargs, std::vector<std::string> params,
                         const Loc& loc)
    : fn_(fn), loc_(loc) {
  std::vector<bool> required;
  int variadic = -1;
  for (std::string& p : params) {
    bool optional = !p.empty() && p.back() == '=';
    if (optional) p.pop_back();
    if (!p.empty() && p[0] == '*') {
      p.erase(0, 1);
      variadic = static_cast<int>(names_.size());
      optional = true;
    }
    names_.push_back(p);
    required.push_back(!optional);
  }
  values_.resize(names_.size());
  present_.assign(names_.size(), false);
  size_t positional = variadic >= 0 ? static_cast<size_t>(variadic) : names_.size();
  if (variadic < 0 && args.size() > names_.size()) {
    error_at(loc, fn + "() takes at most " + std::to_string(names_.size()) + " arguments but " +
                      std::to_string(args.size()) + " were given");
  }
  for (size_t i = 0; i < args.size() && i < positional; ++i) {
    values_[i] = std::move(args[i]);
    present_[i] = true;
  }
  if (variadic >= 0) {
    std::vector<LValue> rest;
    for (size_t i = positional; i < args.size(); ++i) rest.push_back(std::move(args[i]));
    present_[variadic] = !rest.empty();
    values_[variadic] = LValue::tuple(std::move(rest));
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
    if (present_[i] && values_[i].is_none()) present_[i] = false;
  }
}

size_t BuiltinArgs::index(const std::string& name) const {
  return static_cast<size_t>(std::find(names_.begin(), names_.end(), name) - names_.begin());
}

__int128 BuiltinArgs::const_int(const std::string& name) const {
  const LValue& v = get(name);
  if (!v.is_const() || (v.c.kind != ConstValue::Kind::Int && v.c.kind != ConstValue::Kind::Bool)) {
    error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a tl.constexpr integer, got " + v.describe() +
                       " (a name assigned from a literal is a runtime value; declare it as `NAME: tl.constexpr = ...`)");
  }
  return v.c.kind == ConstValue::Kind::Bool ? (v.c.b ? 1 : 0) : v.c.i;
}

bool BuiltinArgs::const_bool(const std::string& name, bool fallback) const {
  if (!has(name)) return fallback;
  const LValue& v = get(name);
  if (!v.is_const()) error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a compile-time value, got " + v.describe());
  switch (v.c.kind) {
    case ConstValue::Kind::Bool: return v.c.b;
    case ConstValue::Kind::Int: return v.c.i != 0;
    default: error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a bool, got " + v.describe());
  }
}

std::string BuiltinArgs::const_str(const std::string& name, const std::string& fallback) const {
  if (!has(name)) return fallback;
  const LValue& v = get(name);
  if (!v.is_const() || v.c.kind != ConstValue::Kind::Str) {
    error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a string, got " + v.describe());
  }
  return v.c.s;
}

ScalarKind BuiltinArgs::dtype(const std::string& name) const {
  const ir::Type* element = element_type(name);
  if (element->is_pointer()) {
    error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a scalar dtype, got " + get(name).describe());
  }
  return element->scalar_kind();
}

const ir::Type* BuiltinArgs::element_type(const std::string& name) const {
  const LValue& v = get(name);
  if (!v.is_const() || v.c.kind != ConstValue::Kind::DType) {
    error_at(loc_, "argument '" + name + "' of " + fn_ + "() must be a dtype such as tl.float32, got " + v.describe());
  }
  const ir::Type* scalar = ir::Type::scalar(v.c.dtype);
  return v.c.pointer ? ir::Type::pointer(scalar) : scalar;
}

std::vector<int64_t> BuiltinArgs::shape(const std::string& name) const {
  const LValue* v = &get(name);
  if (v->kind == LValue::Kind::Tuple && v->items.size() == 1 && v->items[0].kind == LValue::Kind::Tuple) {
    v = &v->items[0];
  }
  std::vector<int64_t> dims;
  auto take = [&](const LValue& d) {
    if (!d.is_const() || d.c.kind != ConstValue::Kind::Int) {
      error_at(loc_, "the shape given to " + fn_ + "() must hold tl.constexpr integers, got " + d.describe());
    }
    if (d.c.i < 0 || d.c.i > (1 << 20)) error_at(loc_, "shape dimension " + int128_to_string(d.c.i) + " is out of range");
    dims.push_back(static_cast<int64_t>(d.c.i));
  };
  if (v->kind == LValue::Kind::Tuple) {
    for (const LValue& d : v->items) take(d);
  } else {
    take(*v);
  }
  return dims;
}

std::string dtype_text(const ir::Type* element) {
  if (element->is_pointer()) return std::string("pointer<") + dtype_text(element->pointee()) + ">";
  ir::ScalarKind k = element->scalar_kind();
  return ir::is_integer(k) ? ir::scalar_long_name(k) : ir::scalar_name(k);
}

}  // namespace tritium::lower

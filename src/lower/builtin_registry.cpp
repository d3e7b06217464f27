// The builtin table, filled once from every family.
#include "lower/builtin_registry.h"

#include "support/diagnostics.h"

namespace tritium::lower {

void BuiltinTable::add(Builtin builtin) {
  std::string name = builtin.name;
  if (!entries_.emplace(name, std::move(builtin)).second) internal_error("lower", "builtin registered twice: " + name, Loc{});
}

const Builtin* BuiltinTable::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

const BuiltinTable& builtin_table() {
  static const BuiltinTable table = [] {
    BuiltinTable t;
    register_core_builtins(t);
    register_memory_builtins(t);
    register_atomic_builtins(t);
    register_math_builtins(t);
    register_shape_builtins(t);
    register_reduce_builtins(t);
    return t;
  }();
  return table;
}

const std::set<std::string>& planned_builtins() {
  static const std::set<std::string> names = {
      "dot", "dot_scaled", "sort", "flip", "softmax",
      "rand", "randn", "randint", "randint4x", "rand4x", "make_block_ptr", "advance", "make_tensor_descriptor",
      "clamp", "umulhi", "div_rn", "sqrt_rn", "fdiv", "erf", "swizzle2d",
      "inline_asm_elementwise", "assume", "atomic_load", "atomic_store", "squeeze", "unsqueeze", "gather", "pointer_type"};
  return names;
}

}  // namespace tritium::lower

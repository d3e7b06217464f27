// The builtin table, filled once from every family.
#include "lower/builtin_registry.h"

#include <algorithm>

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
    register_sort_builtins(t);
    register_debug_builtins(t);
    register_dot_builtins(t);
    register_dot_scaled_builtins(t);
    register_block_ptr_builtins(t);
    register_libdevice_builtins(t);
    register_random_builtins(t);
    register_gather_builtins(t);
    register_inline_asm_builtins(t);
    register_prelude_builtins(t);
    return t;
  }();
  return table;
}

const std::set<std::string>& planned_builtins() {
  // None now (dot_scaled, the last, is a builtin); a name of triton.language added here is
  // a located "not supported by tritium yet" instead of an unknown name.
  static const std::set<std::string> names = {};
  return names;
}

namespace {

// Levenshtein distance (names are short).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_builtin(const std::string& name, bool methods) {
  // Close means at most a third of the name's letters differ (and at least one may): "lod"
  // finds "load", "atomic_ad" finds "atomic_add", "x" finds nothing.
  size_t best = std::max<size_t>(1, name.size() / 3) + 1;
  std::string found;
  auto consider = [&](const std::string& candidate) {
    size_t d = edit_distance(name, candidate);
    if (d < best) {
      best = d;
      found = candidate;
    }
  };
  for (const auto& [candidate, builtin] : builtin_table().entries()) {
    if (methods ? builtin.method : builtin.function) consider(candidate);
  }
  if (!methods) {
    for (const std::string& candidate : planned_builtins()) consider(candidate);
  }
  return found;
}

}  // namespace tritium::lower

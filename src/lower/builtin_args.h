// The arguments of one builtin call bound to its parameter list, the way Python binds
// them: positional then keyword, "name" required, "name=" optional, "*name" collecting the
// remaining positional arguments into a tuple. Typed getters give located errors.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/types.h"
#include "lower/lvalue.h"
#include "support/source.h"

namespace tritium::lower {

inline bool is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// Triton's name of a dtype as its messages print it: "int8", "fp16", "bf16", "fp8e5".
std::string dtype_text(const ir::Type* element);

class BuiltinArgs {
 public:
  BuiltinArgs(const std::string& fn, std::vector<LValue> args, std::vector<std::pair<std::string, LValue>> kwargs,
              std::vector<std::string> params, const Loc& loc);

  const std::string& fn() const { return fn_; }  // the builtin's name, for messages
  const Loc& loc() const { return loc_; }

  // Whether the parameter was given (an explicit None counts as absent, as in Triton).
  bool has(const std::string& name) const { return present_[index(name)]; }
  const LValue& get(const std::string& name) const { return values_[index(name)]; }

  __int128 const_int(const std::string& name) const;
  bool const_bool(const std::string& name, bool fallback) const;
  std::string const_str(const std::string& name, const std::string& fallback) const;
  ir::ScalarKind dtype(const std::string& name) const;
  // A dtype that may also be tl.pointer_type(...): the element type it names.
  const ir::Type* element_type(const std::string& name) const;
  // A shape: one compile-time int, or a tuple/list of them (a one-item tuple holding a
  // tuple, as `*shape` binds reshape(x, (4, 8)), is unwrapped).
  std::vector<int64_t> shape(const std::string& name) const;

 private:
  size_t index(const std::string& name) const;

  std::string fn_;
  Loc loc_;
  std::vector<std::string> names_;
  std::vector<LValue> values_;
  std::vector<bool> present_;
};

}  // namespace tritium::lower

// The Triton-language prelude: builtins that Triton defines in its own language (cdiv,
// sigmoid, softmax, zeros_like, ravel, swizzle2d), written once as @jit functions in
// lower/prelude/standard.py, embedded in the library at build time, parsed by tritium's
// frontend on the first call of one of them and inlined like a user's function.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "lower/lvalue.h"

namespace tritium::lower {

class Lowerer;
class BuiltinTable;

struct PreludeBuiltin {
  std::string name;
  bool method = false;  // decorated @_tensor_member_fn: also x.<name>(...)
};

// The prelude's top-level @jit functions, from a scan of its text (no parse): what the
// registry needs to know at start-up.
const std::vector<PreludeBuiltin>& prelude_builtins();
// The parsed prelude: parsed once per process, on the first call (thread-safe).
std::shared_ptr<const ast::Module> prelude_module();
// The path prelude locations carry (CompileError::file() of an error raised inside it).
const char* prelude_path();

// Adds an entry (Builtin::prelude) per prelude builtin (builtin_registry.cpp).
void register_prelude_builtins(BuiltinTable& table);

// tl.<name>(args, kwargs) at `loc`: inlines the prelude function. Errors raised inside it
// are reported at `loc`, and the ops it makes are located at `loc`, so nothing the user
// sees points into the prelude.
LValue call_prelude(Lowerer& lower, const std::string& name, std::vector<LValue> args,
                    std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc);

}  // namespace tritium::lower

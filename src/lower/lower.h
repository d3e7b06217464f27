// AST -> tile IR for one kernel specialized on one signature: names become SSA values
// (DESIGN law 2), constexprs are evaluated, tl.* builtins expand, jit callees are inlined.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <optional>

#include "tritium/errors.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "lower/const_value.h"
#include "lower/signature.h"

namespace tritium {

struct GlobalBinding;
using Globals = std::map<std::string, GlobalBinding>;

// A host function run at compile time on constants (Triton's tl.constexpr_function): the
// positional and keyword arguments in; true with the result, or false with a message. A
// result that is a @jit function (a lookup returning one of several) comes back in
// `function` (a Function binding; `result` is then unused).
using HostCall = std::function<bool(const std::vector<ConstValue>& args,
                                    const std::vector<std::pair<std::string, ConstValue>>& kwargs,
                                    ConstValue* result, std::shared_ptr<const GlobalBinding>* function,
                                    std::string* error)>;

// What a global name of the kernel refers to. Python hands these over (the globals the
// kernel reads); for a whole source file the module's own imports, constant assignments
// and functions provide them too.
struct GlobalBinding {
  enum class Kind {
    Module,    // `tl` -> "triton.language", `triton` -> "triton" (tritium's names are equivalent)
    Constant,  // a constexpr global: `BLOCK = tl.constexpr(128)` or a plain int/float/bool/str
    Function,  // a @jit function: its FunctionDef lives in `module_ast`
    HostFunction,  // a tl.constexpr_function: Python called at compile time (`host`)
    TupleType,     // a NamedTuple class: `function` its name, `fields`, `field_defaults`
  };
  Kind kind = Kind::Constant;
  std::string module;       // Module: the dotted module name
  ConstValue value;         // Constant
  std::shared_ptr<const ast::Module> module_ast;  // Function: the parsed source holding it
  std::string function;     // Function: its name in module_ast
  // Function: the globals that function itself reads (Python hands them over per function);
  // null means "resolve in module_ast's own top-level statements only".
  std::shared_ptr<const Globals> function_globals;
  // Function: marked with triton.must_use_result ("1", or its reason); empty when not.
  std::string must_use_result;
  // HostFunction: the call, and the function's name and source (part of the cache key).
  std::shared_ptr<const HostCall> host;
  std::string host_source;
  // HostFunction: made with triton.language.core.builtin (Triton's semantic-level builtins):
  // a scalar that a constant folded (an argument specialized to 1) is passed as a constant.
  bool host_builtin = false;
  // TupleType: the field names, and the constant defaults of the last fields (Python's
  // `_field_defaults`, in field order).
  std::vector<std::string> fields;
  std::vector<ConstValue> field_defaults;
};

// The parameters of a jit function as the runtime needs them before lowering.
struct KernelParams {
  std::vector<std::string> names;
  std::vector<bool> is_constexpr;        // annotated with tl.constexpr
  std::vector<bool> has_default;
  std::vector<ConstValue> defaults;       // evaluated constexpr defaults (None when absent)
  // A default naming a @jit function (or constexpr_function) global: its binding (else null).
  std::vector<std::shared_ptr<const GlobalBinding>> default_functions;
  std::vector<int> do_not_specialize;     // parameter indices, from the decorator
  std::vector<int> do_not_specialize_on_alignment;
  std::vector<ir::ScalarKind> annotated_dtype;  // forced scalar type by annotation, or...
  std::vector<bool> has_annotated_dtype;        // ...false when none
  size_t num_positional = SIZE_MAX;             // parameters before a bare `*` (all when none)
};

// Reads the parameter list and decorator options of `fn`; errors are located.
// `unresolved`: when non-null, a default naming a global that `globals` lacks reads as None
// and the located error is stored there (the Python side hands globals over after parsing).
KernelParams read_params(const ast::FunctionDef& fn, const Globals& globals,
                         std::optional<CompileError>* unresolved = nullptr);

// Lowers `kernel` (a FunctionDef of `module`) for `signature`. Globals are resolved first in
// `globals`, then in the module's own top-level statements. Throws CompileError.
// With `debug`, device_assert and the assert statement are compiled (else dropped, as Triton).
// `num_warps` is the launch's: tl.extra.cuda.num_warps() and num_threads() are constants of it.
std::unique_ptr<ir::Function> lower_kernel(std::shared_ptr<const ast::Module> module,
                                           const std::string& kernel, const Signature& signature,
                                           const Globals& globals, bool debug = false, int num_warps = 4);

}  // namespace tritium

// The tl.* builtins, one registry split by family (builtins_<family>.cpp). An entry has the
// name, the parameter list (bound by BuiltinArgs), whether it is also a tensor method
// (`x.sum(0)` for `tl.sum(x, 0)`), and the handler that checks the arguments the way Triton
// does and expands them to IR. Adding a builtin is one entry in its family's file, or, for
// one Triton writes in its own language, a @jit function in lower/prelude/standard.py.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lower/builtin_args.h"
#include "lower/lvalue.h"

namespace tritium::lower {

class Lowerer;

using BuiltinHandler = std::function<LValue(Lowerer& lower, const BuiltinArgs& args, const Loc& loc)>;

struct Builtin {
  std::string name;                 // without "tl."
  std::vector<std::string> params;  // "x" required, "x=" optional, "*xs" the remaining positionals
  bool method = false;              // also callable as a tensor method
  BuiltinHandler handler;
  bool function = true;             // callable as tl.<name> (false: a method only, like x.to)
  bool prelude = false;             // a @jit function of the Triton-language prelude (prelude.h)
  bool table = false;               // made from a table row (atomics.def, elementwise.def):
                                    // tritium.language makes its stub from the registry
};

class BuiltinTable {
 public:
  void add(Builtin builtin);
  // Shorthand for the common case.
  void add(const std::string& name, std::vector<std::string> params, bool method, BuiltinHandler handler) {
    add(Builtin{name, std::move(params), method, std::move(handler)});
  }
  // One made from a table row (Builtin::table).
  void add_table_row(const std::string& name, std::vector<std::string> params, bool method, BuiltinHandler handler) {
    Builtin b{name, std::move(params), method, std::move(handler)};
    b.table = true;
    add(std::move(b));
  }
  const Builtin* find(const std::string& name) const;
  const std::map<std::string, Builtin>& entries() const { return entries_; }

 private:
  std::map<std::string, Builtin> entries_;
};

// Every tl.* builtin tritium implements.
const BuiltinTable& builtin_table();
// Names of triton.language that tritium knows but does not implement yet: calling one is
// a located "not supported by tritium yet" error rather than "unknown name".
const std::set<std::string>& planned_builtins();

// The builtin (or planned one) closest to a misspelled `name` ("lod" -> "load"), or "" when
// none is close; `methods` limits it to tensor methods. For "did you mean" in errors.
std::string closest_builtin(const std::string& name, bool methods = false);

// The families (each in builtins_<family>.cpp).
void register_core_builtins(BuiltinTable& table);    // program ids, creation, hints, static_*
void register_memory_builtins(BuiltinTable& table);  // load, store
void register_atomic_builtins(BuiltinTable& table);  // atomic_*
void register_math_builtins(BuiltinTable& table);    // elementwise.def's rows (exp, ..., where, fma), min/max
void register_shape_builtins(BuiltinTable& table);   // reshape, expand_dims, broadcast, trans, join, ...
void register_reduce_builtins(BuiltinTable& table);  // reduce, sum, max, ..., scans
void register_sort_builtins(BuiltinTable& table);    // flip, sort, topk
void register_debug_builtins(BuiltinTable& table);   // device_print/assert, debug_barrier, static_print
void register_dot_builtins(BuiltinTable& table);     // dot (builtins_dot.cpp; also the @ operator)
void register_dot_scaled_builtins(BuiltinTable& table);  // dot_scaled (builtins_dot_scaled.cpp: upcast, scale, dot)

// device_assert(cond, msg, mask) as the assert statement also lowers it: nothing unless the
// kernel is compiled with debug=True (builtins_debug.cpp).
void lower_device_assert(Lowerer& lower, const LValue& cond, const LValue* mask, const std::string& msg,
                         const Loc& loc);
void register_block_ptr_builtins(BuiltinTable& table);  // make_block_ptr, advance, tensor descriptors (block_ptr.cpp)
void register_libdevice_builtins(BuiltinTable& table);  // erf, div_rn, umulhi, clamp, ... (builtins_libdevice.cpp)
void register_gather_builtins(BuiltinTable& table);     // gather (builtins_gather.cpp)
void register_inline_asm_builtins(BuiltinTable& table); // inline_asm_elementwise (builtins_inline_asm.cpp)
void register_random_builtins(BuiltinTable& table);     // rand, randn, randint, philox, ... (builtins_random.cpp)
void register_prelude_builtins(BuiltinTable& table);    // cdiv, sigmoid, softmax, ... (prelude.cpp)
// minimum/maximum/clamp's propagate_nan: true for tl.PropagateNan.ALL (builtins_math.cpp).
bool propagates_nan(const BuiltinArgs& args, const Loc& loc);
// A libdevice-family function (libdevice.tanh, tl.math.erf) applied to `args`.
LValue extern_math_call(Lowerer& lower, const std::string& name, const std::vector<LValue>& args, const Loc& loc);

}  // namespace tritium::lower

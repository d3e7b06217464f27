// The math functions of the libdevice family (tl.math.*, triton.language.extra.libdevice.*):
// one table of name, arity, the overloads Triton's libdevice module dispatches on (argument
// types -> NVIDIA's libdevice symbol and result type) and what computes it in the
// interpreter. The op is ExternElementwise {symbol = name}; its operands have the types of
// one overload exactly and its result that overload's result type.
#pragma once

#include <string>
#include <vector>

#include "ir/types.h"

namespace tritium::ir {

// One element in the interpreter: integers wrapped to their type (wrap_int), floats in double.
union ExternValue {
  int64_t i;
  double f;
};

// One row of Triton's dispatch table: (argument types) -> (symbol, result type).
struct ExternOverload {
  std::vector<ScalarKind> args;
  ScalarKind result;
  std::string symbol;
};

struct ExternMath {
  const char* name;                              // Triton's name: "tanh", "div_rn", "popc"
  int arity;                                     // 1 to 4
  const char* f32 = nullptr;                     // the common case: (fp32, ...) -> fp32 by this symbol; null: none
  const char* f64 = nullptr;                     // (fp64, ...) -> fp64
  double (*eval)(const double* args) = nullptr;  // the interpreter's, for the common case
  // Otherwise, or in addition: overloads written "fp32,i32>fp32=__nv_ldexpf fp64,i32>fp64=__nv_ldexp"
  // (types by their IR names), and the interpreter's function for any of them.
  const char* signatures = nullptr;
  ExternValue (*eval_typed)(const ExternValue* args, const ScalarKind* kinds, ScalarKind result) = nullptr;
  bool to_bool = false;                        // Triton converts the int32 result to int1 (isnan, isinf)
  std::vector<ExternOverload> overloads = {};  // all of them, filled from the above
};

// The entry for `name`, or null.
const ExternMath* find_extern_math(const std::string& name);
const std::vector<ExternMath>& extern_math_table();
// The overload whose argument types are exactly `kinds`, or null.
const ExternOverload* extern_math_overload(const ExternMath& fn, const std::vector<ScalarKind>& kinds);
// Triton's spelling of the accepted argument types: "(fp32,) (fp64,)", "(int32, fp32) ...".
std::string extern_math_expected(const ExternMath& fn);
// Triton's spelling of one type in those messages: fp32, int32, uint64.
std::string extern_type_name(ScalarKind kind);
// umulhi and mulhi: the high half of the full product of two integers of `kind`, read as
// unsigned when `as_unsigned` (umulhi) or the kind is unsigned.
int64_t extern_mulhi(int64_t a, int64_t b, ScalarKind kind, bool as_unsigned);
// One element of `fn` in the interpreter, for operands of `kinds` and a result of `result`
// (floats exact in the result's format: fp32 results are already fp32 values).
ExternValue extern_math_eval(const ExternMath& fn, const ExternValue* args, const ScalarKind* kinds, ScalarKind result);

}  // namespace tritium::ir

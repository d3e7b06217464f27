// The math functions of the libdevice family (tl.math.*, triton.language.extra.libdevice.*):
// one table of name, arity and what computes it — NVIDIA's libdevice symbol on the GPU
// (__nv_<name>f for fp32, __nv_<name> for fp64, or the exceptions listed), the C library in
// the interpreter. The op is ExternElementwise {symbol = name}.
#pragma once

#include <string>
#include <vector>

#include "ir/types.h"

namespace tritium::ir {

struct ExternMath {
  const char* name;     // Triton's name: "tanh", "div_rn", "umulhi"
  int arity;            // 1 to 3
  bool integer = false; // on i32/u32/i64/u64 (umulhi); else on fp32/fp64
  const char* f32 = nullptr;  // libdevice symbol for fp32 (or i32/u32); null: none
  const char* f64 = nullptr;  // for fp64 (or i64/u64); null: none
  double (*eval)(const double* args) = nullptr;  // the interpreter's (floats)
};

// The entry for `name`, or null.
const ExternMath* find_extern_math(const std::string& name);
const std::vector<ExternMath>& extern_math_table();
// The libdevice symbol for an element kind (null when the function has none for it).
const char* extern_math_symbol(const ExternMath& fn, ScalarKind kind);
// umulhi and mulhi: the high half of the full product of two integers of `kind`, read as
// unsigned when `as_unsigned` (umulhi) or the kind is unsigned.
int64_t extern_mulhi(int64_t a, int64_t b, ScalarKind kind, bool as_unsigned);

}  // namespace tritium::ir

// The interpreter's ExternElementwise: the libdevice-family functions of ir/extern_math.h
// (extern_math_eval: floats computed in double and rounded to the result type, directed
// rounding and integer functions exact); inline assembly in eval_inline_asm.cpp.
#include <cmath>
#include <string>

#include "interp/eval_ops.h"
#include "ir/extern_math.h"
#include "support/diagnostics.h"

namespace tritium::interp {

void eval_extern(const ir::Op& op, const std::vector<const Buffer*>& operands, Buffer& result) {
  const std::string symbol = op.str_attr("symbol");
  if (symbol == "inline_asm") {
    eval_inline_asm(op, operands, result);
    return;
  }
  const ir::ExternMath* fn = ir::find_extern_math(symbol);
  if (fn == nullptr) internal_error("interpreter", "unknown extern function '" + symbol + "'", op.loc());
  const int64_t n = result.size();
  const size_t arity = operands.size();
  ir::ScalarKind kinds[4] = {};
  for (size_t k = 0; k < arity; ++k) kinds[k] = operands[k]->kind;
  Slot* out = result.data();
  ir::ExternValue args[4] = {};
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < arity; ++k) {
      const Slot& in = operands[k]->data()[i];
      if (operands[k]->is_float) {
        args[k].f = in.f;
      } else {
        args[k].i = in.i;
      }
    }
    ir::ExternValue value = ir::extern_math_eval(*fn, args, kinds, result.kind);
    if (result.is_float) {
      out[i].f = value.f;
    } else {
      out[i].i = value.i;
    }
  }
  if (result.is_float) {
    round_all(out, n, result.kind);
  } else {
    wrap_all(out, n, result.kind);
  }
}

}  // namespace tritium::interp

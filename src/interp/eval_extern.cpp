// The interpreter's ExternElementwise: the libdevice-family functions of ir/extern_math.h,
// computed in double and rounded to the result type.
#include <cmath>
#include <string>

#include "interp/eval_ops.h"
#include "ir/extern_math.h"
#include "support/diagnostics.h"

namespace tritium::interp {

void eval_extern(const ir::Op& op, const std::vector<const Buffer*>& operands, Buffer& result) {
  const std::string symbol = op.str_attr("symbol");
  if (symbol == "inline_asm") {
    error_at(op.loc(), "tl.inline_asm_elementwise runs only on the GPU: the interpreter cannot execute its assembly");
  }
  const ir::ExternMath* fn = ir::find_extern_math(symbol);
  if (fn == nullptr) internal_error("interpreter", "unknown extern function '" + symbol + "'", op.loc());
  const int64_t n = result.size();
  const size_t arity = operands.size();
  Slot* out = result.data();
  if (fn->integer) {
    const Buffer& a = *operands[0];
    const Buffer& b = *operands[1];
    const bool as_unsigned = symbol == "umulhi";
    for (int64_t i = 0; i < n; ++i) out[i].i = ir::extern_mulhi(a.data()[i].i, b.data()[i].i, result.kind, as_unsigned);
    return;
  }
  double args[3] = {0, 0, 0};
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < arity; ++k) args[k] = operands[k]->data()[i].f;
    if (fn->eval != nullptr) {
      out[i].f = fn->eval(args);
    } else {  // nextafter: one step in the result's own format
      out[i].f = result.kind == ir::ScalarKind::F32
                     ? static_cast<double>(std::nextafter(static_cast<float>(args[0]), static_cast<float>(args[1])))
                     : std::nextafter(args[0], args[1]);
    }
  }
  round_all(out, n, result.kind);
}

}  // namespace tritium::interp

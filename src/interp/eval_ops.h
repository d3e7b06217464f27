// The interpreter's pure ops over whole buffers: elementwise arithmetic, compares,
// select, casts, and the shape ops (splat, broadcast, expand_dims, reshape, make_range).
// Each function switches once on the kind and element type, then runs a tight loop.
#pragma once

#include "interp/values.h"
#include "ir/attrs.h"
#include "ir/ir.h"

namespace tritium::interp {

using Predicate = ir::CmpPredicate;  // ir/attr_enums.def

// An elementwise op with lane semantics in ir/elementwise.def, over whole buffers (`count`
// operands of one shape). Lanes with no defined result (an integer division by zero or
// INT_MIN / -1) are poisoned (poison.h); call after propagate_poison for the result.
using ElementwiseFn = void (*)(const ir::Op& op, const Buffer* const* operands, int count, Buffer& result);
// The op's function, or null when elementwise.def has no entry for it.
ElementwiseFn elementwise_fn(ir::OpKind kind);
void eval_cmp(Predicate predicate, const Buffer& lhs, const Buffer& rhs, Buffer& result);
void eval_select(const Buffer& cond, const Buffer& if_true, const Buffer& if_false, Buffer& result);
// `toward_zero`: fp_downcast_rounding="rtz" for float -> narrower float casts.
// ExternElementwise {symbol}: the libdevice-family function (eval_extern.cpp).
void eval_extern(const ir::Op& op, const std::vector<const Buffer*>& operands, Buffer& result);
// ExternElementwise {symbol = "inline_asm"} whose asm is one PTX f32 instruction
// (eval_inline_asm.cpp); any other assembly is a located error.
void eval_inline_asm(const ir::Op& op, const std::vector<const Buffer*>& operands, Buffer& result);
void eval_cast(const Buffer& operand, bool bitcast, Buffer& result, bool toward_zero = false);
void eval_addptr(const Buffer& ptr, const Buffer& offset, Buffer& result);

void eval_splat(const Buffer& scalar, Buffer& result);
void eval_broadcast(const Buffer& operand, Buffer& result);
// expand_dims and reshape: the row-major order of the elements does not change.
void eval_copy(const Buffer& operand, Buffer& result);
void eval_make_range(int64_t start, Buffer& result);
// Fills `result` with the `value` attribute of a constant op, wrapped or rounded to its type.
void eval_constant(const ir::Op& op, Buffer& result);

}  // namespace tritium::interp

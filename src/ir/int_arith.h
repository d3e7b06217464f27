// Integer arithmetic exactly as the IR defines it (ops.def), on values held in 64 bits the
// way wrap_int leaves them. Shared by constant folding and the axis analysis.
#pragma once

#include <cstdint>
#include <string>

#include "ir/attrs.h"
#include "ir/ir.h"

namespace tritium::ir {

// Evaluates an integer binary op (add ... maximum) of type `type`; false when the result is
// undefined (division by zero, INT_MIN / -1, a shift of at least the width) or `kind` is
// not an integer binary op.
bool eval_int_binary(OpKind kind, ScalarKind type, int64_t lhs, int64_t rhs, int64_t* out);

// Evaluates `cmp {predicate}` on two integers of a type of the given signedness.
bool eval_int_compare(CmpPredicate predicate, bool is_signed, int64_t lhs, int64_t rhs);

}  // namespace tritium::ir

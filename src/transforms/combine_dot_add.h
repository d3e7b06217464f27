// combine_dot_add: `add(d, dot(a, b, 0))` (either operand order) becomes `dot(a, b, d)`, as
// Triton's Combine patterns fold `acc += tl.dot(a, b)`, so the accumulator stays in the dot.
// Tested by tests/golden/passes/combine_dot_add.ir.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

void combine_dot_add(ir::Function& function);

}  // namespace tritium::transforms

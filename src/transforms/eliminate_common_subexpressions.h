// eliminate_common_subexpressions: a pure op identical to an earlier one in the same or an
// enclosing region (same kind, operands, attributes, result type) is replaced by it.
// Tested by tests/golden/fold_constants.py.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

void eliminate_common_subexpressions(ir::Function& function);

}  // namespace tritium::transforms

// fold_constants: evaluates integer ops on constants, applies identities (x + 0, x * 1,
// p + 0), picks the side of a select or the branch of an if whose condition is constant.
// Tested by tests/golden/fold_constants.py.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

void fold_constants(ir::Function& function);

}  // namespace tritium::transforms

// eliminate_dead_code: removes pure ops whose results are never used, and loop-free
// structured ops (if) with no effects and no used results. Tested by tests/golden/fold_constants.py.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

void eliminate_dead_code(ir::Function& function);

}  // namespace tritium::transforms

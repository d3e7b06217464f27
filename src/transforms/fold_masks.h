// fold_masks: a load, store or atomic whose mask is true for every element loses the
// mask; one whose mask is false everywhere does nothing: the store or atomic goes, the
// load becomes its `other` (or zeros). Proofs come from the value-range analysis
// (`tl.arange(0, B) < B`, constant masks). Tested by tests/golden/fold_masks.py.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

void fold_masks(ir::Function& function);

}  // namespace tritium::transforms

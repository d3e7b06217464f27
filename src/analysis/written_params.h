// Which kernel parameters memory may be written through: the pointer operands of stores and
// atomics traced back to the entry arguments they derive from. The launcher refuses a
// read-only array for such a parameter (issue 11); tests: tests/python/test_errors.py.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tritium::analysis {

// One flag per function.params() entry: true when a store or an atomic may write through a
// pointer derived from that parameter. Conservative (a value derives from every operand of
// the op that made it; a region's arguments and its op's results from everything flowing
// in), so a parameter only read is never flagged unless its bits reach a written pointer.
std::vector<bool> written_params(const ir::Function& function);

}  // namespace tritium::analysis

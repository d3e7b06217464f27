// The interpreter's data-movement ops that change the order of elements (trans, join,
// split, cat), histogram and gather. Each result lane comes from one operand lane; values and
// poison move together.
#pragma once

#include <vector>

#include "interp/values.h"
#include "ir/ir.h"

namespace tritium::interp {

// trans, join, split and cat: fills `results` (split has two) from `operands`.
void eval_move(const ir::Op& op, const std::vector<const Buffer*>& operands, const std::vector<Buffer*>& results);

// Counts of the values in [0, num_bins) among the (unmasked) lanes of `x`; other values
// are not counted.
void eval_histogram(const ir::Op& op, const Buffer& x, const Buffer* mask, Buffer& result);

// tl.gather along the op's axis: element i is the source's at i with the axis coordinate
// index[i]; zero where that is outside the source (values and poison move together).
void eval_gather(const ir::Op& op, const Buffer& src, const Buffer& index, Buffer& result);

}  // namespace tritium::interp

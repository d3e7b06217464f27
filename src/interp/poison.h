// Deferred errors for operations with no defined result (integer division by zero,
// INT_MIN / -1). The lane is marked poisoned instead of failing at once, because masked
// kernels routinely divide garbage in lanes they never store; the error is raised,
// located at the dividing op, only when a poisoned lane reaches memory or control flow.
#pragma once

#include "interp/values.h"

namespace tritium::interp {

// Marks lane `i` of `buffer` poisoned by `origin` (which gives the error's location).
void poison_lane(Buffer& buffer, int64_t i, const ir::Op& origin, const char* reason);

// Sets the poison of the result of a pure op from its operands: lane-wise for elementwise
// ops, through the selected side for select, moved like the data for the shape ops.
void propagate_poison(ir::OpKind kind, const Buffer* const* operands, int count, Buffer& result);

// Raises the deferred error when a lane of `value` that is active under `mask` (all lanes
// without one) is poisoned; `use` and `role` ("the address", "the stored value") say where
// the poisoned value arrived.
void check_poison(const Buffer& value, const Buffer* mask, const ir::Op& use, const char* role);

}  // namespace tritium::interp

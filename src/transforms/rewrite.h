// Small utilities the rewriting passes share: walking ops and reading integer constants.
// Uses are tracked by the IR itself: a pass replaces a value at once with
// Value::replace_all_uses_with, so no pass keeps (or resolves chains of) replacement maps.
#pragma once

#include <functional>

#include "ir/ir.h"

namespace tritium::transforms {

// Calls `fn` on every op of `region` and of the regions nested in it, parents first.
void walk(ir::Region& region, const std::function<void(ir::Op&)>& fn);

// The constant value of `value` when it is an integer constant (scalar or uniform block).
bool int_constant_of(const ir::Value* value, int64_t* out);

}  // namespace tritium::transforms

// Small utilities the rewriting passes share: walking ops, replacing uses, moving ops.
#pragma once

#include <functional>
#include <unordered_map>

#include "ir/ir.h"

namespace tritium::transforms {

// Calls `fn` on every op of `region` and of the regions nested in it, parents first.
void walk(ir::Region& region, const std::function<void(ir::Op&)>& fn);

// Rewrites every operand found in `replacements` (applied transitively) across `function`.
void replace_uses(ir::Function& function, const std::unordered_map<ir::Value*, ir::Value*>& replacements);

// How many operands in `function` refer to each value.
std::unordered_map<const ir::Value*, int> count_uses(const ir::Function& function);

// The constant value of `value` when it is an integer constant (scalar or uniform block).
bool int_constant_of(const ir::Value* value, int64_t* out);

}  // namespace tritium::transforms

// assign_layouts: fills the layout slot of every block type (ir/layout.h), one rule per op
// family: loads, stores' pointers, ranges, splats, constants, broadcasts and the other
// data movers take the emitter's blocked layout (default_layout.h, V from vector_widths.h);
// elementwise ops follow their operands; reduce gives a slice of its operand's layout;
// expand_dims / reshape / trans carry the operand's placement through the linear-layout
// transforms; loops and branches carry their inits' layouts.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void assign_layouts(ir::Function& function, const GpuOptions& options);

// The layout `op` wants operand `index` in (elementwise: its result's; a load's mask and a
// store's value: the pointer's; a yield: what its loop or branch carries), or null when the
// op reads any layout (reductions, shape moves, dots). Where it differs from the operand's
// own layout, the value is converted there (allocate_shared reserves the round trip).
const ir::Layout* wanted_layout(const ir::Op& op, int index);

// A splat or constant: every thread holds it whole, so converting it moves nothing.
bool is_uniform(const ir::Value* value);

}  // namespace tritium::gpu

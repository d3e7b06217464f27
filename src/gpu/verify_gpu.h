// The GPU layer's invariants, checked after each GPU pass in tests and debug builds (the tile
// IR verifier ignores layouts): once layouts are assigned every block of power-of-two shape
// has one, for the kernel's warps; shared-memory buffers of one op do not overlap.
#pragma once

#include <string>

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// Throws tritium::InternalError naming `after_pass` and the op at the first broken
// invariant. `layouts_assigned`: whether assign_layouts has run.
void verify_gpu(const ir::Function& function, const GpuOptions& options, bool layouts_assigned,
                const std::string& after_pass);

}  // namespace tritium::gpu

// prefetch_operands: transforms/prefetch_loads on the GPU's copy of a kernel, limited to the
// loads the NVPTX emitter copies asynchronously into shared memory (a 2-D fp16/bf16 load
// whose only use is a dot operand), and only with num_stages >= 2 in a kernel with a dot.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// Whether `region` (or a region nested in it) holds a dot.
bool has_dot(const ir::Region& region);

// Whether the pass applies (num_stages >= 2 and the kernel has a dot); the code generator
// runs the GPU passes on a copy only when some pass applies (pipeline.h).
bool pipelines_dots(const ir::Function& function, const GpuOptions& options);

void prefetch_operands(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

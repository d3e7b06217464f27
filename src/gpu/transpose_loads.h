// transpose_loads: a dot operand that the kernel loads and then transposes — Kᵀ in the
// attention tutorial, `k = desc_k.load([row, 0]); qk = tl.dot(q, k.T)` — is loaded
// transposed instead:
//   x = load p, m, o ; t = trans x {order = [1, 0]} ; dot _, t
//   =>  t = load pᵀ, mᵀ, oᵀ ; dot _, t
// where pᵀ, mᵀ and oᵀ are the operands' expressions rebuilt transposed (splats, constants,
// expand_dims of ranges, broadcasts and elementwise ops; a trans op only where the chain
// is something else). The same elements reach the dot; what
// changes is that the load now feeds it directly, so prefetch_operands can pipeline it and
// the emitter copies it with cp.async — K-major where the transposed pointer runs along K
// (the axis facts see through `trans`) — with no round trip through shared memory for the
// transpose and no synchronous load. Only 2-D loads whose one use is such a trans, whose
// one use is a dot's B operand; nothing else moves.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// Whether it applies: sm_90 (wgmma, whose B operand the emitter copies K-major; mma.sync's
// staging would read such a load one element at a time) with num_stages >= 2 and a dot.
bool transposes_loads(const ir::Function& function, const GpuOptions& options);

void transpose_loads(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

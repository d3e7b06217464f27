// rebase_pointers: a block of pointers that a loop carries and moves by the same amount in
// every element each iteration (the tutorial matmul's `a_ptrs += BLOCK_K * stride_ak`)
// becomes its initial block plus a carried scalar offset:
//   for ... (p = p0) { load p ... ; yield addptr(p, splat(s)) }
//   =>  for ... (p = p0, o = 0) { q = addptr(p0, splat(o)); load q ... ; yield p, o + s }
// (p passes through unchanged, dead). Every element's address then follows from its index
// again when p0's does (gpu::recomputable): the emitter deals cp.async copies of it out
// evenly over the threads (target/nvptx/async_copy.h) instead of leaving them to the threads
// that hold each run's first element, and coalesce (coalesce.h) may give an access through
// it another axis's layout (a column-major read in a loop). An integer block carried and
// moved the same way (`offsets_k += BLOCK_K`, read by masks) becomes its initial block plus
// a carried scalar of its own type: `add` in place of `addptr`.
// A pointer block whose initial block is `splat(s) + a` (one addptr of a block offset, views
// around it) is rebased onto s instead (GpuOptions::rebase_scalar_base):
//   for ... (p = p0, s_i = s) { q = splat(s_i) + a; load q ... ; yield p, addptr(s_i, inc) }
// one uniform 64-bit base an iteration and a's loop-invariant (32-bit) offsets.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void rebase_pointers(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

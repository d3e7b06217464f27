// insert_barriers: where a CTA barrier (bar.sync) must come before an op, from the
// shared-memory buffers allocate_shared gave the ops. Marks those ops `barrier = 1`; the
// NVPTX emitter emits bar.sync exactly there (and inside each round trip, between its
// writes and its reads, which the op itself needs).
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void insert_barriers(ir::Function& function, const GpuOptions& options);

// Whether `op` was marked to meet a barrier before it.
bool barrier_before(const ir::Op& op);

// Whether `op` goes through shared memory itself (it has buffers), or waits at a barrier
// (marked, or debug_barrier): the emitter may run bar.sync for it.
bool op_may_sync(const ir::Op& op);

}  // namespace tritium::gpu

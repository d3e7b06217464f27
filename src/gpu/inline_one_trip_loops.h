// inline_one_trip_loops: a `for` whose constant bounds make it run exactly once becomes its
// body, the iteration variable its lower bound and the carried values their initial ones;
// one that never runs becomes its initial values.
//   for i_v in range(tl.cdiv(V, BV)):   (V == BV: range(0, 1, 1))
//       b_dq = tl.dot(b_do, b_h, b_dq)
//   =>  b_dq = tl.dot(b_do, b_h, b_dq0)
// Triton's MLIR canonicalization folds such loops before its pipeliner sees them. Kept as a
// loop here, prefetch_operands pipelined it: its operands copied by cp.async into
// num_stages - 1 stage buffers each (fla's chunk_bwd_kernel_dqkwg at K = V = BK = BV = 128:
// 192 KiB of stage buffers, one block an SM where Triton's 96 KiB fit two), and a second
// iteration's copies, masks and waits emitted though never run (DESIGN.md,
// inline_one_trip_loops). Off: TRITIUM_REDUCE_EXPERIMENT=noonetrip.
// Where a loop went, `add(d, dot(a, b, 0))` is folded into `dot(a, b, d)` again
// (transforms/combine_dot_add.h): a dot that accumulated into a carried zero has a zero
// accumulator once inlined (fla's dqkwg `b_dk`), as Triton's Combine sees it after its
// canonicalizer folded the loop. Off: TRITIUM_REDUCE_EXPERIMENT=norefold.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void inline_one_trip_loops(ir::Function& function, const GpuOptions& options);
bool inlines_one_trip_loops(const ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

// prefetch_loads: software pipelining of a `for` loop that computes a tl.dot, in registers
// (Triton's num_stages = 2 without shared-memory stages). Each block load at the top level
// of the body whose operands can be computed one iteration ahead is issued for iteration
// i + 1 just before the first dot of iteration i and carried into the next iteration (the
// first iteration's before the loop), masked off when that iteration does not run, so its
// latency overlaps the dot. Only loops with a constant step are changed (positive, or
// negative on a signed iv: fla's backward recurrences run their chunks last to first), and
// not a loop written `tl.range(..., num_stages=1)` (its {num_stages} attribute). In a loop
// that writes memory (fla's state recurrences store each chunk's state, mamba's backward
// adds row sums atomically) a load moves only where a store could not write what it reads:
// every write is a store or an atomic whose old value nothing reads, and the load's pointer
// and every written one are built from different kernel arguments (else the loop stays as
// written). Distinct arguments are taken not to overlap within one loop, where Triton's
// pipeliner moves its loads above every store of the loop unasked. The GPU code generator runs
// it on its copy of the kernel; `tritium opt --passes prefetch_loads` shows it.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/ir.h"

namespace tritium::transforms {

void prefetch_loads(ir::Function& function);
// Only the loads `which` accepts (the GPU code generator picks those it can copy
// asynchronously into shared memory), num_stages - 1 iterations ahead in a loop of one dot
// (a loop's `tl.range(num_stages=...)` overrides num_stages; one ahead with several dots).
// `index`, where given, accepts loads of the body that the chosen loads' pointers or masks
// read (a block table's entries: `k_cache + table[j] * stride + ...`): those are loaded one
// iteration further ahead, carried in registers, so the chosen loads can run ahead too.
// `recurrence_stage_bytes`, where positive, bounds the stage buffers of a loop of several dots
// that writes memory (a state recurrence storing each chunk's state: fla's fwd_h and dhu)
// instead of the 64 KiB that keeps two CTAs of d=128 attention on an SM: such a loop then
// goes num_stages - 1 iterations ahead within it, as Triton's pipeliner does (GpuOptions::
// recurrence_stages, TRITIUM_REDUCE_EXPERIMENT recurstages).
void prefetch_loads(ir::Function& function, const std::function<bool(const ir::Op& load)>& which, int num_stages,
                    const std::function<bool(const ir::Op& load)>& index = nullptr, int64_t recurrence_stage_bytes = 0);

}  // namespace tritium::transforms

// allocate_shared: offsets in the CTA's shared memory for every buffer an op needs, from
// liveness: buffers live at the same time never overlap, a dead buffer's bytes are reused.
// Ops number in program order (an op with regions spans its regions' ops); a buffer lives
// over an interval of those numbers. Today's buffers are the emitter's round trips
// (scratch.h), live at one op: a reduction's or scan's exchange across warps and its
// placement, a histogram's counts, a trans/join/split/cat's or a broadcast's round trip.
// Each op with buffers gets `shared_offsets = [...]` and `shared_sizes = [...]` (bytes, one
// entry per used slot, in slot order), which `--emit gpu-ir` prints. The NVPTX emitter
// reads these offsets (into the scratch area, which starts after the dot's stage buffers
// while those are live); insert_barriers reads them too.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

struct SharedBuffer {
  int64_t size = 0;   // bytes
  int64_t first = 0;  // the interval of op numbers it is live over, inclusive
  int64_t last = 0;
  int64_t offset = -1;  // filled by allocate_buffers
};

// First fit, largest buffers first, each offset a multiple of `alignment`; returns the
// bytes used (the end of the highest buffer).
int64_t allocate_buffers(std::vector<SharedBuffer>& buffers, int64_t alignment = 16);

void allocate_shared(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

// The blocked layout the NVPTX emitter uses for every block today (target/nvptx/layout.h:
// V contiguous elements per thread, then the threads, then more registers, in row-major
// order), written as Triton's blocked encoding, so the IR names what the emitter does.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/layout.h"

namespace tritium::gpu {

// blocked<spt, tpw, wpc, order = [rank-1 .. 0]> whose linear layout equals
// LinearLayout::flat(shape, threads, vector): each group of input bits (V's, the 32 lanes',
// the warps') takes the next bits of the flat index, fastest dimension first; bits past the
// block go to dimension 0, where they are free. `shape`'s dimensions: powers of two.
const ir::Layout* flat_blocked(const std::vector<int64_t>& shape, int threads, int vector);

// Whether every dimension is a power of two (a layout exists only then).
bool layout_shape(const std::vector<int64_t>& shape);

}  // namespace tritium::gpu

// coalesce: a load or store whose pointer runs contiguously along another axis than the
// last (a transposed or column-major read) gets a blocked layout with that axis first in
// `order` (V consecutive elements per thread along it, then the lanes), as Triton's
// coalesce pass, and convert_layout ops where its operands and users hold other layouts;
// redundant conversions (same layout, uniform sources, chains) are removed, conversions move
// past elementwise ops into the access's layout, and chains over the same loads that each
// leave it convert the loads once. A dot's result stored along rows where the flat rule would
// give each thread more than 16 bytes of a row gets Triton's 16-byte runs with lanes along
// the row (coalesce.cpp's dot_result_row_layout). A pipelined dot operand whose runs go along
// K through loaded values (a paged cache's K tile) is made in its slot too, each thread
// holding whole 16-byte runs to copy (coalesce.cpp's pipelined_operand_load). In a kernel
// with dots, a loaded line ([n]: a paged cache's block-table entries) whose broadcasts into
// addresses all want it in the same layout is loaded, carried through loops and computed in
// that layout (coalesce.cpp's lines_in_slot; GpuOptions::lines_in_slot), each broadcast then
// a register move. Tests:
// tests/golden/passes/coalesce.ir, tests/golden/coalesce_paged_pipelined.py,
// tests/cli/test_cpu_emulation.py, test_cpu_emulation_wgmma.py.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"
#include "ir/layout.h"

namespace tritium::gpu {

void coalesce(ir::Function& function, const GpuOptions& options);

// The blocked layout Triton gives an access of `shape` contiguous along `axis` with
// `vector` elements per thread: order = [axis, then the others from the last], lanes and
// then warps filling the dimensions in that order. Null when it would replicate elements.
// `across` > 1: also that many elements per thread along the last dimension (a 2-D tile of
// registers; Triton's has 1).
const ir::Layout* coalesced_layout(const std::vector<int64_t>& shape, int axis, int vector, int threads,
                                   int across = 1);

// Whether `v` has uses and reaches nothing but dots' A and B, through pure ops without
// regions (at most 64 deep): a load whose value only dots read (coalesce's loads outside
// loops, rebase_pointers' loop loads).
bool reaches_only_dot_operands(const ir::Value* v, int depth = 0);

}  // namespace tritium::gpu

// How far LLVM may unroll a kernel's loops (DESIGN.md, "Loop unrolling"; test:
// tests/golden/loop_unroll_hints.py). As Triton 3.6's O3, which runs without the NVPTX target
// machine, LLVM never runtime-unrolls a for or while loop (ptxas unrolls it if it chooses),
// and it does not unroll a loop whose body holds another loop: that copies the inner loops
// whole to save the outer one's few instructions an iteration. Full and partial unrolling of
// constant trip counts stay LLVM's. Loops the emitter builds itself (an FMA dot's K loop,
// compare-and-swap retries) carry no hints.
#pragma once

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "ir/ir.h"

namespace tritium::nvptx {

// Whether the body of the for or while `loop` holds another for or while loop.
bool holds_loop(const ir::Op& loop);

// Gives the back edge of the for or while `loop` an `llvm.loop` ID that says
// `llvm.loop.unroll.runtime.disable`, and where the loop holds a loop also
// `llvm.loop.unroll.disable` with tritium's marker `tritium.loop.holds_loop`.
void set_loop_hints(llvm::BranchInst* back_edge, const ir::Op& loop);

// After LLVM's O3: removes the marker and `llvm.loop.unroll.disable` from the IDs that have
// the marker, keeping their other properties, so that the NVPTX printer writes no
// `.pragma "nounroll"` and ptxas may unroll those loops as it does Triton's.
void release_outer_loops(llvm::Module& module);

}  // namespace tritium::nvptx

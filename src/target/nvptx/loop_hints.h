// How far LLVM may unroll the loops of a kernel (DESIGN.md: GPU execution model, "Loop
// unrolling"). Triton 3.6 unrolls a `for` at its IR level only when `loop_unroll_factor` asks;
// its LLVM O3 runs without a target machine, so LLVM fully unrolls small loops of constant
// trip count but never runtime-unrolls one, and ptxas then unrolls the loops it chooses.
// tritium's O3 runs with the NVPTX target machine (its address-space inference, its costs),
// whose unrolling preferences add runtime unrolling; and tritium's loop bodies, cheaper to
// LLVM than Triton's (whose loads are inline asm calls), pass LLVM's full unrolling
// threshold where Triton's do not, outer loops included. So every for and while
// loop's back edge carries an `llvm.loop` ID:
//   - `llvm.loop.unroll.runtime.disable` always: the loop is unrolled by ptxas if at all
//     (LLVM's runtime unrolling by 2 or 4, with a remainder loop, which ptxas unrolled again
//     by 4, tripled FlashInfer's merge loops);
//   - a loop whose body holds another loop is not unrolled by LLVM at all
//     (`llvm.loop.unroll.disable`): fully unrolling it copies the inner loops whole to save
//     only the outer loop's own few instructions an iteration. The hint is removed after
//     LLVM's passes (`release_outer_loops`), so that the NVPTX printer does not turn it into
//     `.pragma "nounroll"` and ptxas decides as it does for Triton's loops.
// Partial unrolling of a constant trip count stays LLVM's: without it ptxas fully unrolled a
// 64-iteration loop that LLVM had unrolled by 4 (FlashInfer's in-place merge, 5x the code).
// Loops the emitter builds itself (an FMA dot's K loop, compare-and-swap retries) carry none.
#pragma once

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "ir/ir.h"

namespace tritium::nvptx {

// Whether the body of the for or while `loop` holds another for or while loop.
bool holds_loop(const ir::Op& loop);

// Attaches the loop ID above to the back edge of the for or while `loop`.
void set_loop_hints(llvm::BranchInst* back_edge, const ir::Op& loop);

// After LLVM's passes: removes the "not unrolled by LLVM" hint from the loops that hold
// loops, leaving any other property of their IDs.
void release_outer_loops(llvm::Module& module);

}  // namespace tritium::nvptx

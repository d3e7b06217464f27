// Rewrites of the LLVM module after LLVM's O3 and before the NVPTX backend (codegen.cpp's
// optimize), where the emitter's structure (a guard's blocks, a round trip's barriers) keeps
// the backend from code Triton 3.6 gets for the same kernel (DESIGN.md, "Late LLVM passes").
#pragma once

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace tritium::nvptx {

// The metadata the emitter puts on the barriers it makes for its own round trips through
// shared memory (Emitter::barrier), which only order shared memory between the CTA's threads
// (tl.debug_barrier's has none: it may order global memory too).
constexpr const char* kElidableBarrier = "tritium.elidable_barrier";
void mark_elidable_barrier(llvm::CallInst* barrier);

// Experiment "hoistfadd" (the default; nohoistfadd turns it off), with fp fusion on: an fadd or
// fsub of an fmul defined in another block of the same loop (a guard's blocks between them: a
// round trip through shared memory, an atomic) moves up to just after the fmul (or after its
// other operand, where that comes later in the fmul's block; not where that operand is
// defined only below it), so that the backend, which contracts within a block, makes an fma
// of the two as it does Triton's straight-line code (mamba's dB: `acc += db` after the
// atomic of `sum(db * b)`). Moved up rather than made an llvm.fma where it stands: that kept
// the fmul's operands live across the blocks as well as its product (dB at 32x64 on
// mma.sync, 108 -> 134 registers); moved, the sum is what crosses them. Returns how many moved.
int contract_across_blocks(llvm::Module& module);

// Experiment "elidebar" (the default; noelidebar turns it off): removes each marked barrier
// after which every path through the CFG reaches another barrier (or the kernel's end) before
// any instruction that may access shared memory: all accesses after it come after that one,
// which orders them against everything before it as well (a row sum's round trip in a loop,
// whose ending barrier the next iteration's pipeline barrier makes redundant, as Triton's
// membar analysis finds). Conservative about inline assembly: any text that may touch shared
// memory, a barrier or a fence counts as an access, except cp.async's waits and commits, and
// global-only loads, stores and atomics. Returns how many were removed.
int elide_barriers(llvm::Module& module);

// Experiment "fencerot" (the default; nofencerot turns it off): a loop whose header starts with
// the pipeline's `cp.async.wait_group N` and proxy fence (its copies made visible to wgmma's
// async proxy) and whose latch ends in global writes (mamba's dB: the row sums' atomics) has
// the pair moved back over the backedge, to just after the latch's last instruction that may
// touch shared memory (a copy at the end of the preheader for the first iteration). Only
// global accesses and arithmetic cross it, and no cp.async issue or commit: the fence orders
// the same shared-memory accesses, and the wait retires the same groups. The fence's
// membar.cta then no longer waits for those writes (a global atomic's trip to L2) at the top
// of every iteration; they are a whole iteration old at the next one. Returns how many moved.
int rotate_proxy_fences(llvm::Module& module);

// Experiment "fencesink" (the default; nofencesink turns it off): plain global stores that
// come before a proxy fence in its block, with only shared-memory accesses, cp.async's waits
// and commits and arithmetic between them (no global access, barrier or other fence), move to
// just after it, in their order (fla's state h: stored to global, then staged by stmatrix for
// the next dot, whose fence waited for the stores). Weak stores only, delayed past no
// synchronization: no other thread can tell. Returns how many moved.
int sink_stores_past_fences(llvm::Module& module);

}  // namespace tritium::nvptx

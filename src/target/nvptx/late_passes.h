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

// Experiment "sinkfma" (the default; nosinkfma turns it off), with fp fusion on: an fadd or
// fsub of an fmul defined in another block of the same loop (a guard's blocks between them: a
// round trip through shared memory, an atomic) gets a copy of the fmul right before it, so
// that the backend, which contracts within a block, makes an fma of the two as it does
// Triton's straight-line code (mamba's dB: `acc += db` after the atomic of `sum(db * b)`).
// The original fmul stays where other users need it. Returns how many were copied.
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

}  // namespace tritium::nvptx

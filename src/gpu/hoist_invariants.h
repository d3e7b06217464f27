// hoist_invariants: a loop's pure ops whose operands the loop does not define are computed
// once, before it (loop-invariant code motion, as Triton's TTIR pipeline runs it):
//   for ... { s = broadcast(expand_dims(scale)) ; b = mul(load(p), s) ; ... }
//   =>  s = broadcast(expand_dims(scale)) ; for ... { b = mul(load(p), s) ; ... }
// What moves is what a user writes inside a loop but means once (`scale[None, :]`,
// `qk_scale * LOG2E`): a broadcast across threads is a round trip through shared memory
// between two barriers, which LLVM cannot hoist. What moves is scalars, float broadcasts,
// views and splats of at most 64 bytes a thread, broadcasts through shared memory whose
// distinct values are at most 32 bytes a thread (a row vector down many rows: a thread keeps
// its columns once) unless they meet a dot's result or accumulator, and float arithmetic on
// blocks of at most one element a thread (a hoisted block is live through the whole loop); integer and pointer
// blocks (addresses, indices, masks) stay, as LLVM computes them per element where it needs
// them. Only top-level ops of a `for`
// body or a `while` region move (ops under an `if` stay), innermost loops first, so an op
// invariant in a whole nest leaves it. Memory ops, dots, ops with regions and side effects
// stay; so do integer divisions and remainders by anything but a non-zero constant, which
// would run even when the loop does not (a zero divisor is undefined behaviour in LLVM).
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void hoist_invariants(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

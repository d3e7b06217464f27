// speculate_ifs: an `if` on a scalar whose branches only compute a few cheap elementwise
// ops and yield blocks becomes those ops, run unconditionally, and a `select` per result:
//   x = exp(l - c)
//   if has_label: x = tl.where(cols == label, 0.0, x)       (an `if` yielding x)
//   =>  t = select(cols == label, 0.0, x) ; x' = select(splat(has_label), t, x)
// A branch around block values keeps all of them live across it: the blocks defined before
// the `if` and used in and after it are held at the branch, and the `if`'s result is a phi
// of every element. unsloth's chunked cross entropy (32 warps, 64 fp32 a thread under a
// 64-register cap) held its 64 exponentials there and spilled 212 bytes; as one block, the
// sum consumes each where it is computed (DESIGN.md, speculate_ifs).
//
// What is speculated: both branches hold only constants, splats, make_range, expand_dims,
// comparisons, selects, casts and the arithmetic that cannot fault or trap (add, sub, mul,
// and, or, xor, not, neg, minimum, maximum, abs, fma), at most kMaxBlockOps ops on blocks
// in all (splats and constants are free); no memory op, division, shift, math function,
// layout change (broadcast, convert) or nested region. Some result is a block and none is
// a pointer (select's pointer blocks would hide the address chains later passes follow).
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

void speculate_ifs(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

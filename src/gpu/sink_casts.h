// sink_casts: a cast that widens a block's elements (bf16 -> fp32, i32 -> i64) is moved
// down to just before its first user in its region:
//   w = load(W) ; wf = cast(w) : fp32 ; x = load(X) ; m = reduce(x) ; ... y = ... * wf
//   =>  w = load(W) ; x = load(X) ; m = reduce(x) ; ... wf = cast(w) ; y = ... * wf
// The emitter computes an op where it stands, so a widening cast at its load held twice the
// registers (an fp32 per element instead of a bf16x2 per two) across everything up to its
// first use: liger's layer norm converted its weight and bias at the top and kept 32 fp32
// across both reductions (62 registers, 4 CTAs of 256 threads an SM); sunk to the affine
// step, 48 and 5 CTAs, as under Triton 3.6 (whose single-use conversions LLVM sinks into the
// block after libdevice's rsqrt). The load itself stays where it is (in flight early).
//
// Only block casts between scalar element types whose result is wider than the operand
// move (not bitcasts, pointers, or narrowing casts, which hold fewer registers where they
// are); only within their region (to before the op holding a user in a nested region);
// not in a region that holds a dot (a pipelined loop's operand chains keep their order).
// Off with TRITIUM_REDUCE_EXPERIMENT=nosinkcasts (GpuOptions::sink_casts).
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

bool sinks_casts(const ir::Function& function, const GpuOptions& options);
void sink_casts(ir::Function& function, const GpuOptions& options);

}  // namespace tritium::gpu

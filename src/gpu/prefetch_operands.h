// prefetch_operands: transforms/prefetch_loads on the GPU's copy of a kernel, limited to the
// loads the NVPTX emitter copies asynchronously into shared memory (a 2-D fp16/bf16 load
// whose only use is a dot operand; fp8 too where wgmma may take it as it is, fp32 of a tf32
// dot and int8 of an int8 one, which run on mma.sync; and a load that reaches a dot operand
// through other ops of the loop body, as a dequantized weight does, which the emitter copies
// into a buffer each thread reads its own elements back from; one whose 16-byte runs go down
// its columns too, held transposed there, GpuOptions::read_back_axis0), and only with
// num_stages >= 2 in a kernel with a dot.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// Whether the pass applies (num_stages >= 2 and the kernel has a dot); the code generator
// runs the GPU passes on a copy only when some pass applies (pipeline.h).
bool pipelines_dots(const ir::Function& function, const GpuOptions& options);

void prefetch_operands(ir::Function& function, const GpuOptions& options);

// The attribute prefetch_operands puts on the loads it prefetches because they reach a dot
// through other ops (`{read_back = 1}`, kept by the copies prefetch_loads makes): the emitter
// copies those and reads them back (target/nvptx/async_copy.h), and no other.
inline constexpr const char* kReadBackAttr = "read_back";

// The most bytes of shared memory a loop's prefetched loads may take where some reach a dot
// through elementwise ops (gpu/prefetch_operands.cpp's choose_read_back counts each
// prefetched block num_stages + 1 times and each such dot operand once more, as the dot
// stages it): under the emitter's kMaxSharedBytes for stage buffers (target/nvptx/async_copy.h),
// with room for padding, alignment and the accumulator's reserved bytes under sm_90's 227 KiB.
inline constexpr int64_t kReadBackSharedBytes = 192 * 1024;
// The stage buffers of a loop of several dots that writes memory (a state recurrence) under
// GpuOptions::recurrence_stages: fla's fwd_h (5 blocks of 8 KiB a chunk) two chunks ahead at
// 3 stages (120 KiB, Triton 3.6's pick: 136 KiB with its staging) or three at 4 (160 KiB).
inline constexpr int64_t kRecurrenceStageBytes = 160 * 1024;

// An fp8 dot that Hopper's wgmma could run on its own 8-bit inputs: e4m3/e5m2, K a multiple
// of 32, max_num_imprecise_acc not 0 (0 asks for exact f32 accumulation: widened, as Triton
// 3.6 does; at most K: partial accumulators, ir::DotOp::needs_partial_accumulator). Whether
// it does depends on how its operands reach shared memory (target/nvptx/async_copy.h's
// native_fp8); otherwise they are widened to f16.
bool native_fp8_candidate(const ir::Op& dot);

// A dot mma.sync runs on 32-bit or 8-bit inputs: fp32 with input_precision tf32 or tf32x3
// (an fp32 result), or int8 with an int32 result and K a multiple of 32.
bool tf32_dot(const ir::Op& dot);
bool int8_dot(const ir::Op& dot);

}  // namespace tritium::gpu

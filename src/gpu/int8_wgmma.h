// int8_wgmma: which int8 dots run on Hopper's wgmma (m64nNk32 .s32.s8.s8) rather than on
// mma.sync (m16n8k32). wgmma reads 8-bit operands K-major only (no transpose bits), and a
// byte cannot be transposed by cp.async (its smallest copy is 4 bytes), so the choice
// depends on how the operands reach shared memory:
// - a dot outside loops stages both operands itself through registers (A as it is, B
//   transposed into a K-major tile): wgmma;
// - a dot in a loop whose operands prefetch_operands may pipeline: wgmma when neither
//   operand's load runs 16 bytes along its non-K axis (A down M, B along N), whose cp.async
//   copies mma.sync can read but wgmma cannot; there A as it is and B K-major are copied
//   (async_copy.h), and other operands are staged by the dot each iteration as mma.sync's
//   would be;
// - else mma.sync (a row-major B in a pipelined loop: unless GpuOptions::
//   int8_row_major_wgmma, under which its dot stages B from registers).
// The choice is the dot's attribute kInt8WgmmaAttr (printed in the GPU IR), read by the
// emitter's uses_wgmma; the pass runs before prefetch_operands, while loads feed dots
// directly. Triton 3.6 also runs int8 on wgmma on Hopper (transposing a row-major B through
// registers, which tritium leaves to mma.sync).
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

inline constexpr const char* kInt8WgmmaAttr = "int8_wgmma";
// The attribute's value for a pipelined dot whose B runs along N, on wgmma only with
// GpuOptions::int8_row_major_wgmma: A is copied as for the others, B is not (the dot stages
// it K-major from registers each iteration, as Triton 3.6 does).
inline constexpr int64_t kInt8WgmmaBFromRegisters = 2;

// Whether it applies: sm_90 and a dot in the kernel.
bool chooses_int8_wgmma(const ir::Function& function, const GpuOptions& options);

void choose_int8_wgmma(ir::Function& function, const GpuOptions& options);

// Whether the pass chose wgmma for this int8 dot.
bool int8_on_wgmma(const ir::Op& dot);

}  // namespace tritium::gpu

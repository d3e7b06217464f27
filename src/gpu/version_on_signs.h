// version_on_signs: the kernel's tail compiled twice, behind a test of the sign of a few
// scalars, when knowing them non-negative makes some memory access wider.
//
// The case it is for is the tutorial matmul's `offs_bn = (pid_n * BLOCK_N + arange) % N`.
// For a non-negative dividend each aligned run of 16 is consecutive (axis_info.cpp's rem
// rule), so B's loads are 16-byte vectors; for a negative one it is not (-16 % 16 == 0 but
// -15 % 16 == -15), and pid_n comes from divisions by values of unknown sign. Triton
// assumes the run; tritium proves it, in a copy:
//
//     ...ops up to the last of the scalars s...
//     if s >= 0 (each of them) { the rest, with s replaced by maximum(s, 0) }
//     else                     { the rest, as written }
//
// Under the test maximum(s, 0) == s, so both branches compute what the kernel says; in the
// first the axis facts see a non-negative s. The pass keeps the version only when some load
// or store of the first branch gets a wider vector than before (gpu/vector_widths.h).
//
// The second branch is cold: launches of a grid whose scalars are non-negative never take
// it, yet registers are allocated per kernel, so what it holds across its loop sets the
// register count of the branch that runs. Its loads are marked `cold`; the emitter computes
// a cold copy's addresses inside the loop where the facts leave its groups unproven
// (target/nvptx/emit_async.cpp), rather than holding one pointer per element across it.
#pragma once

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// Whether the pass applies: vectorizing at all.
bool versions_on_signs(const ir::Function& function, const GpuOptions& options);

void version_on_signs(ir::Function& function, const GpuOptions& options);

// The attribute that marks a load of the cold branch, and whether `op` has it.
inline constexpr const char* kColdAttr = "cold";
bool is_cold(const ir::Op& op);

// Whether the emitter computes the addresses of `load`, a dot operand copied into shared
// memory whose groups the facts leave unproven (`width` 1), where each copy is issued: a
// cold load whose pointer follows from its element index (gpu/scratch.h's recomputable).
// It then copies one element at a time, without the run-time test of a group, which would
// need each group's addresses at once.
bool computes_cold_addresses(const ir::Op& load, int width);

// The same for a load that is not copied (a loop's dequantized weight, read into registers):
// a cold block load inside a loop, `width` 1, its pointer recomputable. The emitter then
// computes each element's address where it loads it, one element at a time, untested
// (target/nvptx/emit_memory.cpp), rather than holding one pointer per element across the
// loop (DeepSpeed's fp8 GEMM: 544 of 608 spilled bytes).
bool loads_at_cold_addresses(const ir::Op& load, int width);

}  // namespace tritium::gpu

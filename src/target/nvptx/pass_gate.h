// Which of LLVM's NVPTX codegen IR passes a kernel skips: the straight-line scalar passes take
// time quadratic (or worse) in the length of one basic block, which blocks of thousands of
// elements per thread make minutes long (issue 11 #9). Test: test_nvptx.cpp ("pass gate").
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/ir.h"

namespace tritium::nvptx {

// Above this many elements per thread in one block value, StraightLineStrengthReduce and
// NaryReassociate are skipped. 128 is what the largest tuned kernels hold (the tutorial
// matmul's 128x128 fp32 accumulator and pointer tiles in 4 warps, 128x256 in 8), so they keep
// both passes and their PTX. Past it the kernel is one straight line of per-element code (an
// elementwise or reduction block of 32K+ elements in 4 warps) where these passes cost seconds
// to minutes (each doubling of the block about quadruples it: 12 s at 64K elements, 212 s at
// 256K) and find little: an elementwise kernel's PTX is byte-identical without them.
constexpr int64_t kStraightLineElementLimit = 128;

// The most elements one thread holds of any block value of `function` with `num_warps` warps.
int64_t max_elements_per_thread(const ir::Function& function, int num_warps);

// Whether compiling `function` with `num_warps` warps skips the straight-line passes.
bool skips_straight_line_passes(const ir::Function& function, int num_warps);

// Whether `pass` (LLVM's pass argument, as an OptPassGate sees it) is one of those passes.
bool is_straight_line_pass(std::string_view pass);

// Whether `pass` is LLVM's LoopStrengthReduce (the gate skips it under the experiment "nolsr":
// codegen.cpp). On tritium's loops it turns a scalar offset added to per-thread addresses
// held through the loop into one 64-bit pointer induction variable per address, each live
// through the loop (mamba's dCB at 64 x 32: 126 registers with it, 94 without; Triton 96).
bool is_loop_strength_reduction(std::string_view pass);

}  // namespace tritium::nvptx

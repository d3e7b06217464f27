// The per-thread register budget of one block value: a block whose elements would need more
// 32-bit registers per thread than kRegisterBudget is a located error before LLVM is asked
// (LLVM's time grows faster than linearly with them: issue 11 #9). Test: test_nvptx_atomics.cpp.
#pragma once

#include "ir/ir.h"

namespace tritium::nvptx {

// 32-bit registers one thread may hold for a single block value. The GPU has 255 per thread
// and spills beyond, yet Triton compiles such kernels (a 256x256 tile of pointers in 4 warps
// is 1024, and ran correctly on the H200), so only blocks far past any real kernel (and
// minutes of LLVM time) are refused: 2^20-element blocks in a few warps.
constexpr int kRegisterBudget = 4096;

// Throws a CompileError at the first op whose block result exceeds the budget with
// `num_warps` warps, naming its type, the registers it needs and the budget.
void check_register_budget(const ir::Function& function, int num_warps);

}  // namespace tritium::nvptx

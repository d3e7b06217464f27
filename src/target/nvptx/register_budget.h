// The per-thread register budget of one block value: a block whose elements would need more
// 32-bit registers per thread than kRegisterBudget is a located error before LLVM is asked
// (LLVM's time grows faster than linearly with them: issue 11 #9). Test: test_nvptx_atomics.cpp.
#pragma once

#include "ir/ir.h"

namespace tritium::nvptx {

// 32-bit registers one thread may hold for a single block value (Triton compiles 256x256
// tiles of pointers in 8 warps: 512). The GPU has 255 per thread;
// beyond that everything spills, and LLVM's O3 on 256 takes ~10 s (512: ~45 s).
constexpr int kRegisterBudget = 512;

// Throws a CompileError at the first op whose block result exceeds the budget with
// `num_warps` warps, naming its type, the registers it needs and the budget.
void check_register_budget(const ir::Function& function, int num_warps);

}  // namespace tritium::nvptx

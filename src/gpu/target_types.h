// The element types a GPU target compiles, checked on the tile IR right after lowering (so a
// value that later passes would delete still counts, as Triton checks each type when it
// builds its IR). The fp8 set is Triton's NVIDIA backend's: fp8e5 and fp8e4b15 everywhere,
// fp8e4nv from sm_89; the "fnuz" types fp8e4b8 and fp8e5b16 are AMD's and never compile for
// an NVIDIA GPU. The interpreter takes every type.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tritium::gpu {

// The supported fp8 names, sorted, as Triton prints the tuple: "('fp8e4b15', 'fp8e4nv', 'fp8e5')".
std::string supported_fp8_text(int sm);

// Throws CompilationError at the first op (in program order) whose result or operand has an
// fp8 element type `sm` does not support, or at the kernel for such a parameter:
// "type fp8e4b8 not supported in this architecture. The supported fp8 dtypes are (...)".
// From sm_90 a dot of fp8e4b15 operands is a warning (support/diagnostics.h warn_at), as
// Triton 3.6 gives: the format is deprecated there.
void check_target_types(const ir::Function& function, int sm);

}  // namespace tritium::gpu

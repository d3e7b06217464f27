// The interpreter's debugging ops: device_print writes Triton's per-element lines to
// stdout, device_assert fails at the kernel's file:line (fma is in ir/elementwise.def).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "interp/values.h"
#include "ir/ir.h"

namespace tritium::interp {

// `print`: for each operand, one line per element in row-major order,
//   pid (x, y, z) idx (i, j)<prefix>[(operand n) ]<value>
// (Triton's format: index fields padded to the digits of their dimension, floats as %f,
// {hex = 1} as 0x and the bits); without operands one line `pid (x, y, z)<prefix>`.
void exec_print(const ir::Op& op, const std::vector<const Buffer*>& operands, const std::array<uint32_t, 3>& program);

// `assert`: a CompileError at the op (the kernel's file:line:col) naming the message, the
// program and the index of the first element whose condition is false.
void exec_assert(const ir::Op& op, const Buffer& cond, const std::array<uint32_t, 3>& program);

}  // namespace tritium::interp

// The interpreter's debugging ops and fma: device_print writes Triton's per-element lines
// to stdout, device_assert fails at the kernel's file:line, fma rounds once.
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

// `fma`: a * b + c with one rounding (fp16/bf16 are computed in fp64 and rounded to their
// format, exact except for sums spanning more than 53 bits).
void eval_fma(const Buffer& a, const Buffer& b, const Buffer& c, Buffer& result);

}  // namespace tritium::interp

// Triton's rule for the shape of every block a kernel makes (TRITON_MAX_TENSOR_NUMEL):
// each dimension a power of two, at most 2^20 elements in all. Lowering checks it wherever
// a block type is built from user shapes, so no later stage sees an unbounded block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/source.h"

namespace tritium::lower {

// Triton's limit on the elements of one block.
constexpr int64_t kMaxBlockElements = int64_t{1} << 20;

// The number of elements of `shape`; a CompileError at `loc` when a dimension is not a
// positive power of two or the product exceeds kMaxBlockElements. Never overflows.
int64_t check_block_shape(const std::vector<int64_t>& shape, const Loc& loc);

// A shape as Triton's messages print it: "[16, 32]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace tritium::lower

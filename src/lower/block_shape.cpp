// The block-shape rule of block_shape.h: one check, called by every lowering site that
// makes a block from a user shape (tl.arange, tl.full/zeros, reshape, broadcasts).
#include "lower/block_shape.h"

#include <string>

#include "support/diagnostics.h"

namespace tritium::lower {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t check_block_shape(const std::vector<int64_t>& shape, const Loc& loc) {
  // Each dimension is checked before it is multiplied in, and the product stops growing at
  // the limit: with both at most 2^20 the running product never passes 2^40.
  int64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d <= 0 || (d & (d - 1)) != 0) {
      error_at(loc, "dimension " + std::to_string(i) + " of the block shape " + shape_text(shape) +
                        " must be a positive power of two");
    }
    if (d > kMaxBlockElements || numel * d > kMaxBlockElements) {
      error_at(loc, "a block of shape " + shape_text(shape) + " exceeds the block limit of " +
                        std::to_string(kMaxBlockElements) + " elements");
    }
    numel *= d;
  }
  return numel;
}

}  // namespace tritium::lower

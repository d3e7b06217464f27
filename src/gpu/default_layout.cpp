// flat_blocked (default_layout.h): the flat index's bits dealt out to the dimensions.
#include "gpu/default_layout.h"

#include "support/diagnostics.h"

namespace tritium::gpu {

namespace {

int log2_of(int64_t v) {
  int bits = 0;
  while ((int64_t{1} << bits) < v) ++bits;
  return bits;
}

}  // namespace

bool layout_shape(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d < 1 || (d & (d - 1)) != 0) return false;
  }
  return !shape.empty();
}

const ir::Layout* flat_blocked(const std::vector<int64_t>& shape, int threads, int vector) {
  if (!layout_shape(shape) || threads < 32) internal_error("gpu layouts", "no blocked layout for this block");
  int rank = static_cast<int>(shape.size());
  std::vector<int> left(rank);  // bits of each dimension not yet dealt out
  for (int d = 0; d < rank; ++d) left[d] = log2_of(shape[d]);
  // `count` more flat bits, fastest dimension first; past the block, dimension 0 (free).
  auto deal = [&](int count) {
    std::vector<int> sizes(rank, 1);
    for (int d = rank - 1; d >= 0 && count > 0; --d) {
      int take = std::min(count, left[d]);
      sizes[d] <<= take;
      left[d] -= take;
      count -= take;
    }
    sizes[0] <<= count;
    return sizes;
  };
  std::vector<int> spt = deal(log2_of(vector));
  std::vector<int> tpw = deal(5);
  std::vector<int> wpc = deal(log2_of(threads) - 5);
  std::vector<int> order;
  for (int d = rank - 1; d >= 0; --d) order.push_back(d);
  return ir::Layout::blocked(shape, spt, tpw, wpc, order);
}

}  // namespace tritium::gpu

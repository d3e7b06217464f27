// Linear layouts (linear_layout.h): construction from blocked parameters and from the
// flat one-owner rule, and the algebra over their bases (Gaussian elimination over GF(2)).
#include "ir/linear_layout.h"

#include <algorithm>

#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

int log2_of(int64_t value, const char* what) {
  int bits = 0;
  while ((int64_t{1} << bits) < value) ++bits;
  if (value < 1 || (int64_t{1} << bits) != value) {
    internal_error("linear layout", std::string(what) + " " + std::to_string(value) + " is not a power of two");
  }
  return bits;
}

// The lowest flat bit of each dimension of a row-major `shape`.
std::vector<int> dim_starts(const std::vector<int64_t>& shape) {
  std::vector<int> start(shape.size(), 0);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) start[d] = start[d + 1] + log2_of(shape[d + 1], "a dimension");
  return start;
}

}  // namespace

LinearLayout::LinearLayout(std::vector<int64_t> shape, std::array<std::vector<int64_t>, kInDims> bases)
    : shape_(std::move(shape)), bases_(std::move(bases)) {
  int64_t n = num_elements();
  for (const auto& dim : bases_) {
    for (int64_t b : dim) {
      if (b < 0 || b >= n) internal_error("linear layout", "a basis " + std::to_string(b) + " outside " + std::to_string(n) + " elements");
    }
  }
}

int64_t LinearLayout::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

LinearLayout LinearLayout::blocked(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                                   const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                                   const std::vector<int>& order) {
  size_t rank = shape.size();
  if (size_per_thread.size() != rank || threads_per_warp.size() != rank || warps_per_cta.size() != rank ||
      order.size() != rank) {
    internal_error("linear layout", "blocked parameters of the wrong rank");
  }
  std::vector<int> start = dim_starts(shape);
  std::array<std::vector<int64_t>, kInDims> bases;
  std::vector<int> used(rank, 0);  // bits of each dimension taken so far
  std::vector<int> size(rank);
  for (size_t d = 0; d < rank; ++d) size[d] = log2_of(shape[d], "a dimension");
  // One input bit after another, each taking the next bit of its dimension; past the
  // dimension's size it is free.
  auto take = [&](InDim in, int d, int count) {
    for (int i = 0; i < count; ++i) {
      bases[in].push_back(used[d] < size[d] ? int64_t{1} << (start[d] + used[d]) : 0);
      ++used[d];
    }
  };
  for (int d : order) take(kRegister, d, log2_of(size_per_thread[d], "sizePerThread"));
  for (int d : order) take(kLane, d, log2_of(threads_per_warp[d], "threadsPerWarp"));
  for (int d : order) take(kWarp, d, log2_of(warps_per_cta[d], "warpsPerCTA"));
  // What is left of each dimension wraps around into more registers.
  for (int d : order) {
    while (used[d] < size[d]) take(kRegister, d, 1);
  }
  return LinearLayout(shape, std::move(bases));
}

LinearLayout LinearLayout::flat(const std::vector<int64_t>& shape, int threads, int vector) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  int element_bits = log2_of(n, "a block size");
  int v = log2_of(vector, "a vector width");
  int t = log2_of(threads, "a thread count");
  std::array<std::vector<int64_t>, kInDims> bases;
  auto bit = [&](int e) { return e < element_bits ? int64_t{1} << e : 0; };
  for (int j = 0; j < v; ++j) bases[kRegister].push_back(bit(j));
  for (int j = 0; j < t; ++j) bases[j < 5 ? kLane : kWarp].push_back(bit(v + j));
  for (int e = v + t; e < element_bits; ++e) bases[kRegister].push_back(bit(e));
  return LinearLayout(shape, std::move(bases));
}

int64_t LinearLayout::apply(int64_t reg, int64_t lane, int64_t warp) const {
  int64_t out = 0;
  int64_t in[kInDims] = {reg, lane, warp};
  for (int d = 0; d < kInDims; ++d) {
    for (size_t b = 0; b < bases_[d].size(); ++b) {
      if ((in[d] >> b) & 1) out ^= bases_[d][b];
    }
  }
  return out;
}

std::vector<int64_t> LinearLayout::coordinates(int64_t flat) const {
  std::vector<int64_t> coords(shape_.size());
  for (int d = static_cast<int>(shape_.size()) - 1; d >= 0; --d) {
    coords[d] = flat % shape_[d];
    flat /= shape_[d];
  }
  return coords;
}

int64_t LinearLayout::free_mask(InDim dim) const {
  int64_t mask = 0;
  for (size_t b = 0; b < bases_[dim].size(); ++b) {
    if (bases_[dim][b] == 0) mask |= int64_t{1} << b;
  }
  return mask;
}

int64_t LinearLayout::mask_along(InDim dim, int out_dim) const {
  std::vector<int> start = dim_starts(shape_);
  int64_t dim_bits = (shape_[out_dim] - 1) << start[out_dim];
  int64_t mask = 0;
  for (size_t b = 0; b < bases_[dim].size(); ++b) {
    if (bases_[dim][b] & dim_bits) mask |= int64_t{1} << b;
  }
  return mask;
}

namespace {

// Row-reduces `vectors` (bit vectors) in place; returns the rank.
struct Echelon {
  std::vector<int64_t> rows;  // reduced, each with a distinct leading bit
  std::vector<int64_t> combos;  // which inputs (as bits) each row is the XOR of

  // Adds `v` (input number `index`); false when it depends on the rows already there.
  bool add(int64_t v, int64_t combo) {
    for (size_t i = 0; i < rows.size(); ++i) {
      int64_t lead = int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(rows[i])));
      if (v & lead) {
        v ^= rows[i];
        combo ^= combos[i];
      }
    }
    if (v == 0) return false;
    rows.push_back(v);
    combos.push_back(combo);
    // Keep rows sorted by leading bit, descending, so reduction is one pass.
    for (size_t i = rows.size() - 1; i > 0 && rows[i] > rows[i - 1]; --i) {
      std::swap(rows[i], rows[i - 1]);
      std::swap(combos[i], combos[i - 1]);
    }
    return true;
  }
};

}  // namespace

bool LinearLayout::surjective() const {
  Echelon e;
  int rank = 0;
  for (const auto& dim : bases_) {
    for (int64_t b : dim) rank += b != 0 && e.add(b, 0);
  }
  return (int64_t{1} << rank) == num_elements();
}

bool LinearLayout::injective_up_to_free() const {
  Echelon e;
  for (const auto& dim : bases_) {
    for (int64_t b : dim) {
      if (b != 0 && !e.add(b, 0)) return false;
    }
  }
  return true;
}

LinearLayout LinearLayout::slice(int out_dim) const {
  std::vector<int> start = dim_starts(shape_);
  int low = start[out_dim];
  int width = log2_of(shape_[out_dim], "a dimension");
  std::vector<int64_t> shape = shape_;
  shape.erase(shape.begin() + out_dim);
  std::array<std::vector<int64_t>, kInDims> bases;
  for (int d = 0; d < kInDims; ++d) {
    for (int64_t b : bases_[d]) {
      int64_t below = b & ((int64_t{1} << low) - 1);
      int64_t above = b >> (low + width);
      bases[d].push_back(below | (above << low));
    }
  }
  return LinearLayout(shape, std::move(bases));
}

LinearLayout LinearLayout::transpose(const std::vector<int64_t>& order) const {
  std::vector<int> from_start = dim_starts(shape_);
  std::vector<int64_t> shape;
  for (int64_t d : order) shape.push_back(shape_[d]);
  std::vector<int> to_start = dim_starts(shape);
  std::array<std::vector<int64_t>, kInDims> bases;
  for (int d = 0; d < kInDims; ++d) {
    for (int64_t b : bases_[d]) {
      int64_t out = 0;
      for (size_t i = 0; i < order.size(); ++i) {
        int64_t coord = (b >> from_start[order[i]]) & (shape_[order[i]] - 1);
        out |= coord << to_start[i];
      }
      bases[d].push_back(out);
    }
  }
  return LinearLayout(shape, std::move(bases));
}

LinearLayout LinearLayout::reshape(const std::vector<int64_t>& shape) const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != num_elements()) internal_error("linear layout", "a reshape changes the number of elements");
  return LinearLayout(shape, bases_);
}

bool LinearLayout::in_thread(const LinearLayout& from, const LinearLayout& to, int64_t (*source_of)(int64_t, const void*),
                             const void* context) {
  if (from.in_bits(kLane) != to.in_bits(kLane) || from.in_bits(kWarp) != to.in_bits(kWarp)) return false;
  Echelon registers;
  for (int64_t b : from.bases_[kRegister]) {
    if (b != 0) registers.add(b, 0);
  }
  // In the span of `from`'s register bases: reduce by the echelon rows.
  auto in_span = [&](int64_t v) {
    for (int64_t row : registers.rows) {
      int64_t lead = int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(row)));
      if (v & lead) v ^= row;
    }
    return v == 0;
  };
  auto map = [&](int64_t e) { return source_of ? source_of(e, context) : e; };
  // Linear in the input bits: checking each basis checks every (reg, lane, warp).
  for (int64_t b : to.bases_[kRegister]) {
    if (!in_span(map(b))) return false;
  }
  for (int d = kLane; d <= kWarp; ++d) {
    for (size_t i = 0; i < to.bases_[d].size(); ++i) {
      if (!in_span(map(to.bases_[d][i]) ^ from.bases_[d][i])) return false;
    }
  }
  return true;
}

int64_t LinearLayout::locate(int64_t flat) const {
  Echelon e;
  int shift = 0;
  for (const auto& dim : bases_) {
    for (size_t b = 0; b < dim.size(); ++b) {
      if (dim[b] != 0) e.add(dim[b], int64_t{1} << (shift + static_cast<int>(b)));
    }
    shift += static_cast<int>(dim.size());
  }
  int64_t combo = 0;
  for (size_t i = 0; i < e.rows.size(); ++i) {
    int64_t lead = int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(e.rows[i])));
    if (flat & lead) {
      flat ^= e.rows[i];
      combo ^= e.combos[i];
    }
  }
  if (flat != 0) internal_error("linear layout", "an element no input holds: " + str());
  return combo;
}

std::string LinearLayout::str() const {
  std::string out = "linear<";
  for (size_t d = 0; d < shape_.size(); ++d) out += (d ? "x" : "") + std::to_string(shape_[d]);
  static const char* const kNames[kInDims] = {"reg", "lane", "warp"};
  for (int d = 0; d < kInDims; ++d) {
    out += std::string(d ? ", " : ": ") + kNames[d] + "=[";
    for (size_t b = 0; b < bases_[d].size(); ++b) out += (b ? "," : "") + std::to_string(bases_[d][b]);
    out += "]";
  }
  return out + ">";
}

}  // namespace tritium::ir

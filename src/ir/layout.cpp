// Interned layouts (layout.h): named encodings built on linear layouts, their checks and
// their printed form. One table per process, as for types.
#include "ir/layout.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

bool power_of_two(int64_t v) { return v >= 1 && (v & (v - 1)) == 0; }

std::string list(const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

// Keyed by shape and printed form, which together fix a layout.
class LayoutTable {
 public:
  static LayoutTable& get() {
    static LayoutTable* table = new LayoutTable();  // leaked on purpose, as the type table
    return *table;
  }
  const Layout* intern(Layout layout) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Layout*& slot = layouts_[{layout.shape(), layout.str()}];
    if (!slot) slot = new Layout(std::move(layout));
    return slot;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<std::vector<int64_t>, std::string>, const Layout*> layouts_;
};

const Layout* Layout::intern(Layout layout) { return LayoutTable::get().intern(std::move(layout)); }

std::string Layout::linear_problem(const std::vector<int64_t>& shape,
                                   const std::array<std::vector<int64_t>, LinearLayout::kInDims>& bases) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (!power_of_two(d)) return "a layout needs power-of-two dimensions, got " + std::to_string(d);
    n *= d;
  }
  if (bases[LinearLayout::kLane].size() != 5) return "a layout has 5 lane bits (32 lanes), got " + std::to_string(bases[LinearLayout::kLane].size());
  if (bases[LinearLayout::kWarp].size() > 5) return "a layout has at most 5 warp bits (32 warps)";
  for (const auto& dim : bases) {
    for (int64_t b : dim) {
      if (b < 0 || b >= n) return "a basis " + std::to_string(b) + " outside the block's " + std::to_string(n) + " elements";
    }
  }
  LinearLayout layout(shape, bases);
  if (!layout.surjective()) return "the layout does not hold every element of the block";
  return "";
}

std::string Layout::blocked_problem(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                                    const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                                    const std::vector<int>& order) {
  size_t rank = shape.size();
  if (size_per_thread.size() != rank || threads_per_warp.size() != rank || warps_per_cta.size() != rank ||
      order.size() != rank) {
    return "a blocked layout of a rank-" + std::to_string(rank) + " block needs " + std::to_string(rank) +
           " entries in spt, tpw, wpc and order";
  }
  for (int64_t d : shape) {
    if (!power_of_two(d)) return "a layout needs power-of-two dimensions, got " + std::to_string(d);
  }
  int64_t lanes = 1, warps = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!power_of_two(size_per_thread[d]) || !power_of_two(threads_per_warp[d]) || !power_of_two(warps_per_cta[d])) {
      return "spt, tpw and wpc must be powers of two";
    }
    lanes *= threads_per_warp[d];
    warps *= warps_per_cta[d];
  }
  if (lanes != 32) return "tpw must multiply to 32 lanes, got " + std::to_string(lanes);
  if (warps > 32) return "wpc must multiply to at most 32 warps, got " + std::to_string(warps);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t d = 0; d < rank; ++d) {
    if (sorted[d] != static_cast<int>(d)) return "order must be a permutation of the dimensions, got " + list(order);
  }
  return "";
}

const Layout* Layout::from_linear(const LinearLayout& linear) {
  Layout layout;
  layout.kind_ = Kind::Linear;
  layout.linear_ = linear;
  return intern(std::move(layout));
}

const Layout* Layout::blocked(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                              const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                              const std::vector<int>& order) {
  std::string problem = blocked_problem(shape, size_per_thread, threads_per_warp, warps_per_cta, order);
  if (!problem.empty()) internal_error("ir layout", problem);
  Layout layout;
  layout.kind_ = Kind::Blocked;
  layout.linear_ = LinearLayout::blocked(shape, size_per_thread, threads_per_warp, warps_per_cta, order);
  layout.size_per_thread_ = size_per_thread;
  layout.threads_per_warp_ = threads_per_warp;
  layout.warps_per_cta_ = warps_per_cta;
  layout.order_ = order;
  return intern(std::move(layout));
}

const Layout* Layout::slice(int dim, const Layout* parent) {
  if (parent == nullptr || dim < 0 || dim >= static_cast<int>(parent->shape().size()) || parent->shape().size() < 2) {
    internal_error("ir layout", "a slice of dimension " + std::to_string(dim) + " of a layout without it");
  }
  Layout layout;
  layout.kind_ = Kind::Slice;
  layout.linear_ = parent->linear().slice(dim);
  layout.slice_dim_ = dim;
  layout.parent_ = parent;
  return intern(std::move(layout));
}

const Layout* Layout::reshape(const std::vector<int64_t>& shape) const {
  if (shape == this->shape()) return this;
  return from_linear(linear_.reshape(shape));
}

const Layout* Layout::transpose(const std::vector<int64_t>& order) const {
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity = identity && order[i] == static_cast<int64_t>(i);
  if (identity) return this;
  return from_linear(linear_.transpose(order));
}

std::string Layout::str() const {
  switch (kind_) {
    case Kind::Blocked:
      return "blocked<spt = " + list(size_per_thread_) + ", tpw = " + list(threads_per_warp_) +
             ", wpc = " + list(warps_per_cta_) + ", order = " + list(order_) + ">";
    case Kind::Slice:
      return "slice<dim = " + std::to_string(slice_dim_) + ", size = " +
             std::to_string(parent_->shape()[slice_dim_]) + ", parent = " + parent_->str() + ">";
    case Kind::Linear: {
      static const char* const kNames[LinearLayout::kInDims] = {"reg", "lane", "warp"};
      std::string out = "linear<";
      for (int d = 0; d < LinearLayout::kInDims; ++d) {
        std::vector<int64_t> bases;
        auto dim = static_cast<LinearLayout::InDim>(d);
        for (int b = 0; b < linear_.in_bits(dim); ++b) bases.push_back(linear_.basis(dim, b));
        out += std::string(d ? ", " : "") + kNames[d] + " = " + list(bases);
      }
      return out + ">";
    }
    case Kind::Mma: return "mma<>";
    case Kind::DotOperand: return "dot_operand<>";
    case Kind::Shared: return "shared<>";
  }
  return "?";
}

}  // namespace tritium::ir

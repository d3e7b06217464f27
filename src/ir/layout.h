// The layout slot of a block type: how a block's elements sit in the registers, lanes and
// warps of a CTA. Every kind is a linear layout (linear_layout.h) plus, for the named
// encodings, the parameters it was built from, which the IR text prints instead of bases.
// Layouts are interned and immutable: equality is a pointer compare, as for types.
#pragma once

#include <string>
#include <vector>

#include "ir/linear_layout.h"

namespace tritium::ir {

class Layout {
 public:
  // Linear: bases given directly. Blocked: Triton's blocked encoding. Slice: a reduction's
  // result (its parent's layout with one dimension dropped). Mma, DotOperand, Shared: kinds
  // kept for the tensor-core work; nothing builds them yet.
  enum class Kind : uint8_t { Linear, Blocked, Slice, Mma, DotOperand, Shared };

  static const Layout* from_linear(const LinearLayout& layout);
  // Parameters as LinearLayout::blocked's; products must be 32 lanes and a power of two of warps.
  static const Layout* blocked(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                               const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                               const std::vector<int>& order);
  // `parent` with dimension `dim` dropped (LinearLayout::slice).
  static const Layout* slice(int dim, const Layout* parent);
  // What is wrong with these parameters ("" when nothing): the parser's located errors.
  static std::string blocked_problem(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                                     const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                                     const std::vector<int>& order);
  static std::string linear_problem(const std::vector<int64_t>& shape,
                                    const std::array<std::vector<int64_t>, LinearLayout::kInDims>& bases);

  Kind kind() const { return kind_; }
  const LinearLayout& linear() const { return linear_; }
  const std::vector<int64_t>& shape() const { return linear_.shape(); }
  int num_warps() const { return 1 << linear_.in_bits(LinearLayout::kWarp); }

  // Blocked only.
  const std::vector<int>& size_per_thread() const { return size_per_thread_; }
  const std::vector<int>& threads_per_warp() const { return threads_per_warp_; }
  const std::vector<int>& warps_per_cta() const { return warps_per_cta_; }
  const std::vector<int>& order() const { return order_; }
  // Slice only.
  int slice_dim() const { return slice_dim_; }
  const Layout* parent() const { return parent_; }

  // The same placement of a reshaped / transposed block (a named encoding becomes linear).
  const Layout* reshape(const std::vector<int64_t>& shape) const;
  const Layout* transpose(const std::vector<int64_t>& order) const;

  // The printed form inside a block type (the shape is the block's):
  //   blocked<spt = [1, 4], tpw = [8, 4], wpc = [4, 1], order = [1, 0]>
  //   slice<dim = 1, size = 64, parent = blocked<...>>   (size: the dropped dimension's)
  //   linear<reg = [1, 2], lane = [4, 8, 16, 32, 0], warp = [64, 128]>
  std::string str() const;

 private:
  Layout() = default;
  static const Layout* intern(Layout layout);
  friend class LayoutTable;

  Kind kind_ = Kind::Linear;
  LinearLayout linear_;
  std::vector<int> size_per_thread_, threads_per_warp_, warps_per_cta_, order_;
  int slice_dim_ = -1;
  const Layout* parent_ = nullptr;
};

}  // namespace tritium::ir

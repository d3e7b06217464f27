// Linear layouts: how the elements of a block are spread over the registers, lanes and
// warps of a CTA, as a map that is linear over GF(2) (Triton's LinearLayout):
//
//     element(reg, lane, warp) = XOR of basis(bit) over the set bits of reg, lane and warp
//
// where every size is a power of two and an element is its flat row-major index, a bit
// vector. A layout is therefore fixed by one basis per input bit. A zero basis is a free
// bit: inputs that differ only there hold the same element (replication: a reduction's
// result, a block smaller than the CTA). Conversions, reductions and shuffles are
// computed from the bases (layout algebra), never special-cased per pair of layouts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tritium::ir {

class LinearLayout {
 public:
  enum InDim : int { kRegister = 0, kLane = 1, kWarp = 2 };
  static constexpr int kInDims = 3;

  LinearLayout() = default;
  // `bases[d][b]`: the flat element index of input bit b of input dimension d alone.
  LinearLayout(std::vector<int64_t> shape, std::array<std::vector<int64_t>, kInDims> bases);

  // Triton's blocked layout: `size_per_thread` contiguous elements per thread along each
  // dimension, then `threads_per_warp` lanes and `warps_per_cta` warps, fastest dimension
  // first as given by `order` (order[0] is the fastest); dimensions larger than one round
  // wrap into more registers, smaller ones replicate (free lane or warp bits).
  static LinearLayout blocked(const std::vector<int64_t>& shape, const std::vector<int>& size_per_thread,
                              const std::vector<int>& threads_per_warp, const std::vector<int>& warps_per_cta,
                              const std::vector<int>& order);
  // The one-owner flat layout of target/nvptx (layout.h): V contiguous elements per thread,
  // threads next, then the remaining registers; thread bits past the block are free.
  static LinearLayout flat(const std::vector<int64_t>& shape, int threads, int vector);

  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  int in_bits(InDim dim) const { return static_cast<int>(bases_[dim].size()); }
  int64_t basis(InDim dim, int bit) const { return bases_[dim][bit]; }
  int64_t in_size(InDim dim) const { return int64_t{1} << in_bits(dim); }

  // The flat element held at (reg, lane, warp), and its coordinates.
  int64_t apply(int64_t reg, int64_t lane, int64_t warp) const;
  std::vector<int64_t> coordinates(int64_t flat) const;

  // The bits of `dim` whose basis is zero (replicated) / touches dimension `out_dim`.
  int64_t free_mask(InDim dim) const;
  int64_t mask_along(InDim dim, int out_dim) const;

  // Every element is held somewhere (the bases span the block).
  bool surjective() const;
  // No element is held twice apart from free bits (the non-zero bases are independent).
  bool injective_up_to_free() const;

  // The layout of a reduction's result along `out_dim`: that dimension is dropped, and
  // input bits that only moved along it become free (Triton's slice layout).
  LinearLayout slice(int out_dim) const;
  // The same placement viewed with dimensions permuted: result dim i is dim order[i].
  LinearLayout transpose(const std::vector<int64_t>& order) const;
  // The same placement of a reshaped block (the row-major order is kept, so the bases do
  // not change, only the shape that reads them).
  LinearLayout reshape(const std::vector<int64_t>& shape) const;

  // For every element, one (reg, lane, warp) that holds it, as flat input bits
  // (reg | lane << R | warp << (R + L)); the inverse on the span, free bits set to 0.
  // Requires surjective(); used to find where a converted element comes from.
  int64_t locate(int64_t flat) const;

  // Whether `to` can be made from `from` without moving data between threads: every element
  // that (reg, lane, warp) holds in `to`, mapped through `source_of` (a GF(2)-linear map of
  // flat indices, e.g. a broadcast's projection; identity when null), is held by the same
  // (lane, warp) in `from`, in some register.
  static bool in_thread(const LinearLayout& from, const LinearLayout& to, int64_t (*source_of)(int64_t, const void*) = nullptr,
                        const void* context = nullptr);

  bool operator==(const LinearLayout& other) const { return shape_ == other.shape_ && bases_ == other.bases_; }
  // "linear<4x8: reg=[1,2], lane=[4,8,16,0,0], warp=[0]>" (bases as flat indices).
  std::string str() const;

 private:
  std::vector<int64_t> shape_;
  std::array<std::vector<int64_t>, kInDims> bases_;
};

}  // namespace tritium::ir

// Linear layouts (src/ir/linear_layout.h): the properties every layout keeps, checked over
// every (register, lane, warp) — each lands inside the block, no element is lost, and the
// replicated holders of an element are exactly those that differ in free bits.
#include <catch2/catch.hpp>

#include <set>

#include "ir/linear_layout.h"

using tritium::ir::LinearLayout;

namespace {

// Every element is held, each holder lands in the block, and two holders of one element
// differ only in free bits.
void check_properties(const LinearLayout& layout) {
  int64_t n = layout.num_elements();
  std::vector<int64_t> first(static_cast<size_t>(n), -1);
  int64_t regs = layout.in_size(LinearLayout::kRegister), lanes = layout.in_size(LinearLayout::kLane);
  int64_t warps = layout.in_size(LinearLayout::kWarp);
  int64_t free_bits = layout.free_mask(LinearLayout::kRegister) |
                      (layout.free_mask(LinearLayout::kLane) << layout.in_bits(LinearLayout::kRegister)) |
                      (layout.free_mask(LinearLayout::kWarp)
                       << (layout.in_bits(LinearLayout::kRegister) + layout.in_bits(LinearLayout::kLane)));
  for (int64_t w = 0; w < warps; ++w) {
    for (int64_t l = 0; l < lanes; ++l) {
      for (int64_t r = 0; r < regs; ++r) {
        int64_t e = layout.apply(r, l, w);
        REQUIRE(e >= 0);
        REQUIRE(e < n);
        int64_t input = r | (l << layout.in_bits(LinearLayout::kRegister)) |
                        (w << (layout.in_bits(LinearLayout::kRegister) + layout.in_bits(LinearLayout::kLane)));
        if (first[e] < 0) first[e] = input;
        else REQUIRE(((first[e] ^ input) & ~free_bits) == 0);  // replicas differ in free bits only
      }
    }
  }
  for (int64_t e = 0; e < n; ++e) REQUIRE(first[e] >= 0);  // no element lost
  REQUIRE(layout.surjective());
  REQUIRE(layout.injective_up_to_free());
  // locate() finds a holder of every element.
  for (int64_t e = 0; e < n; ++e) {
    int64_t in = layout.locate(e);
    int rb = layout.in_bits(LinearLayout::kRegister), lb = layout.in_bits(LinearLayout::kLane);
    REQUIRE(layout.apply(in & ((int64_t{1} << rb) - 1), (in >> rb) & ((int64_t{1} << lb) - 1), in >> (rb + lb)) == e);
  }
}

}  // namespace

TEST_CASE("blocked layouts keep every element and replicate only on free bits", "[linear_layout]") {
  check_properties(LinearLayout::blocked({16, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0}));
  check_properties(LinearLayout::blocked({128, 128}, {1, 8}, {4, 8}, {8, 1}, {1, 0}));
  check_properties(LinearLayout::blocked({4, 8}, {1, 1}, {4, 8}, {4, 1}, {1, 0}));  // CTA larger than the block
  check_properties(LinearLayout::blocked({64}, {4}, {32}, {4}, {0}));
  check_properties(LinearLayout::blocked({2, 4, 8}, {1, 1, 2}, {2, 4, 4}, {1, 2, 2}, {2, 1, 0}));
}

TEST_CASE("a blocked layout places sizePerThread, lanes and warps as Triton's does", "[linear_layout]") {
  // [16, 64], 4 per thread along dim 1, 16 lanes along dim 1, 2 along dim 0, 4 warps along dim 0.
  LinearLayout l = LinearLayout::blocked({16, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  CHECK(l.apply(1, 0, 0) == 1);          // register 1: the next column
  CHECK(l.apply(0, 1, 0) == 4);          // lane 1: four columns on
  CHECK(l.apply(0, 16, 0) == 64);        // lane 16: the next row
  CHECK(l.apply(0, 0, 1) == 2 * 64);     // warp 1: two rows on
  CHECK(l.apply(4, 0, 0) == 8 * 64);     // registers past sizePerThread wrap along dim 0
  CHECK(l.mask_along(LinearLayout::kLane, 1) == 0b01111);
  CHECK(l.mask_along(LinearLayout::kLane, 0) == 0b10000);
}

TEST_CASE("the flat one-owner layout is a linear layout with free thread bits past the block", "[linear_layout]") {
  LinearLayout l = LinearLayout::flat({4, 8}, 128, 1);  // 32 elements over 128 threads
  check_properties(l);
  CHECK(l.free_mask(LinearLayout::kLane) == 0);
  CHECK(l.free_mask(LinearLayout::kWarp) == 0b11);
  LinearLayout big = LinearLayout::flat({256, 256}, 128, 4);
  check_properties(big);
  CHECK(big.apply(1, 0, 0) == 1);
  CHECK(big.apply(0, 1, 0) == 4);
  CHECK(big.apply(4, 0, 0) == 512);
}

TEST_CASE("slice drops a dimension; its bits become free", "[linear_layout]") {
  LinearLayout l = LinearLayout::blocked({16, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  LinearLayout rows = l.slice(1);  // the result of a reduction along dim 1
  CHECK(rows.shape() == std::vector<int64_t>{16});
  check_properties(rows);
  CHECK(rows.free_mask(LinearLayout::kLane) == 0b01111);  // lanes that moved along dim 1
  CHECK(rows.free_mask(LinearLayout::kRegister) == 0b0011);
  LinearLayout cols = l.slice(0);
  check_properties(cols);
  CHECK(cols.free_mask(LinearLayout::kWarp) == 0b11);
}

TEST_CASE("transpose and reshape keep every element where it was", "[linear_layout]") {
  LinearLayout l = LinearLayout::blocked({8, 32}, {1, 4}, {4, 8}, {2, 1}, {1, 0});
  LinearLayout t = l.transpose({1, 0});
  check_properties(t);
  for (int64_t r = 0; r < l.in_size(LinearLayout::kRegister); ++r) {
    for (int64_t lane = 0; lane < 32; ++lane) {
      for (int64_t w = 0; w < 2; ++w) {
        std::vector<int64_t> a = l.coordinates(l.apply(r, lane, w));
        std::vector<int64_t> b = t.coordinates(t.apply(r, lane, w));
        REQUIRE(a[0] == b[1]);
        REQUIRE(a[1] == b[0]);
      }
    }
  }
  LinearLayout flat = l.reshape({256});
  check_properties(flat);
  CHECK(flat.apply(3, 5, 1) == l.apply(3, 5, 1));
}

TEST_CASE("a layout that loses an element or holds one twice is caught", "[linear_layout]") {
  LinearLayout lossy({8}, {std::vector<int64_t>{1, 2}, std::vector<int64_t>{2}, std::vector<int64_t>{}});
  CHECK_FALSE(lossy.surjective());
  CHECK_FALSE(lossy.injective_up_to_free());
}

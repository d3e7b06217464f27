// The GPU layer (src/gpu): the emitter's flat rule written as a blocked layout, the layout
// slot of block types, the in-thread test of conversions and the shared-memory allocator's
// intervals. The passes themselves are tested on IR text in tests/golden/passes.
#include <catch2/catch.hpp>

#include "gpu/allocate_shared.h"
#include "gpu/default_layout.h"
#include "gpu/pipeline.h"
#include "gpu/split_k_cluster.h"
#include "gpu/verify_gpu.h"
#include "ir/layout.h"
#include "ir/parser.h"
#include "ir/types.h"
#include "tritium/errors.h"

using namespace tritium;
using ir::LinearLayout;

TEST_CASE("the emitter's flat layout is the blocked layout flat_blocked names", "[gpu]") {
  int checked = 0;
  const std::vector<std::vector<int64_t>> shapes = {{1},        {8},         {128},     {1024},     {4096},   {8, 128},
                                                    {1, 512},   {512, 2},    {64, 64},  {2, 1024},  {4, 8, 16},
                                                    {2, 2, 64}, {16, 1, 32}, {1, 1, 1}, {32, 4, 2, 8}};
  for (const auto& shape : shapes) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    for (int threads : {32, 64, 128, 256, 1024}) {
      for (int vector = 1; vector <= 16 && vector <= n; vector *= 2) {
        INFO("shape of " << n << " elements, " << threads << " threads, V = " << vector);
        const ir::Layout* blocked = gpu::flat_blocked(shape, threads, vector);
        REQUIRE(blocked->kind() == ir::Layout::Kind::Blocked);
        CHECK(blocked->linear() == LinearLayout::flat(shape, threads, vector));
        ++checked;
      }
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("a layout in a block type: printed after the element, part of equality, interned", "[gpu]") {
  const ir::Type* f32 = ir::Type::scalar(ir::ScalarKind::F32);
  const ir::Type* bare = ir::Type::block(f32, {8, 128});
  CHECK(bare->str() == "block<8x128xfp32>");  // no layout: as before
  CHECK(bare->layout() == nullptr);
  const ir::Layout* layout = gpu::flat_blocked({8, 128}, 128, 4);
  const ir::Type* laid = bare->with_layout(layout);
  CHECK(laid != bare);
  CHECK(laid == ir::Type::block(f32, {8, 128}, layout));
  CHECK(laid->without_layout() == bare);
  CHECK(ir::Type::same_ignoring_layout(laid, bare));
  CHECK(laid->str() == "block<8x128xfp32, blocked<spt = [1, 4], tpw = [1, 32], wpc = [4, 1], order = [1, 0]>>");
  // with_element keeps the layout: a mask of the block sits where the block does.
  CHECK(laid->with_element(ir::Type::scalar(ir::ScalarKind::I1))->layout() == layout);
  const ir::Layout* slice = ir::Layout::slice(1, layout);
  CHECK(slice == ir::Layout::slice(1, layout));
  CHECK(slice->shape() == std::vector<int64_t>{8});
  CHECK(slice->str() == "slice<dim = 1, size = 128, parent = " + layout->str() + ">");
  CHECK(slice->linear() == layout->linear().slice(1));
  // A reshape to the same placement keeps the layout object; a new shape becomes linear.
  CHECK(layout->reshape({8, 128}) == layout);
  CHECK(layout->reshape({1024})->kind() == ir::Layout::Kind::Linear);
  CHECK(layout->reshape({1024})->linear() == LinearLayout::flat({1024}, 128, 4));
}

TEST_CASE("in_thread: conversions and broadcasts that keep every element in its thread", "[gpu]") {
  LinearLayout v4 = LinearLayout::flat({1024}, 128, 4);
  LinearLayout v1 = LinearLayout::flat({1024}, 128, 1);
  CHECK(LinearLayout::in_thread(v4, v4));
  CHECK_FALSE(LinearLayout::in_thread(v4, v1));  // elements change threads
  // A slice held by every thread converts to anything without a move.
  LinearLayout rows = LinearLayout::blocked({4, 512}, {1, 4}, {1, 32}, {1, 4}, {1, 0});
  LinearLayout everywhere = rows.slice(1);
  CHECK(LinearLayout::in_thread(everywhere, LinearLayout::flat({4}, 128, 1)));
  CHECK_FALSE(LinearLayout::in_thread(LinearLayout::flat({4}, 128, 1), everywhere));
  // Fewer warps on one side: never in-thread.
  CHECK_FALSE(LinearLayout::in_thread(LinearLayout::flat({128}, 64, 1), LinearLayout::flat({128}, 128, 1)));
}

TEST_CASE("allocate_buffers: live buffers never overlap, dead ones share bytes", "[gpu]") {
  auto buffer = [](int64_t size, int64_t first, int64_t last) {
    gpu::SharedBuffer b;
    b.size = size;
    b.first = first;
    b.last = last;
    return b;
  };
  // A long-lived buffer (a loop's stages, ops 2..9), scratch inside and after it.
  std::vector<gpu::SharedBuffer> buffers = {buffer(4096, 2, 9), buffer(100, 4, 4), buffer(100, 4, 4),
                                            buffer(512, 6, 6), buffer(8192, 10, 10), buffer(8, 0, 0)};
  int64_t used = gpu::allocate_buffers(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    CHECK(buffers[i].offset % 16 == 0);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      bool live_together = buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
      bool overlap = buffers[i].offset < buffers[j].offset + buffers[j].size &&
                     buffers[j].offset < buffers[i].offset + buffers[i].size;
      INFO("buffers " << i << " and " << j);
      CHECK_FALSE((live_together && overlap));
    }
    CHECK(buffers[i].offset + buffers[i].size <= used);
  }
  CHECK(buffers[4].offset == 0);  // alone at op 10: reuses everything
  CHECK(buffers[5].offset == 0);  // alone at op 0
  CHECK(buffers[1].offset >= 4096);
  CHECK(buffers[2].offset >= 4096);
  CHECK(buffers[1].offset != buffers[2].offset);
  CHECK(buffers[3].offset == 4096);  // ops 4's scratch is dead at op 6
  CHECK(used == 8192);
}

namespace {

// The message verify_gpu throws for `text`, or "" when it accepts it.
std::string gpu_problem(const std::string& text, bool assigned, int num_warps = 4) {
  auto function = ir::parse(text);
  gpu::GpuOptions options;
  options.num_warps = num_warps;
  try {
    gpu::verify_gpu(*function, options, assigned, "test");
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

const char* kLaid = R"(func @k(%p: ptr<fp32>) {
  %0 = make_range {end = 128, start = 0} : block<128xi32, blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
  %1 = make_range {end = 128, shared_offsets = [0, 64], shared_sizes = [64, 64], start = 0} : block<128xi32, blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
  return
}
)";

}  // namespace

TEST_CASE("verify_gpu: blocks without layouts, layouts for other warps, overlapping buffers", "[gpu]") {
  CHECK(gpu_problem(kLaid, true) == "");
  CHECK(gpu_problem(kLaid, true, 8).find("a layout for 4 warps in a kernel of 8") != std::string::npos);
  std::string bare = "func @k() {\n  %0 = make_range {end = 128, start = 0} : block<128xi32>\n  return\n}\n";
  CHECK(gpu_problem(bare, false) == "");
  CHECK(gpu_problem(bare, true).find("after test: a block without a layout: block<128xi32>") != std::string::npos);
  std::string overlap = kLaid;
  overlap.replace(overlap.find("[0, 64]"), 7, "[0, 32]");
  CHECK(gpu_problem(overlap, true).find("two shared-memory buffers of one op overlap") != std::string::npos);
}

TEST_CASE("run_gpu_passes lays out a parsed kernel and passes verify_gpu after every pass", "[gpu]") {
  const char* text = R"(func @k(%p: ptr<fp32> {divisibility = 16}) {
  %0 = make_range {end = 1024, start = 0} : block<1024xi32>
  %1 = splat %p : block<1024xptr<fp32>>
  %2 = addptr %1, %0 : block<1024xptr<fp32>>
  %3 = load %2 : block<1024xfp32>
  %4 = reshape %3 : block<32x32xfp32>
  %5 = reduce %4 {axis = 1} -> block<32xfp32> {
  ^(%6: fp32, %7: fp32):
    %8 = add %6, %7 : fp32
    yield %8
  }
  return
}
)";
  for (int warps : {1, 2, 4, 8, 16, 32}) {
    gpu::GpuOptions options;
    options.num_warps = warps;
    auto laid = gpu::run_gpu_passes(*ir::parse(text), options, true);
    const ir::Type* sum = laid->body().ops()[5]->result()->type();
    REQUIRE(sum->layout() != nullptr);
    CHECK(sum->layout()->kind() == ir::Layout::Kind::Slice);
    CHECK(sum->layout()->num_warps() == warps);
    // The load is the emitter's layout: V = 4 (16-byte accesses) while every thread keeps 4.
    CHECK(laid->body().ops()[3]->result()->type()->layout()->linear() ==
          LinearLayout::flat({1024}, 32 * warps, std::min(4, 1024 / (32 * warps))));
  }
}

TEST_CASE("apply_trip_formula: a split K loop's bound from the launch's argument", "[gpu]") {
  using gpu::TripOp;
  auto op = [](TripOp o) { return static_cast<int64_t>(o); };
  // tl.cdiv(K, 64) as the frontend writes it: (K + 63) / 64
  const std::vector<int64_t> cdiv{op(TripOp::Add), 63, op(TripOp::Div), 64};
  CHECK(gpu::apply_trip_formula(1000, cdiv) == 16);
  CHECK(gpu::apply_trip_formula(1024, cdiv) == 16);
  CHECK(gpu::apply_trip_formula(0, cdiv) == 0);
  CHECK(gpu::apply_trip_formula(7, {op(TripOp::SubFrom), 10, op(TripOp::Mul), 3}) == 9);
  CHECK(gpu::apply_trip_formula(7, {op(TripOp::Sub), 10, op(TripOp::Max), 0, op(TripOp::Min), 5}) == 0);
  CHECK(gpu::apply_trip_formula(70, {op(TripOp::Min), 64}) == 64);
  CHECK(gpu::apply_trip_formula(5, {}) == 5);
  // what the launch cannot trust: unknown ops, division by <= 0, products past 2^62
  CHECK_FALSE(gpu::apply_trip_formula(5, {99, 1}).has_value());
  CHECK_FALSE(gpu::apply_trip_formula(5, {op(TripOp::Div), 0}).has_value());
  CHECK_FALSE(gpu::apply_trip_formula(int64_t{1} << 40, {op(TripOp::Mul), int64_t{1} << 30}).has_value());
}

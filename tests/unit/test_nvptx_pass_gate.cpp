// The straight-line pass gate (src/target/nvptx/pass_gate.h, issue 11 #9): which kernels skip
// LLVM's StraightLineStrengthReduce and NaryReassociate, and that an elementwise kernel of 2048
// elements per thread then compiles in seconds of CPU time (minutes here without the gate,
// four- to eightfold per doubling; with it, about linear in the elements per thread).
#include <catch2/catch.hpp>

#include <ctime>
#include <string>

#include "nvptx_test_support.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/pass_gate.h"

using namespace tritium;

namespace {

const char* kSource = R"PY(import triton
import triton.language as tl

@triton.jit
def add1(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x + 1, mask=offs < n)

@triton.jit
def tile(a, b, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    ptrs = rm[:, None] * BN + rn[None, :]
    tl.store(b + ptrs, tl.load(a + ptrs) * 2.0)
)PY";

std::unique_ptr<ir::Function> add1(const std::string& dtype, int block) {
  return testing::lower_source("pass_gate.py", kSource, "add1",
                               "*" + dtype + ":16, *" + dtype + ":16, i32, BLOCK=" + std::to_string(block));
}

}  // namespace

TEST_CASE("pass gate: the straight-line passes run up to 128 elements per thread", "[nvptx][pass_gate]") {
  CHECK(nvptx::kStraightLineElementLimit == 128);
  auto at_limit = add1("fp32", 16384);  // 128 per thread in 4 warps, 64 in 8
  CHECK(nvptx::max_elements_per_thread(*at_limit, 4) == 128);
  CHECK_FALSE(nvptx::skips_straight_line_passes(*at_limit, 4));
  auto past = add1("fp16", 32768);  // 256 per thread in 4 warps, 128 in 8
  CHECK(nvptx::max_elements_per_thread(*past, 4) == 256);
  CHECK(nvptx::skips_straight_line_passes(*past, 4));
  CHECK_FALSE(nvptx::skips_straight_line_passes(*past, 8));
  // The tutorial matmul's largest tiles: 128x128 in 4 warps, 128x256 in 8 keep the passes.
  auto square = testing::lower_source("pass_gate.py", kSource, "tile", "*fp32:16, *fp32:16, BM=128, BN=128");
  CHECK_FALSE(nvptx::skips_straight_line_passes(*square, 4));
  CHECK(nvptx::skips_straight_line_passes(*square, 2));
  auto wide = testing::lower_source("pass_gate.py", kSource, "tile", "*fp32:16, *fp32:16, BM=128, BN=256");
  CHECK_FALSE(nvptx::skips_straight_line_passes(*wide, 8));
  CHECK(nvptx::skips_straight_line_passes(*wide, 4));
}

TEST_CASE("pass gate: only StraightLineStrengthReduce and NaryReassociate are skipped", "[nvptx][pass_gate]") {
  CHECK(nvptx::is_straight_line_pass("slsr"));
  CHECK(nvptx::is_straight_line_pass("nary-reassociate"));
  for (const char* kept : {"separate-const-offset-from-gep", "gvn", "early-cse", "load-store-vectorizer",
                           "nvptx-isel", "Straight line strength reduction", ""}) {
    CHECK_FALSE(nvptx::is_straight_line_pass(kept));
  }
}

// CPU time, not wall time (a loaded machine stretches the latter): the gate's mechanism end to
// end. 131,072 fp32 elements in 2 warps is 2048 per thread: ~1 s of CPU here with the gate;
// without it half as many per thread already took 48 s, and each doubling costs 4x or more.
// 20 s leaves a wide margin both ways, on slow or sanitized builds and on fast machines.
TEST_CASE("pass gate: a 2048-elements-per-thread elementwise kernel compiles in seconds", "[nvptx][pass_gate]") {
  auto kernel = add1("fp32", 131072);
  nvptx::TargetOptions options;
  options.num_warps = 2;
  std::clock_t start = std::clock();
  nvptx::CompiledPtx ptx = nvptx::compile_to_ptx(*kernel, options);
  double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  INFO("CPU seconds: " << seconds);
  CHECK(seconds < 20.0);
  CHECK(testing::count(ptx.ptx, ".visible .entry add1(") == 1);
  CHECK(testing::count(ptx.ptx, "ld.global") >= 512);  // 2048 elements per thread, in vectors or not
}

// Block pointers and tensor descriptors lower to ordinary pointer arithmetic
// (src/lower/block_ptr.cpp); these tests check that the GPU code keeps the quality of
// hand-written pointer code: with stride 1 along the fastest dimension, 16-byte aligned
// bases and shapes divisible by 16, loads and stores are 128-bit vectors; a shape of unknown
// divisibility makes the boundary mask change at any column, so the accesses stay scalar.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "frontend/parser.h"
#include "nvptx_test_support.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"

using namespace tritium;

namespace {

const char* kBlockPtrKernels = R"PY(import triton
import triton.language as tl


@triton.jit
def bp_copy(src, dst, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.make_block_ptr(src, (M, N), (stride_m, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    d = tl.make_block_ptr(dst, (M, N), (stride_m, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    for k in range(0, N, BLOCK_N):
        tl.store(d, tl.load(s, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))
        s = tl.advance(s, (0, BLOCK_N))
        d = tl.advance(d, (0, BLOCK_N))


@triton.jit
def desc_copy(src, dst, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    s = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    d = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    offs = [tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N]
    d.store(offs, s.load(offs))
)PY";

std::string ptx_of(const std::string& kernel, const std::string& signature) {
  return nvptx::compile_to_ptx(*testing::lower_source("block_ptr_kernels.py", kBlockPtrKernels, kernel, signature), {})
      .ptx;
}

using testing::count;

}  // namespace

TEST_CASE("block pointers: stride-1 tiles load and store 128-bit vectors", "[nvptx][block_ptr]") {
  std::string vec = ptx_of("bp_copy", "*fp32:16, *fp32:16, i32, i32:16, i32:16, BLOCK_M=32, BLOCK_N=64");
  CHECK(count(vec, "ld.global.v4.") > 0);
  CHECK(count(vec, "st.global.v4.") > 0);
  CHECK(count(vec, "ld.global.b32") + count(vec, "ld.global.f32") == 0);
  // N of unknown divisibility: the column mask may change at any element.
  std::string scalar = ptx_of("bp_copy", "*fp32:16, *fp32:16, i32, i32, i32:16, BLOCK_M=32, BLOCK_N=64");
  CHECK(count(scalar, "ld.global.v") == 0);
  CHECK(count(scalar, "ld.global.") > 0);
}

TEST_CASE("tensor descriptors: plain pointer code with vector accesses", "[nvptx][block_ptr]") {
  std::string vec = ptx_of("desc_copy", "*fp16:16, *fp16:16, i32, i32:16, BLOCK_M=16, BLOCK_N=64");
  CHECK(count(vec, "ld.global.v") > 0);
  CHECK(count(vec, "st.global.v") > 0);
}

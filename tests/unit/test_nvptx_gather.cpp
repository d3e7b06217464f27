// tl.gather on the GPU: the op `gather` stages its source in its shared-memory buffer
// (gpu/scratch.h), meets a barrier, and reads each element where its index points, zero
// outside. Checked
// on the lowered IR, the GPU IR's buffer and the PTX, for every element width, any rank and
// axis, and 1-8 warps; ptxas assembles each where it is installed.
#include <catch2/catch.hpp>

#include <string>

#include "ir/printer.h"
#include "nvptx_test_support.h"
#include "target/nvptx/codegen.h"
#include "tritium/errors.h"

using namespace tritium;
using nvptx::CompiledPtx;
using nvptx::TargetOptions;

namespace {

const char* kKernels = R"PY(import triton
import triton.language as tl

@triton.jit
def gather2d(src_ptr, idx_ptr, out_ptr, AXIS: tl.constexpr, SM: tl.constexpr, SN: tl.constexpr,
             IM: tl.constexpr, IN: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, SM)[:, None] * SN + tl.arange(0, SN)[None, :])
    at = tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :]
    tl.store(out_ptr + at, tl.gather(src, tl.load(idx_ptr + at), AXIS))

@triton.jit
def gather3d(src_ptr, idx_ptr, out_ptr, AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, 8)[:, None, None] * 64 + tl.arange(0, 8)[None, :, None] * 8
                  + tl.arange(0, 8)[None, None, :])
    at = tl.arange(0, 8)[:, None, None] * 64 + tl.arange(0, 8)[None, :, None] * 8 + tl.arange(0, 8)[None, None, :]
    tl.store(out_ptr + at, tl.gather(src, tl.load(idx_ptr + at), AXIS))
)PY";

std::unique_ptr<ir::Function> lower(const std::string& kernel, const std::string& signature) {
  return testing::lower_source("gather_kernels.py", kKernels, kernel, signature);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The signature of gather2d for `element` sources and `index` indices.
std::string signature(const std::string& element, const std::string& index, int axis, int sm, int sn, int im, int in) {
  return "*" + element + ":16, *" + index + ":16, *" + element + ":16, " + std::to_string(axis) + ", " +
         std::to_string(sm) + ", " + std::to_string(sn) + ", " + std::to_string(im) + ", " + std::to_string(in);
}

}  // namespace

TEST_CASE("gather: Triton's test_gather shapes go through shared memory", "[nvptx][gather]") {
  struct Case {
    int axis, sm, sn, im, in;
  };
  // test_core.py's test_gather: 4x4 -> 8x4, 128x64 -> 256x64 along 0, 128x64 -> 128x128 along 1.
  for (Case c : {Case{0, 4, 4, 8, 4}, Case{0, 128, 64, 256, 64}, Case{1, 128, 64, 128, 128}}) {
    std::unique_ptr<ir::Function> f = lower("gather2d", signature("fp32", "i32", c.axis, c.sm, c.sn, c.im, c.in));
    std::string ir = ir::print(*f);
    INFO(ir);
    REQUIRE(has(ir, "= gather "));
    REQUIRE_FALSE(has(ir, "xor"));  // not the one-hot compose of before
    for (int warps : {1, 4, 8}) {
      TargetOptions options;
      options.num_warps = warps;
      CompiledPtx ptx = nvptx::compile_to_ptx(*f, options);
      INFO("axis " << c.axis << ", num_warps " << warps);
      // The source written once, a barrier, every result element read by its index.
      REQUIRE(has(ptx.ptx, "st.shared"));
      REQUIRE(has(ptx.ptx, "bar.sync"));
      REQUIRE(has(ptx.ptx, "ld.shared"));
      REQUIRE(ptx.shared_bytes >= int64_t{c.sm} * c.sn * 4);
      std::string errors = testing::ptxas_errors(ptx);
      INFO(errors);
      REQUIRE(errors.empty());
    }
  }
}

TEST_CASE("gather: every element width, index type and axis", "[nvptx][gather]") {
  for (const char* element : {"fp16", "bf16", "i8", "i1", "i64", "fp64", "fp8e4nv"}) {
    for (const char* index : {"i32", "i64", "i8", "u16"}) {
      for (int axis : {0, 1}) {
        std::unique_ptr<ir::Function> f =
            lower("gather2d", signature(element, index, axis, 32, 16, axis == 0 ? 64 : 32, axis == 0 ? 16 : 8));
        INFO(element << " from " << index << " indices along " << axis);
        TargetOptions options;
        options.num_warps = 2;
        CompiledPtx ptx = nvptx::compile_to_ptx(*f, options);
        REQUIRE(has(ptx.ptx, "ld.shared"));
        // The buffer holds the whole source: 32 x 16 elements (i1 as bytes).
        const std::string e = element;
        const int64_t bytes = e == "i64" || e == "fp64" ? 8 : e == "fp16" || e == "bf16" ? 2 : e == "i8" || e == "i1" || e == "fp8e4nv" ? 1 : 4;
        REQUIRE(ptx.shared_bytes >= 32 * 16 * bytes);
        std::string errors = testing::ptxas_errors(ptx);
        INFO(errors);
        REQUIRE(errors.empty());
      }
    }
  }
}

TEST_CASE("gather: three-dimensional blocks along each axis", "[nvptx][gather]") {
  for (int axis : {0, 1, 2}) {
    std::unique_ptr<ir::Function> f = lower("gather3d", "*fp32:16, *i32:16, *fp32:16, " + std::to_string(axis));
    std::string ir = ir::print(*f);
    INFO(ir);
    REQUIRE(has(ir, "{axis = " + std::to_string(axis) + "}"));
    CompiledPtx ptx = nvptx::compile_to_ptx(*f, TargetOptions{});
    REQUIRE(has(ptx.ptx, "ld.shared"));
    std::string errors = testing::ptxas_errors(ptx);
    INFO(errors);
    REQUIRE(errors.empty());
  }
}

TEST_CASE("gather: an index outside the source reads nothing", "[nvptx][gather]") {
  // Each read of shared memory is guarded by `index < n` unsigned (negative indices are
  // outside too), so no thread reads past the source's buffer.
  std::unique_ptr<ir::Function> f = lower("gather2d", signature("fp32", "i64", 0, 64, 32, 64, 32));
  CompiledPtx ptx = nvptx::compile_to_ptx(*f, TargetOptions{});
  INFO(ptx.ptx);
  // 64 x 32 results over 128 threads: 16 reads, each behind its compare with 63.
  REQUIRE(testing::count(ptx.ptx, "ld.shared.b32") == 16);
  REQUIRE(testing::count(ptx.ptx, "setp.gt.u64") == 16);
  REQUIRE(testing::count(ptx.ptx, ", 63;") == 16);
  REQUIRE(ptx.shared_bytes == 64 * 32 * 4);
}

TEST_CASE("gather: a source larger than shared memory is a located error", "[nvptx][gather]") {
  // 512 x 256 fp32 is 512 KiB (Triton runs out of resources there too).
  std::unique_ptr<ir::Function> f = lower("gather2d", signature("fp32", "i32", 0, 512, 256, 64, 256));
  try {
    nvptx::compile_to_ptx(*f, TargetOptions{});
    FAIL("no error");
  } catch (const OutOfResources& e) {  // Triton's error class for it (raised at load there)
    std::string what = e.what();
    INFO(what);
    REQUIRE(has(what, "gather_kernels.py:9:"));
    REQUIRE(has(what, "tl.gather's source: out of resource: shared memory, Required: 524288, Hardware limit: 232448"));
    REQUIRE(e.required() == 524288);
  }
}

// Masked global loads and stores are predicated PTX instructions (issue 8): for every element
// type, block size and specialization (vector groups under a uniform mask, ragged masks one
// element at a time, unaligned pointers with the run-time checked groups) the masked copy
// has no branch around its accesses, every access is `@p`, and ptxas accepts the PTX. Only
// single bytes (i8/i1 one at a time) have no PTX register form and keep the branch.
#include <catch2/catch.hpp>

#include <string>

#include "nvptx_test_support.h"
#include "target/nvptx/codegen.h"

using namespace tritium;

namespace {

const char* kSource = R"PY(import triton
import triton.language as tl

@triton.jit
def masked_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n, other=1)
    tl.store(dst + offs, x, mask=offs < n)

@triton.jit
def scalar(src, dst, flag):
    x = tl.load(src, mask=flag != 0, other=2)
    tl.store(dst, x, mask=flag != 0)
)PY";

nvptx::CompiledPtx compile(const std::string& kernel, const std::string& signature) {
  return nvptx::compile_to_ptx(*testing::lower_source("predicated.py", kSource, kernel, signature), {});
}

// Lines of `ptx` holding `what`, and how many of them are predicated (`@%p... what`).
std::pair<int, int> accesses(const std::string& ptx, const std::string& what) {
  int all = 0, predicated = 0;
  size_t start = 0;
  while (start < ptx.size()) {
    size_t end = ptx.find('\n', start);
    if (end == std::string::npos) end = ptx.size();
    std::string line = ptx.substr(start, end - start);
    if (line.find(what) != std::string::npos) {
      ++all;
      if (line.find("@%p") != std::string::npos) ++predicated;
    }
    start = end + 1;
  }
  return {all, predicated};
}

}  // namespace

TEST_CASE("nvptx: masked loads and stores are predicated, for every dtype and width", "[nvptx][predicated]") {
  int checked = 0;
  for (const char* dtype : {"i1", "i8", "u8", "i16", "fp16", "bf16", "i32", "fp32", "i64", "fp64", "fp8e4nv"}) {
    bool single_byte = std::string(dtype) == "i1" || std::string(dtype) == "i8" || std::string(dtype) == "u8" ||
                       std::string(dtype) == "fp8e4nv";
    for (const char* block : {"16", "128", "1024"}) {
      // Aligned pointers and n divisible by 16 (vector groups under one mask bit), aligned
      // pointers and any n (ragged masks), unaligned pointers (groups checked at run time).
      for (int facts = 0; facts < 3; ++facts) {
        std::string ptr = std::string("*") + dtype + (facts < 2 ? ":16" : "");
        std::string signature = ptr + ", " + ptr + ", " + (facts == 1 ? "i32" : "i32:16") + ", " + block;
        bool unaligned = facts == 2;
        INFO(signature);
        nvptx::CompiledPtx c = compile("masked_copy", signature);
        auto [loads, predicated_loads] = accesses(c.ptx, "ld.global");
        auto [stores, predicated_stores] = accesses(c.ptx, "st.global");
        REQUIRE(loads > 0);
        REQUIRE(stores > 0);
        bool vectors = testing::count(c.ptx, "ld.global.v") > 0;
        if (!single_byte || vectors) {
          REQUIRE(predicated_loads == loads);
          REQUIRE(predicated_stores == stores);
        }
        // The run-time alignment test of unaligned groups is the one branch left.
        if (!single_byte && !unaligned) REQUIRE(testing::count(c.ptx, "bra") == 0);
        std::string errors = testing::ptxas_errors(c);
        INFO(errors);
        REQUIRE(errors.empty());
        ++checked;
      }
    }
  }
  REQUIRE(checked == 11 * 3 * 3);
}

TEST_CASE("nvptx: a scalar masked load and store are predicated", "[nvptx][predicated]") {
  for (const char* dtype : {"fp16", "fp32", "i64"}) {
    INFO(dtype);
    nvptx::CompiledPtx c = compile("scalar", std::string("*") + dtype + ":16, *" + dtype + ":16, i32");
    REQUIRE(accesses(c.ptx, "ld.global").second == 1);
    REQUIRE(accesses(c.ptx, "st.global").second == 1);
    REQUIRE(testing::count(c.ptx, "bra") == 0);
    std::string errors = testing::ptxas_errors(c);
    INFO(errors);
    REQUIRE(errors.empty());
  }
}

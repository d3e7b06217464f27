// Tuple kernel arguments (Arg::tuple): the entry arguments the compiled kernel takes for one
// (what expected_params and the disk cache record, so a cached GPU kernel is launched with
// the right leaves), and a launch through the C++ API in the interpreter.
#include <catch2/catch.hpp>

#include <vector>

#include "cache/disk_cache.h"
#include "frontend/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "nvptx_test_support.h"
#include "runtime/gpu_kernel.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"
#include "tritium/tritium.h"

using namespace tritium;

namespace {

const char* kTupleSource = R"PY(import triton
import triton.language as tl

@triton.jit
def scale_into(io, factors, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(io[0] + offs)
    k, (m, extra) = factors
    tl.store(io[1] + offs, x * k + m + extra)
)PY";

}  // namespace

TEST_CASE("a tuple's runtime leaves are the entries expected_params records", "[cache][tuple]") {
  auto file = std::make_shared<SourceFile>("scale.py", kTupleSource);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("scale_into"), {});
  // factors = (2.5, (1, 7)): the 1 is folded, so leaves 0 and 2 of `factors` are entries.
  Signature sig = parse_signature("(*fp32:16, *fp32:16), (fp32, (1, i32)), BLOCK=32", params.names,
                                  params.is_constexpr);
  auto function = lower_kernel(module, "scale_into", sig, {});
  transforms::run_pipeline(*function, {true});
  nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, {});
  std::vector<cache::CachedParam> want = runtime::expected_params(sig, params.names);
  REQUIRE(want.size() == 4);
  testing::check_entry_params(compiled, want);
  CHECK(want[0].name == "io_0");
  CHECK((want[2].index == 1 && want[2].dim == 0 && want[2].dtype == "fp32"));
  CHECK((want[3].index == 1 && want[3].dim == 2 && want[3].dtype == "i32"));
}

TEST_CASE("Kernel: tuple arguments through the C++ API in the interpreter", "[kernel][tuple]") {
  Kernel kernel(kTupleSource, "scale_into", "scale.py");
  std::vector<float> src(32), dst(32, -1.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  LaunchConfig config;
  config.backend = Backend::Interpreter;
  Arg io = Arg::tuple({Arg::pointer(src.data(), DType::fp32, 128), Arg::pointer(dst.data(), DType::fp32, 128)});
  Arg factors = Arg::tuple({Arg::floating(2.0), Arg::tuple({Arg::integer(1), Arg::integer(16).as_constexpr()})});
  CHECK_THAT(kernel.signature({io, factors, Arg::integer(32)}),
             Catch::EndsWith("(fp32, (1, constexpr(16))), BLOCK=32"));
  kernel.launch({1, 1, 1}, {io, factors, Arg::integer(32)}, {}, config);
  for (size_t i = 0; i < src.size(); ++i) CHECK(dst[i] == src[i] * 2.0f + 1.0f + 16.0f);

  // A tuple for a constexpr parameter is folded element by element; an element that cannot
  // be a compile-time constant (a pointer) is an error naming it.
  std::string error;
  try {
    kernel.launch({1, 1, 1}, {io, factors, Arg::tuple({Arg::integer(8), io})}, {}, config);
  } catch (const std::exception& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("argument 'BLOCK[1][0]'") && Catch::Contains("cannot be a compile-time constant"));
}

// runtime::expected_params against the code generator: the parameter list a disk-cache entry
// must carry to be trusted (issue 11) is exactly the list the compiled entry takes, for
// pointers, scalars of every width, bools, constants folded away and constexprs.
#include <catch2/catch.hpp>

#include "frontend/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "runtime/gpu_kernel.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"

using namespace tritium;

TEST_CASE("expected_params is the compiled entry's parameter list", "[cache][nvptx]") {
  const char* source = R"PY(import triton
import triton.language as tl

@triton.jit
def k(a, b, n, m, flag, f, unused, none, one, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(a + offs, mask=offs < n)
    if flag:
        tl.store(b + offs, x + f + m)
    else:
        tl.store(b + offs, x)
)PY";
  auto file = std::make_shared<SourceFile>("params.py", source);
  auto module = parse_module(file);
  const ast::FunctionDef* fn = module->find_function("k");
  REQUIRE(fn != nullptr);
  KernelParams params = read_params(*fn, {});
  for (const char* text : {"*fp32:16, *fp32, i32, i64, i1, fp32, u64, None, 1, 128",
                           "*fp16, *fp16:16, i32:16, 1, i1, fp32, i32, None, 1, 64"}) {
    INFO(text);
    Signature sig = parse_signature(text, params.names, params.is_constexpr);
    auto function = lower_kernel(module, "k", sig, {});
    transforms::run_pipeline(*function, {true});
    nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, {});
    std::vector<cache::CachedParam> want = runtime::expected_params(sig, params.names);
    REQUIRE(want.size() == compiled.params.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const nvptx::PtxParam& p = compiled.params[i];
      CHECK(want[i].name == p.name);
      CHECK(want[i].index == p.index);
      CHECK(want[i].is_pointer == p.is_pointer);
      CHECK(want[i].dtype == ir::scalar_name(p.kind));
      CHECK(want[i].size == p.size);
    }
  }
}

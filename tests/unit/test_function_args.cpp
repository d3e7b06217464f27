// @jit functions as kernel arguments (Arg::function, ParamSig::Kind::Function) and NamedTuple
// arguments (Arg::named_tuple): the signature text and its parser, the entry arguments a
// compiled kernel takes (a function leaf is folded), and a launch through the C++ API.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "nvptx_test_support.h"
#include "runtime/gpu_kernel.h"
#include "runtime/specialize.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"
#include "tritium/tritium.h"

using namespace tritium;

namespace {

const char* kKernel = R"PY(import triton
import triton.language as tl

@triton.jit
def apply(closure, x_ptr, y_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    v = tl.load(x_ptr + i)
    tl.store(y_ptr + i, closure.fn(v, *closure.captured))
)PY";

const char* kCallee = R"PY(import triton

@triton.jit
def add_then_scale(v, a, b):
    return (v + a) * b
)PY";

std::shared_ptr<const GlobalBinding> callee_binding() {
  auto binding = std::make_shared<GlobalBinding>();
  binding->kind = GlobalBinding::Kind::Function;
  binding->module_ast = parse_module(std::make_shared<SourceFile>("callee.py", kCallee));
  binding->function = "add_then_scale";
  return binding;
}

}  // namespace

TEST_CASE("function and named-tuple entries print and parse back", "[signature][function]") {
  auto file = std::make_shared<SourceFile>("k.py", kKernel);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("apply"), {});
  auto binding = callee_binding();
  FunctionResolver resolve = [&](const std::string& key) -> std::shared_ptr<const GlobalBinding> {
    return key == "add_then_scale:abc" ? binding : nullptr;
  };
  const std::string text = "Closure(fn=jit(add_then_scale:abc), captured=(fp32, i32)), *fp32:16, *fp32, N=16";
  Signature sig = parse_signature(text, params.names, params.is_constexpr, &resolve);
  const ParamSig& closure = sig.params[0];
  REQUIRE(closure.kind == ParamSig::Kind::Tuple);
  CHECK(closure.tuple_type == "Closure");
  CHECK(closure.fields == std::vector<std::string>{"fn", "captured"});
  CHECK(closure.elements[0].kind == ParamSig::Kind::Function);
  CHECK(closure.elements[0].function == binding);
  CHECK(sig.str(params.names) == text);
  // Without a resolver (or an unknown key) the entry is an error naming it.
  CHECK_THROWS_WITH(parse_signature(text, params.names, params.is_constexpr),
                    Catch::Contains("'add_then_scale:abc' is not known to this kernel"));
  // Two functions differ by key; a plain tuple is not a named one.
  Signature other = parse_signature(text, params.names, params.is_constexpr, &resolve);
  other.params[0].elements[0].function_key = "add_then_scale:def";
  CHECK_FALSE(other == sig);
  CHECK_FALSE(parse_signature("(jit(add_then_scale:abc), (fp32, i32)), *fp32:16, *fp32, N=16", params.names,
                              params.is_constexpr, &resolve) == sig);
}

TEST_CASE("a function leaf of a tuple is folded: the entries skip it", "[cache][function]") {
  auto module = parse_module(std::make_shared<SourceFile>("k.py", kKernel));
  KernelParams params = read_params(*module->find_function("apply"), {});
  auto binding = callee_binding();
  FunctionResolver resolve = [&](const std::string&) { return binding; };
  Signature sig = parse_signature("Closure(fn=jit(f:1), captured=(fp32, i32)), *fp32:16, *fp32, N=16", params.names,
                                  params.is_constexpr, &resolve);
  auto function = lower_kernel(module, "apply", sig, {});
  transforms::run_pipeline(*function, {true});
  nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, {});
  std::vector<cache::CachedParam> want = runtime::expected_params(sig, params.names);
  REQUIRE(want.size() == 4);
  testing::check_entry_params(compiled, want);
  // closure's leaves: fn (0, folded), captured[0] (1), captured[1] (2).
  CHECK((want[0].index == 0 && want[0].dim == 1 && want[0].dtype == "fp32"));
  CHECK((want[1].index == 0 && want[1].dim == 2 && want[1].dtype == "i32"));
}

TEST_CASE("Kernel: a function inside a named tuple through the C++ API", "[kernel][function]") {
  Kernel kernel(kKernel, "apply", "k.py");
  std::vector<float> x(16), y(16, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  LaunchConfig config;
  config.backend = Backend::Interpreter;
  Arg closure = Arg::named_tuple("Closure", {"fn", "captured"},
                                 {Arg::function("add_then_scale:k1", callee_binding()),
                                  Arg::tuple({Arg::floating(0.5), Arg::integer(3)})});
  kernel.launch({1, 1, 1}, {closure, Arg::pointer(x.data(), DType::fp32, 64), Arg::pointer(y.data(), DType::fp32, 64),
                            Arg::integer(16)},
                {}, config);
  for (size_t i = 0; i < y.size(); ++i) CHECK(y[i] == (x[i] + 0.5f) * 3.0f);
  std::string text = kernel.signature({closure, Arg::pointer(x.data(), DType::fp32, 64),
                                       Arg::pointer(y.data(), DType::fp32, 64), Arg::integer(16)}, {});
  CHECK(text.rfind("Closure(fn=jit(add_then_scale:k1), captured=(fp32, i32))", 0) == 0);
}

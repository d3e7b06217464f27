// Host-made tensor descriptors (Arg::tensor_descriptor, Triton's TensorDescriptor): the
// signature entry `tensordesc<fp16[64, 64]>`, the entry arguments the compiled kernel takes
// for one (as the disk cache records them), and a launch through the C++ API in the
// interpreter with the launch checks naming the argument.
#include <catch2/catch.hpp>

#include <cmath>
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

const char* kSource = R"PY(import triton
import triton.language as tl

@triton.jit
def copy(src, dst, n, BM: tl.constexpr):
    tile = src.load([tl.program_id(0) * BM, 0])
    dst.store([tl.program_id(0) * BM, 0], tile + n)
)PY";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("descriptor signature entries: text form and errors", "[signature][descriptor]") {
  std::vector<std::string> names = {"src", "dst", "n", "BM"};
  std::vector<bool> cx = {false, false, false, true};
  Signature sig = parse_signature("tensordesc<fp16[64,64]>, dst=tensordesc<bf16[8, 16, 32],padding=nan>, i32, 8",
                                  names, cx);
  REQUIRE(sig.params[0].kind == ParamSig::Kind::Descriptor);
  CHECK(sig.params[0].dtype == ir::ScalarKind::F16);
  CHECK(sig.params[0].block_shape == std::vector<int64_t>{64, 64});
  CHECK_FALSE(sig.params[0].padding_nan);
  CHECK(sig.params[1].block_shape == std::vector<int64_t>{8, 16, 32});
  CHECK(sig.params[1].padding_nan);
  const std::string text = "tensordesc<fp16[64, 64]>, tensordesc<bf16[8, 16, 32],padding=nan>, i32, BM=8";
  CHECK(sig.str(names) == text);
  CHECK(parse_signature(text, names, cx) == sig);
  // padding=zero is the default and prints as nothing; a different block shape differs.
  CHECK(parse_signature("tensordesc<fp16[64, 64],padding=zero>, tensordesc<bf16[8, 16, 32],padding=nan>, i32, 8",
                        names, cx) == sig);
  CHECK_FALSE(parse_signature("tensordesc<fp16[64, 32]>, tensordesc<bf16[8, 16, 32],padding=nan>, i32, 8", names,
                              cx) == sig);
  auto bad = [&](const std::string& t) { return error_of([&] { parse_signature(t, names, cx); }); };
  CHECK_THAT(bad("tensordesc<fp16[64, x]>, *fp16, i32, 8"), Catch::Contains("block dimension 'x'"));
  CHECK_THAT(bad("tensordesc<half[64]>, *fp16, i32, 8"), Catch::Contains("unknown element type 'half'"));
  CHECK_THAT(bad("tensordesc<fp16[64],padding=inf>, *fp16, i32, 8"), Catch::Contains("padding=zero or padding=nan"));
  CHECK_THAT(bad("tensordesc<fp16>, *fp16, i32, 8"), Catch::Contains("tensordesc<fp16[64, 64]>"));
  CHECK_THAT(bad("tensordesc<fp16[64],shape_div=[8]>, *fp16, i32, 8"), Catch::Contains("1 or 16, got '8'"));
  CHECK_THAT(bad("tensordesc<fp16[64],shape_div=[16, 16]>, *fp16, i32, 8"), Catch::Contains("2 entries for 1"));
}

TEST_CASE("a descriptor's shapes divisible by 16 are a fact of the specialization", "[signature][descriptor]") {
  std::vector<std::string> names = {"src", "dst", "n", "BM"};
  std::vector<bool> cx = {false, false, false, true};
  const std::string text = "tensordesc<fp16[64, 64],shape_div=[1, 16]>, tensordesc<bf16[8, 16],padding=nan,shape_div=[16, 16]>, i32, BM=8";
  Signature sig = parse_signature(text, names, cx);
  CHECK(sig.params[0].shape_divisibility == std::vector<int>{1, 16});
  CHECK(sig.params[1].shape_divisibility == std::vector<int>{16, 16});
  CHECK(sig.params[1].padding_nan);
  CHECK(sig.str(names) == text);
  // All 1 prints as nothing; the facts are part of the identity (another cache entry).
  Signature plain = parse_signature("tensordesc<fp16[64, 64],shape_div=[1, 1]>, tensordesc<bf16[8, 16],padding=nan>, i32, 8",
                                    names, cx);
  CHECK(plain.str(names) == "tensordesc<fp16[64, 64]>, tensordesc<bf16[8, 16],padding=nan>, i32, BM=8");
  CHECK_FALSE(plain == sig);
  // The entry arguments carry them: the shape that is a multiple of 16 is divisible by 16.
  auto file = std::make_shared<SourceFile>("copy.py", kSource);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("copy"), {});
  auto function = lower_kernel(module, "copy",
                               parse_signature("tensordesc<fp32[16, 32],shape_div=[1, 16]>, tensordesc<fp32[16, 32]>, i32, 16",
                                               params.names, params.is_constexpr),
                               {});
  std::vector<int64_t> divisibility;
  for (const ir::Param& p : function->params()) {
    if (p.part == ir::ArgPart::DescShape) divisibility.push_back(p.facts.divisibility);
  }
  CHECK(divisibility == std::vector<int64_t>{1, 16, 1, 1});
}

TEST_CASE("a descriptor's entry arguments are what expected_params and the cache record", "[cache][descriptor]") {
  auto file = std::make_shared<SourceFile>("copy.py", kSource);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("copy"), {});
  Signature sig = parse_signature("tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>, i32, 16", params.names,
                                  params.is_constexpr);
  auto function = lower_kernel(module, "copy", sig, {});
  transforms::run_pipeline(*function, {true});
  nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, {});
  std::vector<cache::CachedParam> want = runtime::expected_params(sig, params.names);
  // src, src_shape0, src_shape1, src_stride0, the same for dst, n.
  REQUIRE(want.size() == 9);
  testing::check_entry_params(compiled, want);
  CHECK(want[3].name == "src_stride0");
  CHECK(want[4].index == 1);
  CHECK(want[8].index == 2);

  // The parts survive the disk entry's header.
  cache::KeyInputs in;
  in.kernel = "copy";
  in.signature = sig.str(params.names);
  in.target = "sm_90";
  in.ptx_version = 80;
  cache::Entry entry;
  entry.inputs = in;
  entry.key = cache::key_of(in);
  entry.entry_name = "copy";
  entry.sm = 90;
  entry.ptx_version = 80;
  entry.params = want;
  entry.ptx = ".version 8.0\n";
  entry.cubin = "cubin";
  std::string error;
  std::optional<cache::Entry> back = cache::decode(cache::encode(entry), in, &error);
  REQUIRE(back);
  REQUIRE(back->params.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(back->params[i].index == want[i].index);
    CHECK(back->params[i].part == want[i].part);
    CHECK(back->params[i].dim == want[i].dim);
  }
}

TEST_CASE("Kernel: host descriptors through the C++ API in the interpreter", "[kernel][descriptor]") {
  Kernel kernel(kSource, "copy", "copy.py");
  const int M = 20, N = 8, stride = 8;  // 8 fp32 = 32 bytes per row
  std::vector<float> src(M * stride), dst(M * stride, -1.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  LaunchConfig config;
  config.backend = Backend::Interpreter;
  Arg a = Arg::tensor_descriptor(Arg::pointer(src.data(), DType::fp32, src.size() * 4), {M, N}, {stride, 1}, {16, 8});
  Arg b = Arg::tensor_descriptor(Arg::pointer(dst.data(), DType::fp32, dst.size() * 4), {M, N}, {stride, 1}, {16, 8});
  CHECK(kernel.signature({a, b, Arg::integer(3), Arg::integer(16)}) ==
        "tensordesc<fp32[16, 8]>, tensordesc<fp32[16, 8]>, i32, BM=16");
  kernel.launch({2, 1, 1}, {a, b, Arg::integer(3), Arg::integer(16)}, {}, config);
  for (int i = 0; i < M * N; ++i) CHECK(dst[i] == src[i] + 3.0f);

  auto launch_error = [&](const Arg& desc) {
    return error_of([&] { kernel.launch({1, 1, 1}, {desc, b, Arg::integer(3), Arg::integer(16)}, {}, config); });
  };
  Arg base = Arg::pointer(src.data(), DType::fp32, src.size() * 4);
  CHECK_THAT(launch_error(Arg::tensor_descriptor(base, {M, N}, {6, 1}, {16, 8})),
             Catch::Contains("argument 'src'") && Catch::Contains("strides must be 16-byte aligned"));
  CHECK_THAT(launch_error(Arg::tensor_descriptor(base, {M, N}, {8, 2}, {16, 8})),
             Catch::Contains("Last dimension must be contiguous"));
  CHECK_THAT(launch_error(Arg::tensor_descriptor(base, {M, N}, {8, 1}, {16, 6})),
             Catch::Contains("Shape element 1 must be a power of 2"));
  CHECK_THAT(launch_error(Arg::tensor_descriptor(base, {M, N}, {8, 1}, {16})), Catch::Contains("rank mismatch"));
  CHECK_THAT(launch_error(Arg::tensor_descriptor(Arg::pointer(src.data() + 1, DType::fp32), {M, N}, {8, 1}, {16, 8})),
             Catch::Contains("base must be 16-byte aligned"));
  CHECK_THAT(launch_error(Arg::tensor_descriptor(Arg::integer(0), {M, N}, {8, 1}, {16, 8})),
             Catch::Contains("its base must be an array or tensor"));
}

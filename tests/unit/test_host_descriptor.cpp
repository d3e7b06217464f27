// Host-made tensor descriptors (Arg::tensor_descriptor, Triton's TensorDescriptor): the
// signature entry `tensordesc<fp16[64, 64]>`, the entry arguments the compiled kernel takes
// for one (as the disk cache records them), and a launch through the C++ API in the
// interpreter with the launch checks naming the argument.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
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

// A disk entry for sm_90 with `params`, encoded and decoded again (null if refused).
std::optional<cache::Entry> through_disk_entry(const std::string& kernel, const std::string& signature,
                                               const std::vector<cache::CachedParam>& params) {
  cache::KeyInputs in;
  in.kernel = kernel;
  in.signature = signature;
  in.target = "sm_90";
  in.ptx_version = 80;
  cache::Entry entry;
  entry.inputs = in;
  entry.key = cache::key_of(in);
  entry.entry_name = kernel;
  entry.sm = 90;
  entry.ptx_version = 80;
  entry.params = params;
  entry.ptx = ".version 8.0\n";
  entry.cubin = "cubin";
  std::string error;
  return cache::decode(cache::encode(entry), in, &error);
}

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
  // Without the TMA (on sm_90 the load of src's block and the store of dst's add their
  // CUtensorMaps after them, below).
  nvptx::TargetOptions no_tma;
  no_tma.tma = false;
  nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, no_tma);
  std::vector<cache::CachedParam> want = runtime::expected_params(sig, params.names);
  // src, src_shape0, src_shape1, src_stride0, the same for dst, n.
  REQUIRE(want.size() == 9);
  testing::check_entry_params(compiled, want);
  nvptx::CompiledPtx with_tma = nvptx::compile_to_ptx(*function, {});
  REQUIRE(with_tma.params.size() == want.size() + 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(with_tma.params[want.size() + i].part == ir::ArgPart::DescTensorMap);
    CHECK(with_tma.params[want.size() + i].index == i);  // src's, then dst's
  }
  std::vector<cache::CachedParam> got;
  for (const nvptx::PtxParam& p : with_tma.params) {
    got.push_back({p.name, p.index, p.is_pointer, ir::scalar_name(p.kind), p.size, static_cast<int>(p.part), p.dim});
  }
  CHECK(runtime::check_params(want, got).empty());
  CHECK(want[3].name == "src_stride0");
  CHECK(want[4].index == 1);
  CHECK(want[8].index == 2);

  // The parts survive the disk entry's header.
  std::optional<cache::Entry> back = through_disk_entry("copy", sig.str(params.names), want);
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

namespace {
const char* kMatmulSource = R"PY(import triton
import triton.language as tl

@triton.jit
def mm(a_desc, b_desc, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k * BK]), b_desc.load([k * BK, 0]), acc)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + offs, acc)
)PY";

// B^T through a descriptor over [N, K], transposed in the kernel (attention's K, tutorial
// 09's matmul_tma): transpose_loads loads it transposed, the TMA copies the block as it is.
const char* kTransposedSource = R"PY(import triton
import triton.language as tl

@triton.jit
def mm(a_desc, b_desc, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k * BK]), b_desc.load([0, k * BK]).T, acc)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + offs, acc)
)PY";

nvptx::CompiledPtx compile_matmul(int sm, int num_stages, std::vector<cache::CachedParam>* want,
                                  const char* source = kMatmulSource,
                                  const char* signature = "tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 128]>, *fp32:16, i32:16, 64, 128, 64") {
  auto file = std::make_shared<SourceFile>("mm.py", source);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("mm"), {});
  Signature sig = parse_signature(signature, params.names, params.is_constexpr);
  auto function = lower_kernel(module, "mm", sig, {});
  transforms::run_pipeline(*function, {true});
  nvptx::TargetOptions options;
  options.sm = sm;
  options.num_warps = 4;
  options.num_stages = num_stages;
  *want = runtime::expected_params(sig, params.names);
  return nvptx::compile_to_ptx(*function, options);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a host descriptor's block is loaded and stored by the TMA on sm_90", "[nvptx][descriptor][tma]") {
  auto file = std::make_shared<SourceFile>("copy.py", kSource);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("copy"), {});
  auto compile = [&](const char* signature, int sm, bool tma) {
    Signature sig = parse_signature(signature, params.names, params.is_constexpr);
    auto function = lower_kernel(module, "copy", sig, {});
    transforms::run_pipeline(*function, {true});
    nvptx::TargetOptions options;
    options.sm = sm;
    options.tma = tma;
    return nvptx::compile_to_ptx(*function, options);
  };
  // A [16, 128] fp32 block is four 128-byte column blocks: four bulk loads into a tile on a
  // 1024-byte boundary (an mbarrier armed with its 8192 bytes, waited for by all), four bulk
  // stores from it after the fence for the async proxy; no ld.global or st.global.
  nvptx::CompiledPtx ptx = compile("tensordesc<fp32[16, 128]>, tensordesc<fp32[16, 128]>, i32, 16", 90, true);
  CHECK(count(ptx.ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes") == 4);
  CHECK(count(ptx.ptx, "mbarrier.arrive.expect_tx.shared::cta.b64 state, [$3], 8192") +
            count(ptx.ptx, ", 8192;") >= 1);
  CHECK(count(ptx.ptx, "mbarrier.try_wait.parity") == 1);
  CHECK(count(ptx.ptx, "mbarrier.inval") == 1);
  CHECK(count(ptx.ptx, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 4);
  CHECK(count(ptx.ptx, "cp.async.bulk.wait_group 0") == 1);
  CHECK(count(ptx.ptx, "fence.proxy.async.shared::cta") == 1);
  CHECK(count(ptx.ptx, "st.global") == 0);
  CHECK(count(ptx.ptx, "ld.global") == 0);
  CHECK(count(ptx.ptx, ".align 1024") == 1);
  CHECK(testing::ptxas_errors(ptx).empty());
  // Not on sm_80, not with TMA off, not for a block whose rows are under 32 bytes.
  for (const nvptx::CompiledPtx& other : {compile("tensordesc<fp32[16, 128]>, tensordesc<fp32[16, 128]>, i32, 16", 80, true),
                                          compile("tensordesc<fp32[16, 128]>, tensordesc<fp32[16, 128]>, i32, 16", 90, false),
                                          compile("tensordesc<fp32[16, 4]>, tensordesc<fp32[16, 4]>, i32, 16", 90, true)}) {
    CHECK(count(other.ptx, "cp.async.bulk") == 0);
    CHECK(count(other.ptx, "st.global") > 0);
    CHECK(count(other.ptx, "ld.global") > 0);
  }
}

TEST_CASE("pipelined descriptor operands are TMA copies on sm_90", "[nvptx][descriptor][tma]") {
  std::vector<cache::CachedParam> want;
  nvptx::CompiledPtx compiled = compile_matmul(90, 3, &want);
  // A's block [64, 64] is one 128-byte column block, B's [64, 128] two: three bulk copies
  // per stage, none by cp.async; waits on mbarriers.
  CHECK(count(compiled.ptx, "cp.async.bulk.tensor.2d") == 3 * 3);  // two stages before the loop, one in it
  CHECK(count(compiled.ptx, "cp.async.cg") == 0);
  CHECK(compiled.ptx.find("mbarrier.try_wait.parity") != std::string::npos);
  CHECK(compiled.ptx.find("cp.async.wait_group") == std::string::npos);
  // Both descriptors' maps, after the other entry arguments, 64-byte aligned by value.
  CHECK(count(compiled.ptx, ".param .align 64 .b8 mm_param_") == 2);
  REQUIRE(compiled.params.size() == want.size() + 2);
  for (size_t i = 0; i < 2; ++i) {
    const nvptx::PtxParam& p = compiled.params[want.size() + i];
    CHECK(p.part == ir::ArgPart::DescTensorMap);
    CHECK(p.index == static_cast<int>(i));
    CHECK(p.size == 128);
    CHECK(p.kind == ir::ScalarKind::F16);
  }
  // What the cache records: accepted against the signature's list, and it survives a disk entry.
  std::vector<cache::CachedParam> got;
  for (const nvptx::PtxParam& p : compiled.params) {
    got.push_back({p.name, p.index, p.is_pointer, ir::scalar_name(p.kind), p.size, static_cast<int>(p.part), p.dim});
  }
  CHECK(runtime::check_params(want, got).empty());
  std::vector<cache::CachedParam> stray = got;
  stray.back().index = 2;  // c_ptr is no descriptor
  CHECK_FALSE(runtime::check_params(want, stray).empty());
  std::optional<cache::Entry> back = through_disk_entry("mm", "", got);
  REQUIRE(back);
  REQUIRE(back->params.size() == got.size());
  CHECK(back->params.back().part == static_cast<int>(ir::ArgPart::DescTensorMap));
  CHECK(back->params.back().size == 128);
}

TEST_CASE("descriptor operands stay cp.async / plain loads without the TMA", "[nvptx][descriptor][tma]") {
  std::vector<cache::CachedParam> want;
  nvptx::CompiledPtx compiled = compile_matmul(80, 3, &want);
  CHECK(compiled.ptx.find("cp.async.bulk.tensor") == std::string::npos);
  CHECK(compiled.ptx.find(".align 64 .b8") == std::string::npos);
  CHECK(compiled.params.size() == want.size());
  // sm_90 without pipelining (num_stages=1): each iteration's blocks are TMA block loads
  // (one mbarrier each, armed, waited for and retired in the iteration), no stage buffers.
  compiled = compile_matmul(90, 1, &want);
  CHECK(count(compiled.ptx, "cp.async.cg") == 0);
  CHECK(count(compiled.ptx, "mbarrier.try_wait.parity") == 2);
  CHECK(count(compiled.ptx, "mbarrier.inval") == 2);
  CHECK(count(compiled.ptx, "wgmma.wait_group.sync.aligned 1") == 0);
  CHECK(compiled.params.size() == want.size() + 2);
}

TEST_CASE("a descriptor block transposed in the kernel is a TMA copy held K-major", "[nvptx][descriptor][tma]") {
  std::vector<cache::CachedParam> want;
  nvptx::CompiledPtx compiled =
      compile_matmul(90, 3, &want, kTransposedSource, "tensordesc<fp16[64, 64]>, tensordesc<fp16[128, 64]>, *fp32:16, i32:16, 64, 128, 64");
  // A [64, 64] and B^T [128, 64]: one 128-byte column block each, per stage.
  CHECK(count(compiled.ptx, "cp.async.bulk.tensor.2d") == 2 * 3);
  CHECK(count(compiled.ptx, "cp.async.cg") == 0);
  CHECK(count(compiled.ptx, "expect_tx.shared::cta.b64 state, [%r") > 0);
  CHECK(compiled.ptx.find("mbarrier.inval") != std::string::npos);  // at the loop's exit
  CHECK(compiled.params.size() == want.size() + 2);
  // Without the TMA the same kernel copies with cp.async; without shape facts (no
  // shape_div) B is not even K-major there, element by element under run-time tests.
  auto file = std::make_shared<SourceFile>("mm.py", kTransposedSource);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("mm"), {});
  Signature sig = parse_signature("tensordesc<fp16[64, 64]>, tensordesc<fp16[128, 64]>, *fp32:16, i32:16, 64, 128, 64",
                                  params.names, params.is_constexpr);
  auto function = lower_kernel(module, "mm", sig, {});
  transforms::run_pipeline(*function, {true});
  nvptx::TargetOptions options;
  options.tma = false;
  nvptx::CompiledPtx plain = nvptx::compile_to_ptx(*function, options);
  CHECK(plain.ptx.find("cp.async.bulk.tensor") == std::string::npos);
  CHECK(count(plain.ptx, "cp.async.commit_group") > 0);
  CHECK(plain.params.size() == want.size());
  CHECK(nvptx::emit_gpu_ir(*function, {}).find("TMA copies") != std::string::npos);
  CHECK(nvptx::emit_gpu_ir(*function, options).find("TMA copies") == std::string::npos);
}

TEST_CASE("loops the TMA does not take keep cp.async", "[nvptx][descriptor][tma]") {
  std::vector<cache::CachedParam> want;
  // padding="nan": the TMA fills zeros, and a NaN `other` is no asynchronous copy either:
  // A is loaded and staged by the dot as written; B, the loop's only copied operand, still
  // goes through the TMA (one map, b_desc's).
  nvptx::CompiledPtx nan = compile_matmul(90, 3, &want, kMatmulSource,
                                          "tensordesc<fp16[64, 64],padding=nan>, tensordesc<fp16[64, 128]>, *fp32:16, i32:16, 64, 128, 64");
  CHECK(count(nan.ptx, "cp.async.bulk.tensor.2d") == 2 * 3);  // B's two column blocks per stage
  REQUIRE(nan.params.size() == want.size() + 1);
  CHECK(nan.params.back().index == 1);
  // A from a descriptor, B from a pointer: a loop's copies are all TMA copies or none.
  const char* mixed = R"PY(import triton
import triton.language as tl

@triton.jit
def mm(a_desc, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    rk = tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :]
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k * BK]), tl.load(b_ptr + k * BK * BN + rk), acc)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + offs, acc)
)PY";
  nvptx::CompiledPtx m = compile_matmul(90, 3, &want, mixed, "tensordesc<fp16[64, 64]>, *fp16:16, *fp32:16, i32:16, 64, 128, 64");
  CHECK(m.ptx.find("cp.async.bulk.tensor") == std::string::npos);
  CHECK(count(m.ptx, "cp.async.cg") > 0);
  CHECK(m.params.size() == want.size());
}

TEST_CASE("a persistent loop around a TMA loop arms and retires its mbarriers per tile", "[nvptx][descriptor][tma]") {
  const char* persistent = R"PY(import triton
import triton.language as tl

@triton.jit
def mm(a_desc, b_desc, c_ptr, K, tiles, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([tile * BM, k * BK]), b_desc.load([k * BK, 0]), acc)
        offs = tile * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        tl.store(c_ptr + offs, acc)
)PY";
  std::vector<cache::CachedParam> want;
  nvptx::CompiledPtx compiled =
      compile_matmul(90, 3, &want, persistent, "tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 128]>, *fp32:16, i32:16, i32, 64, 128, 64");
  CHECK(count(compiled.ptx, "cp.async.bulk.tensor.2d") == 3 * 3);
  // Initialized before the K loop and invalidated after it, inside the tile loop: one init
  // and one inval per stage buffer of each operand (3: the dot in flight issues the copies
  // after its wait, as a fourth buffer would cost a block per SM; async_copy.h).
  CHECK(count(compiled.ptx, "mbarrier.init.shared::cta.b64") == 2 * 3);
  CHECK(count(compiled.ptx, "mbarrier.inval.shared::cta.b64") == 2 * 3);
  CHECK(count(compiled.ptx, "mbarrier.try_wait.parity") == 2);
}

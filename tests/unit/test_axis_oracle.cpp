// The soundness oracle: kernels run in the interpreter over random sizes, grids and
// argument values while every contiguity, divisibility, constancy, constant and
// non-negativity claim of the axis analysis is checked against the values computed.
// A failing claim names the op, its line, the claim and the counterexample.
#include <catch2/catch.hpp>

#include <random>

#include "analysis/axis_check.h"
#include "analysis/axis_info.h"
#include "frontend/parser.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "lower/lower.h"
#include "transforms/pipeline.h"

using namespace tritium;

namespace {

const char* kKernels = R"(
import triton
import triton.language as tl

@triton.jit
def arith(x_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = offs % 48 + offs // 16 - (offs >> 2) + (offs << 1)
    b = tl.minimum(offs, n) + tl.maximum(offs - k, 3) + (BLOCK - 1 - tl.arange(0, BLOCK))
    c = offs * k + k * 16 + (offs & 7) + (offs | 8) + (offs ^ k)
    d = tl.where(offs < k, offs, offs + 16) + (offs - 2 * k) % 32 + (offs - k) // 8
    e = (offs * 3) % 64 + offs % k + offs // (k + 1)
    f = pid % ((k + 63) // 32) + (k - 5) // 4 + (n - 40) // 8 + (offs - 3 * k) // 16
    tl.store(out_ptr + offs, (a + b + c + d + e + f).to(tl.float32), mask=mask)
    v = tl.load(x_ptr + offs + k, mask=mask & (offs + k < n) & (offs + k >= 0), other=0.0)
    tl.store(out_ptr + offs, v, mask=mask)

@triton.jit
def tile2d(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    offs = rm[:, None] * stride + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    flat = tl.reshape(offs, [BM * BN])
    tl.store(out_ptr + offs, x + tl.reshape(flat, [BM, BN]).to(tl.float32), mask=mask)

@triton.jit
def transposed(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    offs = tl.trans(rm[:, None] * stride + rn[None, :])
    mask = tl.trans((rm[:, None] < M) & (rn[None, :] < N))
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + offs.to(tl.float32), mask=mask)

@triton.jit
def loops(x_ptr, out_ptr, n, step, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    base = tl.program_id(0) * BLOCK
    offs = base + tl.arange(0, BLOCK)
    for i in range(0, n, step):
        p = x_ptr + offs + i
        acc += tl.load(p, mask=offs + i < n, other=0.0)
        offs = offs + BLOCK
    j = base
    while j < n:
        j += step * 2
    if n > 64:
        q = offs * 2
    else:
        q = offs + 1
    tl.store(out_ptr + tl.arange(0, BLOCK) + tl.program_id(0) * BLOCK, acc + (q + j).to(tl.float32))

@triton.jit
def masks(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    always = r < BLOCK
    never = r >= BLOCK
    pid = tl.program_id(0)
    v = tl.load(x_ptr + r, mask=always & (pid >= 0), other=1.0)
    w = tl.load(x_ptr + r, mask=never | (pid < 0), other=2.0)
    tl.store(out_ptr + r, v + w, mask=(r % 4 < 4) & (r // 2 <= BLOCK))
    tl.store(out_ptr + r, w, mask=(r - BLOCK) > 0)
    m = tl.minimum(r * 3, n) + (r & 7)
    tl.store(out_ptr + pid * BLOCK + r, m.to(tl.float32), mask=pid * BLOCK + r < n)

@triton.jit
def casts(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    wide = offs.to(tl.int64) * 4096 + 2147483000
    narrow = wide.to(tl.int32)
    small = (offs + 250).to(tl.int8)
    u = offs.to(tl.uint32) - 5
    tl.store(out_ptr + offs, (narrow + small.to(tl.int32) + u.to(tl.int32)).to(tl.float32), mask=offs < n)
)";

struct Case {
  std::string kernel;
  std::vector<std::string> ints;  // names of int params, given random values
};

// Runs `kernel` with the given int values and block sizes and checks every claim.
void run_oracle(const std::shared_ptr<const ast::Module>& module, const std::string& kernel,
                const std::vector<std::pair<std::string, int64_t>>& ints, const std::vector<std::pair<std::string, int64_t>>& constexprs,
                interp::Grid grid, bool offset_pointers, bool specialize) {
  const ast::FunctionDef* fn = module->find_function(kernel);
  REQUIRE(fn);
  KernelParams params = read_params(*fn, {});
  std::vector<std::vector<float>> buffers;
  Signature signature;
  std::vector<interp::ArgValue> args;
  std::vector<interp::MemoryRange> memory;
  for (size_t i = 0; i < params.names.size(); ++i) {
    const std::string& name = params.names[i];
    ParamSig sig;
    bool found = false;
    for (const auto& [n, v] : constexprs) {
      if (n == name) {
        sig.kind = ParamSig::Kind::Constant;
        sig.is_constexpr = true;
        sig.value = ConstValue::integer(v);
        found = true;
      }
    }
    for (const auto& [n, v] : ints) {
      if (n != name) continue;
      found = true;
      if (specialize && v == 1) {
        sig.kind = ParamSig::Kind::Constant;
        sig.value = ConstValue::integer(1);
      } else {
        sig.kind = ParamSig::Kind::Scalar;
        sig.dtype = ir::ScalarKind::I32;
        sig.divisibility = specialize && v % 16 == 0 ? 16 : 1;
        interp::ArgValue a;
        a.kind = interp::ArgValue::Kind::Int;
        a.int_bits = v;
        args.push_back(a);
      }
    }
    if (!found) {  // a pointer to a large buffer
      sig.kind = ParamSig::Kind::Pointer;
      sig.dtype = ir::ScalarKind::F32;
      buffers.emplace_back(1 << 16, 1.0f);
      uint64_t address = reinterpret_cast<uint64_t>(buffers.back().data()) + (offset_pointers ? 4 : 0);
      sig.divisibility = specialize && address % 16 == 0 ? 16 : 1;
      interp::ArgValue a;
      a.kind = interp::ArgValue::Kind::Pointer;
      a.address = address;
      args.push_back(a);
      memory.push_back({reinterpret_cast<uint64_t>(buffers.back().data()), (1 << 16) * 4, name});
    }
    signature.params.push_back(sig);
  }
  auto function = lower_kernel(module, kernel, signature, {});
  transforms::run_pipeline(*function, {true});
  analysis::AxisInfoAnalysis analysis(*function);
  analysis::ValueRangeAnalysis ranges(*function);
  std::vector<std::string> failures;
  interp::ValueObserver observer = [&](const ir::Value& value, const int64_t* elements, int64_t) {
    if (failures.size() > 3) return;
    auto failure = analysis::check_axis_claims(analysis.get(&value), value.type(), elements);
    if (!failure) failure = analysis::check_range_claims(ranges.get(&value), value.type(), elements);
    if (failure) {
      std::string where = value.def() ? ir::print(*value.def(), function.get()) + " at line " + std::to_string(value.def()->loc().line)
                                      : std::string("a region argument");
      failures.push_back(where + ": claimed " + analysis.get(&value).str() + ", range " + ranges.get(&value).str() + "; " + *failure);
    }
  };
  interp::run(*function, grid, args, memory, &observer);
  INFO("kernel " << kernel << " signature " << signature.str(params.names));
  for (const std::string& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}

}  // namespace

TEST_CASE("axis info claims hold on concrete values", "[oracle]") {
  auto module = parse_module(std::make_shared<SourceFile>("oracle.py", kKernels));
  std::mt19937 rng(1234);
  auto pick = [&](std::vector<int64_t> choices) { return choices[rng() % choices.size()]; };
  for (int round = 0; round < 12; ++round) {
    bool specialize = round % 3 != 2;
    bool offset = round % 4 == 3;
    int64_t block = pick({16, 32, 64, 128});
    int64_t n = pick({1, 15, 16, 17, 100, 128, 1000, 1024});
    int64_t k = pick({1, 2, 3, 16, 17, 48, -16, -5, 0 + 7});
    run_oracle(module, "arith", {{"n", n}, {"k", k == 0 ? 1 : k}}, {{"BLOCK", block}}, {{4, 1, 1}}, offset, specialize);
    run_oracle(module, "tile2d", {{"M", pick({1, 7, 16, 33})}, {"N", pick({1, 8, 20, 64})}, {"stride", pick({1, 16, 64, 33})}},
               {{"BM", pick({4, 8, 16})}, {"BN", pick({8, 16, 32})}}, {{3, 2, 1}}, offset, specialize);
    run_oracle(module, "transposed", {{"M", pick({1, 7, 16, 33})}, {"N", pick({1, 8, 20, 64})}, {"stride", pick({1, 16, 64, 33})}},
               {{"BM", pick({4, 8, 16})}, {"BN", pick({8, 16, 32})}}, {{3, 2, 1}}, offset, specialize);
    run_oracle(module, "loops", {{"n", pick({1, 16, 100, 300})}, {"step", pick({1, 16, 32, 48})}}, {{"BLOCK", block}},
               {{3, 1, 1}}, offset, specialize);
    run_oracle(module, "masks", {{"n", n}}, {{"BLOCK", block}}, {{2, 1, 1}}, offset, specialize);
    run_oracle(module, "casts", {{"n", n}}, {{"BLOCK", block}}, {{2, 1, 1}}, offset, specialize);
  }
}

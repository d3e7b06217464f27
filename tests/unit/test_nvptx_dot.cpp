// tl.dot in the NVPTX code generator: the fragment layout's laws, which values the plan
// keeps in fragments, and the instructions each input dtype and precision compiles to
// (mma.sync shapes, ldmatrix, tf32 rounding, the fma path).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <tuple>

#include "frontend/parser.h"
#include "nvptx_test_support.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/async_copy.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/fragment_layout.h"
#include "target/nvptx/shared_tile.h"
#include "transforms/pipeline.h"

using namespace tritium;
using nvptx::FragmentLayout;

namespace {

const char* kDotKernels = R"PY(import triton
import triton.language as tl

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           PRECISION: tl.constexpr, OUT: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=OUT)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b, input_precision=PRECISION, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(c_ptr.dtype.element_ty))

@triton.jit
def matmul_strided_b(a_ptr, b_ptr, c_ptr, K, stride_bk, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # matmul in tf32 with B's rows a runtime stride apart.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

@triton.jit
def matmul_kmajor_b(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # int8 with B K-major (column n of B contiguous along k).
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] + rn[None, :] * K)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

@triton.jit
def dot_bias(a_ptr, b_ptr, bias_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b) * 2.0 + tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)

@triton.jit
def dot_bias_max(a_ptr, b_ptr, bias_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b) * 2.0 + tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm, tl.max(c, 1))

@triton.jit
def dot_residual(a_ptr, b_ptr, r_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b) * 2.0 + tl.load(r_ptr + rm[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)

@triton.jit
def converted_under_if(a_ptr, b_ptr, c_ptr, flag_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    c = tl.dot(a, b)
    out = c_ptr + r[:, None] * 16 + r[None, :]
    if tl.load(flag_ptr) > 0:
        tl.store(out, c * 2.0)

@triton.jit
def staged_range(a_ptr, b_ptr, c_ptr, K, STAGES: tl.constexpr):
    r = tl.arange(0, 32)
    acc = tl.zeros((32, 32), dtype=tl.float32)
    for k in tl.range(0, K, 32, num_stages=STAGES):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * 32 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], acc)

@triton.jit
def fixed_a(a_ptr, b_ptr, c_ptr, K):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in range(0, K, 64):
        b = tl.load(b_ptr + (k + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)

@triton.jit
def two_dots(q_ptr, k_ptr, v_ptr, o_ptr, N):
    r = tl.arange(0, 64)
    q = tl.load(q_ptr + r[:, None] * 64 + r[None, :])
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for n in range(0, N, 64):
        k = tl.load(k_ptr + r[:, None] * N + (n + r)[None, :])
        s = tl.dot(q, k)
        v = tl.load(v_ptr + (n + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(s.to(tl.float16), v, acc)
    tl.store(o_ptr + r[:, None] * 64 + r[None, :], acc)

@triton.jit
def a_m_major(a_ptr, b_ptr, c_ptr, M, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A is the transpose of a K x M row-major array (`x.T @ w`): its rows run along memory.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] + (k + rk)[None, :] * M)
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

@triton.jit
def wrapped_rows(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    # The tutorial's grouped order and `% M` / `% N` rows and columns: version_on_signs gives
    # the loop a copy that copies A only (B's columns may wrap) and stages B itself.
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    group_id = pid // (8 * num_pid_n)
    group_size_m = min(tl.cdiv(M, BM) - group_id * 8, 8)
    pid_m = group_id * 8 + ((pid % (8 * num_pid_n)) % group_size_m)
    pid_n = (pid % (8 * num_pid_n)) // group_size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)

@triton.jit
def w8a16(a_ptr, b_ptr, s_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # benchmarks/kernels_dequant.py's shape: B read back (int8), A copied in place.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    scale = tl.load(s_ptr + rn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0)
        acc += tl.dot(a, b.to(tl.float16) * scale[None, :])
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

@triton.jit
def batched(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)
)PY";

std::unique_ptr<ir::Function> lower_dot(const std::string& kernel, const std::string& signature) {
  return testing::lower_source("dot_kernels.py", kDotKernels, kernel, signature);
}

using testing::count;

// The matmul kernel compiled with `in` inputs, an `out` result and a BM x BN x BK block.
nvptx::CompiledPtx compile_matmul(const std::string& in, const std::string& out, const std::string& precision, int bm,
                                  int bn, int bk, const nvptx::TargetOptions& options) {
  std::string sig = "*" + in + ":16, *" + in + ":16, *" + (out == "int32" ? "i32" : "fp32") + ":16, i32:16, BM=" +
                    std::to_string(bm) + ", BN=" + std::to_string(bn) + ", BK=" + std::to_string(bk) +
                    ", PRECISION='" + precision + "', OUT=tl." + out;
  return nvptx::compile_to_ptx(*lower_dot("matmul", sig), options);
}

// fp16 in, fp32 out, ieee, on sm_90 with `warps` and `stages`.
nvptx::CompiledPtx compile_fp16_matmul(int bm, int bn, int bk, int warps, int stages,
                                       const std::string& inflight_copies = "") {
  nvptx::TargetOptions options;
  options.num_warps = warps;
  options.num_stages = stages;
  options.inflight_copies = inflight_copies;
  return compile_matmul("fp16", "float32", "ieee", bm, bn, bk, options);
}

std::string matmul_ptx(const std::string& in, const std::string& out, const std::string& precision, int bm, int bn,
                       int bk, int warps, int stages = 1, int sm = 90) {
  nvptx::TargetOptions options;
  options.num_warps = warps;
  options.num_stages = stages;
  options.sm = sm;
  return compile_matmul(in, out, precision, bm, bn, bk, options).ptx;
}

void collect(const ir::Region& region, std::vector<const ir::Op*>& ops) {
  for (const auto& op : region.ops()) {
    ops.push_back(op.get());
    for (const auto& inner : op->regions()) collect(*inner, ops);
  }
}

}  // namespace

TEST_CASE("fragment layout: every element lives in every warp group once", "[nvptx][dot]") {
  const std::vector<std::vector<int64_t>> shapes = {{16, 16}, {16, 32}, {32, 64}, {64, 64}, {128, 128},
                                                     {128, 256}, {256, 64}, {2, 32, 32}, {4, 16, 64}};
  for (const auto& shape : shapes) {
    for (int warps : {1, 2, 4, 8}) {
      FragmentLayout l = FragmentLayout::make(shape, warps);
      INFO("shape " << shape.size() << "-D " << l.m << "x" << l.n << ", " << warps << " warps");
      REQUIRE(l.warps_m * l.warps_n <= warps);
      REQUIRE(warps % (l.warps_m * l.warps_n) == 0);
      REQUIRE(int64_t{l.rep_m} * 16 * l.warps_m == l.m);
      REQUIRE(int64_t{l.rep_n} * 8 * l.warps_n == l.n);
      // Each group of warps_m * warps_n warps holds every element exactly once.
      int groups = warps / (l.warps_m * l.warps_n);
      std::map<int64_t, int> seen;
      for (int warp = 0; warp < warps; ++warp) {
        for (int lane = 0; lane < 32; ++lane) {
          for (int reg = 0; reg < l.num_regs(); ++reg) {
            int64_t e = l.element(warp, lane, reg);
            REQUIRE(e >= 0);
            REQUIRE(e < l.num_elements());
            ++seen[e];
          }
        }
      }
      REQUIRE(static_cast<int64_t>(seen.size()) == l.num_elements());
      for (const auto& [e, n] : seen) REQUIRE(n == groups);
      // The four registers of a tile: (row, col), (row, col + 1), (row + 8, col), (row + 8, col + 1).
      int64_t e0 = l.element(0, 5, 0);
      REQUIRE(l.element(0, 5, 1) == e0 + 1);
      REQUIRE(l.element(0, 5, 2) == e0 + 8 * l.n);
      REQUIRE(l.element(0, 5, 3) == e0 + 8 * l.n + 1);
    }
  }
}

TEST_CASE("fragment layout: warpgroups side by side along n own contiguous columns", "[nvptx][dot]") {
  // Hopper's layouts (warpgroups = true): every warp along m where the rows allow, else
  // warpgroups along n with columns_blocked. Every element once per copy, and each warpgroup's
  // elements an m64-band x contiguous-column rectangle (what one wgmma accumulates).
  const std::vector<std::vector<int64_t>> shapes = {{64, 64},  {64, 128}, {64, 256}, {128, 64},
                                                     {128, 128}, {64, 32}, {192, 64}, {256, 128}};
  for (const auto& shape : shapes) {
    for (int warps : {4, 8, 16}) {
      FragmentLayout l = FragmentLayout::make(shape, warps, /*warpgroups=*/true);
      INFO(l.m << "x" << l.n << ", " << warps << " warps: " << l.warps_m << "x" << l.warps_n);
      REQUIRE(l.warps_m * l.warps_n <= warps);
      REQUIRE(int64_t{l.rep_n} * 8 * l.warps_n == l.n);
      // Every warp along m where it can hold 16 rows of each band; never blocked at 4 warps.
      if (l.m % (16 * warps) == 0 || warps == 4) CHECK_FALSE(l.columns_blocked);
      if (!l.columns_blocked) continue;
      REQUIRE(l.warps_m * l.warps_n == warps);
      REQUIRE(l.warps_m % 4 == 0);
      std::map<int64_t, int> seen;
      for (int group = 0; group < warps / 4; ++group) {
        int64_t lo_col = l.n, hi_col = -1;
        std::set<int64_t> cols;
        for (int warp = 4 * group; warp < 4 * group + 4; ++warp) {
          for (int lane = 0; lane < 32; ++lane) {
            for (int reg = 0; reg < l.num_regs(); ++reg) {
              int64_t e = l.element(warp, lane, reg);
              REQUIRE(e >= 0);
              REQUIRE(e < l.num_elements());
              ++seen[e];
              cols.insert(e % l.n);
              lo_col = std::min(lo_col, e % l.n);
              hi_col = std::max(hi_col, e % l.n);
            }
          }
        }
        // One contiguous range of n / warps_n columns per warpgroup.
        CHECK(hi_col - lo_col + 1 == l.n / l.warps_n);
        CHECK(static_cast<int64_t>(cols.size()) == l.n / l.warps_n);
        CHECK(lo_col == group / (l.warps_m / 4) * (l.n / l.warps_n));
      }
      REQUIRE(static_cast<int64_t>(seen.size()) == l.num_elements());
      for (const auto& [e, n] : seen) REQUIRE(n == 1);
    }
  }
  struct Expected {
    int64_t m, n;
    int warps, warps_m, warps_n;
    bool blocked;
  };
  for (const Expected& e : {Expected{64, 64, 8, 4, 2, true}, Expected{64, 256, 16, 4, 4, true},
                            Expected{128, 64, 16, 8, 2, true}, Expected{192, 64, 8, 4, 2, true},
                            Expected{128, 128, 8, 8, 1, false}, Expected{64, 32, 16, 4, 4, false}}) {
    FragmentLayout l = FragmentLayout::make({e.m, e.n}, e.warps, true);
    INFO(e.m << "x" << e.n << ", " << e.warps << " warps");
    CHECK(l.warps_m == e.warps_m);
    CHECK(l.warps_n == e.warps_n);
    CHECK(l.columns_blocked == e.blocked);
  }
}

TEST_CASE("fragment plan: the accumulator stays in fragments through the loop", "[nvptx][dot]") {
  auto f = lower_dot("matmul", "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32, PRECISION='ieee', OUT=tl.float32");
  nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, 80);
  std::vector<const ir::Op*> ops;
  collect(f->body(), ops);
  int dots = 0, loops = 0;
  for (const ir::Op* op : ops) {
    if (op->kind() == ir::OpKind::Dot) {
      ++dots;
      REQUIRE(plan.layout(op->result()) != nullptr);
      REQUIRE_FALSE(plan.needs_flat(op->result()));  // only the add reads it
    }
    if (op->kind() == ir::OpKind::For) {
      ++loops;
      REQUIRE(plan.layout(op->region(0)->arg(1)) != nullptr);  // the carried accumulator
      REQUIRE(plan.layout(op->result(0)) != nullptr);
      REQUIRE(plan.needs_flat(op->result(0)));  // stored after the loop
      REQUIRE_FALSE(plan.needs_flat(op->region(0)->arg(1)));
    }
    if (op->kind() == ir::OpKind::Load) REQUIRE(plan.layout(op->result()) == nullptr);
  }
  REQUIRE(dots == 1);
  REQUIRE(loops == 1);
}

TEST_CASE("fragment plan: a non-uniform flat operand keeps the op flat", "[nvptx][dot]") {
  auto f = lower_dot("dot_residual", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, BM=32, BN=32, BK=16");
  nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, 80);
  std::vector<const ir::Op*> ops;
  collect(f->body(), ops);
  bool saw_mul = false, saw_add = false;
  for (const ir::Op* op : ops) {
    if (op->kind() == ir::OpKind::Mul && op->result()->type()->element()->is_float()) {
      saw_mul = true;  // dot * 2.0: a uniform operand, stays in fragments
      REQUIRE(plan.layout(op->result()) != nullptr);
      REQUIRE(plan.needs_flat(op->result()));
    }
    if (op->kind() == ir::OpKind::Add && op->result()->type()->element()->is_float()) {
      saw_add = true;  // + a loaded [BM, BN] block: the add is flat
      REQUIRE(plan.layout(op->result()) == nullptr);
    }
  }
  REQUIRE(saw_mul);
  REQUIRE(saw_add);
}

TEST_CASE("fragment plan: a row broadcast down the columns keeps the op in fragments", "[nvptx][dot]") {
  // `+ bias[None, :]` read by a row maximum: every row of the bias the same, so each fragment
  // register reads the row's element at its column (Triton adds it in its mma layout too).
  // Before, the add was flat and the dot's result went through shared memory to reach it.
  auto f = lower_dot("dot_bias_max", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, BM=32, BN=32, BK=16");
  for (int sm : {80, 90}) {
    nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, sm);
    std::vector<const ir::Op*> ops;
    collect(f->body(), ops);
    bool saw_mul = false, saw_add = false, saw_broadcast = false;
    for (const ir::Op* op : ops) {
      if (op->kind() == ir::OpKind::Mul && op->result()->type()->element()->is_float()) {
        saw_mul = true;
        REQUIRE(plan.layout(op->result()) != nullptr);
        REQUIRE_FALSE(plan.needs_flat(op->result()));  // only the add reads it, in fragments
      }
      if (op->kind() == ir::OpKind::Broadcast && op->result()->type()->element()->is_float()) {
        saw_broadcast = true;
        REQUIRE(plan.layout(op->result()) != nullptr);
        REQUIRE_FALSE(plan.needs_flat(op->result()));
      }
      if (op->kind() == ir::OpKind::Add && op->result()->type()->element()->is_float()) {
        saw_add = true;
        REQUIRE(plan.layout(op->result()) != nullptr);
        REQUIRE_FALSE(plan.needs_flat(op->result()));  // the reduction reads it in fragments
      }
    }
    REQUIRE(saw_mul);
    REQUIRE(saw_add);
    REQUIRE(saw_broadcast);
  }
}

TEST_CASE("fragment plan: a line broadcast's op read only flat stays flat", "[nvptx][dot]") {
  // `dot * 2.0 + bias[None, :]` stored: in fragments the sum would be converted for the
  // store instead of the product, nothing saved, and where the product has flat readers of its
  // own (mamba's `dx = acc * dt[:, None]` added to a loaded block while acc is reduced with
  // another) both would be converted. So the add stays flat, and the broadcast with it.
  auto f = lower_dot("dot_bias", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, BM=32, BN=32, BK=16");
  nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, 90);
  std::vector<const ir::Op*> ops;
  collect(f->body(), ops);
  bool saw_add = false;
  for (const ir::Op* op : ops) {
    if (op->kind() == ir::OpKind::Add && op->result()->type()->element()->is_float()) {
      saw_add = true;
      REQUIRE(plan.layout(op->result()) == nullptr);
    }
    if (op->kind() == ir::OpKind::Broadcast && op->result()->type()->element()->is_float()) {
      REQUIRE(plan.layout(op->result()) == nullptr);
    }
  }
  REQUIRE(saw_add);
}

TEST_CASE("nvptx: tl.dot compiles to the tensor-core instruction of each dtype", "[nvptx][dot]") {
  SECTION("fp16: ldmatrix and mma.sync m16n8k16, f32 accumulators (sm_80)") {
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 1, 80);
    // 64 x 64 over 2 x 2 warps: 2 x 4 tiles per warp, 2 k-steps of 16.
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 16);
    CHECK(count(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 4);
    CHECK(count(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == 4);
  }
  SECTION("bf16") {
    std::string ptx = matmul_ptx("bf16", "float32", "ieee", 32, 32, 16, 1);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 8);
  }
  SECTION("fp32 with tf32, tf32x3 and ieee") {
    std::string tf32 = matmul_ptx("fp32", "float32", "tf32", 32, 32, 16, 4);
    // 32 x 32 over 2 x 2 warps: 1 x 2 tiles per warp; 2 k-steps of 8.
    CHECK(count(tf32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 4);
    CHECK(count(tf32, "cvt.rna.tf32.f32") > 0);
    std::string x3 = matmul_ptx("fp32", "float32", "tf32x3", 32, 32, 16, 4);
    CHECK(count(x3, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 12);
    std::string ieee = matmul_ptx("fp32", "float32", "ieee", 32, 32, 16, 4);
    CHECK(count(ieee, "mma.sync") == 0);
    CHECK(count(ieee, "fma.rn.f32") > 0);
  }
  SECTION("int8 accumulates in int32") {
    std::string ptx = matmul_ptx("i8", "int32", "ieee", 32, 32, 32, 4);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") == 2);
  }
  SECTION("fp8 goes through f16 exactly") {
    std::string ptx = matmul_ptx("fp8e4nv", "float32", "ieee", 32, 32, 32, 4);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4);
    CHECK(count(ptx, "cvt.rn.f16x2.e4m3x2") > 0);
  }
  SECTION("3-D batched") {
    nvptx::TargetOptions options;
    std::string ptx = nvptx::compile_to_ptx(*lower_dot("batched", "*fp16:16, *fp16:16, *fp32:16, B=2, M=16, N=32, K=16"), options).ptx;
    // 16 x 32 over 1 x 4 warps: 1 tile per warp per batch, one k-step.
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16") == 2);
  }
}

TEST_CASE("nvptx: out_dtype=tl.float16 accumulates in f16 on the tensor cores", "[nvptx][dot]") {
  SECTION("mma.sync: two .f16x2 accumulators per instruction") {
    std::string ptx = matmul_ptx("fp16", "float16", "ieee", 64, 64, 32, 4, 1, 80);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16") == 16);
    CHECK(count(ptx, ".f32.f16.f16.f32") == 0);
    // Four halves per 16 x 8 tile in two registers: {d0, d1}, A's four, B's two, {c0, c1}.
    CHECK(count(ptx, "f16.f16.f16.f16 {%r") == 16);
    CHECK(count(ptx, "f16.f16.f16.f16 {%f") == 0);
    std::string loop = matmul_ptx("fp16", "float16", "ieee", 64, 64, 32, 4, 3, 80);
    CHECK(count(loop, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16") == 16);
    CHECK(count(loop, "cp.async.cg.shared.global") > 0);
  }
  SECTION("wgmma: .f16 accumulators, n / 4 registers each") {
    std::string ptx = matmul_ptx("fp16", "float16", "ieee", 64, 64, 32, 4, 1);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16") == 2);
    CHECK(count(ptx, ".f32.f16.f16") == 0);
  }
  SECTION("bf16 inputs still accumulate in f32 (their result is fp32)") {
    std::string ptx = matmul_ptx("bf16", "float32", "ieee", 64, 64, 32, 4, 1, 80);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 16);
  }
  SECTION("a pipelined wgmma loop with f16 accumulators waits for each dot") {
    // Unpacking the halves after a wait_group 1 would read registers the wgmma still writes.
    std::string ptx = matmul_ptx("fp16", "float16", "ieee", 64, 64, 32, 4, 3);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16") == 2);
    CHECK(count(ptx, "cp.async.cg.shared.global") > 0);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 1") == 0);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 0") == 1);
  }
}

TEST_CASE("nvptx: num_stages >= 2 copies a loop's fp16 dot operands with cp.async", "[nvptx][dot]") {
  std::string staged = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 2, 80);
  // Before the loop: A and B into stage 0; in the loop: the next A and B after the barrier.
  CHECK(count(staged, "cp.async.commit_group") == 4);
  // The dot's wait, and the drain at the loop's exit (the last, masked-off copies still
  // write their zero fill).
  CHECK(count(staged, "cp.async.wait_group 0") == 2);
  CHECK(count(staged, "cp.async.cg.shared.global") > 0);
  CHECK(count(staged, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 16);
  // One barrier per K step (the dot's), one after the exit's drain (the epilogue reuses the
  // stage buffers), plus the one inside the epilogue's conversion (its ending barrier is left
  // pending since session 34, Emitter::end_round_trip: only global stores follow).
  CHECK(count(staged, "bar.sync") == 3);
  // num_stages = 4: three iterations ahead, A and B of each before the loop, and the dot
  // leaves the two later iterations' four groups in flight.
  std::string deep = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 4, 80);
  CHECK(count(deep, "cp.async.commit_group") == 8);
  CHECK(count(deep, "cp.async.wait_group 4") == 1);
  CHECK(count(deep, "cp.async.wait_group 0") == 1);  // the drain
  CHECK(count(deep, "bar.sync") == 3);
  std::string plain = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 1, 80);
  CHECK(count(plain, "cp.async") == 0);
  CHECK(count(plain, "bar.sync") == 3);  // two per K step, one in the epilogue (lazybar)
  // TRITIUM_REDUCE_EXPERIMENT=nolazybar: the epilogue's ending barrier at once, as before.
  nvptx::TargetOptions eager;
  eager.num_warps = 4;
  eager.num_stages = 2;
  eager.sm = 80;
  eager.reduce_experiment = "nolazybar,noelidebar";
  CHECK(count(compile_matmul("fp16", "float32", "ieee", 64, 64, 32, eager).ptx, "bar.sync") == 4);
  // nolazybar alone: late_passes.h's elide_barriers drops it (only global stores follow).
  eager.reduce_experiment = "nolazybar";
  CHECK(count(compile_matmul("fp16", "float32", "ieee", 64, 64, 32, eager).ptx, "bar.sync") == 3);
}

TEST_CASE("nvptx: num_stages >= 2 copies the operands of tf32 and int8 dots too", "[nvptx][dot]") {
  // mma.sync reads them element by element (tf32 rounded by cvt.rna after the read, int8
  // A as one word of four bytes along k) from padded tiles, now the stage buffers'. On sm_90
  // with whole warpgroups tf32 runs on wgmma instead (the next test case); 2 warps keep
  // mma.sync there.
  for (int sm : {80, 90}) {
    CAPTURE(sm);
    nvptx::TargetOptions options;
    options.num_warps = sm == 80 ? 4 : 2;
    options.num_stages = 3;
    options.sm = sm;
    nvptx::CompiledPtx tf32 = compile_matmul("fp32", "float32", "tf32", 64, 64, 32, options);
    CHECK(count(tf32.ptx, "cp.async.cg.shared.global") > 0);
    CHECK(count(tf32.ptx, "cp.async.wait_group") == 2);  // the dot's, and the drain
    CHECK(count(tf32.ptx, "ld.global") == 0);
    CHECK(count(tf32.ptx, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") > 0);
    CHECK(testing::ptxas_errors(tf32) == "");
    nvptx::CompiledPtx tf32x3 = compile_matmul("fp32", "float32", "tf32x3", 64, 64, 32, options);
    CHECK(count(tf32x3.ptx, "cp.async.cg.shared.global") > 0);
    CHECK(testing::ptxas_errors(tf32x3) == "");
    nvptx::CompiledPtx i8 = compile_matmul("i8", "int32", "ieee", 64, 64, 64, options);
    CHECK(count(i8.ptx, "cp.async.cg.shared.global") > 0);
    CHECK(count(i8.ptx, "ld.global") == 0);
    CHECK(count(i8.ptx, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") > 0);
    CHECK(testing::ptxas_errors(i8) == "");
    // An M-major tf32 A: copied 16 bytes along M into a padded tile held transposed, which
    // the fragment reads index as (k, m).
    auto fn = lower_dot("a_m_major", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, BM=64, BN=64, BK=32");
    CHECK(nvptx::emit_gpu_ir(*fn, options).find("16-byte copies along M, held transposed (M-major)") != std::string::npos);
    nvptx::CompiledPtx c = nvptx::compile_to_ptx(*fn, options);
    CHECK(count(c.ptx, "ld.global") == 0);
    CHECK(count(c.ptx, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") > 0);
    CHECK(testing::ptxas_errors(c) == "");
  }
  // ieee fp32 (FMAs) keeps its loads.
  CHECK(count(matmul_ptx("fp32", "float32", "ieee", 32, 32, 16, 4, 3), "cp.async") == 0);
}

TEST_CASE("nvptx: on sm_90 tf32 dots run on wgmma, both operands K-major", "[nvptx][dot]") {
  nvptx::TargetOptions options;
  options.num_warps = 4;
  options.sm = 90;
  SECTION("one dot: B staged transposed") {
    nvptx::CompiledPtx c = compile_matmul("fp32", "float32", "tf32", 64, 64, 32, options);
    // 64 x 64 on one warpgroup, K = 32 in steps of 8; no transpose operands (tf32 has none).
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 4);
    CHECK(count(c.ptx, "p, 1, 1;") == 4);
    CHECK(count(c.ptx, "mma.sync") == 0);
    CHECK(count(c.ptx, "cvt.rna.tf32") == 0);  // wgmma reads the fp32 bits from shared memory
    CHECK(testing::ptxas_errors(c) == "");
  }
  SECTION("pipelined: A by 16-byte copies, a row-major B by 4-byte copies into its K-major tile") {
    options.num_stages = 3;
    nvptx::CompiledPtx c = compile_matmul("fp32", "float32", "tf32", 64, 64, 32, options);
    // Per stage and thread: A 64 x 32 fp32 in 16-byte runs (4), B 32 x 64 element by element (16).
    CHECK(count(c.ptx, "cp.async.cg.shared.global") == 4 * 3);
    CHECK(count(c.ptx, "cp.async.ca.shared.global [%r") == 16 * 3);
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 4);
    CHECK(count(c.ptx, "wgmma.wait_group.sync.aligned 1") == 1);  // kept in flight
    CHECK(count(c.ptx, "ld.global") == 0);
    CHECK(testing::ptxas_errors(c) == "");
    std::string sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, BM=64, BN=64, BK=32, PRECISION='tf32', OUT=tl.float32";
    CHECK(nvptx::emit_gpu_ir(*lower_dot("matmul", sig), options).find("4-byte copies of each element, held transposed") !=
          std::string::npos);
    // Its addresses follow from the element index: the copies dealt out 4 K rows x 8 N a warp
    // (whole 32-byte sectors of B's rows, 32 banks), not along the load's 16-byte runs of N,
    // whose 4 elements go to 4 rows of the tile (and 8 lanes share a bank).
    CHECK(nvptx::emit_gpu_ir(*lower_dot("matmul", sig), options).find("held transposed (K-major), dealt out 4 K rows x 8 N a warp") !=
          std::string::npos);
    // Rows a runtime stride apart: dealt out by the index, each copy's address would be a
    // register of its own (the load's layout keeps one pointer per 4 elements).
    const std::string strided = nvptx::emit_gpu_ir(
        *lower_dot("matmul_strided_b", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, BM=64, BN=64, BK=32"), options);
    CHECK(strided.find("4-byte copies of each element, held transposed (K-major)") != std::string::npos);
    CHECK(strided.find("dealt out 4 K rows") == std::string::npos);
  }
  SECTION("pipelined M-major A: element copies dealt out along M") {
    options.num_stages = 3;
    auto fn = lower_dot("a_m_major", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, BM=64, BN=64, BK=32");
    CHECK(nvptx::emit_gpu_ir(*fn, options).find("4-byte copies of each element, dealt out along M") != std::string::npos);
    nvptx::CompiledPtx c = nvptx::compile_to_ptx(*fn, options);
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 4);
    CHECK(count(c.ptx, "ld.global") == 0);
    CHECK(testing::ptxas_errors(c) == "");
  }
  SECTION("tf32x3 keeps mma.sync") {
    std::string x3 = matmul_ptx("fp32", "float32", "tf32x3", 64, 64, 32, 4);
    CHECK(count(x3, "wgmma") == 0);
    CHECK(count(x3, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") > 0);
  }
}

TEST_CASE("nvptx: on sm_90 int8 dots run on wgmma where their copies allow it", "[nvptx][dot]") {
  // gpu/int8_wgmma.h: wgmma reads int8 K-major only; a row-major B copied 16 bytes along N
  // (which only mma.sync reads) keeps a pipelined loop on mma.sync.
  nvptx::TargetOptions options;
  options.num_warps = 4;
  options.sm = 90;
  const std::string kb = "*i8:16, *i8:16, *i32:16, i32:16, BM=64, BN=64, BK=64";
  SECTION("one stage: both operands staged K-major (B transposed)") {
    options.num_stages = 1;
    nvptx::CompiledPtx c = compile_matmul("i8", "int32", "ieee", 64, 64, 64, options);
    // 64 x 64 on one warpgroup, K = 64 in steps of 32; no scale or transpose immediates.
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8") == 2);
    CHECK(count(c.ptx, ", p;") == 2);
    CHECK(count(c.ptx, "mma.sync") == 0);
    CHECK(testing::ptxas_errors(c) == "");
  }
  SECTION("pipelined, B K-major: both copied by 16-byte cp.async, the wgmma kept in flight") {
    options.num_stages = 3;
    auto fn = lower_dot("matmul_kmajor_b", kb);
    const std::string ir = nvptx::emit_gpu_ir(*fn, options);
    CHECK(ir.find("int8_wgmma = 1") != std::string::npos);
    CHECK(ir.find("wgmma m64n64k32 s8") != std::string::npos);
    nvptx::CompiledPtx c = nvptx::compile_to_ptx(*fn, options);
    // Per stage and thread: A and B 64 x 64 bytes in 16-byte runs, 2 each.
    CHECK(count(c.ptx, "cp.async.cg.shared.global") == 4 * 3);
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8") == 2);
    CHECK(count(c.ptx, "wgmma.wait_group.sync.aligned 1") == 1);
    CHECK(count(c.ptx, "ld.global") == 0);
    CHECK(testing::ptxas_errors(c) == "");
  }
  SECTION("pipelined, B row-major: mma.sync and its copies") {
    options.num_stages = 3;
    std::string ptx = compile_matmul("i8", "int32", "ieee", 64, 64, 64, options).ptx;
    CHECK(count(ptx, "wgmma") == 0);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") > 0);
    CHECK(count(ptx, "cp.async.cg.shared.global") > 0);
  }
  SECTION("sm_80: mma.sync") {
    options.sm = 80;
    options.num_stages = 3;
    std::string ptx = nvptx::compile_to_ptx(*lower_dot("matmul_kmajor_b", kb), options).ptx;
    CHECK(count(ptx, "wgmma") == 0);
    CHECK(count(ptx, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") > 0);
  }
}

TEST_CASE("nvptx: an if whose body converts a fragment decides uniformly", "[nvptx][dot]") {
  // c * 2.0 stays in fragments and is converted for the store inside the `if`, with
  // barriers; the condition is a loaded scalar, so thread 0's view decides for all (two
  // more barriers) rather than letting threads that read another value skip them.
  nvptx::TargetOptions options;
  std::string ptx =
      nvptx::compile_to_ptx(*lower_dot("converted_under_if", "*fp16:16, *fp16:16, *fp32:16, *i32:16"), options).ptx;
  // The dot's two, the conversion's first, the decision's two: the conversion's ending
  // barrier, after which only the global store and the return come, is dropped
  // (late_passes.h's elide_barriers; 6 with noelidebar).
  CHECK(count(ptx, "bar.sync") == 5);
  options.reduce_experiment = "noelidebar";
  CHECK(count(nvptx::compile_to_ptx(*lower_dot("converted_under_if", "*fp16:16, *fp16:16, *fp32:16, *i32:16"), options).ptx,
              "bar.sync") == 6);
}

TEST_CASE("nvptx: tl.range(num_stages=1) keeps its loop's loads as written", "[nvptx][dot]") {
  nvptx::TargetOptions options;  // the launch asks for num_stages = 3
  auto ptx = [&](int stages) {
    std::string sig = "*fp16:16, *fp16:16, *fp32:16, i32:16, STAGES=" + std::to_string(stages);
    return nvptx::compile_to_ptx(*lower_dot("staged_range", sig), options).ptx;
  };
  options.sm = 80;  // mma.sync: num_stages - 1 iterations ahead
  CHECK(count(ptx(1), "cp.async") == 0);
  CHECK(count(ptx(3), "cp.async.commit_group") == 6);  // two iterations ahead: 2 x 2 before the loop
}

TEST_CASE("nvptx: a loop's round trips start after the live stage buffers, not every loop's", "[nvptx][dot]") {
  // tf32 at 128 x 128 x 64, 8 warps, 3 stages: the hot loop's stage buffers are 3 x 64 KiB;
  // the cold copy (version_on_signs) copies A only and stages B itself each iteration. Its
  // staging used to start after the hot loop's 192 KiB (256 KiB in all: more than the H200's
  // 227 KiB, a launch error); it now starts after the cold loop's own 96 KiB.
  nvptx::TargetOptions options;
  options.num_warps = 8;
  options.num_stages = 3;
  options.sm = 90;
  std::string sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, BM=128, BN=128, BK=64";
  nvptx::CompiledPtx c = nvptx::compile_to_ptx(*lower_dot("wrapped_rows", sig), options);
  CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32") > 0);
  CHECK(c.shared_bytes <= 3 * 65536);
  CHECK(c.shared_bytes > 2 * 65536);
  CHECK(testing::ptxas_errors(c) == "");
  // 64 x 128 x 64 at 4 warps, 4 stages: 4 x 48 KiB.
  options.num_warps = 4;
  options.num_stages = 4;
  sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, BM=64, BN=128, BK=64";
  CHECK(nvptx::compile_to_ptx(*lower_dot("wrapped_rows", sig), options).shared_bytes <= 4 * 49152);
}

TEST_CASE("nvptx: a dequantized B staged by the dot takes no space for a copied A", "[nvptx][dot]") {
  // w8a16 at 128 x 128 x 64, 8 warps: A copied in place (3 stage buffers of 16 KiB), the int8
  // B copied and read back into registers (num_stages - 1 buffers of 8 KiB: each iteration's
  // copy goes into the buffer its threads have just read back), B converted to f16 and staged
  // by the dot (16 KiB) right after them: 80 KiB at 3 stages, Triton's. Before, the staging reserved A's
  // 16 KiB in front of B and the read-back B had a third buffer (104 KiB).
  nvptx::TargetOptions options;
  options.num_warps = 8;
  options.sm = 90;
  const std::string sig = "*fp16:16, *i8:16, *fp16:16, *fp32:16, i32:16, BM=128, BN=128, BK=64";
  for (int stages : {2, 3, 4}) {
    options.num_stages = stages;
    nvptx::CompiledPtx c = nvptx::compile_to_ptx(*lower_dot("w8a16", sig), options);
    INFO("stages " << stages);
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16") > 0);
    // The epilogue's round trip of the fp32 accumulators (rows padded by 32 bytes, so that the
    // pairs' 8-byte stores of a half-warp's four rows fall in distinct banks: experiment
    // "pairpad") reuses those bytes after the loop: the larger of the two.
    CHECK(c.shared_bytes == std::max(stages * 16384 + (stages - 1) * 8192 + 16384, 128 * (128 + 8) * 4));
    CHECK(testing::ptxas_errors(c) == "");
  }
}

TEST_CASE("shared tiles: tf32 fragments read down the rows hit 32 distinct banks", "[nvptx][dot]") {
  // Lane 4g + t reads row t, column g (a row-major B, an M-major A): the 32 lanes' banks.
  auto conflicts = [](const nvptx::SharedTile& tile) {
    std::set<int64_t> banks;
    for (int g = 0; g < 8; ++g) {
      for (int t = 0; t < 4; ++t) banks.insert(tile.offset(t, g) / 4 % 32);
    }
    return 32 - static_cast<int>(banks.size());
  };
  for (int64_t cols : {16, 32, 64, 128, 256}) {
    CAPTURE(cols);
    CHECK(conflicts(nvptx::SharedTile::padded(32, cols, 4, nvptx::mma_tile_pad(4, true))) == 0);
    CHECK(conflicts(nvptx::SharedTile::padded(32, cols, 4, 16)) > 0);  // the 16-byte padding's
  }
  CHECK(nvptx::mma_tile_pad(4, false) == 16);
  CHECK(nvptx::mma_tile_pad(2, true) == 16);  // ldmatrix's rows of 16 bytes
  // A pipelined tf32 matmul's stage buffers: A (64 x 32) rows of 32 + 4, B (32 x 64) of 64 + 8.
  nvptx::TargetOptions options;
  options.num_warps = 4;
  options.num_stages = 3;
  options.sm = 80;
  std::string sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, BM=64, BN=64, BK=32, PRECISION='tf32', OUT=tl.float32";
  std::string gpu_ir = nvptx::emit_gpu_ir(*lower_dot("matmul", sig), options);
  CHECK(gpu_ir.find("(rows of 36 elements)") != std::string::npos);
  CHECK(gpu_ir.find("(rows of 72 elements)") != std::string::npos);
}

TEST_CASE("shared tiles: the swizzled arrangement is a permutation that keeps chunks whole", "[nvptx][dot]") {
  for (int64_t rows : {16, 64, 128}) {
    for (int64_t cols : {16, 32, 64, 128, 256}) {
      nvptx::SharedTile tile = nvptx::SharedTile::swizzled(rows, cols, 2);
      INFO(rows << " x " << cols << ", swizzle " << tile.swizzle);
      REQUIRE(tile.swizzle == std::min<int64_t>(128, cols * 2));
      std::set<int64_t> seen;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          int64_t at = tile.offset(r, c);
          REQUIRE(at >= 0);
          REQUIRE(at + 2 <= tile.bytes());
          REQUIRE(at % 2 == 0);
          REQUIRE(seen.insert(at).second);
          // Eight consecutive elements of a row (one 16-byte chunk) stay consecutive.
          if (c % 8 != 0) REQUIRE(at == tile.offset(r, c - 1) + 2);
        }
      }
      // The first chunks of 8 consecutive rows fall in distinct 16-byte bank groups when the
      // swizzle is 128 bytes (what makes ldmatrix-like column reads conflict-free).
      if (tile.swizzle == 128) {
        for (int64_t r0 = 0; r0 < rows; r0 += 8) {
          std::set<int64_t> groups;
          for (int64_t r = r0; r < r0 + 8; ++r) groups.insert(tile.offset(r, 0) / 16 % 8);
          REQUIRE(groups.size() == 8);
        }
      }
      // The descriptor's start is the unpermuted offset: the permutation of it is the element's.
      for (int64_t r = 0; r < rows; r += 8) {
        for (int64_t c = 0; c < cols; c += 8) {
          int64_t start = tile.descriptor_start(r, c);
          REQUIRE((start ^ (((start >> 7) & (tile.swizzle / 16 - 1)) << 4)) == tile.offset(r, c));
        }
      }
    }
  }
  nvptx::SharedTile padded = nvptx::SharedTile::padded(4, 32, 2);
  CHECK(padded.offset(1, 3) == (40 + 3) * 2);
}

TEST_CASE("nvptx: on sm_90 fp16 and bf16 dots run on wgmma from swizzled shared memory", "[nvptx][dot]") {
  SECTION("fp16, 4 warps: one warpgroup, m64n64, two k-steps") {
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4);
    CHECK(count(ptx, ".target sm_90a") == 1);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16") == 2);
    CHECK(count(ptx, "wgmma.fence.sync.aligned") == 1);
    CHECK(count(ptx, "wgmma.commit_group.sync.aligned") == 1);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 0") == 1);
    CHECK(count(ptx, "fence.proxy.async.shared::cta") == 1);
    CHECK(count(ptx, "ldmatrix") == 0);
    CHECK(count(ptx, "mma.sync") == 0);
    CHECK(count(ptx, ".align 1024") == 1);
  }
  SECTION("bf16, 8 warps: two warpgroups, 128 rows") {
    std::string ptx = matmul_ptx("bf16", "float32", "ieee", 128, 128, 64, 8);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 4);
  }
  SECTION("two m64 tiles per warpgroup") {
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 128, 64, 16, 4);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n64k16") == 2);
  }
  SECTION("fp8 in a loop without stages: widened to f16") {
    std::string ptx = matmul_ptx("fp8e4nv", "float32", "ieee", 64, 32, 32, 4);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16") == 2);
  }
  SECTION("one fp8 dot: its own 8-bit inputs, B transposed to K-major by its staging") {
    // Was widened to f16 (m64n32k16 x 2) until session 14; Triton's test_dot looks for e4m3.
    nvptx::TargetOptions options;
    options.num_warps = 4;
    nvptx::CompiledPtx c = nvptx::compile_to_ptx(
        *lower_dot("dot_bias", "*fp8e4nv:16, *fp8e5:16, *fp32:16, *fp32:16, BM=64, BN=32, BK=64"), options);
    CHECK(count(c.ptx, "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2") == 2);
    CHECK(count(c.ptx, "cvt.rn.f16x2.e4m3x2") == 0);
    CHECK(count(c.ptx, "st.shared.b8") > 0);  // B's bytes, each to its K-major place
    CHECK(testing::ptxas_errors(c) == "");
  }
  SECTION("64 rows at 8 and 16 warps: warpgroups side by side along n") {
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 8);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16") == 2);
    CHECK(count(ptx, "mma.sync") == 0);
    std::string wide = matmul_ptx("bf16", "float32", "ieee", 64, 256, 32, 8, 3);
    CHECK(count(wide, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 2);
    CHECK(count(wide, "mma.sync") == 0);
    std::string sixteen = matmul_ptx("fp16", "float32", "ieee", 64, 64, 16, 16);
    CHECK(count(sixteen, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16") == 1);
    std::string two_by_two = matmul_ptx("fp16", "float32", "ieee", 128, 64, 16, 16);
    CHECK(count(two_by_two, "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16") == 1);
    // Too narrow for two warpgroups of 16 columns: mma.sync, columns interleaved as before.
    std::string narrow = matmul_ptx("fp16", "float32", "ieee", 64, 16, 16, 8);
    CHECK(count(narrow, "wgmma") == 0);
    CHECK(count(narrow, "mma.sync.aligned.m16n8k16") > 0);
  }
  SECTION("blocks a warpgroup cannot cover keep mma.sync") {
    std::string small = matmul_ptx("fp16", "float32", "ieee", 32, 32, 16, 4);  // 32 rows < 4 x 16
    CHECK(count(small, "wgmma") == 0);
    CHECK(count(small, "mma.sync.aligned.m16n8k16") > 0);
    CHECK(count(small, ".target sm_90a") == 0);
    std::string tf32 = matmul_ptx("fp32", "float32", "tf32", 64, 64, 16, 2);  // half a warpgroup
    CHECK(count(tf32, "wgmma") == 0);
  }
  SECTION("cp.async stages in the swizzled arrangement, the dot kept in flight") {
    // Three stages: two iterations ahead, and a fourth buffer for the wgmma of the iteration
    // before, which the loop waits for (wait_group 1) only once it has issued the next.
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 3);
    CHECK(count(ptx, "cp.async.commit_group") == 6);
    CHECK(count(ptx, "cp.async.wait_group 2") == 1);
    CHECK(count(ptx, "wgmma.mma_async") == 2);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 1") == 1);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 0") == 1);  // at the loop's exit
    CHECK(count(ptx, "bar.sync") == 3);  // the epilogue's ending one pending (lazybar)
  }
  SECTION("operands cp.async wrote are fenced for the async proxy, unless nofence") {
    // The PTX ISA asks a fence.proxy.async between generic writes (cp.async is one) and a
    // wgmma reading them; TRITIUM_REDUCE_EXPERIMENT=nofence drops it for cp.async copies
    // (Triton's rule), for timing it.
    nvptx::TargetOptions options;
    options.num_warps = 4;
    options.num_stages = 3;
    std::string fenced = compile_matmul("fp16", "float32", "ieee", 64, 64, 32, options).ptx;
    CHECK(count(fenced, "cp.async.wait_group 2") == 1);
    CHECK(count(fenced, "fence.proxy.async.shared::cta") == 1);
    options.reduce_experiment = "nofence";
    std::string unfenced = compile_matmul("fp16", "float32", "ieee", 64, 64, 32, options).ptx;
    CHECK(count(unfenced, "cp.async.wait_group 2") == 1);
    CHECK(count(unfenced, "fence.proxy.async") == 0);
    // A staged from registers keeps its fence either way.
    options.num_stages = 1;
    CHECK(count(compile_matmul("fp16", "float32", "ieee", 64, 64, 32, options).ptx,
                "fence.proxy.async.shared::cta") == 1);
  }
  SECTION("where a fourth buffer costs a block per SM, the copies wait for the dot instead") {
    // 128 x 128 x 64 at 8 warps, 3 stages: four 32 KiB buffers leave one block per SM,
    // three leave two (as Triton's). The loop then meets a second barrier, after the wait
    // for the previous iteration's wgmma, and copies into the buffer that wgmma read.
    nvptx::CompiledPtx compiled = compile_fp16_matmul(128, 128, 64, 8, 3);
    CHECK(compiled.shared_bytes <= 3 * 32768);
    CHECK(compiled.shared_bytes > 2 * 32768);
    CHECK(count(compiled.ptx, "wgmma.wait_group.sync.aligned 1") == 1);
    CHECK(nvptx::blocks_per_sm(3 * 32768, 256, 128) == 2);
    CHECK(nvptx::blocks_per_sm(4 * 32768, 256, 128) == 1);
    CHECK(nvptx::blocks_per_sm(0, 256, 255) == 1);
    CHECK(nvptx::blocks_per_sm(0, 1024, 32) == 2);
    // TargetOptions::inflight_copies (TRITIUM_INFLIGHT_COPIES) forces either order.
    CHECK(compile_fp16_matmul(128, 128, 64, 8, 3, "before").shared_bytes >= 4 * 32768);
    CHECK(compile_fp16_matmul(128, 256, 64, 8, 3, "after").shared_bytes <= 3 * 49152);
    CHECK(compile_fp16_matmul(128, 256, 64, 8, 3).shared_bytes >= 4 * 49152);
    // The same at 64 x 64 x 32 (8 KiB a stage) keeps the fourth buffer: it costs no block.
    std::string small = matmul_ptx("fp16", "float32", "ieee", 64, 64, 32, 4, 3);
    CHECK(count(small, "bar.sync") == 3);
  }
  SECTION("a dot that stages an operand itself is not left in flight") {
    // A is loaded once before the loop and staged by the dot every iteration: a wgmma still
    // reading it would race with the next iteration's staging.
    nvptx::TargetOptions options;
    options.num_stages = 3;
    std::string ptx = nvptx::compile_to_ptx(*lower_dot("fixed_a", "*fp16:16, *fp16:16, *fp32:16, i32:16"), options).ptx;
    CHECK(count(ptx, "cp.async.commit_group") > 0);  // B is copied into stage buffers
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 1") == 0);
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned 0") == 1);
  }
  SECTION("the epilogue's round trip reuses the stage buffers") {
    nvptx::CompiledPtx compiled = compile_fp16_matmul(128, 256, 64, 8, 3);
    // Four buffers (three stages and the wgmma in flight) of A (16 KiB) and B (32 KiB); the
    // accumulator's conversion (128 rows of 260 floats) starts at 0 once they are drained,
    // inside them instead of after them.
    CHECK(compiled.shared_bytes == 4 * (16384 + 32768));
    CHECK(compiled.shared_bytes <= 227 * 1024);
  }
  SECTION("the main loop's addressing stays cheap (issue 9)") {
    std::string ptx = matmul_ptx("fp16", "float32", "ieee", 128, 256, 64, 8, 3);
    // The warp index goes through shfl.sync.idx, so ptxas keeps what comes from it (A's
    // warpgroup slice, its descriptors) in uniform registers.
    CHECK(count(ptx, "shfl.sync.idx.b32") == 1);
    // A's descriptor (128-byte swizzle, its fields 0x4000004000010000) made once per dot
    // from the stage's address; each k-step's a constant added to it.
    CHECK(count(ptx, "wgmma.mma_async") == 4);
    CHECK(count(ptx, ", 4611686293305360384;") == 1);
    // Masked copies (the pipeline's in-range test) take the ignore-src predicate on sm_90,
    // the source size on sm_80, whose PTX ISA (7.0) has none.
    CHECK(count(ptx, "cp.async.cg.shared.global") > 0);
    CHECK(count(ptx, ", 16, %p") > 0);
    CHECK(count(ptx, ", 16, %r") == 0);
    std::string sm80 = matmul_ptx("fp16", "float32", "ieee", 128, 128, 32, 4, 3, 80);
    CHECK(count(sm80, ", 16, %r") > 0);
    CHECK(count(sm80, ", 16, %p") == 0);
  }
  SECTION("ptxas accepts them") {
    for (int stages : {1, 3}) {
      CHECK(testing::ptxas_errors(compile_fp16_matmul(128, 128, 64, 8, stages)) == "");
    }
  }
}

TEST_CASE("nvptx: an M-major A is copied along M and read by wgmma transposed", "[nvptx][dot]") {
  // Before, each thread loaded such an A element by element (96 ld.global.b16 per iteration
  // at 128 x 128 x 64) and the dot staged it; now 16-byte cp.async runs along M fill a tile
  // held transposed (rows are A's columns), as a K-major B's, and wgmma reads it with
  // imm-trans-a 1.
  auto compile = [](const std::string& dtype, int bm, int bn, int bk, int warps, int sm) {
    nvptx::TargetOptions options;
    options.num_warps = warps;
    options.num_stages = 3;
    options.sm = sm;
    std::string sig = "*" + dtype + ":16, *" + dtype + ":16, *fp32:16, i32:16, i32:16, BM=" + std::to_string(bm) +
                      ", BN=" + std::to_string(bn) + ", BK=" + std::to_string(bk);
    return nvptx::compile_to_ptx(*lower_dot("a_m_major", sig), options);
  };
  for (auto [dtype, bm, bn, bk, warps] : std::vector<std::tuple<std::string, int, int, int, int>>{
           {"fp16", 128, 128, 64, 8}, {"bf16", 64, 64, 32, 4}, {"fp16", 64, 128, 64, 8}, {"fp16", 128, 64, 32, 4}}) {
    CAPTURE(dtype, bm, bn, bk, warps);
    nvptx::CompiledPtx c = compile(dtype, bm, bn, bk, warps, 90);
    CHECK(count(c.ptx, "ld.global") == 0);
    CHECK(count(c.ptx, "cp.async.cg.shared.global") > 0);
    CHECK(count(c.ptx, "wgmma.mma_async") > 0);
    // Every wgmma: scale-d p, A and B not negated, A transposed (M-major), B N-major.
    CHECK(count(c.ptx, ", p, 1, 1, 1, 1;") == count(c.ptx, "wgmma.mma_async"));
    CHECK(testing::ptxas_errors(c) == "");
  }
  // 8-bit operands are never transposed by wgmma: an fp8 A keeps the dot's own staging.
  CHECK(count(compile("fp8e4nv", 64, 64, 32, 4, 90).ptx, ", p, 1, 1, 1, ") == 0);
  // mma.sync (sm_80) keeps A as it was, and compiles.
  CHECK(testing::ptxas_errors(compile("fp16", 128, 128, 32, 4, 80)) == "");
}

TEST_CASE("nvptx: a loop of two dots copies num_stages - 1 iterations ahead", "[nvptx][dot]") {
  // Both operands 3 ahead (num_stages 4): 3 batches of K and V before the loop, one batch
  // committed at the first dot of each iteration. The first dot waits for its iteration's
  // whole batch, K and V (leaving the 2 later batches: 4 groups), as Triton does; the second
  // finds V complete and does not wait (nor meet a barrier where it stages nothing: sm_90);
  // the exit drains everything.
  for (int sm : {80, 90}) {
    INFO("sm_" << sm);
    nvptx::TargetOptions options;
    options.num_stages = 4;
    options.sm = sm;
    nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*lower_dot("two_dots", "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16"), options);
    CHECK(count(compiled.ptx, "cp.async.commit_group") == 8);
    CHECK(count(compiled.ptx, "cp.async.wait_group 4") == 1);
    CHECK(count(compiled.ptx, "cp.async.wait_group 0") == 1);
    CHECK(count(compiled.ptx, "cp.async.wait_group") == 2);
    CHECK(testing::ptxas_errors(compiled) == "");
  }
}

// gpu/rebase_pointers on lowered kernels: the rewritten kernel computes the same numbers as
// the original in the interpreter (the tutorial matmul's carried a_ptrs/b_ptrs, with masks
// and a K that is not a multiple of BLOCK_K), and the loop carries an i64 offset.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "gpu/options.h"
#include "gpu/rebase_pointers.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "nvptx_test_support.h"

using namespace tritium;
using testing::int_arg;
using testing::pointer_arg;

namespace {

const char* kMatmul = R"(
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], acc, mask=offs_m[:, None] < M)
)";

}  // namespace

TEST_CASE("rebase_pointers: the tutorial matmul's carried pointers, the same numbers", "[gpu]") {
  const int64_t M = 40, N = 32, K = 72, BM = 16;  // K % BLOCK_K (16) != 0: the last tile masked
  std::unique_ptr<ir::Function> original = testing::lower_source(
      "matmul.py", kMatmul, "matmul", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32:16, i32:16, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16");
  std::unique_ptr<ir::Function> rebased = original->clone();
  gpu::GpuOptions options;
  gpu::rebase_pointers(*rebased, options);
  const std::string text = ir::print(*rebased);
  INFO(text);
  // Both blocks become their initial block plus a carried i64 offset.
  CHECK(testing::count(text, ", i64, i64") == 1);
  CHECK(testing::count(ir::print(*original), "i64, i64") == 0);

  std::vector<float> a(M * K), b(K * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5);
  auto run = [&](const ir::Function& fn) {
    std::vector<float> c(M * N, -1.0f);
    interp::Grid grid;
    grid.dims = {static_cast<uint32_t>((M + BM - 1) / BM), 1, 1};
    interp::run(fn, grid,
                {pointer_arg(a.data()), pointer_arg(b.data()), pointer_arg(c.data()), int_arg(M), int_arg(N), int_arg(K),
                 int_arg(K), int_arg(N)},
                {{reinterpret_cast<uint64_t>(a.data()), a.size() * sizeof(float), "a_ptr"},
                 {reinterpret_cast<uint64_t>(b.data()), b.size() * sizeof(float), "b_ptr"},
                 {reinterpret_cast<uint64_t>(c.data()), c.size() * sizeof(float), "c_ptr"}});
    return c;
  };
  std::vector<float> want = run(*original), got = run(*rebased);
  REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
  // And both are the product (small integers: exact in fp32).
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      float sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += a[m * K + k] * b[k * N + n];
      INFO("c[" << m << ", " << n << "]");
      CHECK(got[m * N + n] == sum);
    }
  }
}

namespace {

// The index block carried too (`offs_k += BLOCK_K`, FlagGems' scaled_mm), masks on it, in i32,
// and read after the loop.
const char* kCarriedIndex = R"(
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, k_out_ptr, M, N, K, stride_am, stride_bk,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        offs_k += BLOCK_K
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], acc, mask=offs_m[:, None] < M)
    tl.store(k_out_ptr + tl.arange(0, BLOCK_K), offs_k, mask=pid == 0)
)";

}  // namespace

TEST_CASE("rebase_pointers: a carried index block (masks on it), the same numbers", "[gpu]") {
  const int64_t M = 40, N = 32, K = 72, BM = 16, BK = 16;  // K % BLOCK_K != 0: the last tile masked
  std::unique_ptr<ir::Function> original = testing::lower_source(
      "matmul.py", kCarriedIndex, "matmul",
      "*fp32:16, *fp32:16, *fp32:16, *i32:16, i32, i32, i32, i32:16, i32:16, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16");
  std::unique_ptr<ir::Function> rebased = original->clone();
  gpu::GpuOptions options;
  gpu::rebase_pointers(*rebased, options);
  const std::string text = ir::print(*rebased);
  INFO(text);
  // The two pointer blocks carry i64 offsets, the index block an i32 one.
  CHECK(testing::count(text, ", i64, i64, i32") == 1);
  CHECK(testing::count(ir::print(*original), "i64, i64") == 0);

  std::vector<float> a(M * K), b(K * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5);
  auto run = [&](const ir::Function& fn, std::vector<int32_t>* k_out) {
    std::vector<float> c(M * N, -1.0f);
    k_out->assign(BK, -1);
    interp::Grid grid;
    grid.dims = {static_cast<uint32_t>((M + BM - 1) / BM), 1, 1};
    interp::run(fn, grid,
                {pointer_arg(a.data()), pointer_arg(b.data()), pointer_arg(c.data()), pointer_arg(k_out->data()), int_arg(M),
                 int_arg(N), int_arg(K), int_arg(K), int_arg(N)},
                {{reinterpret_cast<uint64_t>(a.data()), a.size() * sizeof(float), "a_ptr"},
                 {reinterpret_cast<uint64_t>(b.data()), b.size() * sizeof(float), "b_ptr"},
                 {reinterpret_cast<uint64_t>(c.data()), c.size() * sizeof(float), "c_ptr"},
                 {reinterpret_cast<uint64_t>(k_out->data()), k_out->size() * sizeof(int32_t), "k_out_ptr"}});
    return c;
  };
  std::vector<int32_t> k_want, k_got;
  std::vector<float> want = run(*original, &k_want), got = run(*rebased, &k_got);
  REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
  CHECK(k_got == k_want);
  const int64_t trips = (K + BK - 1) / BK;
  for (int64_t i = 0; i < BK; ++i) CHECK(k_got[i] == i + trips * BK);  // the block the loop left
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      float sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += a[m * K + k] * b[k * N + n];
      INFO("c[" << m << ", " << n << "]");
      CHECK(got[m * N + n] == sum);
    }
  }
}

// gpu/hoist_invariants on a lowered kernel: what a loop nest computes the same way in every
// iteration leaves it (out of both loops when invariant in both), what depends on an
// iteration or may not run safely ahead of the loop (an integer division by a variable)
// stays, and the kernel computes the same numbers in the interpreter, also when the loops
// run zero times with a zero divisor.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu/hoist_invariants.h"
#include "gpu/options.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "nvptx_test_support.h"

using namespace tritium;
using testing::int_arg;
using testing::pointer_arg;

namespace {

const char* kNest = R"(
import triton
import triton.language as tl


@triton.jit
def nest(x_ptr, s_ptr, y_ptr, d, R, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    rows = tl.arange(0, 2)
    scale = tl.load(s_ptr + cols)
    acc = tl.zeros([2, BLOCK], dtype=tl.float32)
    for r in range(R):
        x = tl.load(x_ptr + r * 2 * BLOCK + rows[:, None] * BLOCK + cols[None, :])
        q = r // d
        for j in range(3):
            w = scale[None, :] * 2.0 + 1.0
            acc += x * w + q + j
    tl.store(y_ptr + rows[:, None] * BLOCK + cols[None, :], acc)
)";

const char* kSizes = R"(
import triton
import triton.language as tl


@triton.jit
def sizes(x_ptr, y_ptr, R):
    r32 = tl.arange(0, 32)
    r64 = tl.arange(0, 64)
    q = tl.load(x_ptr + r32[:, None] * 64 + r64[None, :])
    s = tl.load(x_ptr + r64)
    r256 = tl.arange(0, 256)
    c = tl.load(x_ptr + r256)
    small = tl.zeros([32, 64], dtype=tl.float32)
    large = tl.zeros([64, 64], dtype=tl.float32)
    tall = tl.zeros([256, 64], dtype=tl.float32)
    for i in range(R):
        small += q * 2.0 + tl.broadcast_to(s[None, :], [32, 64]) + i
        large += tl.broadcast_to(s[None, :], [64, 64]) + i
        tall += tl.broadcast_to(c[:, None], [256, 64]) + i
    tl.store(y_ptr + r32[:, None] * 64 + r64[None, :], small)
    tl.store(y_ptr + 2048 + r64[:, None] * 64 + r64[None, :], large)
    tl.store(y_ptr + 6144 + r256[:, None] * 64 + r64[None, :], tall)
)";

const ir::Op* first_loop(const ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::For) return op.get();
  }
  return nullptr;
}

// Top-level ops of `kind` in `region` whose result is a float (or, with `floats` false, not).
int count_kind(const ir::Region& region, ir::OpKind kind, bool floats) {
  int n = 0;
  for (const auto& op : region.ops()) {
    n += op->kind() == kind && op->num_results() == 1 && op->result()->type()->is_float() == floats ? 1 : 0;
  }
  return n;
}

// The element counts of the float broadcasts at the top level of `region`.
std::vector<int64_t> float_broadcasts(const ir::Region& region) {
  std::vector<int64_t> out;
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::Broadcast && op->result()->type()->is_float()) out.push_back(op->result()->type()->num_elements());
  }
  return out;
}

// `kernel` of `source` lowered for `signature`, through hoist_invariants at 4 warps.
std::unique_ptr<ir::Function> hoisted_at_4_warps(const char* file, const char* source, const char* kernel,
                                                 const char* signature) {
  std::unique_ptr<ir::Function> function = testing::lower_source(file, source, kernel, signature);
  gpu::GpuOptions options;
  options.num_warps = 4;
  gpu::hoist_invariants(*function, options);
  return function;
}

}  // namespace

TEST_CASE("hoist_invariants: a loop nest's invariant ops leave it, the rest stays, the same numbers", "[gpu]") {
  const int64_t BLOCK = 16;
  std::unique_ptr<ir::Function> original =
      testing::lower_source("nest.py", kNest, "nest", "*fp32:16, *fp32:16, *fp32:16, i32, i32, BLOCK=16");
  std::unique_ptr<ir::Function> hoisted = original->clone();
  gpu::hoist_invariants(*hoisted, gpu::GpuOptions{});
  const std::string text = ir::print(*hoisted);
  INFO(text);

  const ir::Op* outer_before = first_loop(original->body());
  REQUIRE(outer_before != nullptr);
  const ir::Op* inner_before = first_loop(*outer_before->region(0));
  REQUIRE(inner_before != nullptr);
  // Before: the weights `scale[None, :] * 2.0 + 1.0` are computed in the inner loop.
  CHECK(count_kind(*inner_before->region(0), ir::OpKind::ExpandDims, true) == 1);
  CHECK(count_kind(*inner_before->region(0), ir::OpKind::Broadcast, true) == 1);

  const ir::Op* outer = first_loop(hoisted->body());
  REQUIRE(outer != nullptr);
  const ir::Op* inner = first_loop(*outer->region(0));
  REQUIRE(inner != nullptr);
  const ir::Region& outer_body = *outer->region(0);
  const ir::Region& inner_body = *inner->region(0);
  // The weights (expand, multiply, add, broadcast: float blocks) leave both loops ...
  CHECK(count_kind(hoisted->body(), ir::OpKind::ExpandDims, true) == 1);
  CHECK(count_kind(hoisted->body(), ir::OpKind::Broadcast, true) == 1);
  CHECK(count_kind(outer_body, ir::OpKind::ExpandDims, true) == 0);
  CHECK(count_kind(inner_body, ir::OpKind::ExpandDims, true) == 0);
  // ... `x * w + q` leaves the inner loop (x, w and q are the outer iteration's) ...
  CHECK(count_kind(inner_body, ir::OpKind::Mul, true) == 0);
  CHECK(count_kind(outer_body, ir::OpKind::Mul, true) == 1);
  // ... while the address blocks stay where they were (integer and pointer blocks do not
  // move), and so does `r // d`, a division by a variable that must not run when the loop
  // does not.
  CHECK(count_kind(outer_body, ir::OpKind::ExpandDims, false) == count_kind(*outer_before->region(0), ir::OpKind::ExpandDims, false));
  CHECK(count_kind(outer_body, ir::OpKind::Load, true) == 1);
  CHECK(count_kind(outer_body, ir::OpKind::Div, false) == 1);
  CHECK(count_kind(inner_body, ir::OpKind::Add, true) == 2);  // + j, acc +=

  std::vector<float> x(4 * 2 * BLOCK), s(BLOCK);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6);
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) * 0.5f;
  auto run = [&](const ir::Function& fn, int64_t d, int64_t R) {
    std::vector<float> y(2 * BLOCK, -1.0f);
    interp::Grid grid;
    grid.dims = {1, 1, 1};
    interp::run(fn, grid, {pointer_arg(x.data()), pointer_arg(s.data()), pointer_arg(y.data()), int_arg(d), int_arg(R)},
                {{reinterpret_cast<uint64_t>(x.data()), x.size() * sizeof(float), "x_ptr"},
                 {reinterpret_cast<uint64_t>(s.data()), s.size() * sizeof(float), "s_ptr"},
                 {reinterpret_cast<uint64_t>(y.data()), y.size() * sizeof(float), "y_ptr"}});
    return y;
  };
  for (auto [d, R] : {std::pair<int64_t, int64_t>{3, 4}, {0, 0}, {-2, 1}}) {
    INFO("d = " << d << ", R = " << R);
    std::vector<float> want = run(*original, d, R), got = run(*hoisted, d, R);
    CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
    if (R == 0) CHECK(got[0] == 0.0f);
  }
}

TEST_CASE("hoist_invariants: only blocks a thread can hold through the loop cheaply", "[gpu]") {
  // 4 warps (128 threads), 4 elements a thread in a row (V = 4, from the stores): the row
  // broadcasts [1, 64] -> [32, 64] and -> [64, 64] hold 4 distinct values a thread (16
  // and 32 registers, but the same 4 columns in every round) and leave the loop; the column
  // broadcast [256, 1] -> [256, 64] holds 32 (one row a round of 8 rows, 128 bytes) and
  // stays, as does q * 2.0 (16 elements a thread of arithmetic: its result would be live
  // besides q).
  std::unique_ptr<ir::Function> function = hoisted_at_4_warps("sizes.py", kSizes, "sizes", "*fp32:16, *fp32:16, i32");
  INFO(ir::print(*function));
  const ir::Op* loop = first_loop(function->body());
  REQUIRE(loop != nullptr);
  std::vector<int64_t> inside = float_broadcasts(*loop->region(0)), outside = float_broadcasts(function->body());
  CHECK(std::find(outside.begin(), outside.end(), 32 * 64) != outside.end());
  CHECK(std::find(outside.begin(), outside.end(), 64 * 64) != outside.end());
  CHECK(std::find(inside.begin(), inside.end(), 256 * 64) != inside.end());
  CHECK(std::find(outside.begin(), outside.end(), 256 * 64) == outside.end());
  CHECK(count_kind(*loop->region(0), ir::OpKind::Mul, true) == 1);  // q * 2.0 stays
}

namespace {

// w8a16's dequantized operand (benchmarks/kernels_dequant.py) and attention's gate added to a
// dot's result: both broadcast a vector loaded before the loop down the rows of a tile.
const char* kScales = R"(
import triton
import triton.language as tl


@triton.jit
def scales(a_ptr, b_ptr, s_ptr, g_ptr, c_ptr, d_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    scale = tl.load(s_ptr + rn)
    gate = tl.load(g_ptr + rn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    att = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + k + rk[None, :])
        b = tl.load(b_ptr + (k + rk[:, None]) * BN + rn[None, :])
        acc += tl.dot(a, b.to(tl.float16) * scale[None, :])
        s = tl.dot(a, b.to(tl.float16))
        att += s + gate[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
    tl.store(d_ptr + rm[:, None] * BN + rn[None, :], att)
)";

}  // namespace

TEST_CASE("hoist_invariants: a round trip of few values leaves the loop unless it meets a dot's result", "[gpu]") {
  // 4 warps: both row broadcasts go through shared memory (64 and 128 elements a thread);
  // w8a16's scale holds 16 distinct fp16 values a thread (16 columns, V = 16 from the int8
  // load) and leaves the loop, saving its round trip each iteration. The gate (4 distinct
  // fp32 values a thread) is added to a dot's result, which the emitter computes in the
  // dot's fragment layout from the gate itself: it stays.
  std::unique_ptr<ir::Function> function = hoisted_at_4_warps(
      "scales.py", kScales, "scales", "*fp16:16, *i8:16, *fp16:16, *fp32:16, *fp32:16, *fp32:16, i32:16, BM=128, BN=128, BK=64");
  INFO(ir::print(*function));
  const ir::Op* loop = first_loop(function->body());
  REQUIRE(loop != nullptr);
  std::vector<int64_t> outside = float_broadcasts(function->body()), inside = float_broadcasts(*loop->region(0));
  CHECK(std::count(outside.begin(), outside.end(), 64 * 128) == 1);  // scale[None, :] over BK x BN
  CHECK(std::count(inside.begin(), inside.end(), 128 * 128) == 1);   // gate[None, :] over BM x BN
  CHECK(std::count(outside.begin(), outside.end(), 128 * 128) == 0);
}

// Fragment rows (target/nvptx/fragment_layout.h): the maps of the rows layout (each
// (warp, lane, register) holds the row claimed, a reduction's registers, quad lanes and warps
// cover each row's columns once), which values of attention-like kernels the plan keeps in
// fragments or rows, and the PTX of row reductions (shuffles, barriers; ptxas accepts it).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "nvptx_test_support.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/fragment_layout.h"

using namespace tritium;
using nvptx::FragmentLayout;

namespace {

const char* kRowKernels = R"PY(import triton
import triton.language as tl

@triton.jit
def row_reduce(a_ptr, b_ptr, out_ptr, rows_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               OP: tl.constexpr, KEEP: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    c = tl.where((rm % 5 == 3)[:, None], float("-inf"), c)
    if OP == "max":
        r = tl.max(c, 1, keep_dims=KEEP)
    elif OP == "min":
        r = tl.min(c, 1, keep_dims=KEEP)
    else:
        r = tl.sum(c, 1, keep_dims=KEEP)
    if KEEP:
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], c - r)
    else:
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], c - r[:, None])

@triton.jit
def rows_stored(a_ptr, b_ptr, rows_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(rows_ptr + rm, tl.sum(tl.dot(a, b), 1))

@triton.jit
def attention(Q, K, V, Out, sm_scale, seq_len, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1) * seq_len * HEAD
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + base + offs_m[:, None] * HEAD + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD + offs_d[:, None], mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + cols[:, None] * HEAD + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(V.dtype.element_ty), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD + offs_d[None, :], acc.to(tl.float16), mask=offs_m[:, None] < seq_len)
)PY";

std::unique_ptr<ir::Function> lower_rows(const std::string& kernel, const std::string& signature) {
  return testing::lower_source("row_kernels.py", kRowKernels, kernel, signature);
}

void collect(const ir::Region& region, std::vector<const ir::Op*>& ops) {
  for (const auto& op : region.ops()) {
    ops.push_back(op.get());
    for (const auto& inner : op->regions()) collect(*inner, ops);
  }
}

// wgmma instructions with A from registers: a register list after the accumulators'.
int wgmma_register_a(const std::string& ptx) {
  int n = 0;
  size_t start = 0;
  while (start < ptx.size()) {
    size_t end = ptx.find('\n', start);
    if (end == std::string::npos) end = ptx.size();
    std::string line = ptx.substr(start, end - start);
    n += line.find("wgmma.mma_async") != std::string::npos && line.find("}, {") != std::string::npos ? 1 : 0;
    start = end + 1;
  }
  return n;
}

std::string attention_signature(int head, int block_m, int block_n, bool causal) {
  return "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, HEAD=" + std::to_string(head) +
         ", BLOCK_M=" + std::to_string(block_m) + ", BLOCK_N=" + std::to_string(block_n) +
         ", CAUSAL=" + (causal ? "True" : "False");
}

nvptx::CompiledPtx compile(const ir::Function& f, int warps, int sm, int stages = 1,
                           const std::string& inflight_copies = "") {
  nvptx::TargetOptions options;
  options.num_warps = warps;
  options.sm = sm;
  options.num_stages = stages;
  options.inflight_copies = inflight_copies;
  return nvptx::compile_to_ptx(f, options);
}

}  // namespace

TEST_CASE("fragment rows: each register holds the row its fragment registers reduce into", "[nvptx][rows]") {
  const std::vector<std::vector<int64_t>> shapes = {{16, 16}, {16, 64}, {32, 32}, {64, 64},
                                                     {128, 64}, {128, 128}, {256, 64}, {64, 8}};
  for (const auto& shape : shapes) {
    for (int warps : {1, 2, 4, 8}) {
      for (bool warpgroups : {false, true}) {
        FragmentLayout l = FragmentLayout::make(shape, warps, warpgroups);
        FragmentLayout rows = FragmentLayout::rows_of(l);
        INFO(l.m << "x" << l.n << ", " << warps << " warps, warpgroups " << warpgroups << ": " << l.warps_m << "x"
                 << l.warps_n);
        REQUIRE(rows.rows);
        REQUIRE(rows.num_regs() == 2 * l.rep_m);
        REQUIRE(rows.num_elements() == l.m);
        // Every register of the fragment lies in the row its row register holds, in every thread.
        for (int warp = 0; warp < warps; ++warp) {
          for (int lane = 0; lane < 32; ++lane) {
            for (int reg = 0; reg < l.num_regs(); ++reg) {
              REQUIRE(l.element(warp, lane, reg) / l.n == rows.element(warp, lane, l.row_reg(reg)));
            }
            // FragmentLayout::element's decomposition, which fragment_element emits.
            int wm = warp % l.warps_m, wn = warp / l.warps_m % l.warps_n;
            for (int reg = 0; reg < l.num_regs(); ++reg) {
              REQUIRE(l.element(warp, lane, reg) ==
                      l.element(0, 0, reg) + (wm * 16 + lane / 4) * l.n + wn * l.warp_col_step() + 2 * (lane % 4));
            }
            for (int reg = 0; reg < rows.num_regs(); ++reg) {
              REQUIRE(rows.element(warp, lane, reg) == rows.element(0, 0, reg) + wm * 16 + lane / 4);
            }
          }
        }
        // What a reduction combines for (warp, lane, row register): its registers of that row,
        // the quad's lanes (lane ^ 1, lane ^ 2) and the warps along n with the same wm, in the
        // first copy of the grid: every column of the row exactly once.
        for (int warp = 0; warp < l.warps_m * l.warps_n; ++warp) {
          for (int lane = 0; lane < 32; ++lane) {
            for (int rr = 0; rr < rows.num_regs(); ++rr) {
              int64_t row = rows.element(warp, lane, rr);
              std::map<int64_t, int> columns;
              for (int w = 0; w < l.warps_m * l.warps_n; ++w) {
                if (w % l.warps_m != warp % l.warps_m) continue;
                for (int q = 0; q < 4; ++q) {
                  int partner = (lane & ~3) | q;
                  for (int reg = 0; reg < l.num_regs(); ++reg) {
                    if (l.row_reg(reg) != rr) continue;
                    int64_t e = l.element(w, partner, reg);
                    REQUIRE(e / l.n == row);
                    ++columns[e % l.n];
                  }
                }
              }
              REQUIRE(static_cast<int64_t>(columns.size()) == l.n);
              for (const auto& [col, times] : columns) REQUIRE(times == 1);
            }
          }
        }
        // Every warp holds 16 * rep_m distinct rows; the warps_m warps together hold all m.
        std::set<int64_t> all;
        for (int warp = 0; warp < warps; ++warp) {
          std::set<int64_t> mine;
          for (int lane = 0; lane < 32; ++lane) {
            for (int rr = 0; rr < rows.num_regs(); ++rr) {
              int64_t row = rows.element(warp, lane, rr);
              REQUIRE(row >= 0);
              REQUIRE(row < l.m);
              mine.insert(row);
              all.insert(row);
            }
          }
          REQUIRE(static_cast<int64_t>(mine.size()) == 16 * rows.rep_m);
        }
        REQUIRE(static_cast<int64_t>(all.size()) == l.m);
      }
    }
  }
}

TEST_CASE("fragment plan: attention's row max, exp2, row sum and rescale stay in fragments", "[nvptx][rows]") {
  for (int sm : {80, 90}) {
    for (int warps : {4, 8}) {
      for (bool causal : {false, true}) {
        INFO("sm_" << sm << ", " << warps << " warps, causal " << causal);
        auto f = lower_rows("attention", attention_signature(64, 128, 64, causal));
        nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, warps, sm);
        std::vector<const ir::Op*> ops;
        collect(f->body(), ops);
        int reduces = 0, broadcasts = 0, dots = 0, carried_rows = 0, dots_after_rescale = 0;
        for (const ir::Op* op : ops) {
          const FragmentLayout* l = op->num_results() == 1 ? plan.layout(op->result()) : nullptr;
          if (op->kind() == ir::OpKind::Reduce) {
            ++reduces;
            REQUIRE(plan.layout(op->result(0)) != nullptr);
            REQUIRE(plan.layout(op->result(0))->rows);
            REQUIRE_FALSE(plan.needs_flat(op->result(0)));
            REQUIRE_FALSE(plan.needs_flat(op->operand(0)));
          }
          if (op->kind() == ir::OpKind::Broadcast && op->result()->type()->element()->is_float()) {
            ++broadcasts;  // m_ij[:, None], alpha[:, None], l_i[:, None]
            REQUIRE(l != nullptr);
            REQUIRE_FALSE(l->rows);
            REQUIRE_FALSE(plan.needs_flat(op->result()));
          }
          // In the loop, every float block of an elementwise op (the causal mask is computed
          // from ranges where each register is).
          const ir::Op* parent = op->parent() == nullptr ? nullptr : op->parent()->parent();
          if (parent != nullptr && parent->kind() == ir::OpKind::For && ir::has_trait(op->kind(), ir::kElementwise) &&
              op->result()->type()->is_block() && op->result()->type()->element()->is_float()) {
            INFO(op->name());
            REQUIRE(l != nullptr);
          }
          if (op->kind() == ir::OpKind::Dot) {
            ++dots;
            REQUIRE(plan.layout(op->result()) != nullptr);
            const ir::Op* acc = op->operand(2)->def();
            if (acc != nullptr && acc->kind() == ir::OpKind::Mul) REQUIRE(plan.layout(op->operand(2)) != nullptr);  // acc * alpha[:, None]
            dots_after_rescale += acc != nullptr && acc->kind() == ir::OpKind::Mul ? 1 : 0;
          }
          if (op->kind() == ir::OpKind::For) {
            for (int i = 0; i < op->num_results(); ++i) {
              const FragmentLayout* carried = plan.layout(op->region(0)->arg(i + 1));
              if (!op->result(i)->type()->is_block() || op->result(i)->type()->element()->is_pointer()) continue;
              REQUIRE(carried != nullptr);  // acc, l_i, m_i
              REQUIRE_FALSE(plan.needs_flat(op->region(0)->arg(i + 1)));
              carried_rows += carried->rows ? 1 : 0;
            }
          }
        }
        CHECK(reduces == 2);
        CHECK(broadcasts == 3);
        CHECK(dots == 2);
        CHECK(dots_after_rescale == 1);
        CHECK(carried_rows == 2);
      }
    }
  }
}

TEST_CASE("fragment plan: rows read by a store are converted once, after the reduction", "[nvptx][rows]") {
  auto f = lower_rows("rows_stored", "*fp16:16, *fp16:16, *fp32:16, M=64, N=32, K=16");
  nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, 90);
  std::vector<const ir::Op*> ops;
  collect(f->body(), ops);
  int reduces = 0;
  for (const ir::Op* op : ops) {
    if (op->kind() != ir::OpKind::Reduce) continue;
    ++reduces;
    REQUIRE(plan.layout(op->result(0)) != nullptr);
    REQUIRE(plan.needs_flat(op->result(0)));
    REQUIRE_FALSE(plan.needs_flat(op->operand(0)));  // the dot is not converted
  }
  REQUIRE(reduces == 1);
}

TEST_CASE("nvptx: a row reduction of a dot is shuffles in quads, and barriers only across warps", "[nvptx][rows]") {
  for (const char* op : {"max", "min", "sum"}) {
    for (bool keep : {false, true}) {
      for (int sm : {80, 90}) {
        for (int warps : {4, 8}) {
          for (int m : {16, 32, 64, 128}) {
            std::string sig = "*fp16:16, *fp16:16, *fp32:16, *fp32:16, M=" + std::to_string(m) +
                              ", N=64, K=16, OP='" + op + "', KEEP=" + (keep ? "True" : "False");
            INFO(sig << ", sm_" << sm << ", " << warps << " warps");
            auto f = lower_rows("row_reduce", sig);
            // A kernel with a row reduction splits m first.
            FragmentLayout l = FragmentLayout::make({m, 64}, warps, sm == 90, /*rows_first=*/true);
            nvptx::CompiledPtx ptx = compile(*f, warps, sm);
            // Two shuffles (xor 1, 2) per row register; nothing else moves between lanes.
            CHECK(testing::count(ptx.ptx, "shfl.sync.bfly") == 2 * 2 * l.rep_m);
            // The dot's own two barriers (one on wgmma, M >= 64, whose operands are staged where
            // they are loaded: emitter.h's stage_at_definition), the warps along n (two), and
            // the store's conversion (one: its ending barrier, followed only by the global
            // store, left pending by "lazycopy" and dropped by late_passes.h's elide_barriers).
            const int dot_barriers = sm == 90 && m >= 64 ? 1 : 2;
            CHECK(testing::count(ptx.ptx, "bar.sync") == dot_barriers + 1 + (l.warps_n > 1 ? 2 : 0));
            CHECK(testing::ptxas_errors(ptx).empty());
          }
        }
      }
    }
  }
}

TEST_CASE("nvptx: attention's loop meets fewer barriers with fragment rows", "[nvptx][rows]") {
  // Before fragment rows, every K step converted the fragments through shared memory ten
  // times (20 barriers in the loop at 128 x 64, 4 warps, on both targets; 25 in the kernel).
  // Now the loop has the first dot's staging barrier and the barrier after it (2): the first
  // dot waits for K and V both, and the second reads P from registers and V in its stage
  // buffer, so it stages nothing and needs no barrier. On sm_90 Q, loaded before the loop,
  // is written into its own buffer once before it (async_copy.h's hoisted operands), so the
  // first dot stages nothing either and needs no barrier after it (1). On sm_80 Q's
  // fragments are not held through the loop (Emitter::a_fragments_hoisted): the scores' 64
  // registers, the accumulator's 64 and Q's 32 would pass kHoistedAPressureBudget (vLLM's
  // prefix_prefill, the same shape, spilled 132 -> 1004 bytes that way). The warps split m
  // first (4 x 1 on both targets), so the row reductions never cross warps. Outside the
  // loop: the drain of the copies and the store's conversion (2: its ending barrier, with only
  // the global stores after it, left pending by "lazycopy" and dropped by elide_barriers).
  for (int sm : {80, 90}) {
    auto f = lower_rows("attention", attention_signature(64, 128, 64, true));
    nvptx::CompiledPtx ptx = compile(*f, 4, sm, 3);
    INFO("sm_" << sm);
    CHECK(testing::ptxas_errors(ptx).empty());
    CHECK(testing::count(ptx.ptx, "bar.sync") == (sm == 90 ? 3 : 4));
    const size_t loop = ptx.ptx.find("$L__BB0_3:"), back = ptx.ptx.find("bra \t$L__BB0_3;");
    REQUIRE(loop != std::string::npos);
    REQUIRE(back != std::string::npos);
    CHECK(testing::count(ptx.ptx.substr(loop, back - loop), "bar.sync") == (sm == 90 ? 1 : 2));
    CHECK(testing::count(ptx.ptx, "shfl.sync.bfly") == 16);
    // wgmma with A in registers: {four .b32} after the accumulators, 4 k-steps x 2 bands.
    CHECK(wgmma_register_a(ptx.ptx) == (sm == 90 ? 8 : 0));
    // mma.sync: A of the first dot only through ldmatrix (Q: 4 k-steps x 2 bands of rows),
    // and Kᵀ, copied K-major, read without .trans (4 k-steps x 4 pairs of n-tiles).
    if (sm == 80) CHECK(testing::count(ptx.ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 8 + 16);
  }
}

TEST_CASE("nvptx: attention's P.V stays in flight over the next Q.K^T", "[nvptx][rows]") {
  // async_copy.cpp's last_dot_in_flight, opt-in ("pv" in TargetOptions::inflight_copies,
  // TRITIUM_INFLIGHT_COPIES): on sm_90 the loop's second dot (P.V) waits for nothing
  // (wait_group 1); the first dot's wait_group 0 in the next iteration retires it, the loop's
  // exit the last one. At 8 warps (128 x 64, d=64) a fourth buffer of K and V costs no block
  // per SM (80 KiB): the copies go out after the first dot's barrier, two iterations back, so
  // no barrier is added. At 4 warps the overlap would keep more than 128 registers a thread
  // live (P.V's 64 accumulators, Q.K^T's 64 and P): it waits as before. Without "pv" (the
  // default) every dot of the loop waits for its own wgmmas, three buffers.
  auto f = lower_rows("attention", attention_signature(64, 128, 64, true));
  nvptx::CompiledPtx eight = compile(*f, 8, 90, 3, "pv");
  CHECK(testing::ptxas_errors(eight).empty());
  CHECK(testing::count(eight.ptx, "wgmma.wait_group.sync.aligned 1") == 1);
  CHECK(testing::count(eight.ptx, "wgmma.wait_group.sync.aligned 0") == 2);  // Q.K^T's, the exit's
  CHECK(eight.shared_bytes == 16384 + 4 * 16384);
  nvptx::CompiledPtx plain = compile(*f, 8, 90, 3);
  CHECK(testing::count(plain.ptx, "wgmma.wait_group.sync.aligned 1") == 0);
  CHECK(testing::count(plain.ptx, "wgmma.wait_group.sync.aligned 0") == 2);  // Q.K^T's, P.V's
  CHECK(plain.shared_bytes == 16384 + 3 * 16384);
  CHECK(testing::count(plain.ptx, "bar.sync") == testing::count(eight.ptx, "bar.sync"));
  // Only the order, without "pv": as the default.
  CHECK(compile(*f, 8, 90, 3, "after").ptx == plain.ptx);
  CHECK(testing::count(compile(*f, 4, 90, 3, "pv").ptx, "wgmma.wait_group.sync.aligned 1") == 0);
  // Copies after P.V (Triton's order): one barrier more.
  nvptx::CompiledPtx after = compile(*f, 8, 90, 3, "pv-after");
  CHECK(testing::count(after.ptx, "wgmma.wait_group.sync.aligned 1") == 1);
  CHECK(after.shared_bytes == 16384 + 3 * 16384);
  CHECK(testing::count(after.ptx, "bar.sync") == testing::count(eight.ptx, "bar.sync") + 1);
  CHECK(compile(*f, 8, 90, 3, "pv-before").ptx == eight.ptx);
}

TEST_CASE("nvptx: A is read from registers only when each warp holds whole rows of it", "[nvptx][rows]") {
  struct Case {
    int head, block_m, block_n, warps;
    bool registers;
  };
  // The warps split m first (the kernel reduces rows): 64 rows give 4 warps 16 each, 128
  // give 8; 64 rows in 8 warps and 32 in 4 leave warps along n (A staged). On sm_90 the
  // whole-row layouts are wgmma's warpgroup layout, on sm_80 mma.sync's.
  for (Case c : {Case{64, 128, 64, 4, true}, Case{128, 64, 64, 4, true}, Case{64, 64, 32, 4, true},
                 Case{64, 128, 64, 8, true}, Case{64, 64, 64, 8, false}, Case{64, 32, 32, 4, false}}) {
    INFO(c.head << " " << c.block_m << " " << c.block_n << ", " << c.warps << " warps");
    auto f = lower_rows("attention", attention_signature(c.head, c.block_m, c.block_n, false));
    for (int sm : {80, 90}) {
      INFO("sm_" << sm);
      nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, c.warps, sm);
      std::vector<const ir::Op*> ops;
      collect(f->body(), ops);
      int registers = 0, ldmatrix_a = 0, ldmatrix_b = 0;
      bool first = true;
      for (const ir::Op* op : ops) {
        if (op->kind() != ir::OpKind::Dot) continue;
        // The first dot's B is Kᵀ, copied K-major (async_copy.h) and read without .trans:
        // one x4 per pair of n-tiles and k-step of 16.
        const FragmentLayout* lb = plan.layout(op->result());
        REQUIRE(lb != nullptr);
        if (first) ldmatrix_b += lb->rep_n / 2 * static_cast<int>(op->operand(0)->type()->shape().back() / 16);
        first = false;
        bool in_registers = nvptx::a_in_registers(*op, plan);
        registers += in_registers ? 1 : 0;
        const FragmentLayout* l = plan.layout(op->result());
        REQUIRE(l != nullptr);
        // mma.sync's A through ldmatrix: one x4 per band and k-step of 16.
        ldmatrix_a += in_registers ? 0 : l->rep_m * static_cast<int>(op->operand(0)->type()->shape().back() / 16);
      }
      CHECK(registers == (c.registers ? 1 : 0));
      nvptx::CompiledPtx ptx = compile(*f, c.warps, sm, 3);
      CHECK(testing::ptxas_errors(ptx).empty());
      if (sm == 90) CHECK((wgmma_register_a(ptx.ptx) > 0) == c.registers);
      if (sm == 80) CHECK(testing::count(ptx.ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == ldmatrix_a + ldmatrix_b);
    }
  }
}

TEST_CASE("fp32 attention: the tf32 P·V reads P from registers, K in evens_first order", "[nvptx][rows]") {
  // P (fp32) is the second dot's A in registers, on mma.sync m16n8k8 (sm_80) and wgmma
  // (sm_90) alike; only that dot reads K permuted (fragment_layout.h: k_evens_first).
  const std::string signature = "*fp32:16, *fp32:16, *fp32:16, *fp32:16, fp32, i32:16, HEAD=64, BLOCK_M=64, "
                                "BLOCK_N=64, CAUSAL=False";
  auto f = lower_rows("attention", signature);
  for (int sm : {80, 90}) {
    INFO("sm_" << sm);
    nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, sm);
    std::vector<const ir::Op*> ops;
    collect(f->body(), ops);
    std::vector<bool> registers, evens_first;
    for (const ir::Op* op : ops) {
      if (op->kind() != ir::OpKind::Dot) continue;
      registers.push_back(nvptx::a_in_registers(*op, plan));
      evens_first.push_back(nvptx::k_evens_first(*op, plan));
    }
    CHECK(registers == std::vector<bool>{false, true});
    CHECK(evens_first == std::vector<bool>{false, true});
    for (int stages : {1, 3}) {
      INFO(stages << " stages");
      nvptx::CompiledPtx ptx = compile(*f, 4, sm, stages);
      CHECK(testing::ptxas_errors(ptx).empty());
      // One wgmma per k8 step of the 64 keys, A its four registers.
      if (sm == 90) CHECK(wgmma_register_a(ptx.ptx) == 8);
      if (sm == 80) CHECK(testing::count(ptx.ptx, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 2 * 8 * 8);
    }
  }
}

TEST_CASE("fragment plan: P is staged for the second dot from its fragments", "[nvptx][rows]") {
  for (int sm : {80, 90}) {
    auto f = lower_rows("attention", attention_signature(64, 128, 64, false));
    nvptx::FragmentPlan plan = nvptx::plan_fragments(*f, 4, sm);
    std::vector<const ir::Op*> ops;
    collect(f->body(), ops);
    int casts = 0;
    for (const ir::Op* op : ops) {
      if (op->kind() != ir::OpKind::Dot || op->operand(0)->def() == nullptr) continue;
      const ir::Op* p = op->operand(0)->def();
      if (p->kind() != ir::OpKind::Cast) continue;
      ++casts;
      REQUIRE(plan.layout(p->result()) != nullptr);
      REQUIRE_FALSE(plan.needs_flat(p->result()));
    }
    REQUIRE(casts == 1);
  }
}

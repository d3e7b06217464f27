// prefetch_operands (prefetch_operands.h): which loads async_copy.h can copy with cp.async
// once prefetch_loads has made them loop-carried.
#include "gpu/prefetch_operands.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <variant>
#include <vector>

#include "analysis/axis_info.h"
#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "ir/op_views.h"
#include "transforms/prefetch_loads.h"

namespace tritium::gpu {

namespace {

// A load that only feeds 2-D fp16/bf16 dot operands (or fp8 ones of dots wgmma may run on
// fp8 inputs), masked-off elements zero: one dot's, or the same operand of several dots of
// the body (fla's backward state recurrence multiplies each K block of q by one dO), which
// read the one copied tile. The operand of a tf32 or int8 dot (mma.sync) too, when the axis
// facts prove 16-byte runs along its rows or its columns (then copied transposed,
// async_copy.h): with neither its copies would move an element at a time.
bool copyable_operand_load(const ir::Op& load, int sm, const analysis::AxisInfoAnalysis& facts) {
  const ir::Value* v = load.result();
  if (!v->has_uses()) return false;
  const std::vector<ir::Use> uses = v->uses();
  for (const ir::Use& use : uses) {
    if (use.user->kind() != ir::OpKind::Dot || use.index != uses[0].index || use.index > 1 ||
        use.user->parent() != load.parent()) {
      return false;
    }
    if (!(use.user->operand(0)->type()->element() == uses[0].user->operand(0)->type()->element() &&
          use.user->operand(1)->type()->element() == uses[0].user->operand(1)->type()->element() &&
          use.user->result()->type()->element() == uses[0].user->result()->type()->element() &&
          ir::DotOp(*use.user).input_precision() == ir::DotOp(*uses[0].user).input_precision())) {
      return false;
    }
  }
  const ir::Op& dot = *uses[0].user;
  ir::ScalarKind k = v->type()->element()->scalar_kind();
  bool fp8 = sm >= 90 && native_fp8_candidate(dot);
  if (v->type()->rank() != 2) return false;
  if (k == ir::ScalarKind::F16 || k == ir::ScalarKind::BF16 || fp8) return true;
  if (!tf32_dot(dot) && !int8_dot(dot)) return false;
  if (!facts.has(load.operand(0))) return false;
  const int64_t bytes = ir::bit_width(k) / 8;
  return access_width(load, facts) * bytes >= 16 || access_width_along(load, 0, facts) * bytes >= 16;
}

// A 2-D load whose 16-byte runs go down its columns (axis 0 contiguous: fla's `k` and `gk`
// read [BK, BT] with K contiguous), as async_copy.h copies a read-back operand held
// transposed: aligned 16-byte runs along axis 0 under one mask bit each, not along the last
// axis, every element's address and mask bit computable from its index (the runs are dealt
// out over the threads, gpu::recomputable), and a run for every thread.
bool axis0_runs(const ir::Op& load, int threads, const analysis::AxisInfoAnalysis& facts) {
  const ir::Type* type = load.result()->type();
  if (type->rank() != 2) return false;
  const int64_t bytes = std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8);
  const int64_t run = 16 / bytes;
  const ir::Value* ptr = load.operand(0);
  if (16 % bytes != 0 || type->shape()[0] % run != 0 || type->num_elements() < run * threads || !facts.has(ptr)) return false;
  const analysis::AxisInfo& p = facts.get(ptr);
  if (p.contiguity[0] < run || p.divisibility[0] < 16 || access_width(load, facts) >= run) return false;
  const ir::Value* mask = ir::load_mask(load);
  if (mask != nullptr && mask->type()->is_block() && (!facts.has(mask) || facts.get(mask).constancy[0] % run != 0)) {
    return false;
  }
  int budget = 3 * kRecomputeBudget;
  return recomputable(ptr, &budget) && (mask == nullptr || recomputable(mask, &budget));
}

// A load of the loop body that reaches a dot operand through pure ops of the body (as Triton
// chooses the loads it pipelines): a dequantized weight, `b.to(tl.float16) * scale[None, :]`,
// or AWQ's `tl.interleave`d, shifted and scaled nibbles. The emitter copies it into a stage
// buffer laid out as the threads hold it, and each thread reads its own elements back where
// the body first uses them (target/nvptx/async_copy.h, AsyncOperand::read_back), so every use
// must be an op of the body itself (not of a nested region, not its yield). Only where that
// is cheap and safe: not a tensor descriptor's block, masked-off elements zero, runs of at least 4 bytes (the least cp.async
// moves) along the last axis proven by the axis facts, and every thread a whole run (smaller
// blocks are not worth it); or, with `axis0`, 16-byte runs down the columns (axis0_runs); or,
// with `lines`, a line (a 1-D block of 4- to 16-byte elements, each one cp.async: mamba's
// `dA_cs_k` and `dt_k`, whose `exp(dA_cs_last - dA_cs_k) * dt_k` scales an operand's rows),
// which a thread may also read at any element (target/nvptx/async_copy.h, AsyncOperand::line).
// Returns the dot operand it reaches (null where it is none of these).
const ir::Value* reaches_dot(const ir::Op& load, int threads, const analysis::AxisInfoAnalysis& facts, bool axis0,
                             bool lines, bool* down_columns = nullptr, const ir::Op** dot = nullptr) {
  const ir::Type* type = load.result()->type();
  if (!type->is_block() || ir::is_volatile(load) || !facts.has(load.operand(0))) return nullptr;
  // A tensor descriptor's block stays as it is: the TMA copies the loop's other descriptor
  // operands only when all of them are TMA copies (target/nvptx/async_copy.h).
  const ir::Op* ptr = load.operand(0)->def();
  if (ptr != nullptr && ptr->kind() == ir::OpKind::DescriptorTile) return nullptr;
  const ir::Value* other = ir::load_other(load);
  if (other != nullptr && !ir::is_zero_constant(other)) return nullptr;
  const int64_t bytes = std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8);
  const int64_t width = access_width(load, facts);
  const bool rows = width >= 2 && width * bytes >= 4 && width * bytes <= 16 && type->num_elements() >= width * threads;
  const bool line = lines && type->rank() == 1 && bytes >= 4 && bytes <= 16 && width >= 1;
  if (!rows && !line && !(axis0 && axis0_runs(load, threads, facts))) return nullptr;
  if (down_columns != nullptr) *down_columns = !rows && !line;
  // A dot operand itself is copyable_operand_load's (or is left in registers on purpose: an
  // int8 row-major B that gpu/int8_wgmma.h stages from registers).
  for (const ir::Use& use : load.result()->uses()) {
    if (use.user->parent() != load.parent() || ir::has_trait(use.user->kind(), ir::kTerminator) ||
        use.user->kind() == ir::OpKind::Dot) {
      return nullptr;
    }
  }
  std::vector<const ir::Value*> stack = {load.result()};
  std::unordered_set<const ir::Value*> seen;
  while (!stack.empty()) {
    const ir::Value* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second) continue;
    for (const ir::Use& use : v->uses()) {
      const ir::Op* user = use.user;
      if (user->parent() != load.parent()) continue;
      if (user->kind() == ir::OpKind::Dot && use.index < 2) {
        if (dot != nullptr) *dot = use.index == 0 ? user : nullptr;
        return v;
      }
      if (!ir::is_pure(*user)) continue;
      for (const auto& result : user->results()) stack.push_back(result.get());
    }
  }
  return nullptr;
}

}  // namespace

bool native_fp8_candidate(const ir::Op& dot) {
  using ir::ScalarKind;
  auto wgmma_fp8 = [](ScalarKind k) { return k == ScalarKind::F8E4NV || k == ScalarKind::F8E5; };
  ScalarKind r = dot.result()->type()->element()->scalar_kind();
  return wgmma_fp8(dot.operand(0)->type()->element()->scalar_kind()) &&
         wgmma_fp8(dot.operand(1)->type()->element()->scalar_kind()) && r != ScalarKind::F64 &&
         dot.operand(0)->type()->shape().back() % 32 == 0 && dot.int_attr("max_num_imprecise_acc") != 0;
}

bool tf32_dot(const ir::Op& dot) {
  using ir::ScalarKind;
  const ir::InputPrecision precision = ir::DotOp(dot).input_precision();
  return dot.operand(0)->type()->element()->scalar_kind() == ScalarKind::F32 &&
         dot.operand(1)->type()->element()->scalar_kind() == ScalarKind::F32 &&
         dot.result()->type()->element()->scalar_kind() == ScalarKind::F32 &&
         (precision == ir::InputPrecision::Tf32 || precision == ir::InputPrecision::Tf32x3);
}

bool int8_dot(const ir::Op& dot) {
  using ir::ScalarKind;
  return dot.operand(0)->type()->element()->scalar_kind() == ScalarKind::I8 &&
         dot.operand(1)->type()->element()->scalar_kind() == ScalarKind::I8 &&
         dot.result()->type()->element()->scalar_kind() == ScalarKind::I32 &&
         dot.operand(0)->type()->shape().back() % 32 == 0;
}

bool pipelines_dots(const ir::Function& function, const GpuOptions& options) {
  return options.num_stages >= 2 && has_dot(function.body());
}

namespace {

// Whether a load copied down its columns would reach `dot` (its A; null: a B) where the
// NVPTX fragment plan computes A's chain in fragments (target/nvptx/fragment_layout.h, A
// chains): an f16/bf16 dot whose M gives every warp 16 rows of its own, on wgmma (sm_90,
// whole warpgroups) or, with GpuOptions::a_chains_mma, on mma.sync (sm_80 and up: the plan
// then splits M first; mamba's bmm_chunk_bwd 64 x 64 at 2 warps, Triton's choice). Elsewhere
// the block would be read back flat, an element a load, and staged by the dot: the load
// stays as it is (unless GpuOptions::read_back_axis0_flat).
bool a_chain_candidate(const ir::Op* dot, const GpuOptions& options) {
  if (dot == nullptr || options.sm < 80) return false;
  if (!options.a_chains_mma && (options.sm < 90 || options.num_warps % 4 != 0)) return false;
  const ir::Type* a = dot->operand(0)->type();
  const ir::ScalarKind k = a->element()->scalar_kind();
  if (a->rank() != 2 || (k != ir::ScalarKind::F16 && k != ir::ScalarKind::BF16) ||
      dot->operand(1)->type()->element()->scalar_kind() != k) {
    return false;
  }
  const int64_t m = a->shape()[0];
  return m % (16 * options.num_warps) == 0 && m / (16 * options.num_warps) >= 1 && a->shape()[1] % 16 == 0;
}

// Whether dot operand `v` is computed in `body` through pure ops from a 2-D load of the body
// marked to be read back (kReadBackAttr): mamba's `b * scale[:, None]` (chunk_state_fwd) and
// `dout * tl.exp(dA_cs_k)[None, :]` (dstates), fla's gated keys. A line reaching such an
// operand is copied too: its reads from the stage buffer join that block's, and where its
// broadcast took a round trip they save its two barriers. Elsewhere (attention's backward,
// `tl.exp(qk - lse[:, None])` on a dot's result) a line reloaded at the fragments from global
// memory needs no barrier, which reading it from a stage buffer would add: it stays as it is.
bool reads_copied_block(const ir::Value* v, const ir::Region& body) {
  std::vector<const ir::Value*> stack = {v};
  std::unordered_set<const ir::Value*> seen;
  while (!stack.empty()) {
    const ir::Value* x = stack.back();
    stack.pop_back();
    const ir::Op* def = x->def();
    if (!seen.insert(x).second || def == nullptr || def->parent() != &body) continue;
    if (def->kind() == ir::OpKind::Load) {
      if (def->has_attr(kReadBackAttr) && x->type()->rank() == 2) return true;
      continue;
    }
    if (!ir::is_pure(*def) || def->kind() == ir::OpKind::Dot) continue;
    for (const ir::Value* operand : def->operands()) stack.push_back(operand);
  }
  return false;
}

// Marks the loads of `region`'s loops (at any depth) that reach a dot through other ops and
// are prefetched (kReadBackAttr): in body order, while the loop's shared memory stays within
// kReadBackSharedBytes, counting each prefetched load's block num_stages + 1 times (the most
// buffers a copied operand gets) and, for each read-back load, the dot operand it becomes
// (the dot stages that block once more). Past it such a load stays as written (prefetched
// into registers it would hold num_stages - 1 blocks in registers).
void choose_read_back(const ir::Region& region, const GpuOptions& options, const analysis::AxisInfoAnalysis& facts) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) choose_read_back(*inner, options, facts);
    if (op->kind() != ir::OpKind::For) continue;
    const ir::AttrValue* attr = op->find_attr("num_stages");
    const int64_t stages = attr != nullptr && std::holds_alternative<int64_t>(*attr) ? std::get<int64_t>(*attr) : options.num_stages;
    if (stages < 2) continue;
    auto bytes_of = [](const ir::Value& v) {
      const ir::Type* type = v.type();
      return type->num_elements() * std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8);
    };
    // Each prefetched block in num_stages buffers, and one more where the emitter may keep a
    // dot in flight with an extra buffer (options.read_back_fit; else always).
    int dots = 0;
    for (const auto& inner : op->region(0)->ops()) dots += inner->kind() == ir::OpKind::Dot ? 1 : 0;
    const int64_t buffers = stages + (!options.read_back_fit || dots == 1 || options.last_dot_in_flight ? 1 : 0);
    int64_t bytes = 0;
    for (const auto& inner : op->region(0)->ops()) {
      if (inner->kind() == ir::OpKind::Load && copyable_operand_load(*inner, options.sm, facts)) {
        bytes += bytes_of(*inner->result()) * buffers;
      }
    }
    // Blocks first, then lines: a line is copied only where its dot operand also reads a
    // copied block of the body (reads_copied_block), whose read-back the line's reads join.
    for (int lines = 0; lines < 2; ++lines)
    for (const auto& inner : op->region(0)->ops()) {
      if (inner->kind() != ir::OpKind::Load || copyable_operand_load(*inner, options.sm, facts)) continue;
      if ((inner->result()->type()->rank() == 1) != (lines == 1)) continue;
      bool down_columns = false;
      const ir::Op* a_of = nullptr;
      const ir::Value* operand = reaches_dot(*inner, 32 * options.num_warps, facts, options.read_back_axis0,
                                             options.read_back_lines, &down_columns, &a_of);
      if (operand == nullptr || (down_columns && !options.read_back_axis0_flat && !a_chain_candidate(a_of, options))) {
        continue;
      }
      if (lines == 1 && !reads_copied_block(operand, *op->region(0))) continue;
      const int64_t more = bytes_of(*inner->result()) * buffers + bytes_of(*operand);
      if (bytes + more > kReadBackSharedBytes) continue;
      bytes += more;
      inner->set_attr(kReadBackAttr, int64_t{1});
    }
  }
}

}  // namespace

void prefetch_operands(ir::Function& function, const GpuOptions& options) {
  if (!pipelines_dots(function, options)) return;
  analysis::AxisInfoAnalysis facts(function);
  choose_read_back(function.body(), options, facts);
  auto copied = [&](const ir::Op& load) {
    return copyable_operand_load(load, options.sm, facts) || load.has_attr(kReadBackAttr);
  };
  // The integer loads those copies' pointers read (a paged KV cache's block-table entries),
  // prefetched into registers one iteration further ahead: at most one element a thread, so
  // each iteration carried costs a register or so.
  const int64_t threads = 32 * options.num_warps;
  auto index = [&](const ir::Op& load) {
    const ir::Type* type = load.result()->type();
    return ir::is_integer(type->element()->scalar_kind()) && !copied(load) &&
           (!type->is_block() || type->num_elements() <= threads);
  };
  transforms::prefetch_loads(function, copied, options.num_stages,
                             options.prefetch_indices ? std::function<bool(const ir::Op&)>(index) : nullptr,
                             options.recurrence_stages ? kRecurrenceStageBytes : 0);
}

}  // namespace tritium::gpu

// Hopper's warpgroup MMA (sm_90a): wgmma.mma_async reads A and B from swizzled shared-memory
// tiles (shared_tile.h) through 64-bit matrix descriptors and accumulates into the fragment
// registers, which are wgmma's accumulator layout in the warpgroup layouts (fragment_layout.h:
// warps_m = num_warps, or warpgroups side by side along n with columns_blocked): register
// 4 * (in + rep_n * im) + c of a thread is element c of n-tile `in` of its warpgroup's m64
// tile `im` and its warpgroup's columns, the order of wgmma's own output registers.
#include <llvm/IR/InlineAsm.h>

#include <algorithm>

#include "ir/attrs.h"
#include "ir/op_views.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

namespace {
// The widest N of one wgmma instruction.
constexpr int64_t kMaxN = 256;
}  // namespace

llvm::Value* Emitter::wgmma_descriptor(llvm::Value* address, const SharedTile& tile, int64_t row, int64_t col,
                                       bool k_major) {
  // Bits 0-13: the start address >> 4; 16-29: the leading byte offset >> 4; 32-45: the stride
  // byte offset >> 4; 62-63: the swizzle (PTX ISA, "matrix descriptor").
  uint64_t fields = (static_cast<uint64_t>(tile.leading_byte_offset(k_major) >> 4) & 0x3FFF) << 16 |
                    (static_cast<uint64_t>(tile.stride_byte_offset() >> 4) & 0x3FFF) << 32 |
                    static_cast<uint64_t>(tile.descriptor_mode()) << 62;
  auto descriptor = [&](llvm::Value* start) {
    llvm::Value* low = b_.CreateAnd(b_.CreateLShr(start, b_.getInt32(4)), b_.getInt32(0x3FFF));
    return b_.CreateOr(b_.CreateZExt(low, b_.getInt64Ty()), b_.getInt64(fields));
  };
  const int64_t offset = tile.descriptor_start(row, col);
  if (offset % 16 != 0) return descriptor(b_.CreateAdd(address, b_.getInt32(static_cast<uint32_t>(offset))));
  // The tile's descriptor (one per dot and operand: the same instructions, merged by CSE)
  // plus the sub-tile's offset >> 4 as a 64-bit constant, as Triton's are: the start field
  // does not overflow, a shared address being below 2^18 (228 KiB at most) and 16-aligned.
  return b_.CreateAdd(descriptor(address), b_.getInt64(static_cast<uint64_t>(offset >> 4)));
}

llvm::Value* Emitter::b_descriptor(const DotStaging& staging, int64_t k0, int64_t n0) {
  // A K-major B is held transposed: its rows are B's columns.
  return staging.b_k_major ? wgmma_descriptor(staging.b_address, staging.tile_b, n0, k0, true)
                           : wgmma_descriptor(staging.b_address, staging.tile_b, k0, n0, false);
}

void Emitter::emit_wgmma(const ir::Op& op, const FragmentLayout& l, const DotStaging& staging, const std::string& input,
                         std::vector<llvm::Value*>& c) {
  const int64_t K = op.operand(0)->type()->shape().back();
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  // SharedTile::descriptor_start of row 0, column `col` (a run-time value): a column block
  // and a place in it.
  auto column_start = [&](const SharedTile& t, llvm::Value* col) {
    return b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(col, i32(t.block_cols())), i32(t.rows * t.swizzle)),
                        b_.CreateMul(b_.CreateURem(col, i32(t.block_cols())), i32(t.element_bytes)));
  };
  // Warpgroup (g_m, g_n) holds rows 64 * g_m + [0, 64) of each band of 16 * warps_m rows: its
  // A starts 64 rows further (a row of a swizzled tile is `swizzle` bytes within its column
  // block; 64 columns further in an M-major A, a tile row being K). Side by side along n
  // (columns_blocked), it holds columns g_n * width + [0, width) and reads B from there.
  llvm::Value* group_m = b_.CreateLShr(warp_id(), i32(2));
  if (l.warps_n > 1) group_m = b_.CreateURem(group_m, i32(l.warps_m / 4));
  llvm::Value* a_address =
      b_.CreateAdd(staging.a_address, staging.a_m_major ? column_start(staging.tile_a, b_.CreateMul(group_m, i32(64)))
                                                        : b_.CreateMul(group_m, i32(64 * staging.tile_a.swizzle)));
  const int64_t width = l.n / l.warps_n;
  DotStaging group = staging;
  if (l.warps_n > 1) {
    llvm::Value* first_col = b_.CreateMul(b_.CreateUDiv(warp_id(), i32(l.warps_m)), i32(width));
    // A row of the K-major tile (B held transposed), else a column block and a place in it.
    llvm::Value* offset = staging.b_k_major ? b_.CreateMul(first_col, i32(staging.tile_b.swizzle))
                                            : column_start(staging.tile_b, first_col);
    group.b_address = b_.CreateAdd(staging.b_address, offset);
  }
  // f16 accumulators (out_dtype=tl.float16) go two to a register through the instructions
  // and the wait, unpacked after it (a dot kept in flight has f32 ones: async_copy.cpp).
  const bool f16_acc = c[0]->getType()->isHalfTy();
  std::vector<llvm::Value*> d = f16_acc ? pack_pairs(c) : c;
  llvm::Type* acc = d[0]->getType();
  const int per_reg = f16_acc ? 2 : 1;
  // fp8 (`input` empty: async_copy.h's native_fp8) and int8 ("s8") take 32 along K per
  // instruction, tf32 8; none of them has transpose bits: both operands are K-major. int8
  // accumulates in s32 and has no imm-scale-a/b either (Triton's int8 wgmma does not
  // saturate: no .satfinite).
  const bool fp8 = input.empty();
  const bool int8 = input == "s8";
  const bool k_major_only = fp8 || int8 || input == "tf32";
  const int64_t k_step = fp8 || int8 ? 32 : input == "tf32" ? 8 : 16;
  const std::string operand_types = fp8 ? wgmma_fp8_types(op) : input + "." + input;
  const std::string acc_type = f16_acc ? ".f16." : int8 ? ".s32." : ".f32.";
  // A zero accumulator (`tl.dot(q, k)`) is not read: the first K step's wgmmas scale it by
  // 0 (D = A B), so its registers need no zeros written into them first.
  const bool zero_acc = ir::is_zero_constant(op.operand(2));
  if (zero_acc) {
    for (llvm::Value*& v : d) v = llvm::UndefValue::get(acc);
  }
  // One instruction: the k0 step of m64 tile `im`, columns n0.., into `into` (accumulating,
  // or scaling what is there by 0: D = A B). The accumulators are written asynchronously, so
  // every read of them goes through a wait's results.
  auto issue = [&](std::vector<llvm::Value*>& into, int64_t k0, int im, int64_t n0, bool accumulate,
                   llvm::Value* desc_a) {
    const int64_t n = std::min(kMaxN, width - n0);
    const int regs = static_cast<int>(n / 2 / per_reg);
    const int first = static_cast<int>(4 * (n0 / 8 + l.rep_n * im)) / per_reg;
    llvm::Value* desc_b = b_descriptor(group, k0, n0);
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(regs + 2) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(k_step) +
                       acc_type + operand_types + " {";
    std::string constraints;
    std::vector<llvm::Type*> types = {b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt32Ty()};
    std::vector<llvm::Value*> args = {desc_a, desc_b, b_.getInt32(accumulate ? 1 : 0)};
    for (int i = 0; i < regs; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += f16_acc || int8 ? "=r," : "=f,";
    }
    // Scale D = 1 (accumulate; 0 for a zero accumulator's first step), A and B not
    // negated, A K-major or M-major (transposed), B N-major (transposed) or K-major.
    text += "}, $" + std::to_string(regs) + ", $" + std::to_string(regs + 1) + (int8 ? ", p" : ", p, 1, 1") +
            (k_major_only ? std::string()
                          : std::string(", ") + (staging.a_m_major ? "1" : "0") + ", " + (staging.b_k_major ? "0" : "1")) +
            ";\n}";
    wgmma_call(text, constraints + "l,l,r", types, args, into, first, regs);
  };
  // The steps k0 in [from, to) of every tile into `into`, the first scaling it by 0 when
  // `fresh`.
  auto issue_steps = [&](std::vector<llvm::Value*>& into, int64_t from, int64_t to, bool fresh) {
    for (int64_t k0 = from; k0 < to; k0 += k_step) {
      for (int im = 0; im < l.rep_m; ++im) {
        const int64_t m0 = int64_t{im} * 16 * l.warps_m;
        llvm::Value* desc_a = staging.a_m_major ? wgmma_descriptor(a_address, staging.tile_a, k0, m0, false)
                                                : wgmma_descriptor(a_address, staging.tile_a, m0, k0, true);
        for (int64_t n0 = 0; n0 < width; n0 += kMaxN) issue(into, k0, im, n0, !(fresh && k0 == from), desc_a);
      }
    }
  };
  ptx_effect("wgmma.fence.sync.aligned;", "", {});
  // fp8 with max_num_imprecise_acc <= K (ir::DotOp::needs_partial_accumulator): each run of
  // that many elements of K (one instruction at least) goes into partial accumulators of its
  // own, waited for and added into d in f32, as Triton's: wgmma's fp8 accumulation keeps
  // fewer bits than f32.
  if (fp8 && !f16_acc && ir::DotOp(op).needs_partial_accumulator()) {
    const int64_t run = std::max<int64_t>(1, (ir::DotOp(op).max_num_imprecise_acc() + k_step - 1) / k_step) * k_step;
    for (int64_t from = 0; from < K; from += run) {
      if (from > 0) ptx_effect("wgmma.fence.sync.aligned;", "", {});
      std::vector<llvm::Value*> partial(d.size(), llvm::UndefValue::get(acc));
      issue_steps(partial, from, std::min(K, from + run), true);
      ptx_effect("wgmma.commit_group.sync.aligned;", "", {});
      wgmma_wait(0, partial);
      for (size_t i = 0; i < d.size(); ++i) d[i] = zero_acc && from == 0 ? partial[i] : b_.CreateFAdd(d[i], partial[i]);
    }
  } else {
    issue_steps(d, 0, K, zero_acc);
    ptx_effect("wgmma.commit_group.sync.aligned;", "", {});
  }
  wgmma_dot_wait(op, d, staging.in_place);
  c = f16_acc ? unpack_half_pairs(d) : d;
}

void Emitter::wgmma_dot_wait(const ir::Op& op, std::vector<llvm::Value*>& d, bool in_place) {
  // Dots whose waits were left to this one (takes_unwaited): one that these wgmmas
  // accumulate onto gave them its registers; the others' pass through this wait (or stay
  // unwaited with this one's, left to the next dot).
  std::vector<const ir::Value*> others;
  for (const ir::Value* v : unwaited_) {
    if (v != op.operand(2)) others.push_back(v);
  }
  unwaited_.clear();
  unwaited_taker_ = nullptr;
  if (const ir::Op* next = leaves_wait_to_next_dot(op, in_place)) {
    unwaited_ = std::move(others);
    unwaited_.push_back(op.result());
    unwaited_taker_ = next;
    return;
  }
  if (!others.empty()) return wait_with_unwaited(d, others);  // (not a loop plan's dot)
  // A dot kept in flight (async_copy.h) waits only for the one before it.
  auto flying = async_.in_flight_waits.find(&op);
  if (flying == async_.in_flight_waits.end()) {
    wgmma_wait(async_.in_flight_dots.count(&op) != 0 ? 1 : 0, d);
    end_unwaited_tiles();
    return;
  }
  // The first dot of a loop whose last one stays in flight: its wait (for every group) ends
  // that one too, whose accumulators the loop carries; they go through the wait, so nothing
  // reads them before it (last_dot_in_flight: no use comes earlier in the body).
  Regs& carried = fragments_.at(flying->second);
  std::vector<llvm::Value*> all = d;
  all.insert(all.end(), carried.values.begin(), carried.values.end());
  wgmma_wait(0, all);
  std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(d.size()), d.begin());
  std::copy(all.begin() + static_cast<std::ptrdiff_t>(d.size()), all.end(), carried.values.begin());
}

bool Emitter::copies_after_loop_dot(const ir::Op& dot) const {
  return std::any_of(async_.copies_after_dots.begin(), async_.copies_after_dots.end(),
                     [&](const ir::Op* d) { return d->parent() == dot.parent(); });
}

void Emitter::wgmma_call(const std::string& text, std::string constraints, std::vector<llvm::Type*> types,
                         std::vector<llvm::Value*> args, std::vector<llvm::Value*>& acc, int first, int count) {
  for (int i = 0; i < count; ++i) {
    constraints += "," + std::to_string(i);
    args.push_back(acc[first + i]);
    types.push_back(acc[first + i]->getType());
  }
  std::vector<llvm::Type*> outs(types.end() - count, types.end());
  auto* fn_type = llvm::FunctionType::get(llvm::StructType::get(context_, outs), types, false);
  llvm::Value* call = b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), args);
  for (int i = 0; i < count; ++i) acc[first + i] = b_.CreateExtractValue(call, static_cast<unsigned>(i));
}

void Emitter::wgmma_wait(int pending, std::vector<llvm::Value*>& c) {
  // The wait hands the accumulators back: nothing reads them before it. Values still in
  // flight (pending > 0) go only to the next wgmma on the same registers, which the
  // hardware orders after this one.
  const int total = static_cast<int>(c.size());
  std::string constraints;
  for (int i = 0; i < total; ++i) constraints += std::string(i ? "," : "") + (c[i]->getType()->isFloatTy() ? "=f" : "=r");
  for (int i = 0; i < total; ++i) constraints += "," + std::to_string(i);
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : c) types.push_back(v->getType());
  auto* fn_type = llvm::FunctionType::get(llvm::StructType::get(context_, types), types, false);
  std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  llvm::Value* call = b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), c);
  for (int i = 0; i < total; ++i) c[i] = b_.CreateExtractValue(call, static_cast<unsigned>(i));
}

}  // namespace tritium::nvptx

// The tensor-core accumulator layout ("fragments") and which values of a kernel carry it
// (DESIGN.md: GPU execution model). No LLVM here.
//
// A dot's result lives where mma.sync m16n8 leaves it: the warps of the CTA form a grid of
// warps_m x warps_n, and each warp holds rep_m x rep_n tiles of 16 x 8 elements. The tiles
// interleave: tile (im, in) of warp (wm, wn) covers rows im * 16 * warps_m + wm * 16 + [0, 16)
// and columns in * 8 * warps_n + wn * 8 + [0, 8) — or, with `columns_blocked` (warpgroups side
// by side along n, below), wn * 8 * rep_n + in * 8 + [0, 8): each warp along n holds one
// contiguous range of columns. Within a tile, lane l holds four elements,
// c = 0..3, at row (l / 4) + 8 * (c / 2) and column 2 * (l % 4) + c % 2 (the PTX fragment of
// the accumulator). Register r of a thread is c + 4 * (in + rep_n * (im + rep_m * batch)).
// Warps beyond warps_m * warps_n (a block too small for all of them) hold copies: a value is
// replicated there, so every write of these values goes through shared memory, where equal
// copies may land twice.
//
// Elementwise ops on values in this layout stay in it (register by register) when their
// other operands are fragments of the same shape, uniform (constants, splats) or computed
// from their element index alone (ranges, masks built from them), and a loop can carry
// them, so a matmul's accumulator never leaves the registers of its warps.
//
// "Fragment rows" (rows = true): a [m] value (or [m, 1]) that is a reduction along the last
// axis of an m x n fragment, held where the fragment's rows are: register r = h + 2 * im of
// a thread is row tile_row(im, wm) + lane / 4 + 8 * h, so the four lanes of a quad and the
// warps along n hold copies. A reduction combines a thread's registers of a row, then the
// quad by shfl.bfly 1 and 2, then (warps_n > 1) the warps along n through shared memory;
// elementwise ops, expand_dims/reshape to [m, 1] and loops keep rows, and a broadcast of
// rows to [m, n'] is a fragment again, register by register. Every other use reads the
// value in the flat layout (layout.h), converted once where the value is defined.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace tritium::nvptx {

struct FragmentLayout {
  int64_t batch = 1, m = 0, n = 0;  // the block's shape: [batch x] m x n
  int warps_m = 1, warps_n = 1;     // the warp grid (warps_m * warps_n <= num_warps)
  int rep_m = 1, rep_n = 1;         // 16 x 8 tiles per warp along m and n
  bool rows = false;                // fragment rows: a [m] or [m, 1] value (n = 1, warps_n = 1)
  bool columns_blocked = false;     // warp wn holds columns [wn, wn + 1) * 8 * rep_n (else interleaved)

  // The layout of an m x n (m a multiple of 16, n of 8) block spread over `num_warps`. With
  // `warpgroups` (Hopper), a 2-D block that every warp can hold 16 rows of at a time gets
  // warps_m = num_warps, warps_n = 1: then each group of 4 warps holds 64 consecutive rows of
  // each 16 * num_warps, which is exactly wgmma's accumulator (its m64nN tile). A block of
  // fewer rows (a multiple of 64: 64 rows at 8 warps) puts the warpgroups side by side along n
  // instead, as many along m as its rows allow: warps_m = 4 * groups_m, warps_n = the other
  // groups, columns_blocked, so that each warpgroup holds m64 x (n / warps_n) accumulators.
  // With `rows_first` (kernels that reduce fragments along rows) the warps split m as far as
  // it goes before n, so that rows need no exchange across warps and a warp's rows of a dot
  // result are whole A operands of the next dot.
  static FragmentLayout make(const std::vector<int64_t>& shape, int num_warps, bool warpgroups = false,
                             bool rows_first = false);
  // The rows of `full` (2-D, not rows itself): its m and warps_m, every warp holding a copy.
  static FragmentLayout rows_of(const FragmentLayout& full);
  int num_regs() const { return rows ? 2 * rep_m : static_cast<int>(batch) * rep_m * rep_n * 4; }
  int64_t num_elements() const { return batch * m * n; }
  // The register of rows_of(*this) that holds the row of register `reg` (2-D, not rows).
  int row_reg(int reg) const { return (reg % 4) / 2 + 2 * ((reg / 4 / rep_n) % rep_m); }
  // The first row and column of tile (im, in) of warp (wm, wn).
  int64_t tile_row(int im, int wm) const { return int64_t{im} * 16 * warps_m + int64_t{wm} * 16; }
  int64_t tile_col(int in, int wn) const { return int64_t{in} * tile_col_step() + int64_t{wn} * warp_col_step(); }
  // The columns between n-tiles `in` and `in + 1` of a warp, and between warps wn and wn + 1.
  int64_t tile_col_step() const { return columns_blocked ? 8 : int64_t{8} * warps_n; }
  int64_t warp_col_step() const { return columns_blocked ? int64_t{8} * rep_n : 8; }
  // The flat row-major index of register `reg` of the thread with `warp` and `lane` (for
  // rows, the row). It is element(0, 0, reg) + (wm * 16 + lane / 4) * n + wn * warp_col_step()
  // + 2 * (lane % 4) with wm = warp % warps_m, wn = warp / warps_m % warps_n (rows: no column part).
  int64_t element(int warp, int lane, int reg) const;
  bool operator==(const FragmentLayout& other) const {
    return batch == other.batch && m == other.m && n == other.n && warps_m == other.warps_m &&
           warps_n == other.warps_n && rows == other.rows && columns_blocked == other.columns_blocked;
  }
};

// What plan_fragments may do, each a TRITIUM_REDUCE_EXPERIMENT name (codegen.cpp's
// fragment_plan; plan_fragments' comment says what each one does).
struct FragmentOptions {
  bool read_backs = true;         // "fragread"
  bool a_chains = true;           // "achain"
  bool guard_reloads = true;      // "reloadguard"
  bool a_chains_rows = true;      // "achainmma"
  bool early_reloads = true;      // "earlyline"
  bool fragment_reduces = true;   // "fragreduce"
  bool trans_a_fragments = false; // "transafrag" (opt-in)
  bool trans_a_m_major = true;    // "stsmtrans"
  bool any_inits = true;          // "accfrag"
  bool direct_loads = false;      // "accload" (codegen turns it on for sm_90)
};

// Which values live in a FragmentLayout, decided before code generation.
class FragmentPlan {
 public:
  // The layout of `value`, or null when it is in the flat layout.
  const FragmentLayout* layout(const ir::Value* value) const {
    auto it = layouts_.find(value);
    return it == layouts_.end() ? nullptr : &it->second;
  }
  // Whether some use of a fragment value reads it in the flat layout.
  bool needs_flat(const ir::Value* value) const { return needs_flat_.count(value) != 0; }
  // The layout of the fragment copy of `value`, a flat block defined outside a loop whose
  // fragment ops read it, or a flat initial value of a loop that carries fragments (any_inits)
  // (made once, right after its definition), or null where it has none.
  const FragmentLayout* invariant_copy(const ir::Value* value) const {
    auto it = invariant_copies_.find(value);
    return it == invariant_copies_.end() ? nullptr : &it->second;
  }
  // Whether `load`, a load of the plan (layout(load.result()) is a fragment layout), loads
  // each thread's fragment elements straight from global memory (Emitter::load_fragment):
  // a loop's loaded initial accumulator (`acc = tl.load(C)`, maybe through pure elementwise
  // ops such as `.to(tl.float32)`) whose pointers, mask and `other` are index-computable
  // (experiment "accload", the default on sm_90, with `any_inits`), instead of a flat load and an invariant
  // copy through shared memory (st.shared, 2 bar.sync, ld.shared) as Triton 3.6 does.
  bool loads_fragment(const ir::Op& load) const { return direct_loads_.count(&load) != 0; }
  // The loads of a row line that `broadcast` computes again (line_reloaded) which load two
  // adjacent columns at once, a thread's columns 2j and 2j + 1 (the axis facts give aligned
  // pairs of consecutive addresses under one mask bit), reached from the line through
  // expand_dims, conversions and elementwise ops only; empty where none does.
  const std::vector<const ir::Op*>& paired_loads(const ir::Op& broadcast) const {
    static const std::vector<const ir::Op*> none;
    auto it = paired_loads_.find(&broadcast);
    return it == paired_loads_.end() ? none : it->second;
  }
  // The line broadcasts of the plan that read `line` and have it computed again at their
  // fragments (line_reloaded): the emitter computes those right after `line`'s definition.
  const std::vector<const ir::Op*>& reloaded_broadcasts(const ir::Value* line) const {
    static const std::vector<const ir::Op*> none;
    auto it = reloaded_.find(line);
    return it == reloaded_.end() ? none : it->second;
  }
  // With `early_reloads` (experiment "earlyline", the default): the op of `line`'s region
  // after which its reloaded broadcasts are computed instead of after `line`'s definition,
  // where that is an earlier op (reload_anchor: right after the last op the line's chain
  // needs, its loads among them), so that the loads are issued before what comes between (a
  // dot's issue, its operands' staging and barrier: fla's kkt scales the dot's result by a
  // loaded beta column, whose load came after the wgmma's wait); null where none.
  const ir::Op* reloaded_early(const ir::Value* line) const {
    auto it = early_.find(line);
    return it == early_.end() ? nullptr : it->second;
  }
  // Whether `reshape` flattens a block of fragments to 1-D for reductions of all its
  // elements to a scalar by an exact, order-free combine (integers: and, or, xor, add, mul,
  // min, max): each reduction reads the fragments' registers as its thread's elements
  // (Emitter::emit_reduce), so the block needs no flat copy (experiment "fragreduce", the
  // default; cut-cross-entropy's `_block_is_filtered`: a 128 x 128 i1 block's round trip,
  // 64 stores, 128 loads and 2 barriers a thread, gone).
  bool reduces_fragments(const ir::Op* reshape) const { return reduce_views_.count(reshape) != 0; }
  // The lines whose broadcasts are reloaded right after `op` (reloaded_early).
  const std::vector<const ir::Value*>& lines_reloaded_after(const ir::Op* op) const {
    static const std::vector<const ir::Value*> none;
    auto it = reloaded_after_.find(op);
    return it == reloaded_after_.end() ? none : it->second;
  }
  // Whether ops of the plan read `value`, a block a loop carries as a read-back operand
  // (async_copy.h's AsyncOperand::read_back: copied into stage buffers, the body reading its
  // iteration's buffer), at their fragment positions: each thread loads the pairs of adjacent
  // columns its registers hold straight from the stage buffer (Emitter::read_back_fragment),
  // as Triton's local_load into its mma layout, instead of a dot result going to the flat
  // layout through shared memory to meet the flat registers.
  bool reads_back(const ir::Value* value) const { return read_back_.count(value) != 0; }
  // Whether a row line ([1, n]) defined in a loop's body is reloaded (reloaded_broadcasts):
  // its loads are then issued in every iteration at each thread's columns (2 (lane % 4) + 8 j,
  // rep_n pairs), from addresses that are a per-thread part plus the loop's scalar advance.
  // LLVM's LoopStrengthReduce turns each such address into a 64-bit induction variable of
  // its own, live through the loop (mamba's dCB 64 x 32: 126 registers, 94 without it;
  // Triton 96): codegen.cpp skips that pass for such kernels (experiments "lsr" / "nolsr"
  // force it on / off). Column lines (2 rows a thread at 4 warps of wgmma: mamba's dB and
  // dC) keep it: there skipping it gave as many registers or more (dB 128 x 64: 12 bytes
  // spilled).
  bool reloads_in_loop() const { return reloads_in_loop_; }

 private:
  friend FragmentPlan plan_fragments(const ir::Function& function, int num_warps, int sm,
                                     const FragmentOptions& options);
  friend bool trans_a_m_major(const ir::Op& dot, const FragmentPlan& plan, int sm, int num_warps);
  friend bool stages_trans_fragments(const ir::Op& dot, int operand, const FragmentPlan& plan, int sm, int num_warps);
  friend bool reads_fragment(const FragmentPlan& plan, const ir::Op& user, int operand);
  std::unordered_map<const ir::Value*, FragmentLayout> layouts_;
  std::unordered_set<const ir::Value*> needs_flat_;
  std::unordered_map<const ir::Value*, FragmentLayout> invariant_copies_;
  std::unordered_map<const ir::Op*, std::vector<const ir::Op*>> paired_loads_;
  std::unordered_map<const ir::Value*, std::vector<const ir::Op*>> reloaded_;
  std::unordered_map<const ir::Value*, const ir::Op*> early_;
  std::unordered_set<const ir::Op*> reduce_views_;
  std::unordered_map<const ir::Op*, std::vector<const ir::Value*>> reloaded_after_;
  std::unordered_set<const ir::Value*> read_back_;
  std::unordered_set<const ir::Op*> direct_loads_;
  bool reloads_in_loop_ = false;
  FragmentOptions options_;
  int sm_ = 0, num_warps_ = 0;
};

// Dot results get the fragment layout; it spreads forward through elementwise ops whose
// other block operands are fragments, uniform or computable from their index
// (index_computable), through `for` loops that carry it (their initial value uniform or a
// fragment; with `any_inits`, "accfrag", the default, any block: a flat one goes to the
// fragments once, where it is defined, as an invariant_copy; with `direct_loads`, "accload",
// opt-in, a loaded one whose addresses are index-computable is loaded in the fragments
// instead: FragmentPlan::loads_fragment), through `if` results whose branches both yield such values (and a dot's
// accumulator chosen by an `if` of them: a mask applied before the dot), and as fragment
// rows through reductions along the last axis of 2-D fragments, expand_dims/reshape to
// [m, 1] and broadcasts back to fragments whose rows are the same, until nothing changes. On sm_90 the layouts are the warpgroup ones (FragmentLayout::make).
// An elementwise op of a loop may also read a block defined outside that loop (a loaded
// [m, n] block the loop multiplies each dot result by): that block gets a fragment copy of
// its own once, where it is defined (invariant_copy), at most kInvariantCopyElements a
// thread, instead of the op's fragments going to the flat layout in every iteration.
// A read-back operand of a loop (async_copy.h) that an elementwise op of the plan reads (`v
// - tl.dot(w, h)` with v copied and read back: fla's delta-rule state recurrence), or that
// is a dot's accumulator, is read at the fragment positions (reads_back) with `read_backs`
// (TRITIUM_REDUCE_EXPERIMENT's default "fragread"); without, it is flat, and the op with it.
// With `a_chains` too ("achain", the default), a dot's f16/bf16 A computed from read-back
// operands through pure elementwise ops and line broadcasts (fla's gated keys `(b_k *
// exp2(b_gk_last[:, None] - b_gk)).to(bf16)`) is planned in A's fragments, where the dot
// reads A from registers (a_in_registers): each read-back operand read at those positions,
// the lines computed again at the rows (line_reloaded), as Triton computes such an operand in
// its dot-operand layout; without, the chain is flat and the dot stages A.
// `guard_reloads` ("reloadguard", the default) keeps reloaded lines within kReloadRegisterBudget.
// With `a_chains_rows` ("achainmma", the default) a kernel with such an A chain whose dot's
// fragments would split n between warps (mma.sync: 64 x 64 at 2 warps is 1 x 2 warps) splits
// m first instead (FragmentLayout::make's rows_first, as Triton's mma layout does there), so
// that every warp holds whole rows of A and the chain is computed in A's fragments (mamba's
// bmm_chunk_bwd: its fp32 `dout` copied by cp.async and converted at the fragments, not
// loaded into registers each iteration and staged by the dot).
// With `early_reloads` ("earlyline", the default) a reloaded line whose loads come before
// other ops of its region is computed right after the last op its chain needs
// (FragmentPlan::reloaded_early), within kEarlyReloadRegisters.
FragmentPlan plan_fragments(const ir::Function& function, int num_warps, int sm, const FragmentOptions& options = {});

// Whether `broadcast`, a line broadcast into a fragment layout (a row [1, n] down its rows or
// a column [m, 1] across its columns), has the line computed again at the columns or rows
// each fragment register needs instead of moving the flat line there through shared memory
// (Emitter::line_to_fragment): the line is index-computable ops (index_computable), scalars
// and pure elementwise ops (at most kIndexComputeBudget in all) of loads, each load not
// volatile, its pointer, mask and `other` index-computable, and no write to global memory
// between the load and the line's definition (none in the ops between them, at any depth,
// nor anywhere in a loop that holds the definition but not the load: an earlier iteration's
// write comes between too). Each thread then loads the elements its registers hold itself,
// right where the line is defined (once, before a loop whose broadcast reads a line defined
// outside it), as Triton loads such a vector in the slice of its mma layout; the flat load
// is dead where nothing else reads it.
bool line_reloaded(const ir::Op& broadcast);

// Whether every element of `value` follows from its flat index alone: ranges, constants,
// splats, scalars, views and broadcasts of them and at most `*budget` pure elementwise ops
// (the emitter's `recomputable` accepts all these, so it can compute such an operand in any
// layout without moving elements between threads).
bool index_computable(const ir::Value* value, int* budget);
// 32: vLLM's unified attention masks its scores by a chain of some 20 ops (query masks of two
// index comparisons each, the causal comparison): computed at each fragment register, where
// the chain over 16 ops took the scores, their softmax and the accumulator to the flat layout.
constexpr int kIndexComputeBudget = 32;
// The most elements a thread holds of one invariant_copy: a 64 x 128 block at 4 warps.
constexpr int64_t kInvariantCopyElements = 64;
// The most registers a thread may hold of fragments and reloaded lines where a line is
// reloaded (plan_fragments; line_reloaded): past it the line takes the round trip through
// shared memory (two barriers) instead of spilling. Calibrated on ptxas' counts (sm_90a) of
// mamba's backward kernels: 64 x 128 dcb (194) spilled, 32 x 128 (84) and 64 x 64 (98) did not.
constexpr int kReloadRegisterBudget = 150;
// The most registers a thread holds of a line reloaded early (FragmentPlan::reloaded_early):
// they stay live across the ops between its loads and its definition (fla's kkt: beta's 2).
constexpr int kEarlyReloadRegisters = 8;
// The fragment registers a thread holds where `op` runs, `l` its result's layout: its
// result's and those its innermost loop carries in fragments (what a reloaded line or a
// hoisted A is held among: plan_fragments and Emitter::a_fragments_hoisted bound it).
int fragment_pressure(const FragmentPlan& plan, const ir::Op& op, const FragmentLayout& l);

// Whether `dot`, whose result has layout `l`, runs on Hopper's wgmma (emit_wgmma.cpp):
// sm_90, fp16/bf16 operands (fp8 widened to f16), a 2-D block in a warpgroup layout (every
// warp along m, or warpgroups side by side along n), at least 16 columns per warpgroup, and
// whole groups of 4 warps.
bool uses_wgmma(const ir::Op& dot, const FragmentLayout& l, int sm, int num_warps);

// Whether `dot` reads A from registers (wgmma, or mma.sync m16n8k16 / m16n8k8): A is a
// fragment whose warps hold whole rows (warps_n = 1) with the result's warps_m and m (P of
// attention). f16/bf16: the accumulators of its n-tiles 2j and 2j + 1 are the k16 A fragment
// of k-step j. tf32 (fp32 operands, tf32 or tf32x3): n-tile j is k-step j's k8 fragment with
// the K order permuted (k_evens_first), which every dot reading the same B must share.
bool a_in_registers(const ir::Op& dot, const FragmentPlan& plan);
// Whether `dot` reads K in SharedTile::evens_first order: a tf32 dot with A in registers.
// Its A fragment of k-step j is n-tile j's accumulators (c0, c2, c1, c3): k = t and t + 4 of
// the fragment are columns 2t and 2t + 1. So its B is read in that order too: on wgmma B's
// tile is held evens_first (its staging or copies write it so), on mma.sync its B fragment
// reads rows 2t and 2t + 1 of each 8 instead of t and t + 4.
bool k_evens_first(const ir::Op& dot, const FragmentPlan& plan);
// Whether some dot of `function` does.
bool any_wgmma(const ir::Function& function, const FragmentPlan& plan, int sm, int num_warps);

// Whether a `use` of a fragment value by `user` reads it in its fragment layout. A trans the
// dots stage (gpu::trans_staged_by_dots) does where each of them writes the fragments into a
// tile held the other way round (stages_trans_fragments), a pair of registers at a time.
bool reads_fragment(const FragmentPlan& plan, const ir::Op& user, int operand);
// Whether `dot`, a wgmma dot of f16 or bf16 operands, reads its A, a trans of fragments
// (not rows, no batch) that the dots stage themselves (gpu::trans_staged_by_dots), M-major:
// A's tile (K rows of M) is then the source's own rows, written from its fragments as they
// are (Emitter::stmatrix_stage: stmatrix.x4, two 16 x 8 tiles an instruction), and the
// wgmma's transpose bit for A set (PTX allows M-major A from shared memory for 16-bit types
// only). So also where A is hoisted before its loop (async_copy.h's HoistedOperand::m_major:
// cut-cross-entropy's dC dot reads `tl.trans(d_accum)` so), as Triton stages it. The plan's
// experiment "stsmtrans" (the default; "nostsmtrans": a hoisted A K-major, written from the
// flat copy, transposed, as before session 36).
bool trans_a_m_major(const ir::Op& dot, const FragmentPlan& plan, int sm, int num_warps);
// Whether `dot` stages its operand `operand`, a trans of a fragment value that it stages
// itself, straight from the fragments: on the tensor-core paths B is then held K-major and,
// on mma.sync, A M-major (Emitter::stage_dot_operands); an fma dot's row-major tiles read the
// flat copy, transposed. wgmma's A: where trans_a_m_major, M-major from the fragments; else
// (K-major: nostsmtrans, fp8) written from the fragments an element at a time at the
// transposed position with experiment "transafrag" (opt-in: cut-cross-entropy's dC dot: no
// flat copy of d_accum, 128 loads, 50 stores and 3 barriers fewer, 4 -> 0 spilled bytes, but
// ~190 more address instructions), by default from the flat copy.
bool stages_trans_fragments(const ir::Op& dot, int operand, const FragmentPlan& plan, int sm, int num_warps);

}  // namespace tritium::nvptx

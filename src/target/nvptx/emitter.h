// Internal to src/target/nvptx (it includes LLVM; nothing outside this folder may include
// it): the state shared by the files that lower tile IR ops to LLVM IR, one family each.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "analysis/axis_info.h"
#include "analysis/value_range.h"
#include "ir/attrs.h"
#include "ir/ir.h"
#include "ir/layout.h"
#include "target/nvptx/async_copy.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/fragment_layout.h"
#include "target/nvptx/layout.h"
#include "target/nvptx/uniformity.h"
#include "target/nvptx/vector_widths.h"

namespace tritium::nvptx {

// How a dot is computed, in words (emit_dot.cpp), for `--emit gpu-ir`.
std::string describe_dot(const ir::Op& op, const FragmentLayout* fragments, int sm, int num_warps, bool native_fp8);
std::string wgmma_fp8_types(const ir::Op& dot);  // "e4m3.e5m2": wgmma's atype.btype

// The LLVM type of a scalar kind (codegen.cpp).
llvm::Type* llvm_scalar_type(llvm::LLVMContext& context, ir::ScalarKind kind);

// Where a dot's operands lie in shared memory (emit_dot.cpp): A's rows from byte 0, B's
// from b_offset (0 when A is not staged there: copied, hoisted or in registers), `stride_*`
// elements of type `a` / `b` apart.
struct DotStaging {
  llvm::Type* a = nullptr;
  llvm::Type* b = nullptr;
  int64_t stride_a = 0, stride_b = 0, b_offset = 0;
  SharedTile tile_a, tile_b;  // how A and B are arranged (padded rows, or swizzled for wgmma)
  llvm::Value* a_address = nullptr;  // i32 .shared addresses of A's and B's first element
  llvm::Value* b_address = nullptr;
  bool in_place = false;  // both operands read in their stage buffers (async_copy.h)
  bool b_k_major = false;  // tile_b holds B transposed (AsyncOperand::transposed): K-major
  bool a_m_major = false;  // tile_a holds A transposed (AsyncOperand::transposed): M-major
};

// What one tile IR value is in the current thread: its registers (layout.h). A scalar, a
// pointer and a uniform block (every element equal: splat, constants) have one value that
// every thread holds; other blocks have Layout::num_regs() values.
struct Regs {
  std::vector<llvm::Value*> values;
  bool uniform = false;  // a block represented by values[0] alone

  llvm::Value* at(int reg) const { return values.size() == 1 ? values[0] : values[reg]; }
  static Regs one(llvm::Value* v, bool uniform_block = false) { return Regs{{v}, uniform_block}; }
};

class Emitter {
 public:
  // `fragments` and `copies`: the plans for `function` (codegen makes them first: the
  // CUtensorMap parameters of the kernel's signature follow from the copies).
  Emitter(const ir::Function& function, const TargetOptions& options, llvm::Function* kernel, FragmentPlan fragments,
          AsyncPlan copies);

  // Emits the whole body into the kernel; returns the dynamic shared memory it needs.
  int64_t emit();

 private:
  using ElementFn = std::function<llvm::Value*(const std::vector<llvm::Value*>&)>;

  // ---- emitter.cpp: the walk, values, types, threads, shared memory ----
  // A TRITIUM_REDUCE_EXPERIMENT name and the flag it sets (null: read by codegen.cpp).
  struct Experiment {
    const char* name;
    bool Emitter::*flag;
  };
  static const std::vector<Experiment>& experiments();
  bool mark_fragment_barriers(const ir::Region& region);  // fills fragment_barriers_
  void emit_region(const ir::Region& region);
  // The order emit_region emits `region`'s ops in: the IR's, but with experiment "earlyinv"
  // (the default) an elementwise op whose result has a fragment copy (FragmentPlan::
  // invariant_copy) and whose operands are all defined before the region's first prologue
  // copy into the stage buffers (async_copy.h) comes just before that copy: the copy's
  // round trip then reuses the stage buffers' bytes, whose first writer meets the barrier
  // ending that round trip (mamba's dB: 108,544 -> 73,984 bytes, as Triton's).
  std::vector<const ir::Op*> emission_order(const ir::Region& region) const;
  void emit_op(const ir::Op& op);       // the barrier insert_barriers put before it, then dispatch
  void dispatch(const ir::Op& op);      // the op family's emit_*
  const Regs& get(const ir::Value* value) const;
  void set(const ir::Value* value, Regs regs);

  llvm::Type* scalar_type(ir::ScalarKind kind) const;
  llvm::Type* element_type(const ir::Type* type) const;  // the element of a block, or the type
  llvm::Type* memory_type(const ir::Type* pointee) const;  // i1 lives in memory as a byte
  Layout layout_of(const ir::Type* type) const;  // V from widths_ (vector_widths.h)

  llvm::Value* thread_id();                                // %tid.x, read once in the entry
  // The sum over the cluster (num_ctas_ CTAs) of a split loop's accumulator
  // (gpu/split_k_cluster.h), in rank 0; the other ranks hand their registers over through
  // distributed shared memory (a fixed tree) and end.
  Regs cluster_sum(Regs acc);
  // Groups of registers (16 bytes each where they come in fours) cluster_sum reads and adds
  // at a time.
  static constexpr int kHandoverChunk = 8;
  // The coordinates (row, column) of index tid + first in rows of `row` elements, `first` a
  // multiple of the thread count: tid / row + first / row and tid % row where `row` divides
  // the thread count, first / row and tid + first % row where the thread count divides
  // `row` (deal_split_), else the division of the sum.
  // `thread` and `shift` hold the split where there is one: the first round's coordinates
  // and this round's constant offsets from them (both coordinates' sums are the pair).
  struct DealtCoords {
    llvm::Value* row = nullptr;
    llvm::Value* column = nullptr;
    bool split = false;
    llvm::Value* thread_row = nullptr;
    llvm::Value* thread_column = nullptr;
    int64_t row_shift = 0, column_shift = 0;
  };
  DealtCoords dealt_coords(int64_t first, int64_t row);
  llvm::Value* element_index(const Layout& layout, int reg);  // i32 flat index of a register
  llvm::Value* owns(const Layout& layout, int reg);        // i1, or null when always owned
  llvm::Value* and_pred(llvm::Value* a, llvm::Value* b);   // null means true
  Regs materialize(const Regs& regs, const ir::Type* type) const;  // one value per register
  // Applies `fn` per element (once for scalars and when every input is uniform).
  Regs map_elements(const ir::Type* result, const std::vector<const Regs*>& inputs, const ElementFn& fn);
  // Runs `body` only where `pred` holds (null: always). Returns its value merged with
  // `otherwise` (its type's zero when `otherwise` is null, also for a constant-false `pred`),
  // or null when `body` returns null.
  llvm::Value* guarded(llvm::Value* pred, const std::function<llvm::Value*()>& body,
                       llvm::Value* otherwise = nullptr);
  llvm::Value* int_const(llvm::Type* type, int64_t v) const;

  llvm::GlobalVariable* shared_base();  // the dynamic shared memory array, made on first use
  // Where round trips start: after the live stage and hoisted buffers (emit_async.cpp; a
  // loop's exit frees its own), else at 0 — not after every loop's buffers, whose bytes a
  // loop with fewer copied operands (a versioned cold copy) leaves to its dots' staging.
  int64_t round_trip_start() const;
  llvm::Value* shared_element(llvm::Type* type, llvm::Value* index, int64_t elements);
  // The same, in a scratch area that starts `byte_offset` bytes into shared memory.
  llvm::Value* shared_element_at(int64_t byte_offset, llvm::Type* type, llvm::Value* index, int64_t elements);
  // The type shared memory holds `type` as (i1 as i8) and its size in bytes.
  llvm::Type* stored_type(llvm::Type* type) const;
  int64_t type_bytes(llvm::Type* type) const;
  // bar.sync 0. The emitter's own (elidable) are marked for late_passes.h's elide_barriers;
  // tl.debug_barrier's is not (it may order global memory).
  void barrier(bool elidable = true);
  // The barrier that ends an unplanned round trip (its reads done before anyone writes the
  // scratch again). For the flat copies of the kernel's top-level region made for a global
  // store (emit_op's flat_copies_at_) or at a loop's exit (emit_for's results; experiment
  // "lazybar", the default) left pending instead (trailing_, with dirty_) and made before the
  // next op that may write shared memory (writes_no_shared; emit_op) or by the next round
  // trip's sync_if_dirty: so an epilogue's accumulator on its way to the flat layout for its
  // store meets 2 barriers, as Triton's, not 3 (a barrier with nothing after it but address
  // arithmetic and global stores). Elsewhere at once.
  void end_round_trip();
  // Whether `op` is sure to write no shared memory: no regions, no planned buffer, no
  // fragment operand or result, and an elementwise op, a constant, range, splat, view,
  // unplanned broadcast, a global load or store that no copy plan moves, or the return.
  bool writes_no_shared(const ir::Op& op) const;
  // The fragment copy (FragmentPlan::invariant_copy) of `op`'s result, made once where `op`
  // defines it: of a block widened from f16/bf16 to f32, the 16-bit operand's round trip
  // and a widening at each register (experiment "narrowcopy", opt-in); else its own.
  Regs invariant_fragment_copy(const ir::Op& op, const FragmentLayout& l);
  // tl.extra.cuda.gdc_wait / gdc_launch_dependents: the PTX instruction `text` on sm_90+
  // (a memory clobber, so no access moves across it); nothing before sm_90, which has no
  // programmatic dependent launch.
  void grid_dep_control(const char* text);
  // Where buffer `slot` (gpu/scratch.h) of `op` starts in the scratch area, as allocate_shared
  // placed it; an internal error unless it holds `bytes` (the emitter and the allocator
  // decide round trips by the same rules, so they agree).
  int64_t scratch(const ir::Op& op, int slot, int64_t bytes);
  bool has_scratch(const ir::Op& op) const { return op.has_attr("shared_offsets"); }
  // Round trips the allocator does not plan (fragment conversions, dot staging, uniform
  // decisions, scalar atomics) use the scratch area from its start: they begin with a
  // barrier when a planned op's accesses may still be pending (dirty_) and end with one.
  void sync_if_dirty();
  // sync_if_dirty, and a barrier where operand tiles are done but not freed (their last
  // reader's wgmmas may still read them in other warps): before memory they may overlap is
  // written where round trips do not start (the first copy into the stage buffers, a
  // hoisted operand's buffer).
  void sync_past_operand_tiles();
  bool holds_scratch(const ir::Op& op);  // it or an op in its regions has buffers
  // Thread 0's `values` (scalars of at most 8 bytes) in every thread, via shared memory:
  // at `byte_offset` of the scratch area (an op's buffer: write, barrier, read), or, when
  // negative, as an unplanned round trip.
  std::vector<llvm::Value*> from_thread0(const std::vector<llvm::Value*>& values, int64_t byte_offset = -1);
  llvm::Value* to_storage(llvm::Value* v);                    // i1 -> i8 for memory
  llvm::Value* from_storage(llvm::Value* v, llvm::Type* type);  // and back

  // ---- emit_arith.cpp: constants, elementwise arithmetic, compares, casts, math ----
  void emit_constant(const ir::Op& op);
  void emit_elementwise(const ir::Op& op);
  ElementFn element_fn(const ir::Op& op);  // the op on one element of each operand
  // An op of ir/elementwise.def on one element of each operand (`kind`: the first's type).
  llvm::Value* lane(const ir::Op& op, ir::ScalarKind kind, const std::vector<llvm::Value*>& args);
  // Helpers of elementwise.def's entries.
  llvm::Value* int_division(const ir::Op& op, bool is_signed, llvm::Value* a, llvm::Value* b);
  llvm::Value* shift(const ir::Op& op, bool is_signed, llvm::Value* a, llvm::Value* b);
  llvm::Value* float_rem(llvm::Value* a, llvm::Value* b);
  // `f32` on fp32, or on fp16/bf16 widened to fp32 and rounded back; fp64 is an error.
  llvm::Value* math_via_f32(const ir::Op& op, ir::ScalarKind kind, llvm::Value* a,
                            const std::function<llvm::Value*(llvm::Value*)>& f32);
  llvm::Value* reduce_two_pi(llvm::Value* a);  // sin/cos's argument reduction, fp32
  // Triton's choice for log, log2, sin, cos and fp64 exp/exp2: libdevice's `f32_symbol`
  // (fp16/bf16 through fp32) or `f64_symbol`. Without libdevice installed, fp32 takes
  // `fallback` (the hardware's approximation) and fp64 is an error naming libdevice.
  llvm::Value* math_libdevice(const ir::Op& op, ir::ScalarKind kind, llvm::Value* a, const char* f32_symbol,
                              const char* f64_symbol, const std::function<llvm::Value*(llvm::Value*)>& fallback);
  llvm::Value* compare(const ir::Op& op, const ir::Type* operand, llvm::Value* a, llvm::Value* b);
  llvm::Value* cast(const ir::Op& op, const ir::Type* from, const ir::Type* to, llvm::Value* a);

  // ---- emit_extern.cpp: calls of libdevice functions (linked by codegen.cpp) ----
  ElementFn extern_fn(const ir::Op& op);
  // tl.inline_asm_elementwise with pack > 1: one asm call per `pack` registers of a thread.
  void emit_packed_asm(const ir::Op& op);
  llvm::Value* libdevice_call(const char* symbol, llvm::Value* a);  // one argument, its type

  // ---- emit_fp8.cpp: fp8 <-> fp32 (cvt on sm_90 for e4nv/e5, else in software) ----
  llvm::Value* fp8_to_f32(llvm::Value* bits, ir::ScalarKind kind);
  // A cast of a block from fp8 (e4m3/e5m2, sm_90) to f16, bf16 or f32 converting two of the
  // thread's registers per cvt.rn.f16x2 (Triton pairs them so); nullopt where it does not apply.
  std::optional<Regs> fp8_widened_in_pairs(const ir::Op& cast, const Regs& in);
  std::optional<Regs> bytes_to_f16_in_pairs(const ir::Op& cast, const Regs& in);
  // f32 -> f16 / bf16 a register pair a cvt.rn.*x2.f32 (experiment "nopaircvt"), n registers.
  std::optional<Regs> f32_to_half_in_pairs(const ir::Op& cast, const Regs& in, int n);
  llvm::Value* f32_to_fp8(llvm::Value* value, ir::ScalarKind kind, bool toward_zero);
  // A float cast with fp_downcast_rounding="rtz" (cvt.rz), fp8 excluded.
  llvm::Value* float_cast_toward_zero(llvm::Value* a, ir::ScalarKind from, ir::ScalarKind to);
  // A float to an integer type as PTX's cvt.rzi does it: toward zero, saturated, NaN -> 0.
  llvm::Value* float_to_int(llvm::Value* a, ir::ScalarKind from, ir::ScalarKind to, llvm::Type* target);
  llvm::Value* ptx_unary(const std::string& text, const char* constraints, llvm::Type* result,
                         std::vector<llvm::Value*> args);

  // ---- emit_shape.cpp: program ids, ranges, splat, broadcast, views ----
  void emit_program_id(const ir::Op& op);
  void emit_make_range(const ir::Op& op);
  void emit_splat(const ir::Op& op);
  void emit_broadcast(const ir::Op& op);
  void emit_view(const ir::Op& op);  // expand_dims, reshape: same elements, same owners
  // Whether the elements of `value` follow from their index alone (ranges, constants,
  // scalars and at most `budget` elementwise ops over them), and element `e` of it.
  bool recomputable(const ir::Value* value, int* budget) const;
  llvm::Value* recompute(const ir::Value* value, llvm::Value* e,
                         std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  // The same at an element given by its coordinates (one i32 per axis of `value`): each
  // axis's index stays its own value, so elements sharing a row or a column share its
  // arithmetic (LLVM folds the constants and merges the rest).
  // A load in the chain (line_reloaded's lines only) is loaded again at that element.
  llvm::Value* recompute_at(const ir::Value* value, const std::vector<llvm::Value*>& coords,
                            std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  // How `value` changes when every coordinate moves by `shift` (constants): d such that
  // value(x + shift) == value(x) + d for every x with x and x + shift inside the block, a
  // scalar of the value's integer type (bytes, i64, for pointers), or null where that is not
  // proven: sums, products by block-uniform factors, views and pointer offsets pass it on,
  // exactly in their width's modular arithmetic; a widening cast (or a pointer offset
  // narrower than 64 bits) passes a non-zero one only from a range directly (its values
  // never wrap), pure elementwise ops only a zero one. (copy_base_.)
  llvm::Value* shift_delta(const ir::Value* value, const std::vector<int64_t>& shift,
                           std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  // Whether value(x) + delta (a constant: shift_delta's of `value`, an integer block narrower
  // than 64 bits) cannot have wrapped: value's ranges span less than 2^w - |delta| (then a
  // widening cast or addptr passes delta on; shift_wrap_).
  bool shift_cannot_wrap(const ir::Value* value, llvm::Value* delta);
  // `ptr` at coordinates thread + shift: its value at `thread` (computed once in `base_memo`
  // for every shift) plus shift_delta's bytes where that is proven, else recomputed at the
  // sum (memo `memo`).
  llvm::Value* shifted_address(const ir::Value* ptr, const std::vector<llvm::Value*>& thread,
                               const std::vector<int64_t>& shift,
                               std::unordered_map<const ir::Value*, llvm::Value*>& base_memo,
                               std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  // A copy's mask bit at coordinates thread + shift. Where it is (a conjunction of) a
  // comparison of `s + q` with `b` (s and b one value in every element, q's shift_delta a
  // constant c) whose value ranges (analysis/value_range.h) prove that neither s + q nor
  // b - s - c wraps, the comparison is q at the thread's coordinates against the one
  // value b - s - c, clamped to q's range and made in 32 bits where that range fits them:
  // the rounds share q and each compares it with a bound of its own (fla's gla: one
  // 32-bit compare a row, not a 64-bit sum and compare a copy). Else recompute_at at the sum.
  llvm::Value* shifted_mask(const ir::Value* mask, const std::vector<llvm::Value*>& thread,
                            const std::vector<int64_t>& shift,
                            std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  llvm::Value* row_bound_compare(const ir::Op& cmp, const std::vector<llvm::Value*>& thread,
                                 const std::vector<int64_t>& shift);
  // The parts of such a comparison (row_bound_parts: whether the ranges prove it), the
  // bound its q is compared with where q moves by c (null where that could wrap), and the bit
  // of one element q(x).
  struct RowBound {
    ir::CmpPredicate pred = ir::CmpPredicate::Lt;
    const ir::Value* q = nullptr;
    llvm::Value* s = nullptr;  // null: no s
    llvm::Value* b = nullptr;
    __int128 min = 0, max = 0;  // the type's
    __int128 ql = 0, qh = 0;    // q's range
    __int128 lo = 0, hi = 0;    // the limit's before c
    bool narrow = false;        // compared in 32 bits, the limit clamped
    bool fits(__int128 a, __int128 b) const { return a >= min && b <= max; }
  };
  bool row_bound_parts(const ir::Op& cmp, RowBound* out);
  llvm::Value* row_bound_limit(const RowBound& r, __int128 c);
  llvm::Value* row_bound_bit(const RowBound& r, llvm::Value* qx, llvm::Value* limit);
  // A block comparison made so in every register (emit_elementwise), where it applies.
  bool emit_row_bound_compare(const ir::Op& op);
  const analysis::ValueRangeAnalysis& value_ranges();
  const analysis::AxisInfoAnalysis& axis_info();  // built once, on first use
  llvm::Value* reload_at(const ir::Op& load, const std::vector<llvm::Value*>& coords,
                         std::unordered_map<const ir::Value*, llvm::Value*>& memo);
  // A load of the fragment plan (FragmentPlan::loads_fragment): each thread loads its
  // fragment elements from global memory, its pointers, mask and `other` computed at each
  // register's coordinates; the two adjacent columns of a register pair as one 2-element
  // load where the facts give them one mask bit and aligned consecutive addresses
  // (gpu::access_width >= 2), else one element at a time. No shared memory, no barrier.
  Regs load_fragment(const ir::Op& load, const FragmentLayout& l);
  // A paired load (FragmentPlan::paired_loads) of a row line at its columns `coords[0]` and
  // `coords[1]` (the line's, [0, c] and [0, c + 1], c even): one 2-element load, each element
  // left in its column's memo for recompute_at.
  void reload_pair(const ir::Op& load, const std::vector<std::vector<llvm::Value*>>& coords,
                   std::vector<std::unordered_map<const ir::Value*, llvm::Value*>>& memos);
  // Row-major flat index `e` of a block of `shape` as coordinates (and back).
  std::vector<llvm::Value*> delinearize(const std::vector<int64_t>& shape, llvm::Value* e);
  llvm::Value* linearize(const std::vector<int64_t>& shape, const std::vector<llvm::Value*>& coords);
  // The flat index in the source (of shape `from`) of element `e` of its broadcast to `to`.
  llvm::Value* broadcast_source_index(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                                      llvm::Value* e);

  // ---- emit_reduce.cpp: reduce and scan (in registers, warp shuffles, shared memory) ----
  void emit_reduce(const ir::Op& op);
  void emit_scan(const ir::Op& op);
  void emit_map_elementwise(const ir::Op& op);
  // The op's combine region on (lhs..., rhs...), one scalar each; returns the combined values.
  std::vector<llvm::Value*> combine(const ir::Op& op, const std::vector<llvm::Value*>& lhs,
                                    const std::vector<llvm::Value*>& rhs);
  // Pairwise in order: ((0, 1), (2, 3)), ... until one is left.
  std::vector<llvm::Value*> combine_tree(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items);
  // Left to right under "chain" (reduce_chain_: Triton's order), else combine_tree.
  std::vector<llvm::Value*> combine_ordered(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items);
  // The same over 2^k items as a butterfly with the widest stride first combines them
  // (items[i] with items[i + n/2], then with + n/4, ...): Triton's order across warps.
  std::vector<llvm::Value*> combine_strided(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items);
  // The value of lane (lane ^ mask) of this warp (any scalar type up to 64 bits).
  llvm::Value* shuffle_xor(llvm::Value* value, int mask);
  // shfl.sync of any 8-64-bit value: `intrinsic` one of nvvm_shfl_sync_{bfly,up,down,idx}_i32,
  // `arg` its lane mask, delta or lane, `clamp` its c operand.
  llvm::Value* shuffle_lanes(llvm::Value* value, unsigned intrinsic, llvm::Value* arg, uint32_t clamp);
  // Reads `count` consecutive `stored` values of shared memory, slot j at `at(j)`, `vec` at a
  // time (one aligned vector load each when vec > 1), appending value j to out[j] as `element`.
  void read_shared_run(llvm::Type* stored, llvm::Type* element, int64_t count, int64_t vec,
                       const std::function<llvm::Value*(int64_t)>& at, std::vector<std::vector<llvm::Value*>>& out);

  // ---- emit_move.cpp: trans, join, split, cat, histogram, gather ----
  void emit_move(const ir::Op& op);
  void emit_histogram(const ir::Op& op);
  void emit_gather(const ir::Op& op);

  // ---- emit_dot.cpp: tl.dot on tensor cores, values in the fragment layout ----
  void emit_dot(const ir::Op& op);
  void emit_flat_dot(const ir::Op& op);
  // Writes both operands to shared memory (fp8 converted to f16 when asked), then a barrier.
  // (a_in_registers: A is not staged, wgmma reads it from its fragments.)
  DotStaging stage_dot_operands(const ir::Op& op, bool fp8_as_f16, bool wgmma, bool a_in_registers = false);
  void emit_fma_dot(const ir::Op& op, const std::vector<llvm::Value*>& a_rows, const std::vector<llvm::Value*>& b_cols,
                    int64_t b_offset, int64_t stride_b, llvm::Type* sa, llvm::Type* sb, llvm::Type* acc_type,
                    std::vector<llvm::Value*>& c);
  void emit_fragment_elementwise(const ir::Op& op, const FragmentLayout& l);
  // `value` read in layout `l` for `user`: its fragment, a uniform value repeated, or the
  // flat value moved through shared memory.
  Regs fragment_operand(const ir::Value* value, const FragmentLayout& l, const ir::Op& user);
  // A flat block moved into fragments through shared memory (`at`: the op errors name).
  Regs flat_to_fragment(const ir::Value* value, const FragmentLayout& l, const ir::Op& at);
  // Records a fragment value, and its flat copy when some use needs one: converted before
  // the first flat use, after the fragment uses before it (flat_copy_point; the copy still
  // dominates every flat use), so that the copy's registers are not live beside the
  // fragments, e.g. across a loop that reads only the fragments.
  void set_fragment(const ir::Value* value, Regs regs);
  // The op of `value`'s region at whose start its flat copy is made: the one after the last
  // that reads its fragments (or holds such a reader) before the first that reads it flat,
  // never between a loop's prologue copies and the loop's exit nor past a TMA block load (a
  // round trip there would start past their buffers). Null when no fragment reader comes
  // first (the copy is made at once).
  const ir::Op* flat_copy_point(const ir::Value* value) const;
  Regs fragment_to_flat(const ir::Value* value, const FragmentLayout& l, const Regs& fragment);
  // The row stride (elements) of the padded buffer a round trip between `l`'s fragments and
  // `type`'s flat layout goes through, `bytes` an element: rows padded by 16 bytes, or by 32
  // where that takes fewer shared-memory wavefronts on both sides (experiment "pairpad", the
  // default: a 4-byte element's column pairs are 8-byte accesses, checked for bank conflicts
  // by half-warps, whose four rows a 16-byte pad puts two to a bank; 32 bytes spreads them).
  int64_t round_trip_stride(const FragmentLayout& l, const ir::Type* type, int64_t bytes) const;
  // The flat copy of a fragment value made at the start of `at` (null: right after its
  // definition): staged once into the B tile of the dots after it that read it (operand_tiles_),
  // its flat registers read from there, where such dots follow; else fragment_to_flat.
  Regs flat_copy(const ir::Value* value, const FragmentLayout& l, const Regs& fragment, const ir::Op* at);

  // ---- operand tiles (emit_dot.cpp) ----
  // A B operand staged from registers that several dots of one region read (fla's b_v, the
  // B of two consecutive dots), or whose flat copy a store also needs (fla's state h, stored
  // and then the B of a dot), is written once into its own tile above where round trips
  // start, which stays intact until the last of those dots has read it: the others read it
  // there (no store, fence or barrier of their own), the flat copy reads its rows there.
  // Round trips start after the live tiles (round_trip_start). Between the staging and the
  // last reader, the region holds no op with regions, no copy into stage buffers before a
  // loop and no TMA block access (which would move or clobber the bytes). The bytes are
  // given back at the first op boundary of the region after a barrier of the region that
  // follows the last reader (each thread's reads of the tile are done by then), or at the
  // region's end (with a barrier then if none came since).
  struct OperandTile {
    const ir::Value* value = nullptr;
    const ir::Region* region = nullptr;
    int64_t offset = 0;  // bytes from the start of shared memory
    SharedTile tile;
    // A K-major B (a wgmma B staged from a slot whose registers run along K: slot_runs_down),
    // held transposed as stage_dot_operands holds it; its flat copy is never read there.
    bool transposed = false;
    std::unordered_set<const ir::Op*> readers;  // the dots that read it here (as B)
    // A tile staged where its value is defined (stage_at_definition): `value` is the
    // staged source (a trans the dots stage is read through its source), `transposed` says
    // the source's element (r, c) is the tile's (c, r); the dots that read it as A.
    bool at_definition = false;
    std::unordered_set<const ir::Op*> a_readers;
    // (at_definition) A fence for the async proxy of its region since it was staged
    // (ptx_effect), and then a barrier of its region: wgmma may read it.
    bool fenced = false;
    bool published = false;
    const ir::Op* last = nullptr;
    bool done = false;   // the last reader has read it
    bool freed = false;  // and a barrier of the region has come since
  };
  // The B tile a tensor-core dot stages its operand 1 in when it is a 2-D f16/bf16 block
  // staged from registers (not copied, transposed or K-permuted) and the dot's reads end
  // within it (not a wgmma kept in flight); nullopt otherwise.
  std::optional<SharedTile> operand_tile_of(const ir::Op& dot) const;
  // The dots of `from`'s region, from `from` on, that read `value` as B in one tile
  // (operand_tile_of), up to the first op that ends an operand tile's life there.
  std::vector<const ir::Op*> tile_readers(const ir::Value* value, const ir::Op& from) const;
  // Whether a tile of `bytes` fits above where round trips start now, within
  // tile_budget_ (so that the tiles add no shared memory to the kernel's).
  bool operand_tile_fits(int64_t bytes) const;
  // A lower bound of the shared memory the kernel needs without operand tiles: the stage
  // buffers, and each region's round trips (fragments to the flat layout, dots' staging,
  // planned buffers) where round trips start there. Computed once, before the walk.
  int64_t shared_lower_bound(const ir::Region& region, int64_t start) const;
  // A lower bound of the registers a thread needs: the most 32-bit registers of fragment
  // values (dot results, their conversions) live at once in any region, each from its
  // definition to its last use there. With deftile, tile_budget_ lets operand tiles take the
  // shared memory of the blocks an SM those registers leave room for (fla's dqkwg: four
  // accumulators, 224 registers, 2 blocks an SM whatever its shared memory).
  int64_t live_fragment_registers(const ir::Region& region) const;
  // Before a round trip of `bytes`: where it would pass tile_budget_ above tiles whose last
  // reader is done, a barrier first, and the tiles given back (the round trip starts lower).
  void make_room(int64_t bytes);
  void keep_operand_tile(const ir::Value* value, const SharedTile& tile, const std::vector<const ir::Op*>& readers);
  OperandTile* operand_tile(const ir::Op& dot);  // the live tile `dot` reads its B in, or null
  OperandTile* operand_tile_a(const ir::Op& dot);  // the live tile `dot` reads its A in, or null
  // ---- operand tiles staged at the definition (emit_dot.cpp; experiment "nodeftile") ----
  // A flat 16-bit block whose every use is a wgmma dot staging it from registers (as A, as B,
  // or through a trans the dots stage) in one tile of one orientation, in its own region
  // before anything that ends an operand tile's life there, is staged once right where it is
  // defined (as Triton's local_alloc after a load): its registers die there instead of
  // living until its last dot (fla's dqkwg: do, the A of two dots; v, the A of one and the
  // transposed B of another; h and dh), and no dot stages it again.
  struct SourceRead {
    const ir::Value* source = nullptr;  // what is staged (a staged trans' source)
    SharedTile tile;
    bool transposed = false;  // the source's (r, c) at the tile's (c, r)
  };
  // How `dot` stages its operand `index` when that is a wgmma 16-bit operand staged from a
  // flat block in registers; nullopt otherwise.
  std::optional<SourceRead> source_read(const ir::Op& dot, int index) const;
  // After `op` is emitted: its results staged at their definition where they qualify.
  void stage_at_definition(const ir::Op& op);
  // Gives back the freed tiles of `region` at an op boundary (all of them at its end).
  void release_operand_tiles(const ir::Region& region, bool at_end);
  // OutOfResources, located, when `what` (e.g. "staging this dot's operands") needs more
  // shared memory than a block of the target architecture may have.
  void check_shared_fits(int64_t bytes, const ir::Op& op, const std::string& what);
  llvm::Value* lane_id();
  llvm::Value* warp_id();
  // A block in the flat layout written to shared memory as `tile` (padded rows, or wgmma's
  // swizzle) / read from rows of `stride` elements of `stored` (from `byte_offset`);
  // stage_rows returns the bytes it covers.
  // `transposed`: element (row, col) of the value goes to (col, row) of the tile (a tf32 B
  // held K-major for wgmma), one element a store.
  int64_t stage_rows(const ir::Type* type, const Regs& source, int64_t byte_offset, const SharedTile& tile,
                     llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert,
                     bool transposed = false);
  // The byte offset of element (row, col) in `tile` (shared_tile.h), on registers.
  llvm::Value* tile_offset(const SharedTile& tile, llvm::Value* row, llvm::Value* col);
  // `type`'s registers read back from `tile` (padded or swizzled); threads that do not own a
  // register get `fill` (poison when null).
  Regs load_flat_rows(const ir::Type* type, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                      llvm::Value* fill = nullptr);
  // Element (row, col) of `tile` at `byte_offset` (where round trips start), as a pointer to
  // `stored` (padded) or to its first byte (swizzled).
  llvm::Value* tile_element(int64_t byte_offset, const SharedTile& tile, llvm::Type* stored, llvm::Value* row,
                            llvm::Value* col);
  // The same for fragments; fragment_base is this thread's index of its register 0.
  llvm::Value* fragment_base(const FragmentLayout& l, int64_t stride);
  // This thread's row and column in its warp's first 16x8 tile (register 0): wm * 16 +
  // lane / 4 and wn * 8 + 2 * (lane % 4), with wm, wn the warp's place in the warp grid.
  llvm::Value* fragment_thread_row(const FragmentLayout& l);
  llvm::Value* fragment_thread_col(const FragmentLayout& l);
  // Registers to the rows of a row-major tile of `stride` elements a row: a pair of columns
  // a store; 16-bit elements on sm_90 by stmatrix (stmatrix_fragment_rows).
  void store_fragment_rows(const FragmentLayout& l, const Regs& regs, int64_t byte_offset, int64_t stride,
                           llvm::Type* stored);
  // stmatrix.sync.aligned.m8n8.x4 (x2 for an odd last tile): each 16 x 8 tile's register pairs
  // are two 8 x 8 matrices in ldmatrix's fragment layout, so one instruction writes four of
  // them, each row a 16-byte store (a quarter of the pair stores). False (nothing emitted)
  // where it does not apply: not sm_90, not 16-bit, rows not 16-byte aligned, or off (opt-in:
  // TRITIUM_REDUCE_EXPERIMENT=stmatrix until timed; codegen.h).
  bool stmatrix_fragment_rows(const FragmentLayout& l, const Regs& regs, int64_t byte_offset, int64_t stride,
                              llvm::Type* stored);
  Regs load_fragment_rows(const FragmentLayout& l, int64_t byte_offset, int64_t stride, llvm::Type* stored,
                          llvm::Type* element);
  llvm::Value* shared_address(int64_t byte_offset);  // i32 .shared address, for inline PTX
  // ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16 at `address` (this lane's row).
  std::vector<llvm::Value*> ldmatrix(llvm::Value* address, int count, bool trans);
  // mma.sync.aligned.<shape_and_types> on registers a, b and the four accumulators at c
  // (f32, i32, or f16: then two to a .f16x2 register, as the instruction takes them).
  void mma(const std::string& shape_and_types, const std::vector<llvm::Value*>& a, const std::vector<llvm::Value*>& b,
           llvm::Value** c);
  // 16-bit floats (f16 or bf16) two to an i32 (.f16x2 / .bf16x2: the first in the low half),
  // and f16 back.
  std::vector<llvm::Value*> pack_pairs(const std::vector<llvm::Value*>& halves);
  std::vector<llvm::Value*> unpack_half_pairs(const std::vector<llvm::Value*>& words);

  // ---- emit_fragment_rows.cpp: row reductions, views and broadcasts on fragments ----
  void emit_fragment_reduce(const ir::Op& op, const FragmentLayout& rows);
  void emit_fragment_view(const ir::Op& op);
  void emit_fragment_broadcast(const ir::Op& op, const FragmentLayout& l);
  llvm::Value* fragment_element(const FragmentLayout& l, int reg);  // i32 FragmentLayout::element
  // The coordinates of register `reg` in a value of `shape` held in `l` (empty when the
  // shape is not one fragment_coords knows: then fragment_element's flat index serves).
  std::vector<llvm::Value*> fragment_coords(const FragmentLayout& l, int reg, const std::vector<int64_t>& shape);
  // A flat `value` whose elements follow from their index (recomputable), computed at each
  // register of `l` into `out`; false when it is not such a value.
  bool fragment_from_index(const ir::Value* value, const FragmentLayout& l, Regs& out);
  Regs rows_to_flat(const ir::Value* value, const FragmentLayout& l, const Regs& rows);
  Regs flat_to_rows(const ir::Value* value, const FragmentLayout& l, const Regs& flat);
  // The line (a row [1, n] or a column [m, 1], flat) that `broadcast` spreads over the
  // fragment `l` (fragment_layout.cpp's line_broadcast), at the columns or rows each thread
  // holds: computed there again, its loads with them, where line_reloaded allows; else
  // written once to shared memory and read back there.
  Regs line_to_fragment(const ir::Op& broadcast, const FragmentLayout& l);
  // The line of `broadcast` (line_reloaded) at the columns or rows each thread holds in `l`,
  // computed here, its loads loaded again: made right after the line's definition.
  Regs reload_line(const ir::Op& broadcast, const FragmentLayout& l);
  // The values recompute_at computes in the memo of `line` at a position (the line's own
  // index space: through elementwise ops, loads, expand_dims and layout conversions; not
  // past a broadcast, trans or reshape), each with the axis along which its index is the
  // line's.
  std::unordered_map<const ir::Value*, int> line_index_space(const ir::Value* line);
  // The registers of every broadcast of `line` that FragmentPlan::reloaded_broadcasts
  // reloads (reload_line), one set per layout and pairing: after `line`'s definition, or
  // after the op FragmentPlan::reloaded_early names.
  void reload_broadcasts(const ir::Value* line);
  // The A operand of k-step k0, band im, from A's fragments (a_in_registers): m16n8
  // accumulators of n-tiles 2j and 2j + 1 are the A fragment of k-step j, two f16/bf16 per
  // .b32 (mma.sync m16n8k16 and wgmma alike); fp32 (tf32, k8 steps): n-tile j's c0, c2, c1,
  // c3, the fragment's K in SharedTile::evens_first order (k_evens_first). And wgmma with A so.
  std::vector<llvm::Value*> a_fragment(const ir::Value* a, int64_t k0, int im);
  void emit_wgmma_registers_a(const ir::Op& op, const FragmentLayout& l, const DotStaging& staging,
                              const std::string& input, std::vector<llvm::Value*>& c);
  // A dot operand written to its shared tile: from its fragments when it has them (P of
  // attention: no round trip through the flat layout), else stage_rows.
  void stage_operand(const ir::Value* value, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                     const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed = false);
  // stage_operand's fragments (`l`, 16-bit `stored`) written to `tile` (padded or swizzled,
  // not transposed nor evens_first) by stmatrix.sync.aligned.m8n8.x4 on sm_90: two 16 x 8
  // tiles of the warp an instruction, each lane the address of one 8-element (16-byte) row
  // of one of its four 8 x 8 matrices, which stays contiguous under wgmma's swizzle (it
  // permutes 16-byte chunks). A quarter of the pair stores, as Triton stages a dot result
  // that is the operand of the next dot (fla's state h). False (nothing emitted) where it
  // does not apply or with experiment "nostsmstage" (stsm_stage_).
  bool stmatrix_stage(const FragmentLayout& l, const Regs& regs, int64_t byte_offset, const SharedTile& tile,
                      llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert);
  void stage_hoisted(const HoistedOperand& h);  // a loop-invariant wgmma A, before its loop
  // Whether `dot`, an mma.sync dot (f16/bf16, no batch) directly in `loop`'s body, reads a
  // loop-invariant flat A (Q of BLOCK_M 16 attention) whose fragments are loaded once before
  // the loop and held in registers through it (kHoistedAFragmentRegs a thread at most, and
  // with the loop's fragments within kHoistedAPressureBudget),
  // instead of staged and read by ldmatrix in every iteration (the default; "nohoista" stages
  // it in every iteration: vLLM's unified attention prefill 1.047 of Triton against 1.008).
  bool a_fragments_hoisted(const ir::Op& dot, const ir::Op& loop) const;
  // Before `loop` (emit_for): each such dot's A staged once, its fragments loaded.
  void hoist_a_fragments(const ir::Op& loop);

  // ---- emit_wgmma.cpp: Hopper's warpgroup MMA on operands in swizzled shared memory ----
  void emit_wgmma(const ir::Op& op, const FragmentLayout& l, const DotStaging& staging, const std::string& input,
                  std::vector<llvm::Value*>& c);
  // wgmma.wait_group `pending`, the accumulators `c` passed through it.
  void wgmma_wait(int pending, std::vector<llvm::Value*>& c);
  // One wgmma.mma_async as inline asm: `constraints` and `types`/`args` name the outputs
  // (the accumulators, $0 .. count-1) and then the other inputs; the accumulators
  // acc[first .. first+count) are appended as inputs tied to the outputs and replaced by them.
  void wgmma_call(const std::string& text, std::string constraints, std::vector<llvm::Type*> types,
                  std::vector<llvm::Value*> args, std::vector<llvm::Value*>& acc, int first, int count);
  // The wait that ends dot `op`'s wgmmas (emit_wgmma.cpp): 1 for a dot kept in flight, else
  // 0, which also hands over the registers of a dot in flight since the previous iteration
  // (AsyncPlan::in_flight_waits).
  // `in_place`: the dot staged nothing (DotStaging::in_place), so it may leave its wait to
  // the next dot (leaves_wait_to_next_dot).
  void wgmma_dot_wait(const ir::Op& op, std::vector<llvm::Value*>& d, bool in_place = false);
  // Waits left to the next dot (experiment "dotchain", the default): a wgmma dot followed by
  // another wgmma dot leaves its wait to that one, which issues while it is in flight and
  // whose wait ends both: either the next dot accumulates onto it (the hardware orders
  // wgmmas of one shape on the same registers: fla's state chunks `dot(w1, h1) + dot(w2,
  // h2)`), or it does not read it and its readers come later (`h1 += dot(k1, v)` then
  // `h2 += dot(k2, v)`: the accumulators pass through the later wait). The dot must have
  // staged nothing (`in_place`), be read in fragments only, and stay out of the loop plans'
  // in-flight dots (AsyncPlan). Returns the next dot, or null.
  const ir::Op* leaves_wait_to_next_dot(const ir::Op& dot, bool in_place) const;
  // Whether dot `op` (fragments `l`) issues with unwaited_ in flight: the dot they left their
  // waits to, on wgmma, staging nothing and issuing no copies first, reading none of them
  // but as its accumulator.
  bool takes_unwaited(const ir::Op& op, const FragmentLayout& l);
  // A wait_group 0 with accumulators `d` and those of the unwaited results `also` passed
  // through it (their fragments updated), and their operand tiles ended.
  void wait_with_unwaited(std::vector<llvm::Value*>& d, const std::vector<const ir::Value*>& also);
  // The waits left to the next op (unwaited_) where that op does not take them over.
  void wait_unwaited_dot();
  // Marks the operand tile `dot` reads last as done (given back after the next barrier).
  void end_operand_tile(const ir::Op& dot);
  // end_operand_tile for the dots whose waits were left to a dot that has now waited.
  void end_unwaited_tiles();
  // Whether the loop of `dot` issues its copies after its last dot (AsyncPlan::copies_after_dots).
  bool copies_after_loop_dot(const ir::Op& dot) const;
  // The 64-bit matrix descriptor of the sub-tile of `tile` at (row, col), `tile` at `address`.
  llvm::Value* wgmma_descriptor(llvm::Value* address, const SharedTile& tile, int64_t row, int64_t col, bool k_major);
  // B's descriptor at k-step k0, columns n0: N-major, or K-major when staged transposed.
  llvm::Value* b_descriptor(const DotStaging& staging, int64_t k0, int64_t n0);

  // ---- emit_async.cpp: dot operands copied into stage buffers with cp.async ----
  void emit_async_load(const ir::Op& op, const AsyncOperand& operand);
  void lockstep_operands(const ir::Region& body);
  // A read_back operand (async_copy.h) before `op`, its first use in the loop body: waits for
  // the iteration's copies and reads the thread's own elements back; the body argument then
  // holds them (its buffer's offset kept in read_back_offsets_).
  void read_back_before(const ir::Op& op);
  // A read-back operand at the fragment positions of `l` (FragmentPlan::reads_back): each
  // thread loads its pairs of adjacent columns from the iteration's stage buffer, which every
  // thread's copies filled: after a dot of the body that waited for the iteration's batch and
  // met a barrier (copies_ready_), else after that wait and a barrier of its own. Once per
  // iteration (read_back_fragments_).
  Regs read_back_fragment(const ir::Value* value, const FragmentLayout& l, const AsyncOperand& operand);
  // A read-back operand held transposed (its runs down the columns, dealt out over the
  // threads) read in its flat layout from the buffer at `handle`, an element a load.
  Regs read_back_transposed(const ir::Value* v, const AsyncOperand& operand, llvm::Value* handle);
  // Before a thread reads what other threads copied for a read-back operand: the iteration's
  // wait and a barrier, unless a dot or read-back before met them (copies_ready_), which then
  // holds every read-back operand of the loop.
  void wait_for_read_backs(const AsyncOperand& operand);
  // Element `index` (i32) of a copied line (AsyncOperand::line) held by body argument `v`,
  // read from the iteration's stage buffer, which other threads' copies filled: after the
  // iteration's wait and a barrier (wait_for_read_backs).
  llvm::Value* read_line_at(const ir::Value* v, llvm::Value* index);
  // Whether `use` of a read-back operand reads it at its fragments (read_back_fragment).
  bool reads_back_fragments(const ir::Use& use) const;
  // The current buffer's offset of a copied operand of the loop being emitted.
  llvm::Value* current_buffer(const AsyncOperand& operand);
  void issue_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle);
  void issue_transposed_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle);
  // A K-major operand's load made in its slot (gpu/coalesce.h): each thread its own runs.
  void issue_slot_runs(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle);
  // A tf32 A whose columns run along memory (M-major), for wgmma: 4-byte copies dealt out
  // along M (consecutive threads, consecutive addresses), each to its place in the K-major
  // tile, addresses computed from the element index.
  void issue_column_element_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle);
  // A tf32 B whose rows run along memory (N contiguous), for wgmma's K-major tile: 4-byte
  // copies dealt out so that a warp's copies are 4 rows of 8 consecutive elements (whole
  // 32-byte sectors) landing in 32 distinct banks, each thread's at one of a few per-thread
  // bases plus constants; false where the block's sides are not powers of two or too small
  // (the load's own layout copies it then).
  bool issue_row_element_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle);
  // TMA copies (async_copy.h): the stage mbarriers armed once per loop entry, a stage's bulk
  // tensor copies into `handle` completing on mbarrier `index`, a dot's wait for its stage.
  void init_tma_barriers(const AsyncOperand& operand);
  void invalidate_tma_barriers(const AsyncOperand& operand);
  void issue_tma_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle, llvm::Value* index);
  void emit_tma_store(const ir::Op& op, const AsyncPlan::TmaBlock& store);
  void emit_tma_load(const ir::Op& op, const AsyncPlan::TmaBlock& load);
  // Thread 0's bulk tensor copies of `block`'s column blocks (the descriptor_tile's offsets as
  // coordinates): `before`, then `copy` once per column block ({dst}: its shared address,
  // {col}: its first column; $1 the map, $2 the row, $3 `bar`), then `after`, all under p.
  void issue_tma_block(const ir::Op& op, const AsyncPlan::TmaBlock& block, const std::string& before,
                       const std::string& copy, const std::string& after, llvm::Value* bar);
  void wait_tma(const AsyncOperand& operand);
  llvm::Value* tma_live(const ir::Op& load);
  // The addresses of a cold copy whose groups the facts leave unproven
  // (gpu::computes_cold_addresses): `ptr` recomputed at each register's element where the
  // copy is issued, so that no per-element pointer lives across the loop.
  Regs cold_addresses(const ir::Value* ptr, const Layout& layout);
  // One cp.async of `bytes` (4, 8 or 16) from `address` to shared byte offset `dst`, zero-filled
  // where `bit` (if any) is false.
  void cp_async(llvm::Value* dst, llvm::Value* address, int bytes, llvm::Value* bit);
  void issue_deferred_copies();  // the next iteration's copies, once the buffer is free
  llvm::Value* raw_shared(llvm::Value* byte_offset);          // from the very start, stage buffers included
  llvm::Value* raw_shared_address(llvm::Value* byte_offset);  // the same as an i32 .shared address
  void ptx_effect(const std::string& text, const std::string& constraints, const std::vector<llvm::Value*>& args);
  // One stmatrix.sync.aligned.m8n8 of `words` (2: .x2, 4: .x4; each a .b32 of two 16-bit
  // elements) to the i32 .shared `address` of this lane's row.
  void stmatrix(llvm::Value* address, const std::vector<llvm::Value*>& words);

  // ---- emit_memory.cpp: addptr, loads, stores, atomics ----
  llvm::Value* addptr(const ir::Op& op, llvm::Value* ptr, llvm::Value* offset);
  void emit_load(const ir::Op& op);
  void emit_store(const ir::Op& op);
  void emit_atomic(const ir::Op& op);
  // A read-modify-write where `pred` holds (null: always), 0 elsewhere: its atom
  // instructions carry the predicate (`@p atom`, as Triton's), not a branch around them, so
  // no conditional block splits the code around it (a loop body stays one block, and LLVM
  // sinks nothing past it); a rule that loops on a compare-and-swap branches around its loop.
  llvm::Value* atomic_rmw(const ir::Op& op, ir::ScalarKind kind, llvm::Value* ptr, llvm::Value* value,
                          llvm::Value* pred);
  llvm::Value* atomic_cas(const ir::Op& op, ir::ScalarKind kind, llvm::Value* ptr, llvm::Value* compare,
                          llvm::Value* value);
  // Loads the axis facts left scalar: the widest group a run-time test may make one vector
  // load (1: none), and that group's registers loaded with the test.
  int runtime_vector_width(const ir::Type* type, const Layout& layout, llvm::Type* stored) const;
  // i1: registers first .. first + g - 1 of `ptr` are consecutive elements of `bytes` each,
  // aligned to the group, under one mask bit (`mask` may be null).
  llvm::Value* group_is_vector(const Regs& ptr, const Regs* mask, int first, int g, int64_t bytes);
  std::vector<llvm::Value*> load_checked_group(const ir::Op& op, const Regs& ptr, const Regs* mask,
                                               const Regs* other, const Layout& layout, int first, int g,
                                               llvm::Type* stored, llvm::Align align);
  // One global load of `type` (an element or a vector of them) at `ptr` where `pred` holds
  // (null: always), `fallback` elsewhere; a store of `value`. Under a predicate, or with the
  // op's cache modifier or eviction policy, it is one inline PTX instruction (ptx_load /
  // ptx_store) rather than a branch around the access; volatile=True stays volatile.
  llvm::Value* global_load(const ir::Op& op, llvm::Type* type, llvm::Value* ptr, llvm::Value* pred,
                           llvm::Value* fallback, llvm::Align align);
  void global_store(const ir::Op& op, llvm::Value* ptr, llvm::Value* pred, llvm::Value* value, llvm::Align align);
  // `@p ld.global{.cop|.L1::evict_*}{.vN}.bW {...}, [ptr];` with `fallback` moved into the
  // destinations first, and `@p st.global...`; null / false when PTX words cannot carry
  // `type` (a single byte, pointers): the caller branches then.
  llvm::Value* ptx_load(const ir::Op& op, llvm::Type* type, llvm::Value* ptr, llvm::Value* pred, llvm::Value* fallback);
  bool ptx_store(const ir::Op& op, llvm::Value* ptr, llvm::Value* pred, llvm::Value* value);
  // Stores of `values` to shared memory at `ptrs` where `pred` holds (null: always): one
  // `@p st.shared` each (inline PTX), not a branch around plain stores, so LLVM has no
  // conditional block to sink the values' computation into (InstCombine, MachineSink), which
  // would keep their operands live across everything before it (two or more registers per
  // stored value instead of one). A value that PTX words cannot carry (a byte) is stored in
  // a branch as before.
  void shared_stores_if(llvm::Value* pred, const std::vector<llvm::Value*>& ptrs, const std::vector<llvm::Value*>& values);
  // The vector of `w` registers from `first` of `regs`, each in its memory form (i1 as i8).
  llvm::Value* pack(const Regs& regs, int first, int w);
  // The address of the register group starting at `r` of the flat pointer block `ptr_value`
  // (registers `ptr`): where the coordinates of register r differ from register 0's by one
  // constant shift in every thread (a full layout) and shift_delta proves the pointer moves
  // by a constant there, register 0's pointer plus those bytes (`[base + imm]` in the PTX:
  // one 64-bit base an access, not one a group; flat_base_), else ptr.at(r).
  llvm::Value* flat_address(const ir::Value* ptr_value, const Regs& ptr, const Layout& layout, int r);
  // One global load of `w` (> 1) elements of `stored` at register r's address (`other`'s
  // registers r.. where `pred` is false, else 0), appended to `out` as `element`s.
  void load_vector(const ir::Op& op, llvm::Type* stored, llvm::Type* element, llvm::Value* address, llvm::Value* pred,
                   const Regs* other, int r, int w, llvm::Align align, Regs& out);
  llvm::Value* atom_asm(const std::string& op_and_type, llvm::Type* type, const std::string& constraint,
                        const std::vector<llvm::Value*>& args, const ir::Op& op, llvm::Value* pred = nullptr);

  // ---- emit_convert.cpp: convert_layout, and accesses held in their slot's layout ----
  // (gpu/conversion.h: loads and conversions whose slot is not the flat rule keep their
  // registers in the slot's layout; gpu/coalesce.h makes them.)
  void emit_convert_layout(const ir::Op& op);
  // A conversion out of a slot whose every reader is a dot staging it (gpu/coalesce.h's
  // loads that feed only dots): none is emitted, the dot stages from the slot (stage_slot).
  bool staged_by_dots(const ir::Op& convert) const;
  // A 2-D dot operand staged from a slot (stage_slot) whose consecutive registers run down
  // its columns (along M of A, K of B: the load contiguous there): staged transposed where
  // the instruction reads that arrangement (stage_dot_operands), each run one vector store.
  bool slot_runs_down(const ir::Value* operand) const;
  void stage_slot(const ir::Value* value, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                  const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed = false);
  // stage_slot's stores of `source`'s registers `regs`, in the layout it is held in (a slot,
  // or the flat one): each a per-thread base plus a constant where the layout allows.
  void stage_held(const ir::Value* source, const Regs& regs, int64_t byte_offset, const SharedTile& tile,
                  llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed);
  void emit_slot_load(const ir::Op& op);
  void emit_slot_store(const ir::Op& op);
  // i32: the part of the flat element index of `l`'s registers this thread's lane and warp
  // bits give; register `reg` holds element slot_thread_part ^ l.apply(reg, 0, 0).
  llvm::Value* slot_thread_part(const ir::LinearLayout& l);
  // The registers of a load or store operand in the access's layout `l` (a uniform value
  // as it is); an internal error when the passes left it in another layout.
  const Regs& slot_operand(const ir::Op& op, const ir::Value* value, const ir::LinearLayout& l);
  // Consecutive registers of `layout` that hold consecutive elements of its first order dim.
  static int slot_vector(const ir::Layout* layout);

  // ---- emit_control.cpp: for, if, while with carried values as phis ----
  void emit_for(const ir::Op& op);
  void emit_if(const ir::Op& op);
  void emit_while(const ir::Op& op);
  // A scalar that decides control flow around a barrier, made uniform when it may diverge.
  llvm::Value* decision(const ir::Op& op, const ir::Value* value);

  // ---- emit_debug.cpp: print, assert, debug_barrier ----
  void emit_print(const ir::Op& op);
  void emit_assert(const ir::Op& op);
  std::vector<llvm::Value*> program_ids();  // %ctaid.x, .y, .z
  // vprintf(format, buffer holding `args` at their natural alignments).
  void call_vprintf(const std::string& format, const std::vector<llvm::Value*>& args);

  const ir::Function& function_;
  llvm::Function* kernel_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> b_;
  int threads_;
  ThreadFacts facts_;
  VectorWidths widths_;
  FragmentPlan frags_;
  AsyncPlan async_;
  // Control-flow ops whose regions may convert fragments through shared memory (barriers
  // that uniformity.h's op_syncs cannot see): their decisions are made uniform too.
  std::unordered_set<const ir::Op*> fragment_barriers_;
  int sm_ = 90;       // the target (fp8 conversions use cvt from sm_90)
  int ptx_version_ = 80;  // the PTX ISA emitted (codegen.h's ptx_version_for), 80 = 8.0
  int num_ctas_ = 1;  // CTAs per cluster: > 1 maps programs to clusters (emit_program_id)
  bool fused_handover_ = false;  // experiment ksplitwhole: cluster_sum reads all, then adds
  bool split_k_ = false;  // a loop split over the cluster (gpu/split_k_cluster.h): both CTAs work
  bool wgmma_ = false;  // some dot runs on wgmma: shared memory starts 1024-byte aligned
  // TargetOptions::reduce_experiment, parsed (codegen.h lists the names).
  bool reduce_chain_ = true;    // in-thread reductions left to right (nochain: a tree)
  bool scan_shfl_up_ = true;    // scan levels across lanes by shfl.up (noscanup: butterflies)
  bool loop_iv32_ = true;       // loops over a 32-bit range count in 32 bits
  bool cp_async_fence_ = true;  // a proxy fence before wgmma reads what cp.async wrote (nofence: none)
  bool stmatrix_ = false;       // 16-bit fragments to their rows by stmatrix (experiment "stmatrix")
  bool pair_cvt_ = true;         // f32 -> 16-bit casts of fragments a pair a cvt (experiment "nopaircvt")
  bool pair_pad_ = true;         // round trips of 4-byte fragments padded to spread banks (experiment "nopairpad")
  bool stsm_stage_ = true;      // dot operands staged from fragments by stmatrix (experiment "nostsmstage": pair stores)
  bool reload_lines_ = true;    // line_reloaded's lines loaded at their fragments (experiment "noreload": not)
  bool hoist_a_fragments_ = true;  // a_fragments_hoisted (the default since session 33; experiment "nohoista")
  // 16-bit read-back operands held transposed read at their fragment positions by
  // ldmatrix.trans (experiment "ldmtrans", the default; noldmtrans: a load per element).
  bool ldmatrix_trans_reads_ = true;
  // 16-bit read-back operands in padded rows read at their fragment positions by ldmatrix.x4
  // on sm_90 (experiment "ldmread", the default; noldmread: a load per register pair).
  bool ldmatrix_reads_ = true;
  // Copies dealt out evenly (a recomputed K-major block, a column-element one): where one
  // axis's extent divides the thread count or is a multiple of it, a round's coordinates are
  // the first round's thread part plus constants (emit_async.cpp's dealt_coords), so that
  // rounds share their row compares and address bases (experiment "dealsplit", the default;
  // nodealsplit: each round divides its own index, as before session 36).
  bool deal_split_ = true;
  // Such a copy's address is its first round's (the thread's coordinates) plus a constant
  // where shift_delta proves one: the rounds share one base register, `[r + imm]` or one
  // 64-bit add each (experiment "copybase", the default; nocopybase: each round's address
  // computed at its own coordinates, as before session 36).
  bool copy_base_ = true;
  // shift_delta also passes a constant delta through a widening cast or a narrower addptr
  // offset whose value ranges leave the sum no room to wrap (shift_cannot_wrap), not only
  // from a range directly; and a line reloaded at its fragments (reload_line) addresses
  // each of its positions as the first one's plus that constant: one 64-bit base a line,
  // its other loads `[r + imm]` (experiment "shiftwrap", the default; noshiftwrap: each
  // position's address computed at its own index).
  bool shift_wrap_ = true;
  // A flat-layout global load or store addresses each register group as the first group's
  // pointer plus the constant shift_delta proves (flat_address; experiment "flatbase", the
  // default; noflatbase: each group through its own pointer register, as before session 39).
  // fla's dqkwg: its 24 epilogue stores' 64-bit addresses were held across the dots.
  bool flat_base_ = true;
  // shifted_mask's comparisons against per-round bounds (experiment "rowbound", the
  // default; norowbound: each round's mask computed at its own coordinates, and none of
  // rowboundrc / rowboundew).
  bool row_bound_ = true;
  // Also where recompute_at makes a comparison (a mask at fragment positions, a broadcast's
  // recomputed source: fla's gla v; experiment "rowboundrc", the default; norowboundrc: not).
  bool row_bound_recomputed_ = true;
  // And where a block comparison is made in its registers (emit_elementwise; experiment
  // "rowboundew", opt-in: no gain seen in the corpus).
  bool row_bound_elementwise_ = false;
  std::unique_ptr<analysis::ValueRangeAnalysis> value_ranges_;  // value_ranges(), built once
  std::unique_ptr<analysis::AxisInfoAnalysis> axis_info_;       // axis_info(), built once
  // A reloaded line's positions that the axis facts put in one aligned run of equal values
  // for every thread (columns c and c + 8, rows r and r + 8, with a bound divisible by 16)
  // share such values, its masks' comparisons among them (reload_line; experiment
  // "pairmask", the default; nopairmask: each position compares for itself).
  bool pair_mask_ = true;
  // Slot loads whose registers share a page load once (emit_slot_load), with coalesce's
  // lines_in_slot (experiment "lineslot", the default; nolineslot: neither).
  bool line_slot_ = true;
  // A B several dots read kept in an operand tile also where the dot stages its A (the B
  // first, A after it) and where it is held K-major on wgmma (experiment "keepb", the
  // default; nokeepb: only a row-major B of dots whose A is not staged, as before).
  bool keep_b_widely_ = true;
  bool stage_at_def_ = true;  // stage_at_definition (experiment "nodeftile")
  bool lazy_trailing_ = true;  // end_round_trip (experiment "lazybar", the default; nolazybar: at once)
  bool lazy_copies_ = true;    // also an elementwise op's flat copy made at once (set_fragment; "nolazycopy": not)
  bool trailing_ = false;      // a round trip's ending barrier is pending (end_round_trip)
  bool lazy_round_trips_ = false;  // end_round_trip may leave it pending (emit_op)
  // invariant_fragment_copy (experiment "narrowcopy", opt-in: mamba's dB 64 x 128 at 4 warps
  // went 250 -> 255 registers with it, 16 fewer 16-byte shared stores once a block).
  bool narrow_invariant_copies_ = false;
  bool early_invariant_copies_ = true;  // emission_order (experiment "earlyinv"; noearlyinv: in the IR's order)
  // Experiment "accloadlate" (opt-in): a fragment load (FragmentPlan::loads_fragment) that a
  // loop takes as its initial value is made where the loop begins, after its prologue copies.
  bool late_fragment_loads_ = false;
  std::vector<const ir::Op*> late_fragment_loads_pending_;
  // Waits left to the next dot (experiment "dotchain", the default; nodotchain: every wgmma
  // dot waits for itself), and the result of the dot whose wait is left so now, if any.
  bool chain_dot_waits_ = true;
  std::vector<const ir::Value*> unwaited_;
  const ir::Op* unwaited_taker_ = nullptr;  // the dot they were left to
  std::vector<const ir::Op*> tiles_ending_unwaited_;  // their operand tiles end at that wait
  // The A fragments a_fragments_hoisted loaded before the loop, by dot: [k0 / 16][im].
  std::unordered_map<const ir::Op*, std::vector<std::vector<std::vector<llvm::Value*>>>> hoisted_a_fragments_;
  std::unordered_map<const ir::Value*, Regs> values_;     // the flat layout (layout.h)
  std::unordered_map<const ir::Value*, Regs> fragments_;  // values the plan puts in fragments
  // The fragment copies of flat blocks that loops read in fragments (FragmentPlan::invariant_copy).
  std::unordered_map<const ir::Value*, Regs> invariant_fragments_;
  // The lines computed at the fragments of their broadcasts (reload_line), by broadcast.
  std::unordered_map<const ir::Op*, Regs> reloaded_lines_;
  // Fragment values whose flat copy is made at the start of an op (flat_copy_point).
  std::unordered_map<const ir::Op*, std::vector<const ir::Value*>> flat_copies_at_;
  struct DeferredCopy {
    const ir::Op* op;
    const AsyncOperand* operand;
    llvm::Value* handle;
  };
  std::vector<DeferredCopy> deferred_copies_;  // emit_async.cpp
  // A loop's copied operands whose stage buffers turn in lockstep with an earlier one's
  // (emit_async.cpp, lockstep_operands): that operand and the constant byte distance.
  std::unordered_map<const AsyncOperand*, std::pair<const AsyncOperand*, int64_t>> lockstep_;
  // Body arguments (a copied operand's current buffer) whose copies an earlier dot of the
  // same loop body has waited for, fenced and met at its barrier (stage_dot_operands).
  std::unordered_set<const ir::Value*> copies_ready_;
  // The buffer offsets of read_back operands whose body argument now holds registers.
  std::unordered_map<const ir::Value*, llvm::Value*> read_back_offsets_;
  // Read-back operands read at their fragment positions, and the layout they were read in.
  std::unordered_map<const ir::Value*, std::pair<FragmentLayout, Regs>> read_back_fragments_;
  // The iteration count (i32, from 0) of each loop body with TMA copies (emit_for).
  std::unordered_map<const ir::Region*, llvm::Value*> trips_;
  llvm::Value* thread_id_ = nullptr;
  llvm::Value* warp_id_ = nullptr;  // warp_id(): tid / 32 through shfl.sync, next to thread_id_
  llvm::GlobalVariable* shared_ = nullptr;
  int64_t shared_bytes_ = 0;  // the most shared memory any use reached, from its start
  // Whether a planned op's shared-memory accesses may be pending (no barrier since).
  bool dirty_ = false;
  std::vector<OperandTile> operand_tiles_;  // the live operand tiles, in staging order
  // The shared memory operand tiles may bring the kernel to: as much as leaves the blocks an
  // SM holds (by shared memory) what shared_lower_bound of the body gives.
  int64_t tile_budget_ = 0;
  const ir::Region* emitting_region_ = nullptr;  // the region whose ops are being emitted
  std::unordered_map<const ir::Op*, bool> entry_dirty_;    // dirty_ where an if/for/while began
  // The `for` bodies being emitted that hold planned ops (emit_for): each is emitted as if it
  // began with nothing pending; `synced` once a barrier of its own region came, `needed` when
  // a sync_if_dirty came before that (then the loop makes the assumption hold).
  struct CleanEntry {
    const ir::Region* body = nullptr;
    bool synced = false, needed = false;
  };
  std::vector<CleanEntry> clean_entries_;
  std::unordered_map<const ir::Op*, bool> holds_scratch_;  // memo of holds_scratch
  // The live stage buffers of copied operands (from their first copy, emit_async.cpp, to
  // their loop's exit) and the live hoisted operands' buffers (emit_for), each with the end
  // of its bytes: round trips start after the last of them (round_trip_start).
  std::unordered_map<const AsyncOperand*, int64_t> live_stage_ends_;
  std::unordered_map<const HoistedOperand*, int64_t> live_hoisted_ends_;
  // cp.async groups committed so far in the innermost loop body on every path (a branch's
  // own are forgotten after it): a dot's wait leaves them in flight too (emit_dot.cpp).
  int body_commits_ = 0;
  // The last inline-asm call of each asm text (+ constraints and result types) on each list
  // of arguments, made by a call's first output: its other outputs take their fields of
  // that call instead of running the asm again (emit_extern.cpp).
  std::map<std::pair<std::string, std::vector<llvm::Value*>>, llvm::Value*> asm_calls_;
  // The call of an inline asm with several outputs, made once (asm_calls_): `output` 0 makes
  // it, a later output in the same block reuses it (emit_extern.cpp).
  llvm::Value* asm_call(const std::string& key_text, llvm::InlineAsm* code, const std::vector<llvm::Value*>& args,
                        int output);
};

}  // namespace tritium::nvptx

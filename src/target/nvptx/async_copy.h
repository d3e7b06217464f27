// Dot operands copied from global to shared memory with cp.async, two stages (Triton's
// software pipelining with num_stages >= 2, for the mma.sync and wgmma paths). No LLVM here.
//
// The shape it takes: transforms/prefetch_loads has made a dot's operand a loop-carried
// value, loaded once before the loop and once per iteration (for the next one) before the
// dot, `distance` = num_stages - 1 iterations ahead. Such a load writes its block straight
// into one of num_stages stage buffers at the start of shared memory (every other round
// trip starts after them) and its value is that buffer's byte offset; the loop carries the
// offsets. The dot waits for its own buffer's copies (cp.async.wait_group with the later
// iterations' groups left in flight), meets the other threads at one barrier (after which
// nobody reads the buffer of the previous iteration any more), issues the copies of
// iteration i + distance into that buffer, and reads its operands in place while they fly:
// one barrier per iteration. The loop's exit drains the copies (the last iterations' are
// masked off but still zero-fill their buffers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"
#include "target/nvptx/fragment_layout.h"
#include "target/nvptx/shared_tile.h"

namespace tritium::nvptx {

// Shared memory the pipelining plan gives its buffers (the H200 allows 227 KiB per CTA; the
// kernel's need is checked again at launch against the device's limit).
inline constexpr int64_t kMaxSharedBytes = 200 * 1024;

// The shared memory a block may opt in to on architecture `sm` (bytes): what no single use
// may exceed (Emitter::check_shared_fits); the device's own limit is checked at load.
int64_t max_shared_optin(int sm);

// Thread blocks of `threads` threads one SM holds with `shared` bytes of shared memory each
// (228 KiB per SM, 1 KiB of it reserved per block) and `regs` registers per thread (64K per
// SM, allocated per warp in units of 256), at most 2048 threads.
int blocks_per_sm(int64_t shared, int threads, int regs);

// Elements of `type` in one 16-byte run (8 of f16/bf16, 16 of fp8 and int8, 4 of fp32).
inline int64_t run_of_16_bytes(const ir::Type* type) {
  return 16 / std::max(1, ir::bit_width(type->element()->scalar_kind()) / 8);
}

struct AsyncOperand {
  // The body arguments that hold the buffers of the current iteration (the dot's operand)
  // and of the `distance - 1` iterations after it, which the loop shifts down by one.
  std::vector<const ir::Value*> chain;
  const ir::Value* carried = nullptr;  // chain[0]
  int distance = 1;                    // iterations the copies run ahead (num_stages - 1)
  std::vector<int64_t> offset;         // distance + 1 stage buffers, bytes into shared memory
  SharedTile tile;                     // padded for mma.sync, swizzled for wgmma (shared_tile.h)
  // A wgmma operand whose columns run along memory (axis 0 contiguous): the tile holds it
  // transposed (tile rows are its columns) and the copies move 16-byte runs along axis 0.
  // For B that is K-major (Kᵀ in attention, a K-major B: wgmma's imm-trans-b 0), for an
  // f16/bf16 A M-major (`a.T @ b` with A stored K x M: imm-trans-a 1). On mma.sync the
  // operands of tf32 and int8 dots, which it reads element by element, either way (padded),
  // and f16/bf16 ones too (padded; ldmatrix reads them with .trans flipped, emit_dot.cpp).
  bool transposed = false;
  // A tf32 B on wgmma (K-major only) stored row-major: held transposed all the same, each
  // element copied alone (cp.async of 4 bytes) to its place in the K-major tile, as Triton's.
  bool by_element = false;
  // A load that reaches a dot through other ops of the body (gpu/prefetch_operands.h: a
  // dequantized weight, `b.to(tl.float16) * scale[None, :]`): the body uses it as registers.
  // Its tile is the block row-major and unpadded (rows: the elements over the last dimension); each thread copies the runs it holds (the load's own
  // layout) and, where the body first uses the value, waits for its iteration's copies and
  // reads the same runs back into registers (emit_async.cpp: read_back). No thread reads what
  // another copied (a block's layout has one owner per element) and a buffer is copied into
  // again only in the iteration after its reader's, so this needs no barrier of its own.
  // `dots` is empty.
  bool read_back = false;
  // A read-back line (a 1-D block: gpu/prefetch_operands.h's lines, mamba's `dA_cs_k`): each
  // element one cp.async of its own (4 to 16 bytes), where the load's layout holds it. Besides
  // each thread's own elements read back, a thread may read any element of it at any index
  // (Emitter::read_line_at: a line broadcast computed again where each thread needs it, as
  // Triton reads such a vector from its stage buffer in the slice of the layout that uses it),
  // after the iteration's wait and a barrier: never read_before_copies.
  bool line = false;
  // A read-back operand whose first use in the body comes before every op holding a dot (the
  // dots issue the next copies, after their barrier): its threads have read the current
  // buffer back before the copy of iteration i + distance is issued, which may then go into
  // it: `distance` buffers, not distance + 1.
  bool read_before_copies = false;
  // A read-back operand read at other threads' positions before the loop's dots (held
  // transposed: its wait and barrier come first, Emitter::wait_for_read_backs), in a loop
  // where that barrier also serves the dots (plan_async_copies' `merge_barriers`): every
  // read-back operand of the loop gets distance + 1 buffers (not read_before_copies), so
  // that the copies of iteration i + distance go into iteration i - 1's buffers, which every
  // thread is done with at this iteration's first barrier; the wait there fences the copies
  // for wgmma and holds for the dots' operands too, which then need no wait or barrier of
  // their own (fla's gla chunk_fwd_kernel_h: 3 barriers a chunk, as Triton's).
  bool readies_loop = false;
  std::vector<const ir::Op*> dots;  // the dots reading it
  // Commit groups the dot may leave in flight when it waits for its own: those of the
  // `distance - 1` iterations after it, one group per copied operand of the loop.
  int pending_groups = 0;
  // Groups its own iteration commits after it (the copied operands whose loads come later
  // in the loop body, as V after K in attention): also left in flight by a dot that reads
  // this operand only. 0 unless the loads before the loop commit in the body's order.
  int later_in_batch = 0;
  // The loop's dot (wgmma) stays in flight into the next iteration: there is one buffer
  // more than num_stages, and each iteration copies into the one the dot of two iterations
  // before read (the dot of the iteration before may still read its own) — unless
  // `copies_after_dot`: then num_stages buffers, and the dot issues the copies after its
  // wait for the previous iteration's dot and one more barrier (every warpgroup's done), into
  // the buffer that dot read. Chosen where the extra buffer would cost a thread block per SM.
  bool in_flight = false;
  bool copies_after_dot = false;
  // Copied by the TMA (sm_90; every load of the chain a 2-D host descriptor's block, ir's
  // descriptor_tile): one thread issues a stage's bulk tensor copies (one per column block of
  // the swizzled tile, tma_box) after arming the stage's mbarrier with the bytes to come, and
  // the dot waits on that mbarrier (parity: how many times the buffer was filled before, & 1)
  // instead of cp.async.wait_group. Loads masked off by prefetch_loads' scalar test (an
  // iteration that does not run) issue nothing; the descriptor's bounds are the TMA's own
  // (zero fill). All copied operands of a loop are TMA copies, or none.
  int tma_map = -1;      // which of AsyncPlan::tma_params holds its CUtensorMap
  int64_t barriers = 0;  // bytes into shared memory: one 8-byte mbarrier per stage buffer

  // The first byte after its stage buffers (and their mbarriers).
  int64_t end() const {
    return tma_map >= 0 ? barriers + 8 * static_cast<int64_t>(offset.size()) : offset.back() + tile.bytes();
  }
};

// A wgmma A operand defined outside the loop that reads it (Q in attention): written into
// its own buffer among the stage buffers once, before the loop, and read there by every
// iteration (instead of staged by the dot on each). Loops in sequence that read the same
// value (attention's two causal loops) share one buffer, written before the first of them
// and live until the last one's exit, so the value's registers die at the first write.
struct HoistedOperand {
  const ir::Op* loop = nullptr;       // written before this loop
  const ir::Value* value = nullptr;
  int64_t offset = 0;  // bytes into shared memory
  SharedTile tile;
  const ir::Op* last_loop = nullptr;  // released at this loop's exit (`loop` unless shared)
  // `tile` holds A M-major (K rows of M: a trans of fragments, its source's rows as they are;
  // fragment_layout.h's trans_a_m_major), read with wgmma's transpose bit for A.
  bool m_major = false;
};

struct AsyncPlan {
  int64_t reserved_bytes = 0;  // the stage buffers of every loop, before other uses
  std::vector<std::unique_ptr<AsyncOperand>> operands;
  // Loads that copy asynchronously, and the stage each fills: j >= 0 for iteration j's
  // copy before the loop, -1 for the copy inside the loop (into the buffer freed last).
  std::unordered_map<const ir::Value*, const AsyncOperand*> loads;
  std::unordered_map<const ir::Value*, int> stage;
  std::unordered_map<const ir::Value*, const AsyncOperand*> carried;  // body args holding an offset
  // K-major loads whose every thread computes the address and mask bit of any element from
  // its index (gpu::recomputable): the runs are dealt out evenly. The others' runs are
  // copied by the threads that hold their first element (a carried pointer block), or, for a
  // load made in its slot (gpu/coalesce.h: whole runs a thread), by each thread its own.
  std::unordered_set<const ir::Value*> recomputed;
  // A convert_layout of a copied load (a load made in its slot, loaded_value): its value is
  // the load's, the stage buffer's offset; it moves nothing and needs no buffer.
  bool passes_handle(const ir::Op& op) const;
  // The copied line (AsyncOperand::line) a loop body's argument `v` holds, or null.
  const AsyncOperand* copied_line(const ir::Value* v) const;
  // Whether `broadcast`, a broadcast outside the fragment plan, spreads a line computed from
  // copied lines (at least one; through views, conversions and pure elementwise ops, with
  // scalars, splats, constants and index-computable blocks): each thread computes the
  // elements it holds there, reading the lines from their stage buffers at those indices
  // (Emitter::read_line_at), with no round trip through shared memory of its own.
  bool reads_copied_lines(const ir::Op& broadcast) const;
  // fp8 dots on wgmma's own 8-bit inputs: in a loop, A copied as it is and B K-major (both in
  // stage buffers); outside, both staged by the dot (B transposed). Other fp8 dots (an
  // operand copied or hoisted otherwise) widen their operands to f16 while staging them.
  std::unordered_set<const ir::Op*> native_fp8;
  std::vector<std::unique_ptr<HoistedOperand>> hoisted;
  std::unordered_map<const ir::Op*, const HoistedOperand*> hoisted_a;  // by the dot reading it
  // The hoisted operands written before `loop`, and those released at its exit.
  std::vector<const HoistedOperand*> hoisted_before(const ir::Op& loop) const;
  std::vector<const HoistedOperand*> hoisted_released_at(const ir::Op& loop) const;
  // Dots that wait with wgmma.wait_group 1, leaving themselves in flight; the loop that
  // carries their result waits for it (wait_group 0) at its exit.
  std::unordered_set<const ir::Op*> in_flight_dots;
  // Those of them that issue their loop's copies after their wait (AsyncOperand::copies_after_dot).
  std::unordered_set<const ir::Op*> copies_after_dots;
  // A loop of several dots whose last one stays in flight (attention's P.V; only with
  // last_dot_in_flight): its first dot, which waits for it (wait_group 0), and the body
  // argument carrying that dot's accumulator, whose registers go through that wait
  // (emit_wgmma.cpp).
  std::unordered_map<const ir::Op*, const ir::Value*> in_flight_waits;
  // Whether a loop of several wgmma dots may keep its last one in flight: opt-in
  // (TargetOptions::inflight_copies "pv", "pv-before", "pv-after") until timed on a GPU.
  bool last_dot_in_flight = false;
  // The order forced by TargetOptions::inflight_copies ("before" or "after", without "pv-"),
  // or "".
  std::string inflight_copies;
  bool merge_barriers = true;  // plan_async_copies' `merge_barriers`
  bool read_back_fit = true;   // plan_async_copies' `read_back_fit`

  // The kernel parameters (indices into ir::Function::params(), the DescBase entry of a 2-D
  // host descriptor) whose CUtensorMap the TMA copies read: the code generator adds one
  // entry argument per element, in this order, after all others (ir::ArgPart::DescTensorMap).
  std::vector<int> tma_params;
  // The DescBase entry arguments of 2-D host descriptors, by parameter index (sm_90 only).
  std::unordered_map<const ir::Value*, int> descriptor_bases;
  // Loads and stores of a 2-D host descriptor's block moved by the TMA (sm_90) outside the
  // pipelined dots, through a swizzled tile where round trips start (the tensor map's
  // arrangement, tma_box). A store stages the block there, fences it for the async proxy,
  // and thread 0 issues one bulk tensor store per column block and waits for them; the
  // descriptor's bounds clip the writes as the mask did. A load (its mask the bounds alone,
  // its `other` zero) has thread 0 arm an mbarrier (8 bytes after the tile) and copy each
  // column block; every thread waits on it, then reads its registers from the tile.
  struct TmaBlock {
    int tma_map = -1;  // which of tma_params holds its CUtensorMap
    SharedTile tile;
  };
  std::unordered_map<const ir::Op*, TmaBlock> tma_stores, tma_loads;
};

// The load whose value `v` is, where gpu/coalesce.h made a pipelined operand's load in its
// slot and converted it back to the layout the loop carries (`v` that conversion, the load
// used by it alone): that load's value; else `v` itself. The chain's loads are looked up
// through it, and such a conversion passes the copy's handle on (AsyncPlan::passes_handle).
const ir::Value* loaded_value(const ir::Value* v);

// The descriptor_tile op under a load's pointer, or null.
const ir::Op* descriptor_tile_of(const ir::Op& load);
// The scalar tests in `load`'s mask (scalars and splats in its `and` tree: prefetch_loads'
// "the iteration runs"); the rest of a descriptor load's mask is its bounds check.
std::vector<const ir::Value*> mask_scalar_tests(const ir::Op& load);

// Finds the dot operands that can be copied asynchronously: fp16/bf16 2-D operands of a
// fragment dot, carried by a `for` (through a chain of carried values when prefetch_loads
// ran more than one iteration ahead) whose initial values and yielded value are loads used
// nowhere else (with no `other`, or a zero one: cp.async fills masked-off bytes with 0).
// Stage buffers of swizzled tiles start on 1024-byte boundaries (so does shared memory then).
// A wgmma operand goes transposed (AsyncOperand::transposed: B K-major, f16/bf16 A M-major)
// when the axis facts prove 16-byte runs along axis 0 but not along axis 1 and the mask is
// constant over each run.
// A loop's one wgmma dot stays in flight (in_flight_dots) when the loop carries its
// accumulator in fragments (not flat, as a loaded initial value was under experiment
// "noaccfrag": fragment_layout.h's FragmentOptions::any_inits), nothing else reads it, and the extra buffers fit in kMaxSharedBytes (of several
// wgmma dots, opt-in with "pv": the last one, until the first one's wait in the next
// iteration, when the loop carries its accumulator and reads it only after that wait:
// in_flight_waits); without
// the extra buffer (copies_after_dots) where it would leave fewer thread blocks per SM
// (blocks_per_sm, the registers estimated from the accumulator).

// Whether the element copies of a B held transposed (AsyncOperand::by_element, its addresses
// in AsyncPlan::recomputed) are dealt out in 4 K rows x 8 N elements a warp (emit_async.cpp,
// issue_row_element_copies): a swizzled tile, sides powers of two, every thread a copy.
bool deals_out_rows(const SharedTile& tile, const std::vector<int64_t>& shape, int threads);

// `tma`: whether host-descriptor operands may be TMA copies (TargetOptions::tma);
// `inflight_copies`: "" (by blocks_per_sm), "before" or "after" (TargetOptions); "pv",
// "pv-before" and "pv-after" the same, and a loop of several dots keeps its last one in
// flight too (AsyncPlan::last_dot_in_flight; without "pv", none of them).
// `merge_barriers`: AsyncOperand::readies_loop where it applies (experiment "rbmerge").
// `read_back_fit` (experiment "rbfit"): a loop's stage buffers are checked against
// kMaxSharedBytes (read-back operands left out past it) counting distance + 1 buffers an
// operand, one more only where a dot may stay in flight with an extra buffer (one dot reads
// the copies, or `last_dot_in_flight`), as allocated; off: distance + 2 always.
AsyncPlan plan_async_copies(const ir::Function& function, const FragmentPlan& fragments, int sm, int num_warps,
                            bool tma = true, const std::string& inflight_copies = "", bool merge_barriers = true,
                            bool read_back_fit = true);

}  // namespace tritium::nvptx

// The shared memory each op's emission goes through, by the NVPTX emitter's own rules (the
// flat layout of target/nvptx/layout.h, V from vector_widths.h): allocate_shared sizes its
// buffers with these functions and the emitter decides its round trips with the same ones,
// so an op has a buffer exactly when the emitter uses shared memory for it (and then always
// meets a barrier inside it), and the buffer covers every byte it touches.
#pragma once

#include <functional>

#include <cstdint>
#include <optional>
#include <vector>

#include "gpu/vector_widths.h"
#include "ir/ir.h"
#include "target/nvptx/layout.h"

namespace tritium::gpu {

// Slots of a reduce: the exchange across warps (chunks of at most kScratchChunk bytes), the
// placement of results that threads do not already hold, thread 0's scalar to everyone.
enum ReduceSlot { kReduceAcrossWarps = 0, kReducePlacement = 1, kReduceScalar = 2 };
// A scan has one slot (the exchange across warps, every level reusing it); a histogram one
// (its counts); a gather one (its source); trans/join/split/cat one (the sources at their flat index); a broadcast one
// (the source, or thread 0's single element).
constexpr int64_t kScratchChunk = 16 * 1024;

inline int64_t round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

// Bytes of one element of `type`'s block in shared memory (i1 as a byte, pointers 8).
int64_t scratch_element_bytes(const ir::Type* type);

// The input bits of a reduce that move along its axis, in the flat layout: register bits,
// lane and warp bits as bits of the thread index (warps shifted by 5).
struct ReduceMasks {
  int reg = 0, lane = 0, warp = 0;
  bool every_thread_valid = true;  // no thread bit reaches past the block
};
ReduceMasks reduce_masks(const ir::Type* in_type, int64_t axis, const nvptx::Layout& layout);

// The slots a reduce's exchange across warps gives each key: one per value of the thread
// bits that are neither reduced lane nor reduced warp bits, times the group of reduced warps
// (only the threads with their reduced lane bits clear write; every lane of a warp holds
// the same partial).
int64_t reduce_columns(const ReduceMasks& masks, int threads);

// For each register of a reduce's (block) result, the input register with the axis bits
// clear (its key) whose combined value it is, when every thread already holds the results
// it owns; nullopt when they go through shared memory.
std::optional<std::vector<int>> reduce_local_keys(const ir::Type* in_type, int64_t axis, const nvptx::Layout& in,
                                                  const nvptx::Layout& result, const ReduceMasks& masks);

// Whether the threads that own a reduce's (block) results read their partials straight from
// the exchange across warps: the results go through shared memory (reduce_local_keys finds
// none held) and every key fits one round of it; the reduce then has no placement.
bool reduce_reads_owned(const ir::Op& op, const nvptx::Layout& in, const nvptx::Layout& result,
                        const ReduceMasks& masks);

// A trans/join/split/cat result whose elements each thread already holds: per result
// register, the operand and its register.
struct LocalMove {
  std::vector<int> reg;
  std::vector<int> operand;
};
// The flat source index of result element e of a move, as bits (the source space of join
// and cat: operand 0's elements, then operand 1's).
struct MoveMap {
  std::vector<int> from;  // result bit k is source bit from[k]
  int64_t constant = 0;
  int64_t flip = 0;  // then these bits inverted (flip: the axis's bits)
  int64_t apply(int64_t e) const;
};
MoveMap move_map(const ir::Op& op, int result);
std::optional<LocalMove> local_move(const ir::Op& op, int result, const nvptx::Layout& source,
                                    const nvptx::Layout& out);
// A one-operand move whose every result element is in another lane of the same warp, at a
// lane distance (an exclusive or) and a source register that depend on the result register
// only, every register of every thread an element: per result register, the source register
// and the lanes' exclusive or (0: the thread's own), so a shuffle each (tl.flip and sort's
// exchanges along a dimension whose bits are the flat layout's lane bits).
struct ShuffleMove {
  std::vector<int> reg;
  std::vector<int> lane_xor;
};
std::optional<ShuffleMove> shuffle_move(const ir::Op& op, const nvptx::Layout& source, const nvptx::Layout& out);

// Whether a 2-D `trans` is read only as dots' A and B operands (`tl.dot(a, tl.trans(b))`,
// fla's `tl.dot(tl.trans(b_ds), b_q)`): then it moves nothing itself, and each dot stages
// its source into the operand's tile, every element where the transposed one goes (the tile
// held the other way round where the instruction reads that: Emitter::stage_operand), as
// Triton reads a transposed view of the shared memory its operand is in (memdesc_trans).
// Before, the source went through shared memory to the flat layout (a dot result's
// fragments), through the trans's round trip, and into the dot's tile: three round trips.
bool trans_staged_by_dots(const ir::Op& op);

// Whether a broadcast's source elements follow from their index alone (ranges, constants,
// splats, scalars, views and conversions, at most `budget` pure elementwise ops over them, and blocks
// `uniform` says every thread holds whole): the emitter computes them where they are needed
// instead of a round trip.
constexpr int kRecomputeBudget = 16;
bool recomputable(const ir::Value* value, int* budget,
                  const std::function<bool(const ir::Value*)>& uniform = nullptr);

// The bytes of each slot of `op` (0: unused); empty for ops that need no shared memory.
// Fragment conversions, dot staging, the dot's stage buffers, scalar atomics and uniform
// loop decisions are not here: the emitter still places them itself (DESIGN.md).
std::vector<int64_t> scratch_slots(const ir::Op& op, const VectorWidths& widths, int threads);

}  // namespace tritium::gpu

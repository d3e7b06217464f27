// convert_layout's mechanics, shared by allocate_shared (its buffer) and the NVPTX emitter
// (the same decisions): which layout a value's registers follow in the emitter, and how one
// conversion moves its elements (nothing, a register permutation, recomputation from the
// element index, or one round trip through a padded shared-memory buffer).
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/vector_widths.h"
#include "ir/ir.h"
#include "ir/linear_layout.h"

namespace tritium::gpu {

// Ops coalesce computes in a slot layout as part of a chain from a load to dots
// (coalesce.cpp's chain_to_dots: elementwise ops and the broadcasts they read), marked as
// such: held in their slot whatever elementwise_in_slot would infer.
inline constexpr const char* kSlotAttr = "in_slot";
// On a `for`: the carried positions (0-based, as its results) held in a slot, each one's
// initial value, body argument, yielded value and result alike (coalesce.cpp's
// lines_in_slot: a block-table line carried in the layout its broadcasts read).
inline constexpr const char* kSlotCarriedAttr = "slot_carried";

// Whether a load or store is made in its own layout (a load's result, a store's pointer
// converted there by gpu/coalesce.h) rather than the flat rule's.
bool access_in_slot(const ir::Op& op, const VectorWidths& widths, int threads);
// The emitter holds every block in the flat rule (target/nvptx/layout.h) except the results
// of such loads, of elementwise ops over them (elementwise_in_slot) and of the
// convert_layouts into such accesses' layouts that only they read: those follow their slot,
// register for register. Every other conversion (gpu/coalesce.h
// makes them explicit where an op wants another layout) is the identity there.
bool held_in_slot(const ir::Value* value, const VectorWidths& widths, int threads);
// An elementwise op computed in its result's slot layout (coalesce.cpp moves conversions
// past such ops): every block operand a splat, a constant, or a load or elementwise op held
// in that same slot, with as many registers per thread as the flat rule gives the block.
bool elementwise_in_slot(const ir::Op& op, const VectorWidths& widths, int threads);
// A conversion out of a slot that only dots' A and B read: the dot stages its operand from
// the slot's registers (target/nvptx emit_convert.cpp's stage_slot), so it moves nothing
// itself and needs no buffer.
bool staged_by_dots(const ir::Op& convert, const VectorWidths& widths, int threads);
// Per register of `to`, the register of `from` holding its broadcast source element (the
// element with the coordinates along the source's size-1 dimensions zeroed) in every
// thread; empty when some thread lacks it or the register would depend on the thread. A
// broadcast from a line held in its slot (lines_in_slot) moves nothing between threads.
std::vector<int> broadcast_moves(const ir::LinearLayout& from, const ir::LinearLayout& to);
// The linear layout of the emitter's registers for `value` (its slot's or the flat rule's).
ir::LinearLayout held_layout(const ir::Value* value, const VectorWidths& widths, int threads);

struct ConvertPlan {
  enum class Kind {
    kIdentity,   // the registers already sit where the result wants them
    kUniform,    // a splat or constant: every thread holds it whole
    kRegisters,  // every thread holds its results' sources: `source_reg` per result register
    kRecompute,  // the elements follow from their index (scratch.h's recomputable)
    kShared,     // one round trip through shared memory
  };
  Kind kind = Kind::kIdentity;
  std::vector<int> source_reg;
  // kShared: element e (flat index) sits at slot e + (e / row) * pad, `bytes` in all.
  int64_t row = 1;
  int64_t pad = 0;
  int64_t bytes = 0;
  // kShared into a slot held in runs of `read_run` consecutive elements of a row (at most 16
  // bytes, aligned): each run read back as one vector; rows then padded by 16 bytes.
  int64_t read_run = 1;
  int64_t slot(int64_t e) const { return e + (e / row) * pad; }
};

ConvertPlan plan_convert(const ir::Op& op, const VectorWidths& widths, int threads);

}  // namespace tritium::gpu

// What the GPU passes need to know about the target (a copy of the fields of
// nvptx::TargetOptions they read; the GPU layer stands below target/nvptx).
#pragma once

#include <functional>
#include <unordered_set>

#include "ir/ir.h"

namespace tritium::gpu {

struct GpuOptions {
  int num_warps = 4;
  int num_stages = 3;
  int sm = 90;
  bool vectorize = true;  // false: every block keeps V = 1 (vector_widths.h)
  // nvptx TargetOptions::int8_row_major_wgmma (int8_wgmma.h).
  bool int8_row_major_wgmma = false;
  // nvptx TargetOptions::prefetch_indices (prefetch_operands.h).
  bool prefetch_indices = true;
  // nvptx TargetOptions' reduce_experiment "axis0copy" (the default; "noaxis0copy" off):
  // prefetch_operands also copies and reads back a load reaching a dot through other ops
  // whose 16-byte runs go down its columns (prefetch_operands.h).
  bool read_back_axis0 = true;
  // "axis0flat" (opt-in): also where the block would be read back flat (no A chain in
  // fragments: not wgmma, or warps not all along M): prefetch_operands.cpp's a_chain_candidate.
  bool read_back_axis0_flat = false;
  // "achainmma" (the default; "noachainmma" off): that A chain on mma.sync too (sm_80, or a
  // dot too small for wgmma), where a fragment plan whose warps split m first gives every
  // warp whole rows (prefetch_operands.cpp's a_chain_candidate; nvptx plan_fragments then
  // splits m first: fragment_layout.h).
  bool a_chains_mma = true;
  // prefetch_operands also copies a line (a 1-D load of 4- to 16-byte elements) reaching a
  // dot through other ops, an element a cp.async; off: loaded every iteration
  // (TRITIUM_REDUCE_EXPERIMENT nolinecopy, for the A/B).
  bool read_back_lines = true;
  // "rbfit" (the default; "norbfit" off): prefetch_operands' shared-memory budget for
  // read-back operands counts each prefetched block num_stages times, plus once more only
  // where the loop may keep a dot in flight with an extra buffer (one dot in its body, or
  // `last_dot_in_flight`), as the emitter's plan allocates them (async_copy.cpp); off: always
  // num_stages + 1 (fla's dhu at 3 stages then copies no read-back: its dv loaded in place).
  bool read_back_fit = true;
  // "recurstages" (the default since session 39: fla's fwd_h 0.91 -> 0.98 of Triton on the
  // H100; "norecurstages" turns it off): a loop of several dots that writes memory (a state
  // recurrence storing each chunk's state: fla's fwd_h, dhu) runs its copies num_stages - 1
  // iterations ahead within kRecurrenceStageBytes (prefetch_operands.cpp), as Triton's
  // pipeliner does, instead of the 64 KiB cap kept for attention (prefetch_loads.h); off:
  // fwd_h's copies one chunk ahead at any num_stages.
  bool recurrence_stages = true;
  // TargetOptions::inflight_copies asks for the last of several dots in flight ("pv...").
  bool last_dot_in_flight = false;
  // A loaded line broadcast into addresses held in the layout its broadcasts read
  // (coalesce.cpp's lines_in_slot); off: through shared memory (TRITIUM_REDUCE_EXPERIMENT
  // nolineslot, for the A/B).
  bool lines_in_slot = true;
  // A loop of constant trip count 0 or 1 becomes its body or its initial values
  // (inline_one_trip_loops.h); off: TRITIUM_REDUCE_EXPERIMENT noonetrip, for the A/B.
  bool inline_one_trip_loops = true;
  // And then `add(d, dot(a, b, 0))` folded into `dot(a, b, d)` where inlining made the dot's
  // accumulator a zero (transforms/combine_dot_add.h, as Triton's Combine after its
  // canonicalization folded the loop); off: TRITIUM_REDUCE_EXPERIMENT norefold, for the A/B.
  bool fold_inlined_dots = true;
  // Widening block casts moved down to their first user (sink_casts.h); off:
  // TRITIUM_REDUCE_EXPERIMENT nosinkcasts, for the A/B.
  bool sink_casts = true;
  // rebase_pointers also rebases a carried pointer block whose initial block is not
  // recomputable from the index (cut-cross-entropy's classifier rows gathered through a
  // loaded vocabulary ordering) where the body only loads dot operands through it: the body's
  // load then reads the initial block, which coalesce can make in its slot as it does the
  // loop's prologue loads (rebase_pointers.h); off: TRITIUM_REDUCE_EXPERIMENT norebaseload.
  bool rebase_loaded = true;
  // A rebased pointer block whose initial block is a chain of addptrs from a splat of one
  // pointer (`ptr + offs`) is, in the body, that chain from the pointer moved by the carried
  // offset: one scalar 64-bit add an iteration and the blocks' loop-invariant 32-bit
  // offsets, not a 64-bit block offset added to every element's 64-bit address
  // (rebase_pointers.h); TRITIUM_REDUCE_EXPERIMENT scalarbase, opt-in until timed (mamba's
  // dstates 64x128x32 w4: 128 -> 150 registers; dCB: 3 line loads after the wgmma wait).
  bool rebase_scalar_base = false;
  // 2, 4 or 8: the K loop of an eligible matmul split over a cluster of that many CTAs
  // (split_k_cluster.h; TRITIUM_REDUCE_EXPERIMENT ksplit, opt-in until timed); 0: not.
  int split_k = 0;
  // The ops the target computes in registers without the flat layout's shared memory (the
  // NVPTX fragment plan: reductions of dot fragments along rows, broadcasts back to them,
  // elementwise ops on them): allocate_shared gives them no buffers. Unset: none.
  std::function<std::unordered_set<const ir::Op*>(const ir::Function&)> in_registers;
};

}  // namespace tritium::gpu

// split_k_cluster: a matmul's K loop split over a thread-block cluster of C = 2, 4 or 8 CTAs
// (sm_90), opt-in (TRITIUM_REDUCE_EXPERIMENT=ksplit). At 1024^3 and below the tutorial
// matmul's grid leaves SMs idle (64 programs of 128x128 on an H100's 132, 16 at 512^3); each
// program made a cluster of C CTAs, rank r runs its share of the K iterations:
//   for k in range(lo, hi, s): acc = tl.dot(a, b, acc); a_ptrs += sa; b_ptrs += sb
// =>
//   r = cluster rank (program_id {axis = 3}; program_id 0-2 are the cluster's id)
//   n = cdiv(max(hi - lo, 0), s); h = cdiv(n, C)
//   for k in range(lo + r*h*s, min(lo + (r+1)*h*s, hi), s) {cluster_sum = j, cluster_ctas = C}:
//       (acc from r == 0 ? acc0 : 0; a_ptrs from a_ptrs0 + r*h*sa; ...)
// The loop's `cluster_sum` attribute (the accumulator's index among the carried values) has
// the emitter sum the ranks' accumulators into rank 0's through distributed shared memory
// after the loop (emit_control.cpp's cluster_sum: a fixed tree, deterministic); the other
// ranks then end, rank 0 runs the rest alone. Where the trip count is a constant, C halves
// until each rank runs at least kMinTripsPerRank iterations (none fits: not split); where it
// is not, the launch picks C (runtime/kernel_gpu.cpp, one compiled variant a size), from the
// trip count where the loop's upper bound is one integer parameter through ops with
// constants (`cdiv(K, BLOCK_K)`, `K`; the lower bound a constant): the loop's attributes
// trips_param (the kernel parameter's index), trips_lower and trips_ops (opcode, constant
// pairs: trip_formula in the .cpp), which the emitter writes into the PTX as the comment
// "// tritium.ksplit.trips P L S ops..." (S the step) for the launch to read.
//
// Eligible (split_k_reason says why not): one top-level `for` in the kernel, a positive
// constant step and a signed iteration variable; its carried values are one accumulator
// (fp32 or int32) updated only as `acc = dot(a, b, acc)` (`acc += dot(a, b)` is that form
// after combine_dot_add), values moved by a loop-invariant step (`p += s`, addptr or an
// integer add: rank r starts from `init + r * h * s`; used after the loop, `init + n * s` is
// computed there), or values passed through unchanged; no store, atomic, print or assert
// before the loop or in it (every rank runs those parts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

// The program_id axis that reads the CTA's rank in its cluster (%cluster_ctarank); made only
// here, on the GPU passes' clone (the verifier allows it on program_id alone).
constexpr int64_t kClusterRankAxis = 3;

// The fewest K iterations a rank should run for a split to pay (its own pipeline prologue,
// the hand-over): the compile-time fit of a constant trip count and the launch's choice.
constexpr int kMinTripsPerRank = 2;

// The ops of a trip formula (a loop's trips_ops: (op, constant) pairs applied in order to an
// integer argument), shared by the pass that writes it and the launch that evaluates it.
enum class TripOp : int64_t { Add = 1, Sub = 2, SubFrom = 3, Mul = 4, Div = 5, Max = 6, Min = 7 };

// x through the (op, constant) pairs of `ops` (Div: c > 0, truncating; SubFrom: c - x);
// nullopt for an unknown op or a value past 2^62 either side.
std::optional<int64_t> apply_trip_formula(int64_t x, const std::vector<int64_t>& ops);

// Why the kernel cannot be split ("" when it can).
std::string split_k_reason(const ir::Function& function);

// Splits the kernel's K loop over a cluster of GpuOptions::split_k (2, 4 or 8; `tritium opt`:
// 2 unless 4 or 8) CTAs where the kernel is eligible; with TRITIUM_KSPLIT_DEBUG=1 says on
// stderr which and why not.
void split_k_cluster(ir::Function& function, const GpuOptions& options);
bool splits_k(const ir::Function& function, const GpuOptions& options);

// Whether the (GPU-pass) function holds a loop split by split_k_cluster.
bool has_split_k(const ir::Function& function);
// The CTAs of its cluster (the loop's `cluster_ctas`), 0 without such a loop.
int split_k_size(const ir::Function& function);

}  // namespace tritium::gpu

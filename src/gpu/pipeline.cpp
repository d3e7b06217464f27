// The GPU pass table (pipeline.h), in order. Each pass is one file with one entry point.
#include "gpu/pipeline.h"

#include <cstdlib>
#include <cstring>

#include "gpu/allocate_shared.h"
#include "gpu/assign_layouts.h"
#include "gpu/coalesce.h"
#include "gpu/hoist_invariants.h"
#include "gpu/inline_one_trip_loops.h"
#include "gpu/insert_barriers.h"
#include "gpu/int8_wgmma.h"
#include "gpu/prefetch_operands.h"
#include "gpu/rebase_pointers.h"
#include "gpu/sink_casts.h"
#include "gpu/speculate_ifs.h"
#include "gpu/split_k_cluster.h"
#include "gpu/transpose_loads.h"
#include "gpu/version_on_signs.h"
#include "gpu/verify_gpu.h"
#include "ir/verifier.h"
#include "transforms/eliminate_common_subexpressions.h"

namespace tritium::gpu {

namespace {

void cse(ir::Function& function, const GpuOptions&) { transforms::eliminate_common_subexpressions(function); }

const std::vector<GpuPass> kGpuPasses = {
    // A loop whose constant bounds run it once (fla's `range(tl.cdiv(V, BV))` at V == BV):
    // its body, so no pass pipelines an iteration that never comes.
    {"inline_one_trip_loops", inline_one_trip_loops, inlines_one_trip_loops},
    // An `if` whose branches compute a few cheap elementwise ops on blocks: those ops run
    // unconditionally and selects take the results (blocks held across a branch spill).
    {"speculate_ifs", speculate_ifs, nullptr},
    // A matmul's K loop split over a cluster of 2 CTAs (opt-in: experiment ksplit), before
    // version_on_signs copies the loop.
    {"split_k_cluster", split_k_cluster, splits_k},
    // The rest of the kernel twice, behind a test of scalars' signs, where knowing them
    // non-negative widens an access (the tutorial matmul's `% N` columns).
    {"version_on_signs", version_on_signs, versions_on_signs},
    // Carried pointer blocks moved by one amount in every element: their initial block
    // plus a carried scalar offset, so their addresses follow from the index again.
    {"rebase_pointers", rebase_pointers, nullptr},
    // Pure ops a loop does not need to repeat (a broadcast of a loop-invariant vector),
    // computed once before it.
    {"hoist_invariants", hoist_invariants, nullptr},
    // A dot operand loaded then transposed (Kᵀ): loaded transposed, so it feeds the dot.
    {"transpose_loads", transpose_loads, transposes_loads},
    // int8 dots on wgmma where their operands' copies allow it (read before prefetching,
    // while the loads still feed the dots).
    {"choose_int8_wgmma", choose_int8_wgmma, chooses_int8_wgmma},
    // Dot operands loaded one iteration ahead (then copied by cp.async), and the copies of
    // the next iteration's pointers merged with the current ones.
    {"prefetch_operands", prefetch_operands, pipelines_dots},
    {"eliminate_common_subexpressions", cse, pipelines_dots},
    // A cast widening a block's elements (bf16 -> fp32) computed just before its first
    // user, not where it was written (the narrow block is what stays live until then).
    {"sink_casts", sink_casts, sinks_casts},
    {"assign_layouts", assign_layouts, nullptr},
    // Accesses contiguous along another axis than the last: their own blocked layout, and
    // convert_layout ops around them.
    {"coalesce", coalesce, nullptr},
    {"allocate_shared", allocate_shared, nullptr},
    // Barriers from the buffers' bytes: only where accesses of different ops may race.
    {"insert_barriers", insert_barriers, nullptr},
};

// As the tile IR pipeline: debug builds, and tests (TRITIUM_VERIFY=1), verify after each pass.
bool verify_by_default() {
#ifndef NDEBUG
  return true;
#else
  const char* v = std::getenv("TRITIUM_VERIFY");
  return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0);
#endif
}

}  // namespace

const std::vector<GpuPass>& gpu_passes() { return kGpuPasses; }

const GpuPass* find_gpu_pass(const std::string& name) {
  for (const GpuPass& pass : kGpuPasses) {
    if (name == pass.name) return &pass;
  }
  return nullptr;
}

std::unique_ptr<ir::Function> run_gpu_passes(const ir::Function& function, const GpuOptions& options, bool verify_each) {
  std::unique_ptr<ir::Function> copy = function.clone();
  verify_each = verify_each || verify_by_default();
  bool assigned = false;
  for (const GpuPass& pass : kGpuPasses) {
    if (pass.applies != nullptr && !pass.applies(*copy, options)) continue;
    pass.run(*copy, options);
    assigned = assigned || pass.run == assign_layouts;
    if (!verify_each) continue;
    ir::verify(*copy, pass.name);
    verify_gpu(*copy, options, assigned, pass.name);
  }
  return copy;
}

}  // namespace tritium::gpu

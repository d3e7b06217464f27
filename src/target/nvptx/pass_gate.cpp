// The straight-line pass gate (see pass_gate.h): elements per thread of the largest block
// value, counted as register_budget.cpp spreads them (over 32 * num_warps threads).
#include "target/nvptx/pass_gate.h"

#include <algorithm>

namespace tritium::nvptx {

namespace {

int64_t max_in_region(const ir::Region& region, int64_t threads) {
  int64_t most = 0;
  for (const auto& op : region.ops()) {
    for (const auto& result : op->results()) {
      const ir::Type* type = result->type();
      if (type->is_block()) most = std::max(most, (type->num_elements() + threads - 1) / threads);
    }
    for (const auto& inner : op->regions()) most = std::max(most, max_in_region(*inner, threads));
  }
  return most;
}

}  // namespace

int64_t max_elements_per_thread(const ir::Function& function, int num_warps) {
  return max_in_region(function.body(), int64_t{32} * num_warps);
}

bool skips_straight_line_passes(const ir::Function& function, int num_warps) {
  return max_elements_per_thread(function, num_warps) > kStraightLineElementLimit;
}

// LLVM's names (the pass arguments) of NVPTXPassConfig's StraightLineStrengthReduce and
// NaryReassociate; the other straight-line passes (SeparateConstOffsetFromGEP, GVN,
// EarlyCSE) stay linear enough.
bool is_straight_line_pass(std::string_view pass) { return pass == "slsr" || pass == "nary-reassociate"; }

// The legacy LoopStrengthReduce (TargetPassConfig::addIRPasses adds it): a loop pass asks the
// gate by its name (LoopPass::skipLoop), not by its argument ("loop-reduce") as the function
// passes above do.
bool is_loop_strength_reduction(std::string_view pass) {
  return pass == "Loop Strength Reduction" || pass == "loop-reduce";
}

}  // namespace tritium::nvptx

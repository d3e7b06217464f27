// The pass pipeline, in order. Each pass is one file with one entry point; the verifier
// runs after each when asked (tests, debug builds).
#include "transforms/pipeline.h"

#include <algorithm>
#include <cstring>

#include "ir/verifier.h"
#include "transforms/combine_dot_add.h"
#include "transforms/eliminate_common_subexpressions.h"
#include "transforms/eliminate_dead_code.h"
#include "transforms/fold_constants.h"
#include "transforms/fold_masks.h"
#include "transforms/prefetch_loads.h"

namespace tritium::transforms {

namespace {

const Pass kPipeline[] = {
    {"fold_constants", fold_constants},
    {"eliminate_common_subexpressions", eliminate_common_subexpressions},
    {"fold_constants", fold_constants},
    // Folded ops stay until removed, and a dot read by one (`tl.dot(p, v) / 1.0`) would still
    // count it among its uses: combine_dot_add folds a dot with one use only.
    {"eliminate_dead_code", eliminate_dead_code},
    {"combine_dot_add", combine_dot_add},
    {"fold_masks", fold_masks},
    {"eliminate_dead_code", eliminate_dead_code},
};

// Passes outside the pipeline: the GPU code generator runs these on its copy of a kernel.
const Pass kGpuPasses[] = {
    {"prefetch_loads", prefetch_loads},
};

}  // namespace

void run_pipeline(ir::Function& function, const PipelineOptions& options) {
  for (const Pass& pass : kPipeline) {
    pass.run(function);
    if (options.verify_each) ir::verify(function, pass.name);
  }
}

const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> passes = [] {
    std::vector<Pass> out;
    auto add = [&](const Pass& pass) {
      auto same = [&](const Pass& p) { return std::strcmp(p.name, pass.name) == 0; };
      if (!std::any_of(out.begin(), out.end(), same)) out.push_back(pass);
    };
    for (const Pass& pass : kPipeline) add(pass);
    for (const Pass& pass : kGpuPasses) add(pass);
    std::sort(out.begin(), out.end(), [](const Pass& a, const Pass& b) { return std::strcmp(a.name, b.name) < 0; });
    return out;
  }();
  return passes;
}

const Pass* find_pass(const std::string& name) {
  for (const Pass& pass : all_passes()) {
    if (name == pass.name) return &pass;
  }
  return nullptr;
}

}  // namespace tritium::transforms

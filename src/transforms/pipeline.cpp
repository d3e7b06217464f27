// The pass pipeline, in order. Each pass is one file with one entry point; the verifier
// runs after each when asked (tests, debug builds).
#include "transforms/pipeline.h"

#include "ir/verifier.h"
#include "transforms/eliminate_common_subexpressions.h"
#include "transforms/eliminate_dead_code.h"
#include "transforms/fold_constants.h"
#include "transforms/fold_masks.h"

namespace tritium::transforms {

namespace {

struct Pass {
  const char* name;
  void (*run)(ir::Function&);
};

const Pass kPasses[] = {
    {"fold_constants", fold_constants},
    {"eliminate_common_subexpressions", eliminate_common_subexpressions},
    {"fold_constants", fold_constants},
    {"fold_masks", fold_masks},
    {"eliminate_dead_code", eliminate_dead_code},
};

}  // namespace

void run_pipeline(ir::Function& function, const PipelineOptions& options) {
  for (const Pass& pass : kPasses) {
    pass.run(function);
    if (options.verify_each) ir::verify(function, pass.name);
  }
}

}  // namespace tritium::transforms

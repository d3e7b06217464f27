// The pass pipeline: one straight line of passes (filled in as passes land).
#include "transforms/pipeline.h"

namespace tritium::transforms {

void run_pipeline(ir::Function& function, const PipelineOptions& options) {
  (void)function;
  (void)options;
}

}  // namespace tritium::transforms

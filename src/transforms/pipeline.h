// The pass pipeline that turns freshly lowered IR into optimized IR (`--emit ir-opt`).
// Reads top to bottom in pipeline.cpp; verifies after every pass when asked.
#pragma once

#include "ir/ir.h"

namespace tritium::transforms {

struct PipelineOptions {
  bool verify_each = false;  // run the verifier after every pass (tests, debug builds)
};

// Runs every optimization pass on `function` in place.
void run_pipeline(ir::Function& function, const PipelineOptions& options = {});

}  // namespace tritium::transforms

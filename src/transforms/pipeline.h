// The pass pipeline that turns freshly lowered IR into optimized IR (`--emit ir-opt`), and
// the table of named passes that `tritium opt --passes=a,b,c` runs one at a time.
// Reads top to bottom in pipeline.cpp; verifies after every pass when asked.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritium::transforms {

struct PipelineOptions {
  bool verify_each = false;  // run the verifier after every pass (tests, debug builds)
};

// Runs every optimization pass on `function` in place.
void run_pipeline(ir::Function& function, const PipelineOptions& options = {});

// A pass by the name used in the pipeline, in `tritium opt --passes` and in the name of its
// golden test (tests/golden/passes/NAME.ir).
struct Pass {
  const char* name;
  void (*run)(ir::Function&);
};

// Every pass the pipeline knows, once each, sorted by name.
const std::vector<Pass>& all_passes();
// The pass called `name`; null when there is none.
const Pass* find_pass(const std::string& name);

}  // namespace tritium::transforms

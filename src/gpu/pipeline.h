// The GPU passes, in order: what the code generator runs on its copy of a kernel before
// emitting it (target/nvptx/codegen.cpp), and the table `tritium opt --passes` reads too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/options.h"
#include "ir/ir.h"

namespace tritium::gpu {

struct GpuPass {
  const char* name;
  void (*run)(ir::Function&, const GpuOptions&);
  // Whether the pass is run on this kernel by the code generator; null: always.
  bool (*applies)(const ir::Function&, const GpuOptions&);
};

// The passes in the order the code generator runs them.
const std::vector<GpuPass>& gpu_passes();
// The pass called `name`; null when there is none.
const GpuPass* find_gpu_pass(const std::string& name);

// A copy of `function` with every applicable pass run on it (the tile IR verifier and
// verify_gpu after each when `verify_each`, in debug builds or with TRITIUM_VERIFY=1): the
// kernel the emitter and `--emit gpu-ir` see.
std::unique_ptr<ir::Function> run_gpu_passes(const ir::Function& function, const GpuOptions& options,
                                             bool verify_each = false);

}  // namespace tritium::gpu

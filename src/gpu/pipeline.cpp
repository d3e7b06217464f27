// The GPU pass table (pipeline.h), in order. Each pass is one file with one entry point.
#include "gpu/pipeline.h"

#include "gpu/allocate_shared.h"
#include "gpu/assign_layouts.h"
#include "gpu/prefetch_operands.h"
#include "ir/verifier.h"
#include "transforms/eliminate_common_subexpressions.h"

namespace tritium::gpu {

namespace {

void cse(ir::Function& function, const GpuOptions&) { transforms::eliminate_common_subexpressions(function); }

const std::vector<GpuPass> kGpuPasses = {
    // Dot operands loaded one iteration ahead (then copied by cp.async), and the copies of
    // the next iteration's pointers merged with the current ones.
    {"prefetch_operands", prefetch_operands, pipelines_dots},
    {"eliminate_common_subexpressions", cse, pipelines_dots},
    {"assign_layouts", assign_layouts, nullptr},
    {"allocate_shared", allocate_shared, nullptr},
};

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
  for (const GpuPass& pass : kGpuPasses) {
    if (pass.applies != nullptr && !pass.applies(*copy, options)) continue;
    pass.run(*copy, options);
    if (verify_each) ir::verify(*copy, pass.name);
  }
  return copy;
}

}  // namespace tritium::gpu

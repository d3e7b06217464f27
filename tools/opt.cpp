// `tritium opt FILE.ir --passes=a,b,c`: the IR parser, the pass table and the verifier put
// together, so a pass is tested on IR text as Triton's triton-opt and MLIR's lit tests do.
#include "opt.h"

#include <algorithm>
#include <stdexcept>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/text.h"
#include "gpu/pipeline.h"
#include "gpu/verify_gpu.h"
#include "transforms/pipeline.h"

namespace tritium::cli {

std::vector<std::string> pass_list(const std::string& value) {
  std::vector<std::string> names;
  if (trim(value).empty()) return names;  // no passes: parse, verify and print
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = std::min(value.find(',', start), value.size());
    std::string name = trim(value.substr(start, comma - start));
    start = comma + 1;
    if (transforms::find_pass(name) != nullptr || gpu::find_gpu_pass(name) != nullptr) {
      names.push_back(name);
      continue;
    }
    std::string known;
    for (const transforms::Pass& pass : transforms::all_passes())
      known += std::string(known.empty() ? "" : ", ") + pass.name;
    for (const gpu::GpuPass& pass : gpu::gpu_passes()) known += std::string(", ") + pass.name + " (gpu)";
    throw std::invalid_argument((name.empty() ? "an empty pass name" : "unknown pass '" + name + "'") +
                                " in --passes (known passes: " + known + ")");
  }
  return names;
}

std::string run_opt(const std::string& path, const std::string& text, const std::vector<std::string>& passes,
                    bool with_locs, int num_warps, int num_stages, bool prefetch_indices, int split_k) {
  std::unique_ptr<ir::Function> function = ir::parse(text, path);
  ir::verify_input(*function);
  gpu::GpuOptions options;
  options.num_warps = num_warps;
  options.num_stages = num_stages;
  options.prefetch_indices = prefetch_indices;
  options.split_k = split_k;  // split_k_cluster's cluster size (2, 4 or 8)
  bool assigned = false;
  for (const std::string& name : passes) {
    bool gpu_pass = false;
    if (const transforms::Pass* pass = transforms::find_pass(name)) {
      pass->run(*function);
    } else {
      gpu_pass = true;
      // A GPU pass runs whether or not the code generator would pick it for this kernel.
      gpu::find_gpu_pass(name)->run(*function, options);
      assigned = assigned || name == "assign_layouts";
    }
    ir::verify(*function, name);
    if (gpu_pass) gpu::verify_gpu(*function, options, assigned, name);
  }
  return ir::print(*function, with_locs);
}

}  // namespace tritium::cli

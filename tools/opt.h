// `tritium opt`: runs named passes on IR text one at a time (the per-pass golden tests in
// tests/golden/passes use it).
#pragma once

#include <string>
#include <vector>

namespace tritium::cli {

// Splits a --passes value ("a,b,c") and checks every name against the pass table; an unknown
// or empty name throws std::invalid_argument listing the known passes.
std::vector<std::string> pass_list(const std::string& value);

// Parses `text` (read from `path`), verifies it, runs `passes` in order verifying after
// each (a GPU pass, gpu/pipeline.h, runs for `num_warps` warps and `num_stages` and is also checked by
// gpu/verify_gpu.h), and returns the printed result. Bad or invalid text throws a
// CompileError located in `path`; a pass that breaks the IR throws an InternalError naming it.
std::string run_opt(const std::string& path, const std::string& text, const std::vector<std::string>& passes,
                    bool with_locs, int num_warps = 4, int num_stages = 3, bool prefetch_indices = true, int split_k = 2);

}  // namespace tritium::cli

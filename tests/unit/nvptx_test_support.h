// What the NVPTX unit tests share: a kernel of Python source lowered and optimized as the
// runtime does, substring counts in PTX, and ptxas's verdict on a compiled kernel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cache/disk_cache.h"
#include "interp/interpreter.h"
#include "ir/ir.h"
#include "target/nvptx/codegen.h"

namespace tritium::testing {

// `kernel` of `source` (named `file_name` in diagnostics) specialized on `signature` and run
// through the pass pipeline with verification. Each source is parsed once and kept for the
// test binary's life: the IR's locations point into it.
std::unique_ptr<ir::Function> lower_source(const std::string& file_name, const std::string& source,
                                           const std::string& kernel, const std::string& signature);

// How many times `what` occurs in `text` (overlaps included).
int count(const std::string& text, const std::string& what);

// ptxas's log for `compiled` when it refuses it, empty when it assembles. Without ptxas at
// /usr/local/cuda/bin the check is skipped with a visible warning and the result is empty.
std::string ptxas_errors(const nvptx::CompiledPtx& compiled);

// Checks that the PTX entry arguments of `compiled` are `want` (runtime::expected_params):
// the same count and, one by one, name, parameter index, part, dim, dtype and size.
void check_entry_params(const nvptx::CompiledPtx& compiled, const std::vector<cache::CachedParam>& want);

// Interpreter arguments: a pointer to host memory, an integer.
interp::ArgValue pointer_arg(const void* p);
interp::ArgValue int_arg(int64_t v);

}  // namespace tritium::testing

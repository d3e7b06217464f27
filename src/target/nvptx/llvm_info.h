// What the statically linked LLVM is; the cache key and `tritium --version` print it.
#pragma once

#include <string>

namespace tritium::nvptx {

// "22.1.8" or similar: the version of LLVM linked into tritium.
std::string llvm_version();
// Whether LLVM's NVPTX target is registered and usable.
bool nvptx_target_available();

}  // namespace tritium::nvptx

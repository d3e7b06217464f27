// Where NVIDIA's libdevice bitcode is (the math functions kernels call through tl.math and
// libdevice): TRITIUM_LIBDEVICE_PATH, else the installed CUDA toolkits. Found at run time;
// no LLVM types here (the runtime hashes the file into the cache key).
#pragma once

#include <string>

namespace tritium::nvptx {

// The path of libdevice.10.bc, or "" when none is installed.
std::string libdevice_path();
// Where libdevice_path() looks, for the error message when it finds nothing.
std::string libdevice_search_text();

}  // namespace tritium::nvptx

// ptxas: a cubin from PTX by an external ptxas (TRITIUM_PTXAS=/path/to/ptxas, a knob of the
// cache key), compiled as a whole program for the PTX's own .target, as Triton's compiler
// makes every cubin. Without the knob tritium hands its PTX to the CUDA driver (the entry
// keeps PTX only, gpu_kernel.cpp): the knob is for comparing the two compilers' code on the
// same PTX, and for pinning a toolkit's ptxas.
#pragma once

#include <string>

namespace tritium::runtime {

// Runs `ptxas --gpu-name=<target> -o cubin ptx` in a private temporary directory and returns
// the cubin's bytes. A LaunchError naming `kernel` when ptxas cannot be started, fails (with
// the first lines of what it printed) or the PTX names no target.
std::string assemble_with_ptxas(const std::string& ptxas, const std::string& ptx, const std::string& kernel);

}  // namespace tritium::runtime

// The CUtensorMap of a 2-D host tensor descriptor (ir::ArgPart::DescTensorMap), for kernels
// whose pipelined loops copy its blocks with the TMA. Encoded once per distinct (base, shape,
// strides, block, dtype) with cuTensorMapEncodeTiled and kept in a process-wide cache, so a
// launch with a descriptor it has seen costs one lookup.
#pragma once

#include <string>

#include "ir/types.h"
#include "tritium/tritium.h"

namespace tritium::runtime {

// The 128-byte map (64-byte aligned, valid for the process's lifetime) of descriptor `arg`
// whose elements are `dtype`. Throws LaunchError naming `kernel` when the driver refuses it.
const void* tensor_map_for(const Arg& arg, ir::ScalarKind dtype, const std::string& kernel);

}  // namespace tritium::runtime

// The vector widths moved to the GPU layer (gpu/vector_widths.h), where assign_layouts reads
// them too; the emitter and its tests keep their names through this header.
#pragma once

#include "gpu/vector_widths.h"

namespace tritium::nvptx {

using gpu::access_width;
using gpu::choose_vector_widths;
using gpu::VectorWidths;

}  // namespace tritium::nvptx

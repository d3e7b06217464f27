// What the GPU passes need to know about the target (a copy of the fields of
// nvptx::TargetOptions they read; the GPU layer stands below target/nvptx).
#pragma once

namespace tritium::gpu {

struct GpuOptions {
  int num_warps = 4;
  int num_stages = 3;
  int sm = 90;
  bool vectorize = true;  // false: every block keeps V = 1 (vector_widths.h)
};

}  // namespace tritium::gpu

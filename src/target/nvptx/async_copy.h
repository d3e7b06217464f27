// Dot operands copied from global to shared memory with cp.async, two stages (Triton's
// software pipelining with num_stages >= 2, for the mma.sync and wgmma paths). No LLVM here.
//
// The shape it takes: transforms/prefetch_loads has made a dot's operand a loop-carried
// value, loaded once before the loop and once per iteration (for the next one) before the
// dot. Such a load writes its block straight into one of two stage buffers at the start of
// shared memory (every other round trip starts after them) and its value is that buffer's
// byte offset; the loop carries the offset. The dot waits for its own buffer's copies
// (cp.async.wait_group 0), meets the other threads at one barrier (after which nobody reads
// the other buffer any more), issues the next iteration's copies into the other buffer, and
// reads its operands in place while they fly: one barrier per iteration. The loop's exit
// drains the copies (the last iteration's are masked off but still zero-fill their buffer).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "target/nvptx/fragment_layout.h"
#include "target/nvptx/shared_tile.h"

namespace tritium::nvptx {

struct AsyncOperand {
  const ir::Value* carried = nullptr;  // the body argument that holds the current buffer
  int64_t offset[2] = {0, 0};          // the two stage buffers, bytes into shared memory
  SharedTile tile;                     // padded for mma.sync, swizzled for wgmma (shared_tile.h)
};

struct AsyncPlan {
  int64_t reserved_bytes = 0;  // the stage buffers of every loop, before other uses
  std::vector<std::unique_ptr<AsyncOperand>> operands;
  // Loads that copy asynchronously, and whether each fills stage 0 (before the loop) or
  // the other stage of its carried value (inside the loop).
  std::unordered_map<const ir::Value*, const AsyncOperand*> loads;
  std::unordered_map<const ir::Value*, bool> first_stage;
  std::unordered_map<const ir::Value*, const AsyncOperand*> carried;  // body args holding an offset
};

// Finds the dot operands that can be copied asynchronously: fp16/bf16 2-D operands of a
// fragment dot, carried by a `for` whose initial value and yielded value are loads used
// nowhere else (with no `other`, or a zero one: cp.async fills masked-off bytes with 0).
// Stage buffers of swizzled tiles start on 1024-byte boundaries (so does shared memory then).
AsyncPlan plan_async_copies(const ir::Function& function, const FragmentPlan& fragments, int sm, int num_warps);

}  // namespace tritium::nvptx

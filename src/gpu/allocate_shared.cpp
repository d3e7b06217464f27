// allocate_shared (allocate_shared.h): the buffers each op needs (scratch.h: the emitter's
// round trips), then one first-fit allocation over their live intervals.
#include "gpu/allocate_shared.h"

#include <algorithm>

#include "gpu/scratch.h"

namespace tritium::gpu {

namespace {

using ir::Op;

// Shared memory the allocator may spend to keep neighbouring round trips apart.
constexpr int64_t kSpreadBytes = 16 * 1024;

class Planner {
 public:
  Planner(const VectorWidths& widths, int threads) : widths_(widths), threads_(threads) {}

  // Numbers ops in program order; collects each op's scratch (scratch.h's slots that are used).
  void walk(ir::Region& region) {
    for (auto& op : region.ops()) {
      int64_t index = next_++;
      size_t before = buffers.size();
      for (const auto& r : op->regions()) walk(*r);
      if (op->kind() == ir::OpKind::For || op->kind() == ir::OpKind::While) loops.emplace_back(before, buffers.size());
      for (int64_t size : scratch_slots(*op, widths_, threads_)) {
        if (size <= 0) continue;
        SharedBuffer b;
        b.size = size;
        b.first = b.last = index;
        buffers.push_back(b);
        owners.push_back(op.get());
      }
    }
  }

  std::vector<SharedBuffer> buffers;
  std::vector<Op*> owners;  // the op of each buffer
  std::vector<std::pair<size_t, size_t>> loops;  // the buffers inside each loop: [begin, end)

 private:
  const VectorWidths& widths_;
  int threads_;
  int64_t next_ = 0;
};

}  // namespace

int64_t allocate_buffers(std::vector<SharedBuffer>& buffers, int64_t alignment) {
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].size != buffers[b].size ? buffers[a].size > buffers[b].size : buffers[a].first < buffers[b].first;
  });
  int64_t used = 0;
  std::vector<size_t> placed;
  for (size_t i : order) {
    SharedBuffer& b = buffers[i];
    // The placed buffers alive with this one, by offset; the first gap that fits.
    std::vector<const SharedBuffer*> alive;
    for (size_t j : placed) {
      const SharedBuffer& o = buffers[j];
      if (o.first <= b.last && b.first <= o.last) alive.push_back(&o);
    }
    std::sort(alive.begin(), alive.end(), [](const SharedBuffer* x, const SharedBuffer* y) { return x->offset < y->offset; });
    int64_t offset = 0;
    for (const SharedBuffer* o : alive) {
      if (offset + b.size <= o->offset) break;
      offset = std::max(offset, (o->offset + o->size + alignment - 1) / alignment * alignment);
    }
    b.offset = offset;
    used = std::max(used, offset + b.size);
    placed.push_back(i);
  }
  return used;
}

void allocate_shared(ir::Function& function, const GpuOptions& options) {
  const int threads = 32 * options.num_warps;
  VectorWidths widths = choose_vector_widths(function, threads, options.vectorize);
  Planner planner(widths, threads);
  planner.walk(function.body());
  // A round trip's bytes are read until the next barrier, which insert_barriers must place
  // before the next op with buffers when that op reuses them. Kept live up to that op
  // instead, neighbours get disjoint bytes and need no barrier between them (in a loop, also
  // the last and the first round trip of its body): taken when it costs little memory (at
  // most kSpreadBytes, or no more than reuse needs).
  std::vector<SharedBuffer> reused = planner.buffers;
  const int64_t reuse_bytes = allocate_buffers(reused);
  std::vector<SharedBuffer> spread = planner.buffers;
  for (SharedBuffer& b : spread) {
    for (const SharedBuffer& o : planner.buffers) {
      if (o.first > b.first && (b.last == b.first || o.first < b.last)) b.last = o.first;
    }
  }
  // A loop's back edge: its last round trip is followed by its first. The last ones' bytes,
  // kept live from the first, stay apart from every round trip of the body.
  for (const auto& [begin, end] : planner.loops) {
    if (end - begin < 2 || planner.buffers[begin].first == planner.buffers[end - 1].first) continue;
    for (size_t i = begin; i < end; ++i) {
      if (planner.buffers[i].first == planner.buffers[end - 1].first) spread[i].first = planner.buffers[begin].first;
    }
  }
  const int64_t spread_bytes = allocate_buffers(spread);
  planner.buffers = spread_bytes <= std::max(reuse_bytes, kSpreadBytes) ? spread : reused;
  // Attributes in the order of each op's buffers (set whole: a second run replaces them).
  std::vector<Op*> ops;
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> lists;
  for (size_t i = 0; i < planner.buffers.size(); ++i) {
    Op* op = planner.owners[i];
    if (ops.empty() || ops.back() != op) {
      ops.push_back(op);
      lists.emplace_back();
    }
    lists.back().first.push_back(planner.buffers[i].offset);
    lists.back().second.push_back(planner.buffers[i].size);
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    ops[i]->set_attr("shared_offsets", lists[i].first);
    ops[i]->set_attr("shared_sizes", lists[i].second);
  }
}

}  // namespace tritium::gpu

// allocate_shared (allocate_shared.h): the buffers each op needs, sized from the layouts in
// its operands' types, then one first-fit allocation over their live intervals.
#include "gpu/allocate_shared.h"

#include <algorithm>

#include "gpu/assign_layouts.h"
#include "ir/layout.h"

namespace tritium::gpu {

namespace {

using ir::LinearLayout;
using ir::Op;
using ir::OpKind;

int64_t element_bytes(const ir::Type* type) {
  const ir::Type* e = type->element();
  if (e->is_pointer()) return 8;
  return std::max(1, ir::bit_width(e->scalar_kind()) / 8);
}

int64_t value_bytes(const ir::Value* v) { return v->type()->num_elements() * element_bytes(v->type()); }

int popcount(int64_t v) { return __builtin_popcountll(static_cast<uint64_t>(v)); }

// A broadcast's source element of result element e: the bits of grown dimensions dropped.
struct Projection {
  std::vector<int64_t> from, to;
};
int64_t broadcast_source_bits(int64_t e, const void* context) {
  const auto& p = *static_cast<const Projection*>(context);
  int64_t source = 0, stride = 1;
  for (int d = static_cast<int>(p.to.size()) - 1; d >= 0; --d) {
    int64_t index = e % p.to[d];
    e /= p.to[d];
    if (p.from[d] != 1) source += index * stride;
    stride *= p.from[d];
  }
  return source;
}

struct Request {
  Op* op;
  int64_t size;
};

class Planner {
 public:
  // Numbers ops in program order; collects each op's scratch.
  void walk(ir::Region& region) {
    for (auto& op : region.ops()) {
      int64_t index = next_++;
      for (const auto& r : op->regions()) walk(*r);
      scratch(*op, index);
    }
  }

  std::vector<SharedBuffer> buffers;
  std::vector<Op*> owners;  // the op of each buffer

 private:
  void add(Op& op, int64_t index, int64_t size) {
    if (size <= 0) return;
    SharedBuffer b;
    b.size = size;
    b.first = b.last = index;
    buffers.push_back(b);
    owners.push_back(&op);
  }

  void scratch(Op& op, int64_t index) {
    switch (op.kind()) {
      case OpKind::Reduce:
      case OpKind::Scan: {
        // Across warps through shared memory: one slot per warp along the axis for each
        // (outer, inner) position of the result (a scan: for each element).
        int axis = static_cast<int>(op.int_attr("axis"));
        for (int i = 0; i < op.num_operands(); ++i) {
          const ir::Layout* in = op.operand(i)->type()->layout();
          if (in == nullptr) continue;
          int warps = popcount(in->linear().mask_along(LinearLayout::kWarp, axis));
          if (warps == 0) continue;
          int64_t positions = op.kind() == OpKind::Scan ? op.operand(i)->type()->num_elements()
                                                        : op.operand(i)->type()->num_elements() / in->shape()[axis];
          add(op, index, positions * (int64_t{1} << warps) * element_bytes(op.operand(i)->type()));
        }
        break;
      }
      case OpKind::Histogram: add(op, index, op.int_attr("num_bins") * 4); break;
      case OpKind::Join:
      case OpKind::Cat:
      case OpKind::Split:
        // A round trip of the sources (conservative: a move that stays in its threads still
        // reserves it).
        for (const ir::Value* v : op.operands()) {
          if (v->type()->is_block() && !is_uniform(v)) add(op, index, value_bytes(v));
        }
        break;
      case OpKind::Broadcast: {
        const ir::Value* in = op.operand(0);
        const ir::Layout* from = in->type()->layout();
        const ir::Layout* to = op.result()->type()->layout();
        if (!in->type()->is_block() || is_uniform(in) || from == nullptr || to == nullptr) break;
        Projection p{in->type()->shape(), op.result()->type()->shape()};
        if (!LinearLayout::in_thread(from->linear(), to->linear(), broadcast_source_bits, &p)) add(op, index, value_bytes(in));
        break;
      }
      default: break;
    }
    // Conversions of operands into the layout the op wants.
    for (int i = 0; i < op.num_operands(); ++i) {
      const ir::Value* v = op.operand(i);
      const ir::Layout* want = wanted_layout(op, i);
      const ir::Layout* have = v->type()->layout();
      if (want == nullptr || have == nullptr || want == have || is_uniform(v)) continue;
      if (!LinearLayout::in_thread(have->linear(), want->linear())) add(op, index, value_bytes(v));
    }
  }

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

void allocate_shared(ir::Function& function, const GpuOptions&) {
  Planner planner;
  planner.walk(function.body());
  allocate_buffers(planner.buffers);
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

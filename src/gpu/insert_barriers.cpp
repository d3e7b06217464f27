// insert_barriers (insert_barriers.h): a forward walk over the structured control flow with
// the bytes of shared memory that threads may still be reading or writing since the last
// barrier on some path ("pending"), to a fixpoint around loops.
//
// The model of an op with buffers (allocate_shared), which the emitter keeps: before its
// first internal barrier it writes its buffers (and may read them), then meets that
// barrier, and after its last one it reads them. So its accesses race with pending ones
// exactly when their bytes overlap (write after read, write after write, and a read of
// another thread's write): then it needs a barrier before it. After it, only its own
// buffers are pending. debug_barrier clears everything; a branch joins the pending bytes
// of both sides; a loop's body starts with what comes before it and what its back edge
// brings, and its exit may follow zero iterations. Round trips the emitter still places
// itself (fragment conversions, dot staging, uniform decisions, scalar atomics) meet a
// barrier before and after on their own, so leaving them out only keeps barriers here.
#include "gpu/insert_barriers.h"

#include <algorithm>

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;

// Disjoint byte ranges [first, second), sorted.
using Bytes = std::vector<std::pair<int64_t, int64_t>>;

Bytes normalized(Bytes b) {
  std::sort(b.begin(), b.end());
  Bytes out;
  for (const auto& r : b) {
    if (r.first >= r.second) continue;
    if (!out.empty() && r.first <= out.back().second) {
      out.back().second = std::max(out.back().second, r.second);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Bytes joined(const Bytes& a, const Bytes& b) {
  Bytes all = a;
  all.insert(all.end(), b.begin(), b.end());
  return normalized(std::move(all));
}

bool overlap(const Bytes& a, const Bytes& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x.first < y.second && y.first < x.second) return true;
    }
  }
  return false;
}

Bytes buffers_of(const Op& op) {
  if (!op.has_attr("shared_offsets")) return {};
  const std::vector<int64_t>& offsets = op.ints_attr("shared_offsets");
  const std::vector<int64_t>& sizes = op.ints_attr("shared_sizes");
  Bytes b;
  for (size_t i = 0; i < offsets.size() && i < sizes.size(); ++i) b.emplace_back(offsets[i], offsets[i] + sizes[i]);
  return normalized(std::move(b));
}

class Placer {
 public:
  // The pending bytes after `region`, entered with `pending`; marks the ops that need a
  // barrier before them (marks only accumulate, so a loop's fixpoint keeps every one).
  Bytes region(ir::Region& region, Bytes pending) {
    for (auto& op : region.ops()) pending = this->op(*op, std::move(pending));
    return pending;
  }

 private:
  Bytes op(Op& op, Bytes in) {
    switch (op.kind()) {
      case OpKind::DebugBarrier: return {};
      case OpKind::If: return joined(region(*op.region(0), in), region(*op.region(1), in));
      case OpKind::For: {
        Bytes head = in;
        for (;;) {
          Bytes next = joined(in, region(*op.region(0), head));
          if (next == head) return head;
          head = std::move(next);
        }
      }
      case OpKind::While: {
        // before -> (condition) -> after -> before ...; the loop leaves after `before`.
        Bytes head = in;
        for (;;) {
          Bytes tested = region(*op.region(0), head);
          Bytes next = joined(in, region(*op.region(1), tested));
          if (next == head) return tested;
          head = std::move(next);
        }
      }
      default: break;
    }
    Bytes mine = buffers_of(op);
    if (mine.empty()) return in;  // no shared memory of its own (combine regions are scalar)
    if (overlap(in, mine)) op.set_attr("barrier", int64_t{1});
    return mine;
  }
};

void clear(ir::Region& region) {
  for (auto& op : region.ops()) {
    if (op->has_attr("barrier")) op->set_attr("barrier", int64_t{0});
    for (auto& inner : op->regions()) clear(*inner);
  }
}

}  // namespace

void insert_barriers(ir::Function& function, const GpuOptions&) {
  clear(function.body());  // a second run decides afresh
  Placer placer;
  placer.region(function.body(), {});
}

bool barrier_before(const ir::Op& op) {
  const ir::AttrValue* v = op.find_attr("barrier");
  return v != nullptr && std::holds_alternative<int64_t>(*v) && std::get<int64_t>(*v) != 0;
}

bool op_may_sync(const ir::Op& op) {
  return op.kind() == OpKind::DebugBarrier || barrier_before(op) || op.has_attr("shared_offsets");
}

}  // namespace tritium::gpu

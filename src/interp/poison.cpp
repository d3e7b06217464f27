// Poison tracking of the interpreter: which lanes hold undefined results, how that moves
// through pure ops, and the located error once a poisoned lane is observed.
#include "interp/poison.h"

#include <algorithm>

#include "support/diagnostics.h"

namespace tritium::interp {

using ir::OpKind;

void poison_lane(Buffer& buffer, int64_t i, const ir::Op& origin, const char* reason) {
  if (!buffer.poisoned()) {
    buffer.poison.assign(buffer.slots.size(), 0);
    buffer.poison_origin = &origin;
    buffer.poison_reason = reason;
  }
  buffer.poison[i] = 1;
}

namespace {

// The source lane of each result lane of a broadcast (size-1 dimensions repeat). Only
// runs for poisoned values, so a division per dimension is fine.
int64_t broadcast_source(int64_t out, const std::vector<int64_t>& in_shape, const std::vector<int64_t>& out_shape) {
  int64_t source = 0, stride = 1;
  for (int d = static_cast<int>(out_shape.size()) - 1; d >= 0; --d) {
    int64_t index = out % out_shape[d];
    out /= out_shape[d];
    if (in_shape[d] != 1) source += index * stride;
    stride *= in_shape[d];
  }
  return source;
}

}  // namespace

void propagate_poison(OpKind kind, const Buffer* const* operands, int count, Buffer& result) {
  const Buffer* first = nullptr;
  for (int k = 0; k < count && first == nullptr; ++k) {
    if (operands[k]->poisoned()) first = operands[k];
  }
  if (first == nullptr) {
    result.poison_origin = nullptr;
    return;
  }
  int64_t n = result.size();
  result.poison.assign(static_cast<size_t>(n), 0);
  uint8_t* out = result.poison.data();
  const Buffer& a = *operands[0];
  switch (kind) {
    case OpKind::Splat:
      std::fill(out, out + n, a.poison[0]);
      break;
    case OpKind::Broadcast:
      for (int64_t i = 0; i < n; ++i) out[i] = a.poison[broadcast_source(i, a.type->shape(), result.type->shape())];
      break;
    case OpKind::Select: {
      // Only the side a lane selects matters: tl.where(y != 0, x // y, 0) is fine.
      const Buffer& t = *operands[1];
      const Buffer& f = *operands[2];
      for (int64_t i = 0; i < n; ++i) {
        const Buffer& chosen = a.data()[i].i ? t : f;
        out[i] = (a.poisoned() && a.poison[i]) || (chosen.poisoned() && chosen.poison[i]);
      }
      break;
    }
    default:
      // Elementwise ops (operands of the result's shape) and expand_dims/reshape (the
      // row-major order is kept): lane i comes from lane i.
      for (int k = 0; k < count; ++k) {
        if (!operands[k]->poisoned()) continue;
        const uint8_t* in = operands[k]->poison.data();
        for (int64_t i = 0; i < n; ++i) out[i] |= in[i];
      }
      break;
  }
  if (std::find(out, out + n, 1) == out + n) {
    result.poison_origin = nullptr;
    return;
  }
  result.poison_origin = first->poison_origin;
  result.poison_reason = first->poison_reason;
}

void check_poison(const Buffer& value, const Buffer* mask, const ir::Op& use, const char* role) {
  if (!value.poisoned()) return;
  for (int64_t i = 0; i < value.size(); ++i) {
    if (!value.poison[i] || (mask && !mask->data()[i].i)) continue;
    std::string where = use.loc().known() ? " at line " + std::to_string(use.loc().line) : "";
    error_at(value.poison_origin->loc(), std::string(value.poison_reason) + " (the result reaches " + role +
                                             " of '" + use.name() + "'" + where + ")");
  }
}

}  // namespace tritium::interp

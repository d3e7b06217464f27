// Data movement for trans/join/split/cat (eval_shape.h): the source lane of every result
// lane, then one copy loop that moves slots and poison alike.
#include "interp/eval_shape.h"

#include "interp/poison.h"
#include "support/diagnostics.h"

namespace tritium::interp {

namespace {

struct Source {
  int operand;
  int64_t lane;
};

// Row-major strides of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

// For trans: the result's shape and, per result dimension, the operand's stride.
struct Permutation {
  std::vector<int64_t> shape;
  std::vector<int64_t> source_stride;
};

// Where lane `lane` of result `r` of `op` comes from.
Source source_of(const ir::Op& op, int r, int64_t lane, const std::vector<const Buffer*>& operands,
                 const Permutation& perm) {
  switch (op.kind()) {
    case ir::OpKind::Trans: {
      int64_t source = 0;
      for (int d = static_cast<int>(perm.shape.size()) - 1; d >= 0; --d) {
        source += (lane % perm.shape[d]) * perm.source_stride[d];
        lane /= perm.shape[d];
      }
      return {0, source};
    }
    case ir::OpKind::Flip: {
      // The coordinate along the axis reversed: lane's digit there, d, becomes n - 1 - d.
      const int64_t n = perm.shape[0], inner = perm.source_stride[0];
      const int64_t d = lane / inner % n;
      return {0, lane + (n - 1 - 2 * d) * inner};
    }
    case ir::OpKind::Join: return {static_cast<int>(lane % 2), lane / 2};
    case ir::OpKind::Split: return {0, lane * 2 + r};
    case ir::OpKind::Cat: {
      int64_t n = operands[0]->size();
      return lane < n ? Source{0, lane} : Source{1, lane - n};
    }
    default: internal_error("interpreter", std::string("'") + op.name() + "' does not move data", op.loc());
  }
}

}  // namespace

void eval_move(const ir::Op& op, const std::vector<const Buffer*>& operands, const std::vector<Buffer*>& results) {
  Permutation perm;
  if (op.kind() == ir::OpKind::Trans) {
    const std::vector<int64_t>& in_shape = operands[0]->type->shape();
    std::vector<int64_t> in_strides = strides_of(in_shape);
    for (int64_t d : op.ints_attr("order")) {
      perm.shape.push_back(in_shape[d]);
      perm.source_stride.push_back(in_strides[d]);
    }
  }
  if (op.kind() == ir::OpKind::Flip) {  // the axis's size and the elements it steps over
    const std::vector<int64_t>& in_shape = operands[0]->type->shape();
    const int64_t axis = op.int_attr("axis");
    perm.shape = {in_shape[axis]};
    perm.source_stride = {strides_of(in_shape)[axis]};
  }
  for (int r = 0; r < static_cast<int>(results.size()); ++r) {
    Buffer& out = *results[r];
    out.poison_origin = nullptr;
    for (int64_t lane = 0; lane < out.size(); ++lane) {
      Source s = source_of(op, r, lane, operands, perm);
      const Buffer& in = *operands[s.operand];
      out.data()[lane] = in.data()[s.lane];
      if (in.poisoned() && in.poison[s.lane]) poison_lane(out, lane, *in.poison_origin, in.poison_reason);
    }
  }
}

void eval_histogram(const ir::Op& op, const Buffer& x, const Buffer* mask, Buffer& result) {
  check_poison(x, mask, op, "the input");
  int64_t bins = result.size();
  for (int64_t b = 0; b < bins; ++b) result.data()[b].i = 0;
  bool is_unsigned = !ir::is_signed(x.kind);
  for (int64_t i = 0; i < x.size(); ++i) {
    if (mask && !mask->data()[i].i) continue;
    int64_t v = x.data()[i].i;
    bool in_range = is_unsigned ? static_cast<uint64_t>(v) < static_cast<uint64_t>(bins) : v >= 0 && v < bins;
    if (in_range) ++result.data()[v].i;
  }
}

void eval_gather(const ir::Op& op, const Buffer& src, const Buffer& index, Buffer& result) {
  const std::vector<int64_t>& src_shape = src.type->shape();
  const std::vector<int64_t>& index_shape = index.type->shape();
  const int rank = static_cast<int>(index_shape.size());
  const int axis = static_cast<int>(op.int_attr("axis"));
  const int64_t n = src_shape[static_cast<size_t>(axis)];
  const bool is_unsigned = !ir::is_signed(index.kind);
  // Row-major strides of the source; the index is walked coordinate by coordinate.
  std::vector<int64_t> src_stride(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) src_stride[d] = src_stride[d + 1] * src_shape[d + 1];
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  result.poison_origin = nullptr;
  for (int64_t lane = 0; lane < index.size(); ++lane) {
    int64_t at = 0;  // the source lane, the axis coordinate left out
    for (int d = 0; d < rank; ++d) {
      if (d != axis) at += coord[d] * src_stride[d];
    }
    const int64_t i = index.data()[lane].i;
    const bool in_range = is_unsigned ? static_cast<uint64_t>(i) < static_cast<uint64_t>(n) : i >= 0 && i < n;
    if (index.poisoned() && index.poison[lane]) {
      result.data()[lane].i = 0;
      poison_lane(result, lane, *index.poison_origin, index.poison_reason);
    } else if (in_range) {
      const int64_t s = at + i * src_stride[axis];
      result.data()[lane] = src.data()[s];
      if (src.poisoned() && src.poison[s]) poison_lane(result, lane, *src.poison_origin, src.poison_reason);
    } else if (result.is_float) {
      result.data()[lane].f = 0.0;
    } else {
      result.data()[lane].i = 0;
    }
    for (int d = rank - 1; d >= 0; --d) {  // the next coordinate, row-major
      if (++coord[d] < index_shape[d]) break;
      coord[d] = 0;
    }
  }
}

}  // namespace tritium::interp

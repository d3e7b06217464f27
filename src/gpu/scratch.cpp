// scratch_slots and the emitter's decisions it shares (scratch.h): which round trips an op
// makes and how many bytes each touches, from the flat layout of its values.
#include "gpu/scratch.h"

#include <algorithm>
#include <bit>

#include "gpu/assign_layouts.h"
#include "gpu/conversion.h"
#include "ir/attrs.h"
#include "ir/linear_layout.h"
#include "support/diagnostics.h"

namespace tritium::gpu {

using ir::LinearLayout;
using ir::OpKind;
using nvptx::Layout;
using nvptx::log2_exact;

namespace {

Layout flat_layout(const ir::Type* type, const VectorWidths& widths, int threads) {
  int64_t n = type->is_block() ? type->num_elements() : 1;
  return Layout(n, threads, widths.vector(n));
}

std::vector<int> dim_bits(const std::vector<int64_t>& shape) {
  std::vector<int> bits;
  for (int64_t d : shape) bits.push_back(log2_exact(d));
  return bits;
}

// The elements below the axis and along it.
void around_axis(const ir::Type* type, int64_t axis, int64_t* inner, int64_t* axis_len) {
  *inner = 1;
  *axis_len = 1;
  const auto& shape = type->shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) > axis) *inner *= shape[d];
    if (static_cast<int64_t>(d) == axis) *axis_len = shape[d];
  }
}

}  // namespace

int64_t scratch_element_bytes(const ir::Type* type) {
  const ir::Type* e = type->element();
  if (e->is_pointer()) return 8;
  return std::max(1, ir::bit_width(e->scalar_kind()) / 8);
}

ReduceMasks reduce_masks(const ir::Type* in_type, int64_t axis, const Layout& layout) {
  LinearLayout linear = LinearLayout::flat(in_type->shape(), layout.threads(), layout.vector());
  int a = static_cast<int>(axis);
  ReduceMasks m;
  m.reg = static_cast<int>(linear.mask_along(LinearLayout::kRegister, a));
  m.lane = static_cast<int>(linear.mask_along(LinearLayout::kLane, a));
  m.warp = static_cast<int>(linear.mask_along(LinearLayout::kWarp, a) << 5);
  m.every_thread_valid = linear.free_mask(LinearLayout::kLane) == 0 && linear.free_mask(LinearLayout::kWarp) == 0;
  return m;
}

namespace {

// A thread's partial results of a reduction across warps: its registers outside the axis.
int64_t reduce_keys(const Layout& in, const ReduceMasks& masks) {
  int64_t keys = 0;
  for (int r = 0; r < in.num_regs(); ++r) keys += (r & masks.reg) == 0 ? 1 : 0;
  return keys;
}

}  // namespace

int64_t reduce_columns(const ReduceMasks& masks, int threads) {
  return int64_t{threads} >> std::popcount(static_cast<uint32_t>(masks.lane));
}

bool reduce_reads_owned(const ir::Op& op, const Layout& in, const Layout& result, const ReduceMasks& masks) {
  if (masks.warp == 0) return false;
  const ir::Type* in_type = op.operand(0)->type();
  if (reduce_local_keys(in_type, op.int_attr("axis"), in, result, masks)) return false;
  const int64_t keys = reduce_keys(in, masks);
  const int64_t columns = reduce_columns(masks, in.threads());
  int64_t per_key = 0;
  for (const ir::Value* v : op.operands()) per_key += round16(scratch_element_bytes(v->type()) * columns);
  return kScratchChunk / per_key >= keys;
}

std::optional<std::vector<int>> reduce_local_keys(const ir::Type* in_type, int64_t axis, const Layout& in,
                                                  const Layout& result, const ReduceMasks& masks) {
  int64_t inner = 1, axis_len = 1;
  around_axis(in_type, axis, &inner, &axis_len);
  auto input_element = [&](int64_t e) { return (e / inner) * axis_len * inner + e % inner; };
  const int reduced_threads = masks.lane | masks.warp;
  std::vector<int> key_of(result.num_regs(), -1);
  for (int r = 0; r < result.num_regs(); ++r) {
    for (int t = 0; t < result.threads(); ++t) {
      int64_t e = result.element(t, r);
      if (e >= result.num_elements()) continue;
      int64_t source = input_element(e);
      int key = in.reg_of(source) & ~masks.reg;
      if (((in.owner(source) ^ t) & ~reduced_threads) != 0) return std::nullopt;
      if (key_of[r] != -1 && key_of[r] != key) return std::nullopt;
      key_of[r] = key;
    }
  }
  for (int& k : key_of) k = std::max(k, 0);
  return key_of;
}

int64_t MoveMap::apply(int64_t e) const {
  int64_t s = constant;
  for (size_t k = 0; k < from.size(); ++k) s |= ((e >> k) & 1) << from[k];
  return s ^ flip;
}

MoveMap move_map(const ir::Op& op, int result) {
  MoveMap m;
  const ir::Type* in = op.operand(0)->type();
  int in_bits = log2_exact(in->is_block() ? in->num_elements() : 1);
  switch (op.kind()) {
    case OpKind::Trans: {
      // Result dim d is operand dim order[d]; walk the result's bits from the innermost dim.
      const std::vector<int64_t>& order = op.ints_attr("order");
      std::vector<int> sizes = dim_bits(in->shape());
      std::vector<int> start(sizes.size(), 0);  // the operand's lowest bit of each dim
      for (int d = static_cast<int>(sizes.size()) - 2; d >= 0; --d) start[d] = start[d + 1] + sizes[d + 1];
      for (int d = static_cast<int>(order.size()) - 1; d >= 0; --d) {
        for (int b = 0; b < sizes[order[d]]; ++b) m.from.push_back(start[order[d]] + b);
      }
      return m;
    }
    case OpKind::Flip: {
      // Every bit where it was; the axis's (a power of two) inverted: d -> n - 1 - d.
      std::vector<int> sizes = dim_bits(in->shape());
      const int64_t axis = op.int_attr("axis");
      int low = 0;
      for (int64_t d = in->rank() - 1; d > axis; --d) low += sizes[d];
      for (int b = 0; b < in_bits; ++b) m.from.push_back(b);
      m.flip = ((int64_t{1} << sizes[axis]) - 1) << low;
      return m;
    }
    case OpKind::Join:
      // Result bit 0 picks the operand; the others are the operand's index.
      m.from.push_back(in_bits);
      for (int b = 0; b < in_bits; ++b) m.from.push_back(b);
      return m;
    case OpKind::Split:
      for (int b = 1; b < in_bits; ++b) m.from.push_back(b);
      m.constant = result;
      return m;
    case OpKind::Cat:
      for (int b = 0; b <= in_bits; ++b) m.from.push_back(b);
      return m;
    default: internal_error("gpu", std::string("'") + op.name() + "' does not move elements", op.loc());
  }
}

std::optional<ShuffleMove> shuffle_move(const ir::Op& op, const Layout& source, const Layout& out) {
  if (op.num_operands() != 1 || op.num_results() != 1 || !op.result()->type()->is_block() ||
      source.num_elements() != out.num_elements()) {
    return std::nullopt;
  }
  const MoveMap map = move_map(op, 0);
  ShuffleMove m;
  m.reg.assign(out.num_regs(), -1);
  m.lane_xor.assign(out.num_regs(), -1);
  for (int r = 0; r < out.num_regs(); ++r) {
    for (int t = 0; t < out.threads(); ++t) {
      const int64_t e = out.element(t, r);
      if (e >= out.num_elements()) return std::nullopt;  // every lane takes part
      const int64_t s = map.apply(e);
      const int lanes = source.owner(s) ^ t;
      if (lanes >= 32) return std::nullopt;  // another warp's
      if (m.reg[r] == -1) {
        m.reg[r] = source.reg_of(s);
        m.lane_xor[r] = lanes;
      } else if (m.reg[r] != source.reg_of(s) || m.lane_xor[r] != lanes) {
        return std::nullopt;
      }
    }
  }
  return m;
}

std::optional<LocalMove> local_move(const ir::Op& op, int result, const Layout& source, const Layout& out) {
  if (!op.result(result)->type()->is_block()) return std::nullopt;  // a scalar split: read by every thread
  MoveMap map = move_map(op, result);
  const int64_t per_operand = source.num_elements();
  std::optional<std::vector<int>> regs = nvptx::local_moves(source, out, [&](int64_t e) { return map.apply(e) % per_operand; });
  if (!regs) return std::nullopt;
  LocalMove m;
  m.reg = *regs;
  m.operand.assign(out.num_regs(), 0);
  if (op.num_operands() == 2) {
    // The operand must not depend on the thread either: a bit of e from the register part.
    std::vector<int> operand_of(out.num_regs(), -1);
    for (int r = 0; r < out.num_regs(); ++r) {
      for (int t = 0; t < out.threads(); ++t) {
        int64_t e = out.element(t, r);
        if (e >= out.num_elements()) continue;
        int j = static_cast<int>(map.apply(e) / per_operand);
        if (operand_of[r] != -1 && operand_of[r] != j) return std::nullopt;
        operand_of[r] = j;
      }
      m.operand[r] = std::max(operand_of[r], 0);
    }
  }
  return m;
}

bool trans_staged_by_dots(const ir::Op& op) {
  if (op.kind() != OpKind::Trans || op.result()->type()->rank() != 2 || !op.result()->has_uses()) return false;
  const std::vector<int64_t>& order = op.ints_attr("order");
  if (order.size() != 2 || order[0] != 1 || order[1] != 0) return false;
  for (const ir::Use& use : op.result()->uses()) {
    if (use.user->kind() != OpKind::Dot || use.index > 1) return false;
  }
  return true;
}

bool recomputable(const ir::Value* value, int* budget, const std::function<bool(const ir::Value*)>& uniform) {
  if (!value->type()->is_block()) return true;  // a scalar: every thread has it
  if (uniform && uniform(value)) return true;
  const ir::Op* def = value->def();
  if (def == nullptr) return false;  // a block carried by a loop: only its owners know it
  switch (def->kind()) {
    case OpKind::MakeRange:
    case OpKind::Constant:
    case OpKind::Splat: return true;
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::ConvertLayout:  // the same elements, elsewhere
    case OpKind::DescriptorTile:  // the pointers as they are
    case OpKind::Trans:          // the same elements, indices permuted
    case OpKind::Broadcast: return recomputable(def->operand(0), budget, uniform);
    default: break;
  }
  if (!ir::has_trait(def->kind(), ir::kElementwise) || !ir::is_pure(*def)) return false;
  if (--*budget < 0) return false;
  for (const ir::Value* operand : def->operands()) {
    if (!recomputable(operand, budget, uniform)) return false;
  }
  return true;
}

std::vector<int64_t> scratch_slots(const ir::Op& op, const VectorWidths& widths, int threads) {
  switch (op.kind()) {
    case OpKind::Reduce: {
      const ir::Type* in_type = op.operand(0)->type();
      if (!in_type->is_block()) return {};
      const int64_t axis = op.int_attr("axis");
      Layout layout = flat_layout(in_type, widths, threads);
      ReduceMasks masks = reduce_masks(in_type, axis, layout);
      std::vector<int64_t> bytes;
      for (const ir::Value* v : op.operands()) bytes.push_back(scratch_element_bytes(v->type()));
      std::vector<int64_t> slots(3, 0);
      if (masks.warp != 0) {
        // emit_reduce's chunks of keys; the first is the largest.
        const int64_t keys = reduce_keys(layout, masks);
        int64_t per_key = 0;
        const int64_t columns = reduce_columns(masks, threads);
        for (int64_t b : bytes) per_key += round16(b * columns);
        int64_t chunk = std::min(keys, std::max<int64_t>(1, kScratchChunk / per_key));
        for (int64_t b : bytes) slots[kReduceAcrossWarps] += round16(chunk * columns * b);
      }
      const ir::Type* out_type = op.result(0)->type();
      if (out_type->is_block()) {
        Layout result = flat_layout(out_type, widths, threads);
        if (!reduce_local_keys(in_type, axis, layout, result, masks) && !reduce_reads_owned(op, layout, result, masks)) {
          int64_t at = 0;
          for (int64_t b : bytes) at = round16(at) + result.num_elements() * b;
          slots[kReducePlacement] = at;
        }
      } else if (!masks.every_thread_valid) {
        slots[kReduceScalar] = 8 * op.num_operands();
      }
      return slots;
    }
    case OpKind::Scan: {
      const ir::Type* type = op.operand(0)->type();
      Layout layout = flat_layout(type, widths, threads);
      ReduceMasks masks = reduce_masks(type, op.int_attr("axis"), layout);
      if (masks.warp == 0) return {};
      int64_t per_reg = 0;
      for (const ir::Value* v : op.operands()) per_reg += round16(scratch_element_bytes(v->type())) * threads;
      int64_t chunk = std::min<int64_t>(layout.num_regs(), std::max<int64_t>(1, kScratchChunk / per_reg));
      int64_t at = 0;
      for (const ir::Value* v : op.operands()) at += round16(chunk * threads * scratch_element_bytes(v->type()));
      return {at};
    }
    case OpKind::Histogram: return {op.int_attr("num_bins") * 4};
    case OpKind::Gather: {  // the source at its flat index
      const ir::Type* src = op.operand(0)->type();
      return {src->num_elements() * scratch_element_bytes(src)};
    }
    case OpKind::Trans:
    case OpKind::Flip:
    case OpKind::Join:
    case OpKind::Split:
    case OpKind::Cat: {
      if (trans_staged_by_dots(op)) return {};  // its dots stage the source
      const ir::Type* in_type = op.operand(0)->type();
      bool all_uniform = true;
      for (const ir::Value* v : op.operands()) all_uniform = all_uniform && is_uniform(v);
      if (all_uniform && op.kind() != OpKind::Join && op.kind() != OpKind::Cat) return {};
      Layout source = flat_layout(in_type, widths, threads);
      for (int r = 0; r < op.num_results(); ++r) {
        const ir::Type* out_type = op.result(r)->type();
        Layout out = flat_layout(out_type->is_block() ? out_type : in_type, widths, threads);
        if (!local_move(op, r, source, out) && !shuffle_move(op, source, out)) {
          return {source.num_elements() * op.num_operands() * scratch_element_bytes(in_type)};
        }
      }
      return {};
    }
    case OpKind::Broadcast: {
      const ir::Value* in = op.operand(0);
      const ir::Type* from = in->type();
      const ir::Type* to = op.result()->type();
      if (!from->is_block() || from->shape() == to->shape() || is_uniform(in)) return {};
      // A line held in its broadcasts' slot (coalesce.cpp's lines_in_slot): in place.
      if (held_in_slot(in, widths, threads) &&
          !broadcast_moves(held_layout(in, widths, threads), held_layout(op.result(), widths, threads)).empty()) {
        return {};
      }
      Layout source = flat_layout(from, widths, threads);
      Layout result = flat_layout(to, widths, threads);
      // Into a slot (conversion.h): recomputed or through shared memory, never in place.
      const bool slot = held_in_slot(op.result(), widths, threads);
      if (!slot && nvptx::local_broadcast(from->shape(), to->shape(), source, result)) return {};
      int budget = kRecomputeBudget;
      if (recomputable(in, &budget)) return {};
      if (source.num_elements() == 1) return {8};  // thread 0's element to everyone
      return {source.num_elements() * scratch_element_bytes(from)};
    }
    case OpKind::ConvertLayout: {
      if (staged_by_dots(op, widths, threads)) return {};
      ConvertPlan plan = plan_convert(op, widths, threads);
      if (plan.kind == ConvertPlan::Kind::kShared) return {plan.bytes};
      return {};
    }
    default: return {};
  }
}

}  // namespace tritium::gpu

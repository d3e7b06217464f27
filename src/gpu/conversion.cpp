// held_in_slot and plan_convert (conversion.h): the decisions the allocator and the emitter
// share for convert_layout.
#include "gpu/conversion.h"

#include <algorithm>
#include <unordered_map>

#include "gpu/assign_layouts.h"
#include "gpu/default_layout.h"
#include "gpu/scratch.h"
#include "ir/layout.h"

namespace tritium::gpu {

using ir::LinearLayout;
using ir::OpKind;

namespace {

LinearLayout flat_of(const ir::Type* type, const VectorWidths& widths, int threads) {
  return LinearLayout::flat(type->shape(), threads, widths.vector(type->num_elements()));
}

bool no_free_bits(const LinearLayout& l) {
  for (int d = 0; d < LinearLayout::kInDims; ++d) {
    if (l.free_mask(static_cast<LinearLayout::InDim>(d)) != 0) return false;
  }
  return true;
}

int64_t lanes_warps(const LinearLayout& l) { return l.in_size(LinearLayout::kLane) * l.in_size(LinearLayout::kWarp); }

// Per result register, the source register holding its element in every thread; empty
// when some element lives on another thread or in a register that depends on the thread.
std::vector<int> register_moves(const LinearLayout& from, const LinearLayout& to) {
  if (!no_free_bits(from) || !no_free_bits(to) || lanes_warps(from) != lanes_warps(to)) return {};
  const int64_t lanes = from.in_size(LinearLayout::kLane);
  std::vector<int> regs(static_cast<size_t>(to.in_size(LinearLayout::kRegister)), -1);
  std::unordered_map<int64_t, int> held;  // element -> source register, of one thread
  for (int64_t t = 0; t < lanes_warps(from); ++t) {
    held.clear();
    for (int64_t r = 0; r < from.in_size(LinearLayout::kRegister); ++r) {
      held[from.apply(r, t % lanes, t / lanes)] = static_cast<int>(r);
    }
    for (size_t r = 0; r < regs.size(); ++r) {
      auto it = held.find(to.apply(static_cast<int64_t>(r), t % lanes, t / lanes));
      if (it == held.end() || (regs[r] != -1 && regs[r] != it->second)) return {};
      regs[r] = it->second;
    }
  }
  return regs;
}

// Scalar shared-memory accesses of warp 0 in `l`, one register at a time: the wavefronts
// they take (per register, the most distinct 4-byte words in one bank).
int64_t wavefronts(const LinearLayout& l, int64_t bytes, int64_t row, int64_t pad) {
  int64_t total = 0;
  const int64_t lanes = std::min<int64_t>(32, l.in_size(LinearLayout::kLane));
  for (int64_t r = 0; r < l.in_size(LinearLayout::kRegister); ++r) {
    std::unordered_map<int64_t, std::vector<int64_t>> banks;
    int64_t worst = 1;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      int64_t e = l.apply(r, lane, 0);
      int64_t word = (e + (e / row) * pad) * bytes / 4;
      std::vector<int64_t>& words = banks[word % 32];
      if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
      worst = std::max<int64_t>(worst, static_cast<int64_t>(words.size()));
    }
    total += worst;
  }
  return total;
}

}  // namespace

namespace {

bool laid_out(const ir::Type* type, const VectorWidths& widths, int threads) {
  if (!type->is_block() || type->layout() == nullptr || !layout_shape(type->shape())) return false;
  // coalesce's layouts run their vectors along another axis than the last: their accesses
  // are made in them even where the flat rule places the same elements (its V = 1 keeps a
  // column in each thread, but its accesses move one element each).
  const ir::Layout* l = type->layout();
  if (l->kind() == ir::Layout::Kind::Blocked && l->order()[0] != type->rank() - 1) return true;
  return !(l->linear() == flat_of(type, widths, threads));
}

}  // namespace

bool access_in_slot(const ir::Op& op, const VectorWidths& widths, int threads) {
  if (op.kind() == OpKind::Load) return laid_out(op.result()->type(), widths, threads);
  if (op.kind() != OpKind::Store) return false;
  const ir::Value* ptr = op.operand(0);
  return ptr->def() != nullptr && ptr->def()->kind() == OpKind::ConvertLayout && laid_out(ptr->type(), widths, threads);
}

namespace {

// Whether every thread holds `v` whole (a splat or a constant: read the same in any layout).
bool uniform_block(const ir::Value* v) {
  return !v->type()->is_block() ||
         (v->def() != nullptr && (v->def()->kind() == OpKind::Splat || v->def()->kind() == OpKind::Constant));
}

}  // namespace

namespace {

// elementwise_in_slot, looking at most `depth` ops up each chain (its cost stays bounded on
// any DAG; a longer chain is left in the flat rule, by the pass and the emitter alike).
bool in_slot_within(const ir::Op& op, const VectorWidths& widths, int threads, int depth) {
  if (depth == 0 || !ir::has_trait(op.kind(), ir::kElementwise) || op.num_results() != 1) return false;
  const ir::Type* type = op.result()->type();
  if (!laid_out(type, widths, threads)) return false;
  // Register r of every operand and of the result is the same element.
  if (type->layout()->linear().in_size(LinearLayout::kRegister) !=
      flat_of(type, widths, threads).in_size(LinearLayout::kRegister)) {
    return false;
  }
  bool any = false;
  for (const ir::Value* v : op.operands()) {
    if (uniform_block(v)) continue;
    const ir::Op* def = v->def();
    if (def == nullptr || v->type()->layout() != type->layout()) return false;
    // Loads made in the slot, and elementwise ops held there (coalesce.cpp builds the
    // chains in program order, so each link was judged before).
    bool held = def->kind() == OpKind::Load ? access_in_slot(*def, widths, threads)
                                            : def->has_attr(kSlotAttr) || in_slot_within(*def, widths, threads, depth - 1);
    if (!held) return false;
    any = true;
  }
  return any;
}

}  // namespace

bool elementwise_in_slot(const ir::Op& op, const VectorWidths& widths, int threads) {
  return in_slot_within(op, widths, threads, 6);
}

namespace {

// A value a `for` carries in a slot (kSlotCarriedAttr): its body argument or its result.
bool carried_in_slot(const ir::Value* value) {
  const ir::Op* loop = value->def();
  int64_t position = value->index();
  if (loop == nullptr) {
    loop = value->region() != nullptr ? value->region()->parent() : nullptr;
    position -= 1;  // argument 0 is the induction variable
  }
  if (loop == nullptr || loop->kind() != OpKind::For || position < 0) return false;
  if (!loop->has_attr(kSlotCarriedAttr)) return false;
  const std::vector<int64_t>& positions = loop->ints_attr(kSlotCarriedAttr);
  return std::find(positions.begin(), positions.end(), position) != positions.end();
}

}  // namespace

bool held_in_slot(const ir::Value* value, const VectorWidths& widths, int threads) {
  if (carried_in_slot(value)) return true;
  const ir::Op* def = value->def();
  if (def == nullptr) return false;
  if (def->kind() == OpKind::Load) return access_in_slot(*def, widths, threads);
  if (def->has_attr(kSlotAttr)) return true;
  if (def->kind() != OpKind::ConvertLayout && elementwise_in_slot(*def, widths, threads)) return true;
  if (def->kind() != OpKind::ConvertLayout || !laid_out(value->type(), widths, threads) || !value->has_uses()) return false;
  // A conversion into an access's own layout, read only by such accesses.
  for (const ir::Op* user : value->users()) {
    if (!access_in_slot(*user, widths, threads)) return false;
    const ir::Type* access = user->kind() == OpKind::Load ? user->result()->type() : user->operand(0)->type();
    if (access->layout() != value->type()->layout()) return false;
  }
  return true;
}

bool staged_by_dots(const ir::Op& convert, const VectorWidths& widths, int threads) {
  const ir::Value* result = convert.result();
  if (convert.kind() != OpKind::ConvertLayout || !held_in_slot(convert.operand(0), widths, threads) ||
      held_in_slot(result, widths, threads) || !result->has_uses()) {
    return false;
  }
  const auto& uses = result->uses();
  return std::all_of(uses.begin(), uses.end(),
                     [](const ir::Use& use) { return use.user->kind() == OpKind::Dot && use.index < 2; });
}

std::vector<int> broadcast_moves(const LinearLayout& from, const LinearLayout& to) {
  const std::vector<int64_t>& from_shape = from.shape();
  const std::vector<int64_t>& to_shape = to.shape();
  if (from_shape.size() != to_shape.size() || lanes_warps(from) != lanes_warps(to)) return {};
  // The source's flat index of a result element.
  auto source = [&](int64_t e) {
    std::vector<int64_t> at = to.coordinates(e);
    int64_t flat = 0;
    for (size_t d = 0; d < at.size(); ++d) flat = flat * from_shape[d] + (from_shape[d] == 1 ? 0 : at[d]);
    return flat;
  };
  const int64_t lanes = from.in_size(LinearLayout::kLane);
  std::vector<int> regs(static_cast<size_t>(to.in_size(LinearLayout::kRegister)), -1);
  std::unordered_map<int64_t, int> held;  // element -> source register, of one thread
  for (int64_t t = 0; t < lanes_warps(from); ++t) {
    held.clear();
    for (int64_t r = from.in_size(LinearLayout::kRegister); r-- > 0;) {
      held[from.apply(r, t % lanes, t / lanes)] = static_cast<int>(r);  // the lowest register wins
    }
    for (size_t r = 0; r < regs.size(); ++r) {
      auto it = held.find(source(to.apply(static_cast<int64_t>(r), t % lanes, t / lanes)));
      if (it == held.end() || (regs[r] != -1 && regs[r] != it->second)) return {};
      regs[r] = it->second;
    }
  }
  return regs;
}

LinearLayout held_layout(const ir::Value* value, const VectorWidths& widths, int threads) {
  if (held_in_slot(value, widths, threads)) return value->type()->layout()->linear();
  return flat_of(value->type(), widths, threads);
}

namespace {

// The registers of `l` in runs of consecutive elements of a row: the longest power of two g
// (at most 16 bytes of `bytes` each) whose first register bits step the element by 1, 2, ...,
// with every other basis a multiple of g (each run starts aligned, wherever the thread is).
int64_t row_run(const LinearLayout& l, int64_t bytes) {
  int bits = 0;
  while (bits < l.in_bits(LinearLayout::kRegister) && l.basis(LinearLayout::kRegister, bits) == (int64_t{1} << bits) &&
         (int64_t{2} << bits) * bytes <= 16) {
    ++bits;
  }
  const int64_t g = int64_t{1} << bits;
  if (g == 1 || l.shape().back() % g != 0) return 1;
  for (LinearLayout::InDim dim : {LinearLayout::kRegister, LinearLayout::kLane, LinearLayout::kWarp}) {
    for (int b = dim == LinearLayout::kRegister ? bits : 0; b < l.in_bits(dim); ++b) {
      if (l.basis(dim, b) % g != 0) return 1;
    }
  }
  return g;
}

}  // namespace

ConvertPlan plan_convert(const ir::Op& op, const VectorWidths& widths, int threads) {
  ConvertPlan plan;
  const ir::Value* in = op.operand(0);
  if (is_uniform(in)) {
    plan.kind = ConvertPlan::Kind::kUniform;
    return plan;
  }
  const ir::Type* type = in->type();
  if (!layout_shape(type->shape())) return plan;  // no layouts: both flat
  LinearLayout from = held_layout(in, widths, threads);
  LinearLayout to = held_layout(op.result(), widths, threads);
  if (from == to) return plan;
  std::vector<int> regs = register_moves(from, to);
  if (!regs.empty()) {
    plan.kind = ConvertPlan::Kind::kRegisters;
    plan.source_reg = std::move(regs);
    return plan;
  }
  int budget = kRecomputeBudget;
  if (held_in_slot(op.result(), widths, threads) && recomputable(in, &budget)) {
    plan.kind = ConvertPlan::Kind::kRecompute;
    return plan;
  }
  // A round trip: rows of the last dimension, padded where that spreads both sides' scalar
  // accesses over more banks (a transposed side walks a column: 32 lanes in one bank).
  plan.kind = ConvertPlan::Kind::kShared;
  const int64_t bytes = scratch_element_bytes(type);
  plan.row = type->shape().back();
  if (held_in_slot(op.result(), widths, threads)) plan.read_run = row_run(to, bytes);
  if (plan.read_run > 1) {
    // Runs read as vectors stay aligned, and the 4-byte pairs of a dot's fragments (eight rows
    // of a warp, four lanes each) fall in distinct banks.
    plan.pad = 16 / bytes;
  } else {
    int64_t best = -1;
    for (int64_t pad : {0, 1, 2, 4, 8}) {
      if (pad * bytes > 16) break;
      int64_t cost = wavefronts(from, bytes, plan.row, pad) + wavefronts(to, bytes, plan.row, pad);
      if (best < 0 || cost < best) {
        best = cost;
        plan.pad = pad;
      }
    }
  }
  int64_t n = type->num_elements();
  plan.bytes = round16((n + (n / plan.row) * plan.pad) * bytes);
  return plan;
}

}  // namespace tritium::gpu

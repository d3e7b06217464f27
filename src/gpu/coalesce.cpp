// coalesce (coalesce.h): per load and store, the widest access the pointer's axis facts and
// the mask allow along each axis; where an axis other than the last beats the last (which
// the flat rule vectorizes), the access gets that axis's blocked layout.
#include "gpu/coalesce.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/axis_info.h"
#include "gpu/assign_layouts.h"
#include "gpu/conversion.h"
#include "gpu/default_layout.h"
#include "gpu/prefetch_operands.h"
#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "ir/op_views.h"

namespace tritium::gpu {

namespace {

using ir::Op;
using ir::OpKind;

int64_t floor_pow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// A load whose every use is a dot's A or B: the dot stages it into shared memory from any
// layout (target/nvptx emit_fragment_rows.cpp, stage_operand), so a coalesced layout costs
// no conversion there.
bool feeds_only_dots_value(const ir::Value* v) {
  if (!v->has_uses()) return false;
  const auto& uses = v->uses();
  return std::all_of(uses.begin(), uses.end(), [](const ir::Use& use) {
    return use.user->kind() == OpKind::Dot && use.index < 2;
  });
}

bool feeds_only_dots(const Op& op) { return op.kind() == OpKind::Load && feeds_only_dots_value(op.result()); }

// A load yielded by a branch of an `if` whose one result only dots' A and B read (vLLM's
// prefix prefill: `if last tile: k = tl.load(p, mask) else: k = tl.load(p)`, then
// `tl.dot(q, k)`), the other branch yielding a load of the same type: both are made in one
// layout, the `if` yields it, and the dots stage from it. The other branch's load, or null.
Op* yielded_to_dots(const Op& op) {
  if (op.kind() != OpKind::Load || op.result()->uses().size() != 1) return nullptr;
  const ir::Use use = op.result()->uses()[0];
  const ir::Region* branch = op.parent();
  Op* owner = branch->parent();
  if (use.user->kind() != OpKind::Yield || use.user->parent() != branch || owner == nullptr || owner->kind() != OpKind::If ||
      owner->num_results() != 1 || owner->regions().size() != 2 || !feeds_only_dots_value(owner->result())) {
    return nullptr;
  }
  const ir::Region* other = owner->region(0) == branch ? owner->region(1) : owner->region(0);
  const Op* yield = other->ops().empty() ? nullptr : other->ops().back().get();
  if (yield == nullptr || yield->kind() != OpKind::Yield || yield->num_operands() != 1) return nullptr;
  Op* load = yield->operand(0)->def();
  if (load == nullptr || load->kind() != OpKind::Load || load->parent() != other || load->result()->uses().size() != 1 ||
      load->result()->type() != op.result()->type()) {
    return nullptr;
  }
  return load;
}

// A load outside loops whose values reach nothing but dots' A and B, through ops without
// effects (the upcast before tl.dot_scaled, a cast, a scale): loaded coalesced and converted
// back at once (a shared-memory round trip of the loaded bytes, the narrowest point of the
// chain), the chain itself as it was. Loops are left alone: their dot operands are copied
// by cp.async from the layout they have (target/nvptx/async_copy.h).
bool feeds_dots_outside_loops(const Op& op, const ir::Function& function) {
  return op.kind() == OpKind::Load && op.parent() == &function.body() && reaches_only_dot_operands(op.result(), 0);
}

// A load transforms/prefetch_loads made ahead of a loop's dot operand: an initial value of
// the loop (before it) or the body's load for a later iteration (yielded), carried (down
// the chain of later iterations' values, when it runs more than one ahead) to a value of
// the body that only dots' A and B read, masked-off elements zero. The emitter copies such
// a load into a stage buffer by cp.async (target/nvptx/async_copy.h) from the layout it is
// made in; a K-major one whose addresses are not recomputable from the element index (a
// paged cache's block numbers, loaded from a block table the loop prefetches too) is then
// best made in its slot, each thread holding whole 16-byte runs along K and copying them
// itself (in the flat rule the thread holding each run's first element copied it: four
// lanes a warp, 32 copies each, every address of the block held).
bool pipelined_operand_load(const Op& op) {
  if (op.kind() != OpKind::Load || ir::is_volatile(op) || op.result()->num_uses() != 1) return false;
  const ir::Value* other = ir::LoadOp(op).other();
  if (other != nullptr && !ir::is_zero_constant(other)) return false;
  const ir::Use use = op.result()->uses()[0];
  const Op* loop = nullptr;
  int index = -1;  // of the loop's carried value
  if (use.user->kind() == OpKind::For && use.index >= 3) {
    loop = use.user;
    index = use.index - 3;
  } else if (use.user->kind() == OpKind::Yield && use.user->parent() == op.parent() && op.parent()->parent() != nullptr &&
             op.parent()->parent()->kind() == OpKind::For) {
    loop = op.parent()->parent();
    index = use.index;
  }
  if (loop == nullptr) return false;
  const ir::Region& body = *loop->region(0);
  const Op* yield = body.terminator();
  const ir::Value* arg = body.arg(index + 1);
  // Down the chain: an argument only the yield reads passes its value to the one it is
  // yielded as.
  for (int step = 0; step < 8 && arg->num_uses() == 1 && arg->uses()[0].user == yield; ++step) {
    arg = body.arg(arg->uses()[0].index + 1);
  }
  if (!arg->has_uses()) return false;
  for (const ir::Use& u : arg->uses()) {
    if (u.user->kind() != OpKind::Dot || u.index >= 2 || u.user->parent() != &body) return false;
  }
  return true;
}

// A store outside loops (a dot's result stored column-major): its value is converted into
// the access's layout, from fragments where the dot left it (target/nvptx emit_convert.cpp).
bool store_outside_loops(const Op& op, const ir::Function& function) {
  return op.kind() == OpKind::Store && op.parent() == &function.body();
}

bool recomputable_operand(const ir::Value* v) {
  if (v == nullptr || !v->type()->is_block()) return true;
  int budget = kRecomputeBudget;
  return recomputable(v, &budget);
}

// Whether `v` is a dot's result, what a loop carries as its accumulator, or elementwise ops
// of those, of splats and constants, and of blocks computed from their element index (a
// cast to the output type, a scale, an activation, a causal `tl.where`): values the fragment
// plan keeps in the dot's fragments, which a store converts through shared memory in any
// case. (An operand loaded in the flat layout may move the chain there, where a store in
// another layout would cost a round trip of its own.)
bool from_dot(const ir::Value* v, int depth) {
  const Op* def = v->def();
  if (depth == 0 || def == nullptr || !v->type()->is_block()) return false;
  if (def->kind() == OpKind::Dot) return true;
  if (def->kind() == OpKind::For) return from_dot(def->region(0)->terminator()->operand(v->index()), depth - 1);
  if (!ir::has_trait(def->kind(), ir::kElementwise) || def->num_results() != 1) return false;
  bool any = false;
  for (const ir::Value* x : def->operands()) {
    if (recomputable_operand(x)) continue;  // scalars, splats, constants, index computations
    if (!from_dot(x, depth - 1)) return false;
    any = true;
  }
  return any;
}

// A dot's result stored along the last axis where the flat rule gives each thread more than
// 16 bytes of a row (another access of that block size set V: an fp8 operand's 16 elements
// where the result is fp16): each thread's 16-byte stores then cover half of every 32-byte
// sector a warp's instruction touches, the other half left to the next instruction, and the
// L2 takes every sector twice (ncu: twice the compression input sectors, drain and
// lg_throttle stalls; fp8 128x128x128 at 0.89 of Triton). Such a store gets 16-byte runs,
// lanes along the row (Triton's layout for it); its value comes from the dot's fragments in
// the one round trip through shared memory that the flat rule's store makes as well. The
// layout, or null.
const ir::Layout* dot_result_row_layout(const Op& op, const ir::Function& function, const VectorWidths& widths,
                                        int64_t width, int threads) {
  const ir::Type* type = op.operand(0)->type();
  if (!store_outside_loops(op, function) || !from_dot(ir::StoreOp(op).value(), 6)) return nullptr;
  const int64_t bytes = std::max(1, ir::bit_width(type->element()->pointee()->scalar_kind()) / 8);
  const int64_t run = floor_pow2(std::min<int64_t>(width, 16 / bytes));
  if (run < 2 || widths.vector(type->num_elements()) <= run || type->num_elements() / threads < run) return nullptr;
  return coalesced_layout(type->shape(), type->rank() - 1, static_cast<int>(run), threads);
}

void collect(ir::Region& region, std::vector<Op*>& out) {
  for (auto& op : region.ops()) {
    for (const auto& r : op->regions()) collect(*r, out);
    if (op->kind() == OpKind::Load || op->kind() == OpKind::Store) out.push_back(op.get());
  }
}


ir::Value* convert_before(Op& user, ir::Value* value, const ir::Layout* layout) {
  auto convert = std::make_unique<Op>(OpKind::ConvertLayout, user.loc());
  convert->add_operand(value);
  ir::Value* result = convert->add_result(value->type()->with_layout(layout));
  user.parent()->insert(user.parent()->index_of(&user), std::move(convert));
  return result;
}

// Operand i of `op` (a block) read in `layout`.
void convert_operand(Op& op, int i, const ir::Layout* layout) {
  ir::Value* v = op.operand(i);
  if (v->type()->is_block() && v->type()->layout() != layout) op.set_operand(i, convert_before(op, v, layout));
}

void rewrite(Op& op, const ir::Layout* layout) {
  for (int i = 0; i < op.num_operands(); ++i) convert_operand(op, i, layout);
  if (op.kind() != OpKind::Load) return;
  // The load's own result in `layout`, converted back for its users.
  ir::Value* result = op.result();
  std::vector<ir::Use> uses = result->uses();
  const ir::Type* before = result->type();
  result->set_type(before->with_layout(layout));
  auto convert = std::make_unique<Op>(OpKind::ConvertLayout, op.loc());
  convert->add_operand(result);
  ir::Value* back = convert->add_result(before);
  op.parent()->insert(op.parent()->index_of(&op) + 1, std::move(convert));
  for (const ir::Use& use : uses) use.user->set_operand(use.index, back);
}

// An access operand that is not recomputable from the element index (a paged cache's
// offsets: `block[None, :] * stride + d[:, None]`, `block` loaded from a block table) is
// computed in the access's layout instead: its elementwise ops of the block's shape again,
// each marked as held in the slot (conversion.h's kSlotAttr), down to the broadcasts they
// read (into the slot through emit_broadcast's slot case: the small source recomputed or
// read back from shared memory), uniform values, and recomputable values (converted into
// the slot, recomputed there). Whether `v` can be, within `depth` ops.
constexpr int kSlotChainDepth = 12;
bool slot_computable(const ir::Value* v, int depth) {
  if (!v->type()->is_block() || is_uniform(v)) return true;
  int budget = kRecomputeBudget;
  if (recomputable(v, &budget)) return true;
  const Op* def = v->def();
  if (def == nullptr || depth == 0) return false;
  if (def->kind() == OpKind::Broadcast) return true;
  if (!has_trait(def->kind(), ir::kElementwise) || !ir::is_pure(*def) || def->num_results() != 1 ||
      !def->regions().empty() || def->find_attr("pack") != nullptr) {
    return false;
  }
  for (const ir::Value* operand : def->operands()) {
    if (operand->type()->is_block() && operand->type()->shape() != v->type()->shape()) return false;
    if (!slot_computable(operand, depth - 1)) return false;
  }
  return true;
}

// `v` (slot_computable) in `layout`: each op made again right after its original (so it
// stands where the original's operands do), once per value and layout (`made`).
using SlotValues = std::unordered_map<const ir::Value*, std::unordered_map<const ir::Layout*, ir::Value*>>;
ir::Value* compute_in_slot(ir::Value* v, const ir::Layout* layout, SlotValues& made) {
  if (!v->type()->is_block() || is_uniform(v)) return v;
  ir::Value*& done = made[v][layout];
  if (done != nullptr) return done;
  Op* def = v->def();
  int budget = kRecomputeBudget;
  const bool broadcast = def->kind() == OpKind::Broadcast;
  const bool recompute = !broadcast && recomputable(v, &budget);
  auto copy = std::make_unique<Op>(recompute ? OpKind::ConvertLayout : def->kind(), def->loc());
  if (recompute || broadcast) {
    copy->add_operand(recompute ? v : def->operand(0));
  } else {
    for (ir::Value* operand : def->operands()) copy->add_operand(compute_in_slot(operand, layout, made));
    for (const ir::Attr& a : def->attrs()) copy->set_attr(a.name, a.value);
  }
  ir::Value* result = copy->add_result(v->type()->with_layout(layout));
  copy->set_attr(kSlotAttr, int64_t{1});
  ir::Region* region = def->parent();
  region->insert(region->index_of(def) + 1, std::move(copy));
  done = result;
  return result;
}

// The ops of `candidates` nothing reads any more (pure, without regions), erased, and then
// the ops only they read; found by walking the IR, so no erased op is looked at again.
void erase_dead(ir::Region& region, std::unordered_set<const Op*>& candidates) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = region.ops().size(); i-- > 0;) {
      Op* op = region.ops()[i].get();
      for (const auto& r : op->regions()) erase_dead(*r, candidates);
      if (candidates.count(op) == 0 || !ir::is_pure(*op) || !op->regions().empty() || op->num_results() != 1 ||
          op->result()->has_uses()) {
        continue;
      }
      candidates.erase(op);
      for (ir::Value* v : op->operands()) {
        if (v->def() != nullptr) candidates.insert(v->def());
      }
      region.erase(op);
      changed = true;
    }
  }
}

// rewrite(), the operands that are not recomputable computed in the slot; the ops they
// were computed by are `replaced` (erase_dead's candidates once every access is rewritten).
void rewrite_in_slot(Op& op, const ir::Layout* layout, SlotValues& made, std::unordered_set<const Op*>& replaced) {
  for (int i = 0; i < op.num_operands(); ++i) {
    ir::Value* v = op.operand(i);
    int budget = kRecomputeBudget;
    const bool stored_value = op.kind() == OpKind::Store && v == ir::StoreOp(op).value();
    if (stored_value || !v->type()->is_block() || is_uniform(v) || recomputable(v, &budget)) continue;
    op.set_operand(i, compute_in_slot(v, layout, made));
    replaced.insert(v->def());
  }
  rewrite(op, layout);
}

// A yielded_to_dots pair made in `layout`: each branch yields its load there, and so does
// the `if` (marked as held in its slot), converted back after it for the dots, which stage
// from the slot (staged_by_dots).
void rewrite_yielded(Op& a, Op& b, const ir::Layout* layout, SlotValues& made, std::unordered_set<const Op*>& replaced) {
  for (Op* load : {&a, &b}) {
    rewrite_in_slot(*load, layout, made, replaced);
    Op* back = load->result()->users()[0];  // the conversion rewrite put after the load
    back->result()->replace_all_uses_with(load->result());
    back->parent()->erase(back);
  }
  Op* owner = a.parent()->parent();
  ir::Value* result = owner->result();
  const std::vector<ir::Use> uses = result->uses();
  const ir::Type* before = result->type();
  result->set_type(before->with_layout(layout));
  owner->set_attr(kSlotAttr, int64_t{1});
  auto convert = std::make_unique<Op>(OpKind::ConvertLayout, owner->loc());
  convert->add_operand(result);
  ir::Value* back = convert->add_result(before);
  owner->parent()->insert(owner->parent()->index_of(owner) + 1, std::move(convert));
  for (const ir::Use& use : uses) use.user->set_operand(use.index, back);
}

// Every operand an op wants in another layout (assign_layouts.h's wanted_layout: an
// elementwise op's result layout, a load's or store's pointer layout, what a loop carries)
// gets its conversion as an op: the emitter's flat rule makes most of them free, but they
// are explicit in the IR that allocate_shared, --emit gpu-ir and later passes read.
void insert_conversions(ir::Region& region) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op* op = region.ops()[i].get();
    for (const auto& r : op->regions()) insert_conversions(*r);
    if (op->kind() == OpKind::ConvertLayout) continue;
    for (int k = 0; k < op->num_operands(); ++k) {
      const ir::Layout* wanted = wanted_layout(*op, k);
      ir::Value* v = op->operand(k);
      const ir::Layout* has = v->type()->is_block() ? v->type()->layout() : nullptr;
      if (wanted == nullptr || has == nullptr || has == wanted || has->shape() != wanted->shape()) continue;
      op->set_operand(k, convert_before(*op, v, wanted));
      ++i;  // the conversion stands before `op` now
    }
  }
}

// Conversions that move nothing: to the same layout, of uniform values (every thread holds
// them), the middle of a chain (a -> b -> c becomes a -> c when b has no other use), and
// those whose data stays in each thread (LinearLayout::in_thread) between values the
// emitter holds in the flat rule. Conversions into a coalesced access's layout stay.
void remove_redundant(ir::Region& region, const VectorWidths& widths, int threads) {
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op* op = region.ops()[i].get();
    for (const auto& r : op->regions()) remove_redundant(*r, widths, threads);
    if (op->kind() != OpKind::ConvertLayout) continue;
    ir::Value* in = op->operand(0);
    Op* def = in->def();
    if (def != nullptr && def->kind() == OpKind::ConvertLayout && in->num_uses() == 1) {
      op->set_operand(0, def->operand(0));
      ir::Region* home = def->parent();
      home->erase(def);
      if (home == &region) --i;  // it stood before this one
      in = op->operand(0);
    }
    const ir::Type* from = in->type();
    const ir::Type* to = op->result()->type();
    bool free = from == to || is_uniform(in);
    if (!free && from->layout() != nullptr && to->layout() != nullptr && !held_in_slot(in, widths, threads) &&
        !held_in_slot(op->result(), widths, threads)) {
      free = ir::LinearLayout::in_thread(from->layout()->linear(), to->layout()->linear());
    }
    if (free) {
      op->result()->replace_all_uses_with(in);
      region.erase(op);
      --i;
    }
  }
}

// A splat or constant: every thread holds it whole.
bool uniform_value(const ir::Value* v) {
  return !v->type()->is_block() ||
         (v->def() != nullptr && (v->def()->kind() == OpKind::Splat || v->def()->kind() == OpKind::Constant));
}

// Conversions out of an access's layout moved past the elementwise ops that read them: an
// op whose every block operand is such a conversion (from one layout L) or uniform runs in L
// (conversion.h's elementwise_in_slot), and one conversion after it serves its users. A
// column-major load, `+ 1`, a column-major store: the chain then stays in L, and the
// conversions back and forth meet and vanish (remove_redundant).
bool move_conversions_forward(ir::Region& region, const VectorWidths& widths, int threads) {
  bool changed = false;
  for (size_t i = 0; i < region.ops().size(); ++i) {
    Op* op = region.ops()[i].get();
    for (const auto& r : op->regions()) changed = move_conversions_forward(*r, widths, threads) || changed;
    if (!has_trait(op->kind(), ir::kElementwise) || op->num_results() != 1 || !op->result()->type()->is_block() ||
        !op->result()->has_uses()) {
      continue;
    }
    const ir::Layout* slot = nullptr;
    std::vector<ir::Value*> sources;
    bool ok = true;
    for (ir::Value* v : op->operands()) {
      sources.push_back(v);
      if (uniform_value(v)) continue;
      const Op* def = v->def();
      if (def == nullptr || def->kind() != OpKind::ConvertLayout || !held_in_slot(def->operand(0), widths, threads)) {
        ok = false;
        break;
      }
      const ir::Layout* l = def->operand(0)->type()->layout();
      ok = slot == nullptr || slot == l;
      slot = l;
      sources.back() = def->operand(0);
    }
    if (!ok || slot == nullptr) continue;
    const std::vector<ir::Value*> before = op->operands();
    const ir::Type* type = op->result()->type();
    op->set_operands(sources);
    op->result()->set_type(type->with_layout(slot));
    if (!elementwise_in_slot(*op, widths, threads)) {
      op->set_operands(before);
      op->result()->set_type(type);
      continue;
    }
    std::vector<ir::Use> uses = op->result()->uses();
    auto convert = std::make_unique<Op>(OpKind::ConvertLayout, op->loc());
    convert->add_operand(op->result());
    ir::Value* back = convert->add_result(type);
    region.insert(i + 1, std::move(convert));
    for (const ir::Use& use : uses) use.user->set_operand(use.index, back);
    std::vector<Op*> dead;  // the conversions nothing reads any more (each once)
    for (ir::Value* v : before) {
      Op* def = v->def();
      if (def != nullptr && def->kind() == OpKind::ConvertLayout && !v->has_uses() &&
          std::find(dead.begin(), dead.end(), def) == dead.end()) {
        dead.push_back(def);
      }
    }
    for (Op* def : dead) {
      ir::Region* home = def->parent();
      size_t at = home->index_of(def);
      home->erase(def);
      if (home == &region && at < i) --i;
    }
    changed = true;
  }
  return changed;
}

// A load of a loop body whose value reaches nothing but dots' A and B through elementwise
// ops of that body (mamba's `(dout * tl.exp(dA)[None, :]).to(bf16)` before tl.dot, dout
// contiguous along M), not one the emitter copies asynchronously (read_back): `ops` are the
// chain's ops in program order, `side` the elementwise ops of the block's shape its ops
// also read (a factor or a `tl.where` mask built from broadcasts: `tl.exp(dA_k[None, :] -
// dA_m[:, None])`), both read by the chain and its side only, `broadcasts` the broadcasts
// they read (each read gets its own copy), and `loads` the other loads of the body, of the
// block's shape, that the side reads and nothing else does (fla's gate, `b_k *
// exp2(b_gk_last[:, None] - b_gk)`: gk loaded as k is; coalesce makes them in the chain's
// layout too where that is as wide for them, else the chain stays as it was); `dot_uses`
// the dots' reads of the chain. Empty when the load does not qualify.
struct DotChain {
  std::vector<Op*> ops;
  std::vector<Op*> side;
  std::vector<Op*> broadcasts;
  std::vector<Op*> loads;
  std::vector<std::pair<Op*, int>> dot_uses;
};

bool slot_elementwise(const Op& op, const std::vector<int64_t>& shape) {
  return has_trait(op.kind(), ir::kElementwise) && ir::is_pure(op) && op.num_results() == 1 && op.regions().empty() &&
         op.find_attr("pack") == nullptr && op.result()->type()->shape() == shape;
}

DotChain chain_to_dots(Op& load, const ir::Function& function) {
  DotChain chain;
  if (load.kind() != OpKind::Load || load.parent() == &function.body() || load.has_attr(kReadBackAttr)) return {};
  ir::Region* body = load.parent();
  const std::vector<int64_t>& shape = load.result()->type()->shape();
  std::unordered_set<const ir::Value*> members = {load.result()};
  std::vector<ir::Value*> others;  // operands of the chain's ops that are not its values
  for (size_t i = body->index_of(&load); i < body->ops().size(); ++i) {
    Op* op = body->ops()[i].get();
    bool reads_chain = false;
    for (const ir::Value* v : op->operands()) reads_chain = reads_chain || members.count(v) != 0;
    if (!reads_chain) continue;
    if (op->kind() == OpKind::Dot) {
      for (int k = 0; k < op->num_operands(); ++k) {
        if (members.count(op->operand(k)) == 0) continue;
        if (k >= 2) return {};
        chain.dot_uses.emplace_back(op, k);
      }
      continue;
    }
    if (!slot_elementwise(*op, shape)) return {};
    for (ir::Value* v : op->operands()) {
      if (members.count(v) == 0 && !uniform_value(v)) others.push_back(v);
    }
    members.insert(op->result());
    chain.ops.push_back(op);
  }
  if (chain.dot_uses.empty()) return {};
  // The side: what the chain reads besides its own values, back to broadcasts of blocks the
  // flat rule holds (at most 32 ops).
  std::unordered_set<const Op*> side;
  while (!others.empty()) {
    ir::Value* v = others.back();
    others.pop_back();
    Op* def = v->def();
    if (members.count(v) != 0 || uniform_value(v) || (def != nullptr && side.count(def) != 0)) continue;
    if (def == nullptr || side.size() >= 32) return {};
    if (def->kind() == OpKind::Broadcast) {
      if (!def->operand(0)->type()->is_block() || members.count(def->operand(0)) != 0) return {};
      chain.broadcasts.push_back(def);
    } else if (def->kind() == OpKind::Load && def->parent() == body && !def->has_attr(kReadBackAttr) &&
               def->result()->type()->shape() == shape) {
      chain.loads.push_back(def);
    } else if (slot_elementwise(*def, shape)) {
      chain.side.push_back(def);
      for (ir::Value* operand : def->operands()) others.push_back(operand);
    } else {
      return {};
    }
    side.insert(def);
  }
  // Every value of the chain and its side read there or by dots only (a use elsewhere, a
  // yield among them, would see the slot's registers; broadcasts are copied instead).
  std::unordered_set<const Op*> readers(chain.ops.begin(), chain.ops.end());
  readers.insert(chain.side.begin(), chain.side.end());
  auto read_inside = [&](const ir::Value* v, bool dots) {
    for (const ir::Use& use : v->uses()) {
      const bool dot = dots && use.user->kind() == OpKind::Dot && use.user->parent() == body && use.index < 2;
      if (readers.count(use.user) == 0 && !dot) return false;
    }
    return true;
  };
  for (const ir::Value* v : members) {
    if (!read_inside(v, true)) return {};
  }
  for (const std::vector<Op*>* ops : {&chain.side, &chain.loads}) {
    for (const Op* op : *ops) {
      if (!read_inside(op->result(), false)) return {};
    }
  }
  return chain;
}

// The chain, its side and their broadcasts computed in the load's coalesced `layout` (its
// other loads made there too) and marked so (conversion.h's kSlotAttr: the emitter holds
// them there, broadcasts through emit_broadcast's slot case), converted back to the layout
// each dot read it in just before the dot, which stages it from the slot (emit_convert.cpp's
// staged_by_dots).
void rewrite_chain(Op& load, const DotChain& chain, const ir::Layout* layout) {
  std::vector<std::pair<Op*, const ir::Type*>> before;  // the dots' operand types
  for (const auto& [dot, k] : chain.dot_uses) before.emplace_back(dot, dot->operand(k)->type());
  std::vector<Op*> loads = {&load};
  loads.insert(loads.end(), chain.loads.begin(), chain.loads.end());
  for (Op* access : loads) {
    rewrite(*access, layout);
    Op* back = access->result()->users()[0];  // the conversion rewrite put after the load
    back->result()->replace_all_uses_with(access->result());
    back->parent()->erase(back);
  }
  for (const std::vector<Op*>* ops : {&chain.side, &chain.ops}) {
    for (Op* op : *ops) {
      op->result()->set_type(op->result()->type()->with_layout(layout));
      op->set_attr(kSlotAttr, int64_t{1});
    }
  }
  // Each read of a broadcast by the chain or its side gets a broadcast of its own into the
  // slot, just before the reader (the original may have other readers: `offs_m[:, None]`
  // broadcast once for a pointer and for a mask).
  std::unordered_set<const Op*> readers(chain.ops.begin(), chain.ops.end());
  readers.insert(chain.side.begin(), chain.side.end());
  for (Op* b : chain.broadcasts) {
    const std::vector<ir::Use> uses = b->result()->uses();
    for (const ir::Use& use : uses) {
      if (readers.count(use.user) == 0) continue;
      auto copy = std::make_unique<Op>(OpKind::Broadcast, b->loc());
      copy->add_operand(b->operand(0));
      ir::Value* result = copy->add_result(b->result()->type()->with_layout(layout));
      copy->set_attr(kSlotAttr, int64_t{1});
      use.user->parent()->insert(use.user->parent()->index_of(use.user), std::move(copy));
      use.user->set_operand(use.index, result);
    }
    if (!b->result()->has_uses()) b->parent()->erase(b);
  }
  for (size_t i = 0; i < chain.dot_uses.size(); ++i) {
    auto [dot, k] = chain.dot_uses[i];
    ir::Value* v = dot->operand(k);
    auto convert = std::make_unique<Op>(OpKind::ConvertLayout, dot->loc());
    convert->add_operand(v);
    ir::Value* result = convert->add_result(before[i].second);
    dot->parent()->insert(dot->parent()->index_of(dot), std::move(convert));
    dot->set_operand(k, result);
  }
}

// The values held in an access's layout (loads made there) that `v`, an elementwise chain
// held there, reads, each once, in the order met (`roots`); false when the chain reads
// anything else or is deeper than `depth`.
bool chain_roots(ir::Value* v, const ir::Region& region, const VectorWidths& widths, int threads, int depth,
                 std::vector<ir::Value*>& roots) {
  if (uniform_value(v)) return true;
  const Op* def = v->def();
  if (def == nullptr || def->parent() != &region) return false;
  if (def->kind() != OpKind::Load && elementwise_in_slot(*def, widths, threads)) {
    if (depth == 0) return false;
    for (ir::Value* operand : def->operands()) {
      if (!chain_roots(operand, region, widths, threads, depth - 1, roots)) return false;
    }
    return true;
  }
  if (!held_in_slot(v, widths, threads)) return false;
  if (std::find(roots.begin(), roots.end(), v) == roots.end()) roots.push_back(v);
  return true;
}

// `v` (a chain chain_roots accepted) computed again in `layout` before index `at` of the
// region (which moves past the ops made), from `done`'s values (its roots' conversions and
// what was computed again before: each op once).
ir::Value* compute_again(ir::Value* v, const ir::Layout* layout, ir::Region& region, size_t& at,
                         std::unordered_map<const ir::Value*, ir::Value*>& done) {
  if (uniform_value(v)) return v;
  auto found = done.find(v);
  if (found != done.end()) return found->second;
  const Op* def = v->def();
  auto copy = std::make_unique<Op>(def->kind(), def->loc());
  for (ir::Value* operand : def->operands()) copy->add_operand(compute_again(operand, layout, region, at, done));
  ir::Value* result = copy->add_result(v->type()->with_layout(layout));
  for (const ir::Attr& a : def->attrs()) copy->set_attr(a.name, a.value);
  region.insert(at++, std::move(copy));
  done[v] = result;
  return result;
}

// Erases `op` (an elementwise op of `region`) when nothing reads it any more, and then the
// elementwise ops only it read.
void erase_if_unused(Op* op, ir::Region& region) {
  if (op == nullptr || op->parent() != &region || !has_trait(op->kind(), ir::kElementwise) ||
      op->num_results() != 1 || op->result()->has_uses()) {
    return;
  }
  std::vector<Op*> defs;
  for (ir::Value* v : op->operands()) defs.push_back(v->def());
  region.erase(op);
  for (Op* def : defs) erase_if_unused(def, region);
}

// Conversions out of an access's layout of elementwise chains over the same loads made
// there (their roots), more of them than there are roots: each root is converted once,
// after its load, and the chains are computed again from those conversions, in the target
// layout. move_conversions_forward moves a conversion past every op that reads it; where a
// value feeds several chains that end in ops of the flat rule (a reduction, a broadcast's
// operand), each chain was then converted: triton_kernels' MX quantization along axis 0
// sent `x.to(tl.float32)` and `abs(x)` through shared memory (16 KiB each) and held both
// (109 registers); now the loaded bf16 once (8 KiB), 80 registers, 48 with a store's width.
void convert_roots_once(ir::Region& region, const VectorWidths& widths, int threads) {
  for (const auto& op : region.ops()) {
    for (const auto& r : op->regions()) convert_roots_once(*r, widths, threads);
  }
  struct Group {
    std::vector<ir::Value*> roots;
    const ir::Layout* layout;
    std::vector<Op*> conversions;  // in program order
  };
  std::vector<Group> groups;
  for (const auto& owned : region.ops()) {
    Op* op = owned.get();
    if (op->kind() != OpKind::ConvertLayout) continue;
    ir::Value* in = op->operand(0);
    const ir::Layout* layout = op->result()->type()->layout();
    const Op* def = in->def();
    if (layout == nullptr || def == nullptr || def->parent() != &region || def->kind() == OpKind::Load ||
        !elementwise_in_slot(*def, widths, threads) || held_in_slot(op->result(), widths, threads)) {
      continue;
    }
    std::vector<ir::Value*> roots;
    if (!chain_roots(in, region, widths, threads, 6, roots) || roots.empty()) continue;
    std::sort(roots.begin(), roots.end(), [&](const ir::Value* a, const ir::Value* b) {
      return region.index_of(a->def()) < region.index_of(b->def());
    });
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const Group& g) { return g.roots == roots && g.layout == layout; });
    if (group == groups.end()) {
      groups.push_back({roots, layout, {}});
      group = groups.end() - 1;
    }
    group->conversions.push_back(op);
  }
  for (Group& g : groups) {
    // The roots' own conversions into the layout, where some stand already, count as done.
    std::unordered_map<const ir::Value*, ir::Value*> done;
    int more = 0;
    for (ir::Value* root : g.roots) {
      for (const ir::Use& use : root->uses()) {
        if (use.user->kind() == OpKind::ConvertLayout && use.user->parent() == &region &&
            use.user->result()->type()->layout() == g.layout) {
          done[root] = use.user->result();
        }
      }
      more += done.count(root) ? 0 : 1;
    }
    if (more >= static_cast<int>(g.conversions.size())) continue;
    for (ir::Value* root : g.roots) {
      Op* load = root->def();
      if (done.count(root)) {
        // Moved up to its load, so that it stands before every chain computed from it.
        Op* convert = done[root]->def();
        std::unique_ptr<Op> taken = region.take(convert);
        region.insert(region.index_of(load) + 1, std::move(taken));
        continue;
      }
      auto convert = std::make_unique<Op>(OpKind::ConvertLayout, load->loc());
      convert->add_operand(root);
      done[root] = convert->add_result(root->type()->with_layout(g.layout));
      region.insert(region.index_of(load) + 1, std::move(convert));
    }
    for (Op* op : g.conversions) {
      size_t at = region.index_of(op);
      Op* def = op->operand(0)->def();
      ir::Value* again = compute_again(op->operand(0), g.layout, region, at, done);
      op->result()->replace_all_uses_with(again);
      region.erase(op);
      erase_if_unused(def, region);
    }
  }
}

// A line loaded from memory ([n]: a paged cache's block-table entries) that reaches
// broadcasts into addresses, `block[None, :] * stride + ...` into K's slot and
// `block[:, None] * stride + ...` into V's flat layout, went through shared memory once per
// broadcast (the flat line is one element a thread, on warp 0 at n = 32: no thread holds
// what it needs). Where every such broadcast wants the same elements in the same registers
// of each thread (`line_layout`: K's slot and V's layout both hold tokens lane / 16 +
// 2 warp + 8 r in vLLM's unified attention), the line is loaded in that layout instead
// (each thread its own entries) and carried so through the loops that prefetch it, every
// op from it to the broadcasts held there too: each broadcast is then a register move
// (conversion.h's broadcast_moves). Session 32 (helper vtable).

// `to` without dimension `axis`, its register bits that moved only along it dropped: the
// elements of a line broadcast along `axis` each thread needs for its registers of `to`,
// each in one register.
ir::LinearLayout line_layout(const ir::LinearLayout& to, int axis) {
  const ir::LinearLayout sliced = to.slice(axis);
  std::array<std::vector<int64_t>, ir::LinearLayout::kInDims> bases;
  for (int d = 0; d < ir::LinearLayout::kInDims; ++d) {
    const auto dim = static_cast<ir::LinearLayout::InDim>(d);
    for (int b = 0; b < sliced.in_bits(dim); ++b) {
      if (dim == ir::LinearLayout::kRegister && sliced.basis(dim, b) == 0) continue;
      bases[static_cast<size_t>(d)].push_back(sliced.basis(dim, b));
    }
  }
  return ir::LinearLayout(sliced.shape(), std::move(bases));
}

// The same placement with a dimension of 1 inserted at `axis` (expand_dims keeps the
// row-major index).
ir::LinearLayout with_unit_dim(const ir::LinearLayout& line, int axis) {
  std::vector<int64_t> shape = line.shape();
  shape.insert(shape.begin() + axis, 1);
  std::array<std::vector<int64_t>, ir::LinearLayout::kInDims> bases;
  for (int d = 0; d < ir::LinearLayout::kInDims; ++d) {
    const auto dim = static_cast<ir::LinearLayout::InDim>(d);
    for (int b = 0; b < line.in_bits(dim); ++b) bases[static_cast<size_t>(d)].push_back(line.basis(dim, b));
  }
  return ir::LinearLayout(shape, std::move(bases));
}

// Whether `v` reaches nothing but the pointers of loads and stores, through pure
// elementwise ops (an address: never a dot fragment's operand).
bool feeds_addresses(const ir::Value* v, int depth) {
  if (depth == 0 || !v->has_uses()) return false;
  for (const ir::Use& use : v->uses()) {
    const Op* user = use.user;
    if ((user->kind() == OpKind::Load || user->kind() == OpKind::Store) && use.index == 0) continue;
    if (!has_trait(user->kind(), ir::kElementwise) || !ir::is_pure(*user) || user->num_results() != 1 ||
        !user->regions().empty() || !feeds_addresses(user->result(), depth - 1)) {
      return false;
    }
  }
  return true;
}

// One step up a line's chain: the one operand of `op` (pure elementwise) that is neither
// uniform nor recomputable from the element index (those are converted into the slot).
ir::Value* line_operand(const Op& op) {
  if (!has_trait(op.kind(), ir::kElementwise) || !ir::is_pure(op) || op.num_results() != 1 || !op.regions().empty() ||
      op.kind() == OpKind::ExternElementwise) {
    return nullptr;
  }
  ir::Value* line = nullptr;
  for (ir::Value* v : op.operands()) {
    if (!v->type()->is_block() || is_uniform(v)) continue;
    if (v->type()->shape() != op.result()->type()->shape()) return nullptr;
    int budget = kRecomputeBudget;
    if (recomputable(v, &budget)) continue;
    if (line != nullptr) return nullptr;
    line = v;
  }
  return line;
}

struct LinePath {
  Op* broadcast = nullptr;
  int axis = 0;
  std::vector<Op*> ops;  // the broadcast's operand's def up to expand_dims and on to the root
  ir::Value* root = nullptr;  // a load of [n], or a loop's carried [n]
};

// A broadcast of a [1, n] or [n, 1] line into addresses whose chain goes up through pure
// elementwise ops and expand_dims to a load or a loop-carried value.
bool line_path(Op& broadcast, LinePath& path) {
  const ir::Value* in = broadcast.operand(0);
  const std::vector<int64_t>& from = in->type()->shape();
  const std::vector<int64_t>& to = broadcast.result()->type()->shape();
  int budget = kRecomputeBudget;
  if (from.size() != 2 || to.size() != 2 || is_uniform(in) || recomputable(in, &budget)) return false;
  int axis = -1;
  for (int d = 0; d < 2; ++d) {
    if (from[static_cast<size_t>(d)] == 1 && to[static_cast<size_t>(d)] > 1) axis = d;
    else if (from[static_cast<size_t>(d)] != to[static_cast<size_t>(d)]) return false;
  }
  if (axis < 0 || !feeds_addresses(broadcast.result(), 8)) return false;
  path = LinePath{&broadcast, axis, {}, nullptr};
  ir::Value* v = broadcast.operand(0);
  bool expanded = false;
  for (int depth = 0; depth < kSlotChainDepth; ++depth) {
    Op* def = v->def();
    if (expanded && (def == nullptr || (def->kind() == OpKind::Load && !ir::is_volatile(*def)))) {
      path.root = v;
      return true;
    }
    if (def == nullptr) return false;
    if (!expanded && def->kind() == OpKind::ExpandDims) {
      if (def->int_attr("axis") != axis) return false;
      path.ops.push_back(def);
      v = def->operand(0);
      expanded = true;
      continue;
    }
    ir::Value* next = line_operand(*def);
    if (next == nullptr) return false;
    path.ops.push_back(def);
    v = next;
  }
  return false;
}

// The values a line is carried through (its web): the loads and the loops' carried values
// (initial value, body argument, yielded value, result) that meet. False where one is
// something else (a loop-carried value yielded by an op, an `if`'s).
bool line_web(ir::Value* root, std::vector<ir::Value*>& web, std::unordered_map<Op*, std::vector<int64_t>>& carried) {
  std::unordered_set<ir::Value*> seen{root};
  std::vector<ir::Value*> work{root};
  auto add = [&](ir::Value* v) {
    if (seen.insert(v).second) work.push_back(v);
  };
  auto carry = [&](Op* loop, int64_t k) {
    std::vector<int64_t>& positions = carried[loop];
    if (std::find(positions.begin(), positions.end(), k) != positions.end()) return;
    positions.push_back(k);
    ir::Region& body = *loop->region(0);
    add(loop->operand(static_cast<int>(3 + k)));
    add(body.arg(static_cast<int>(k + 1)));
    add(body.terminator()->operand(static_cast<int>(k)));
    add(loop->result(static_cast<int>(k)));
  };
  while (!work.empty()) {
    ir::Value* v = work.back();
    work.pop_back();
    web.push_back(v);
    if (v->type()->rank() != 1) return false;
    if (Op* def = v->def()) {
      if (def->kind() == OpKind::For) {
        carry(def, v->index());
      } else if (def->kind() != OpKind::Load || ir::is_volatile(*def)) {
        return false;
      }
    } else {
      Op* loop = v->region() != nullptr ? v->region()->parent() : nullptr;
      if (loop == nullptr || loop->kind() != OpKind::For || v->index() < 1) return false;
      carry(loop, v->index() - 1);
    }
    for (const ir::Use& use : v->uses()) {
      if (use.user->kind() == OpKind::For && use.index >= 3) carry(use.user, use.index - 3);
      if (use.user->kind() == OpKind::Yield) {
        Op* loop = use.user->parent()->parent();
        if (loop == nullptr || loop->kind() != OpKind::For) return false;
        carry(loop, use.index);
      }
    }
  }
  return true;
}

void lines_in_slot(ir::Function& function, const VectorWidths& widths, int threads) {
  std::vector<Op*> broadcasts;
  std::function<void(ir::Region&)> walk = [&](ir::Region& region) {
    for (auto& op : region.ops()) {
      for (const auto& r : op->regions()) walk(*r);
      if (op->kind() == OpKind::Broadcast) broadcasts.push_back(op.get());
    }
  };
  walk(function.body());
  std::vector<LinePath> paths;
  for (Op* b : broadcasts) {
    LinePath path;
    if (line_path(*b, path)) paths.push_back(std::move(path));
  }
  std::unordered_set<const ir::Value*> done;  // roots of webs already judged
  for (const LinePath& first : paths) {
    if (done.count(first.root) != 0) continue;
    std::vector<ir::Value*> web;
    std::unordered_map<Op*, std::vector<int64_t>> carried;
    const bool carriable = line_web(first.root, web, carried);
    const std::unordered_set<const ir::Value*> members(web.begin(), web.end());
    done.insert(web.begin(), web.end());
    if (!carriable) continue;
    // The broadcasts of this web, each wanting its line in one layout: all the same one.
    std::vector<const LinePath*> mine;
    std::unordered_set<const Op*> tree, ends;
    for (const LinePath& p : paths) {
      if (members.count(p.root) == 0) continue;
      mine.push_back(&p);
      tree.insert(p.ops.begin(), p.ops.end());
      ends.insert(p.broadcast);
    }
    bool ok = true;
    std::optional<ir::LinearLayout> line;
    for (const LinePath* p : mine) {
      ir::LinearLayout want = line_layout(held_layout(p->broadcast->result(), widths, threads), p->axis);
      if (!want.injective_up_to_free() || want.in_size(ir::LinearLayout::kRegister) > 8) ok = false;
      if (line && !(*line == want)) ok = false;
      line = want;
    }
    // Loads whose operands the slot recomputes; every reader of the web and of the chains
    // is theirs (dead pure readers, leftovers of earlier rewrites, are erased).
    std::unordered_set<Op*> dead;
    auto readers_ok = [&](const ir::Value* v) {
      for (const ir::Use& use : v->uses()) {
        Op* user = use.user;
        if (tree.count(user) != 0 || ends.count(user) != 0) continue;
        if (members.count(v) != 0 && ((user->kind() == OpKind::For && use.index >= 3) || user->kind() == OpKind::Yield)) {
          continue;
        }
        if (ir::is_pure(*user) && user->regions().empty() && user->num_results() == 1 && !user->result()->has_uses()) {
          dead.insert(user);
          continue;
        }
        return false;
      }
      return true;
    };
    for (const ir::Value* v : web) {
      ok = ok && readers_ok(v);
      const Op* def = v->def();
      if (def != nullptr && def->kind() == OpKind::Load) {
        for (const ir::Value* operand : def->operands()) ok = ok && recomputable_operand(operand);
      }
    }
    for (const Op* op : tree) ok = ok && readers_ok(op->result());
    if (!ok || !line) continue;
    // The rewrite: the web and the 1-D chain ops in the line's layout, the 2-D ones in it
    // with the broadcast's unit dimension, each op marked as held there.
    for (Op* op : dead) op->parent()->erase(op);
    const ir::Layout* flat_line = ir::Layout::from_linear(*line);
    for (ir::Value* v : web) {
      v->set_type(v->type()->with_layout(flat_line));
      Op* def = v->def();
      if (def != nullptr && def->kind() == OpKind::Load) {
        for (int i = 0; i < def->num_operands(); ++i) convert_operand(*def, i, flat_line);
      }
    }
    for (auto& [loop, positions] : carried) {
      std::vector<int64_t> all = loop->has_attr(kSlotCarriedAttr) ? loop->ints_attr(kSlotCarriedAttr) : std::vector<int64_t>();
      for (int64_t k : positions) {
        if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
      }
      std::sort(all.begin(), all.end());
      loop->set_attr(kSlotCarriedAttr, all);
    }
    for (const LinePath* p : mine) {
      const ir::Layout* unit = ir::Layout::from_linear(with_unit_dim(*line, p->axis));
      for (Op* op : p->ops) {
        if (op->has_attr(kSlotAttr)) continue;  // shared with an earlier path
        const ir::Layout* layout = op->result()->type()->rank() == 1 ? flat_line : unit;
        op->result()->set_type(op->result()->type()->with_layout(layout));
        op->set_attr(kSlotAttr, int64_t{1});
        for (int i = 0; i < op->num_operands(); ++i) {
          ir::Value* v = op->operand(i);
          if (!v->type()->is_block() || is_uniform(v) || members.count(v) != 0 ||
              (v->def() != nullptr && tree.count(v->def()) != 0)) {
            continue;
          }
          ir::Value* converted = convert_before(*op, v, layout);
          converted->def()->set_attr(kSlotAttr, int64_t{1});
          op->set_operand(i, converted);
        }
      }
    }
  }
}

}  // namespace

bool reaches_only_dot_operands(const ir::Value* v, int depth) {
  if (!v->has_uses() || depth > 64) return false;
  for (const ir::Use& use : v->uses()) {
    const Op* user = use.user;
    if (user->kind() == OpKind::Dot) {
      if (use.index >= 2) return false;
      continue;
    }
    if (!has_trait(user->kind(), ir::kPure) || !user->regions().empty() || user->num_results() == 0) return false;
    for (int r = 0; r < user->num_results(); ++r) {
      if (!reaches_only_dot_operands(user->result(r), depth + 1)) return false;
    }
  }
  return true;
}

const ir::Layout* coalesced_layout(const std::vector<int64_t>& shape, int axis, int vector, int threads, int across) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int> order = {axis};
  for (int d = rank - 1; d >= 0; --d) {
    if (d != axis) order.push_back(d);
  }
  std::vector<int> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[axis] = vector;
  std::vector<int64_t> left(shape);  // elements of each dimension not yet spread
  left[axis] /= vector;
  if (across > 1) {
    if (axis == rank - 1 || shape[rank - 1] % across != 0) return nullptr;
    spt[rank - 1] = across;
    left[rank - 1] /= across;
  }
  auto fill = [&](int count, std::vector<int>& out) {
    for (int d : order) {
      int64_t take = std::min<int64_t>(count, std::max<int64_t>(1, left[d]));
      out[d] = static_cast<int>(take);
      left[d] = std::max<int64_t>(1, left[d] / take);
      count /= static_cast<int>(take);
    }
    return count;  // > 1: lanes or warps past the block
  };
  if (fill(32, tpw) != 1 || fill(threads / 32, wpc) != 1) return nullptr;
  return ir::Layout::blocked(shape, spt, tpw, wpc, order);
}

void coalesce(ir::Function& function, const GpuOptions& options) {
  // In kernels with a dot, only the loads that feed nothing but dots (a column-major A or B
  // outside a pipelined loop), directly or through ops outside loops, the stores outside
  // loops, and the pipelined operands copied K-major through loaded addresses
  // (pipelined_operand_load): the other pipelined operands are copied by cp.async from the
  // flat layout (target/nvptx/async_copy.h), and the fragment plan reads chains of ops in it.
  const bool dots_only = has_dot(function.body());
  const int threads = 32 * options.num_warps;
  VectorWidths widths = choose_vector_widths(function, threads, options.vectorize);
  analysis::AxisInfoAnalysis facts(function);
  std::vector<Op*> accesses;
  collect(function.body(), accesses);
  std::vector<std::pair<Op*, const ir::Layout*>> chosen;
  std::vector<std::tuple<Op*, DotChain, const ir::Layout*>> chains;
  std::unordered_set<const Op*> taken;  // the loads of the chains chosen so far
  std::vector<std::tuple<Op*, Op*, const ir::Layout*>> yielded;  // yielded_to_dots pairs
  // The emitter computes an access's pointer, mask and `other` where its new layout wants them.
  auto operands_recomputable = [](const Op& op) {
    if (op.kind() == OpKind::Load) {
      return recomputable_operand(op.operand(0)) && recomputable_operand(ir::LoadOp(op).mask()) &&
             recomputable_operand(ir::LoadOp(op).other());
    }
    return recomputable_operand(op.operand(0)) && recomputable_operand(ir::StoreOp(op).mask());
  };
  auto operands_slot_computable = [](const Op& op) {
    auto ok = [](const ir::Value* v) { return v == nullptr || slot_computable(v, kSlotChainDepth); };
    if (op.kind() == OpKind::Load) return ok(op.operand(0)) && ok(ir::LoadOp(op).mask()) && ok(ir::LoadOp(op).other());
    return ok(op.operand(0)) && ok(ir::StoreOp(op).mask());
  };
  for (Op* op : options.vectorize ? accesses : std::vector<Op*>()) {
    if (taken.count(op) != 0) continue;
    const ir::Value* ptr = op->operand(0);
    const ir::Type* type = ptr->type();
    if (!type->is_block() || type->rank() < 2 || !layout_shape(type->shape()) || type->layout() == nullptr) continue;
    if (!facts.has(ptr) || (op->kind() == OpKind::Load && ir::is_volatile(*op))) continue;
    DotChain chain;
    Op* partner = nullptr;  // yielded_to_dots
    const bool pipelined = dots_only && pipelined_operand_load(*op);
    if (dots_only && !pipelined && !feeds_only_dots(*op) && !feeds_dots_outside_loops(*op, function) &&
        !store_outside_loops(*op, function)) {
      partner = yielded_to_dots(*op);
      if (partner == nullptr) chain = chain_to_dots(*op, function);
      if (partner == nullptr && chain.ops.empty()) continue;
    }
    if (type->element()->pointee()->is_pointer()) continue;  // blocks of pointers in memory: as before
    // The last axis is the flat rule's: it keeps ties.
    const int last = type->rank() - 1;
    int64_t today = access_width(*op, facts);
    int best_axis = last;
    int64_t best = today;
    for (int d = last - 1; d >= 0; --d) {
      int64_t w = access_width_along(*op, d, facts);
      if (w > best) {
        best = w;
        best_axis = d;
      }
    }
    if (best_axis == last) {
      const ir::Layout* rows = dots_only && op->kind() == OpKind::Store && operands_recomputable(*op)
                                   ? dot_result_row_layout(*op, function, widths, today, threads)
                                   : nullptr;
      if (rows != nullptr) chosen.emplace_back(op, rows);
      continue;
    }
    // Triton's sizePerThread cap: every thread gets at least V elements.
    int64_t vector = floor_pow2(std::min<int64_t>(best, std::max<int64_t>(1, type->num_elements() / threads)));
    if (vector < 2 || vector <= widths.width(*op)) continue;
    const bool in_slot = !operands_recomputable(*op);
    if (in_slot && !operands_slot_computable(*op)) continue;
    // A pipelined operand: only where its addresses come from loaded values (the copies of a
    // recomputable one are dealt out evenly from the flat rule already), and only in whole
    // 16-byte runs a thread (one cp.async each).
    if (pipelined) {
      const int64_t bytes = std::max(1, ir::bit_width(type->element()->pointee()->scalar_kind()) / 8);
      if (!in_slot || vector * bytes < 16 || type->rank() != 2) continue;
    }
    // The chain's other loads are made in the same layout: each must be an access as wide
    // along the axis (up to its 16 bytes) as the flat rule makes it, else the chain stays.
    const bool others_ok = std::all_of(chain.loads.begin(), chain.loads.end(), [&](const Op* other) {
      const ir::Value* p = other->operand(0);
      if (taken.count(other) != 0 || !p->type()->is_block() || p->type()->layout() == nullptr || !facts.has(p) ||
          ir::is_volatile(*other) || p->type()->element()->pointee()->is_pointer() || !operands_recomputable(*other)) {
        return false;
      }
      const int64_t bytes = std::max(1, ir::bit_width(p->type()->element()->pointee()->scalar_kind()) / 8);
      const int64_t along = std::min<int64_t>(access_width_along(*other, best_axis, facts), vector);
      return along >= std::min<int64_t>(vector, 16 / bytes) && along >= widths.width(*other);
    });
    if (!others_ok) continue;
    // tf32's A on wgmma is read K-major only (a tile whose rows run along K): a chain to it
    // held in runs along M would be staged one element a store (stage_slot). Each thread
    // then also holds as many consecutive elements along K, as many as along M, so that
    // each of its K runs is one vector store, and each access is still a 16-byte run along M.
    int across = 1;
    if (!chain.ops.empty() && options.sm >= 90 && options.num_warps % 4 == 0 && best_axis == last - 1 &&
        std::any_of(chain.dot_uses.begin(), chain.dot_uses.end(),
                    [](const std::pair<Op*, int>& use) {
                      return use.second == 0 && tf32_dot(*use.first) &&
                             ir::DotOp(*use.first).input_precision() == ir::InputPrecision::Tf32;
                    }) &&
        vector * vector <= type->num_elements() / threads && type->shape()[last] % vector == 0) {
      across = static_cast<int>(vector);
    }
    const ir::Layout* layout = coalesced_layout(type->shape(), best_axis, static_cast<int>(vector), threads, across);
    if (layout == nullptr) continue;
    if (partner != nullptr) {
      // The other branch's load in the same layout: as wide along the axis.
      if (taken.count(partner) != 0 || ir::is_volatile(*partner) || !facts.has(partner->operand(0)) ||
          access_width_along(*partner, best_axis, facts) < vector ||
          (!operands_recomputable(*partner) && !operands_slot_computable(*partner))) {
        continue;
      }
      taken.insert(op);
      taken.insert(partner);
      yielded.emplace_back(op, partner, layout);
      continue;
    }
    if (chain.ops.empty()) {
      chosen.emplace_back(op, layout);
      continue;
    }
    if (in_slot) continue;  // a chain's operands are recomputed (emit_slot_load)
    // The emitter holds a chain in the slot register for register as the flat rule would.
    const ir::LinearLayout flat = ir::LinearLayout::flat(type->shape(), threads, widths.vector(type->num_elements()));
    if (layout->linear().in_size(ir::LinearLayout::kRegister) == flat.in_size(ir::LinearLayout::kRegister)) {
      taken.insert(op);
      taken.insert(chain.loads.begin(), chain.loads.end());
      chains.emplace_back(op, std::move(chain), layout);
    }
  }
  SlotValues made;
  std::unordered_set<const Op*> replaced;
  for (auto& [op, layout] : chosen) rewrite_in_slot(*op, layout, made, replaced);
  for (auto& [a, b, layout] : yielded) rewrite_yielded(*a, *b, layout, made, replaced);
  erase_dead(function.body(), replaced);
  for (auto& [op, chain, layout] : chains) rewrite_chain(*op, chain, layout);
  if (dots_only && options.lines_in_slot) lines_in_slot(function, widths, threads);
  // The rest of a dot kernel keeps its IR (no conversions inserted between its other ops).
  if (dots_only) return;
  insert_conversions(function.body());
  remove_redundant(function.body(), widths, threads);
  if (!chosen.empty() && move_conversions_forward(function.body(), widths, threads)) {
    remove_redundant(function.body(), widths, threads);
    convert_roots_once(function.body(), widths, threads);
  }
}

}  // namespace tritium::gpu

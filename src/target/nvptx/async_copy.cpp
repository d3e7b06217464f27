// plan_async_copies (see async_copy.h).
#include "target/nvptx/async_copy.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <variant>

#include "analysis/axis_info.h"
#include "gpu/int8_wgmma.h"
#include "gpu/prefetch_operands.h"
#include "gpu/scratch.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "ir/op_views.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

int64_t max_shared_optin(int sm) {
  switch (sm) {
    case 70:
    case 72: return 96 * 1024;
    case 75: return 64 * 1024;
    case 80:
    case 87: return 163 * 1024;
    case 86:
    case 89:
    case 120:
    case 121: return 99 * 1024;
    default: return 227 * 1024;  // sm_90, sm_100 and later data-center parts
  }
}

int blocks_per_sm(int64_t shared, int threads, int regs) {
  const int64_t warps = (threads + 31) / 32;
  const int64_t regs_per_warp = (int64_t{std::max(regs, 1)} * 32 + 255) / 256 * 256;
  int64_t blocks = 2048 / std::max<int64_t>(threads, 1);
  blocks = std::min(blocks, int64_t{65536} / (regs_per_warp * warps));
  blocks = std::min(blocks, int64_t{228 * 1024} / (shared + 1024));
  return static_cast<int>(blocks);
}

namespace {

}  // namespace

const ir::Value* loaded_value(const ir::Value* v) {
  const ir::Op* def = v->def();
  if (def == nullptr || def->kind() != OpKind::ConvertLayout || v->num_uses() != 1) return v;
  const ir::Value* in = def->operand(0);
  const ir::Op* load = in->def();
  return load != nullptr && load->kind() == OpKind::Load && in->num_uses() == 1 && load->parent() == def->parent() ? in : v;
}

bool AsyncPlan::passes_handle(const ir::Op& op) const {
  return op.kind() == OpKind::ConvertLayout && loads.count(op.operand(0)) != 0;
}

const ir::Op* descriptor_tile_of(const ir::Op& load) {
  const ir::Op* def = load.operand(0)->def();
  return def != nullptr && def->kind() == OpKind::DescriptorTile ? def : nullptr;
}

std::vector<const ir::Value*> mask_scalar_tests(const ir::Op& load) {
  std::vector<const ir::Value*> tests, stack;
  if (const ir::Value* mask = ir::load_mask(load)) stack.push_back(mask);
  while (!stack.empty()) {
    const ir::Value* v = stack.back();
    stack.pop_back();
    const ir::Op* def = v->def();
    if (!v->type()->is_block()) {
      tests.push_back(v);
    } else if (def != nullptr && def->kind() == OpKind::And) {
      stack.push_back(def->operand(0));
      stack.push_back(def->operand(1));
    } else if (def != nullptr && def->kind() == OpKind::Splat) {
      tests.push_back(def->operand(0));
    }
  }
  return tests;
}

namespace {

// A load used only here whose masked-off elements read as zero bits (`v` is the load's
// value: loaded_value has looked through the conversion of a load made in its slot).
bool copyable_load(const ir::Value* v) {
  const ir::Op* def = v->def();
  if (def == nullptr || def->kind() != OpKind::Load || v->num_uses() != 1 || ir::is_volatile(*def)) return false;
  const ir::Value* other = ir::load_other(*def);
  // A load made in its slot reads its `other` converted there (a constant all the same).
  if (other != nullptr && other->def() != nullptr && other->def()->kind() == OpKind::ConvertLayout) {
    other = other->def()->operand(0);
  }
  return other == nullptr || ir::is_zero_constant(other);
}

// Whether a load of a wgmma operand copies best transposed (async_copy.h): its pointer has
// aligned 16-byte runs along axis 0 (K of B, M of A) and not along axis 1, under one mask
// bit each.
bool copies_transposed(const ir::Op& load, const analysis::AxisInfoAnalysis& axis) {
  const ir::Value* ptr = load.operand(0);
  const std::vector<int64_t>& shape = load.result()->type()->shape();
  const int64_t kRun = run_of_16_bytes(load.result()->type());  // 16 bytes
  if (shape.size() != 2 || shape[0] % kRun != 0 || !axis.has(ptr)) return false;
  const analysis::AxisInfo& p = axis.get(ptr);
  if (p.contiguity[0] < kRun || p.divisibility[0] < 16 || gpu::access_width(load, axis) >= kRun) return false;
  const ir::Value* mask = ir::load_mask(load);
  return mask == nullptr || !mask->type()->is_block() || (axis.has(mask) && axis.get(mask).constancy[0] % kRun == 0);
}

// Whether any thread can compute the address and mask bit of any element of the load.
// A larger budget than a conversion's: the alternative here is not a round trip but copies
// by the threads holding each run's first element, a predicated copy per held element (a
// tensor descriptor's tile, bounds-checked on both axes in i64, needs about 30 ops).
bool addresses_recomputable(const ir::Op& load) {
  int budget = 3 * gpu::kRecomputeBudget;
  const ir::Value* mask = ir::load_mask(load);
  return gpu::recomputable(load.operand(0), &budget) && (mask == nullptr || gpu::recomputable(mask, &budget));
}

// How a block's elements differ: all the same and known (a constant), all the same (a value
// of the program), by amounts known at compile time (linear in the index: ranges, added, and
// scaled by constants), or otherwise (scaled by a value of the program: a runtime stride).
enum class Spread { kConstant, kUniform, kLinear, kOther };

Spread spread_of(const ir::Value* value) {
  const ir::Op* def = value->def();
  if (!value->type()->is_block()) return def != nullptr && def->kind() == OpKind::Constant ? Spread::kConstant : Spread::kUniform;
  if (def == nullptr) return Spread::kOther;  // a block carried by a loop
  switch (def->kind()) {
    case OpKind::Constant: return Spread::kConstant;  // a splat constant (dense ones are not blocks of pointers' offsets)
    case OpKind::MakeRange: return Spread::kLinear;
    case OpKind::Splat:
    case OpKind::ExpandDims:
    case OpKind::Broadcast:
    case OpKind::Reshape:
    case OpKind::Trans:
    case OpKind::ConvertLayout:
    case OpKind::Cast: return spread_of(def->operand(0));
    default: break;
  }
  if (!ir::has_trait(def->kind(), ir::kElementwise) || !ir::is_pure(*def)) return Spread::kOther;
  std::vector<Spread> in;
  for (const ir::Value* operand : def->operands()) in.push_back(spread_of(operand));
  const Spread most = *std::max_element(in.begin(), in.end());
  if (most == Spread::kOther || most != Spread::kLinear) return most;
  switch (def->kind()) {
    case OpKind::AddPtr:
    case OpKind::Add:
    case OpKind::Sub: return Spread::kLinear;
    case OpKind::Mul: return in.size() == 2 && (in[0] == Spread::kConstant || in[1] == Spread::kConstant) ? Spread::kLinear : Spread::kOther;
    case OpKind::Shl: return in.size() == 2 && in[1] == Spread::kConstant ? Spread::kLinear : Spread::kOther;
    default: return Spread::kOther;
  }
}

// The dot uses of a carried operand, when every use is one (on the tensor-core fp16/bf16
// path, wgmma's fp8, or mma.sync's tf32 and int8), all of them on wgmma or all on mma.sync
// (`*wgmma` says which).
bool only_tensor_core_operand(const ir::Value* arg, const FragmentPlan& fragments, int sm, int num_warps,
                              std::vector<const ir::Op*>& dots, bool* wgmma) {
  if (!arg->has_uses()) return false;
  for (const ir::Use& use : arg->uses()) {
    const ir::Op* dot = use.user;
    // At the top of the loop body: the dot issues the next iteration's copies (emit_async.cpp).
    if (dot->kind() != OpKind::Dot || use.index > 1 || fragments.layout(dot->result()) == nullptr ||
        dot->parent() != arg->region()) {
      return false;
    }
    ScalarKind a = dot->operand(0)->type()->element()->scalar_kind();
    ScalarKind b = dot->operand(1)->type()->element()->scalar_kind();
    ScalarKind r = dot->result()->type()->element()->scalar_kind();
    bool f16 = a == ScalarKind::F16 && b == ScalarKind::F16;
    bool bf16 = a == ScalarKind::BF16 && b == ScalarKind::BF16;
    bool on_wgmma = uses_wgmma(*dot, *fragments.layout(dot->result()), sm, num_warps);
    // fp8 only toward wgmma's own fp8 inputs (plan_op keeps it when both operands qualify).
    bool fp8 = on_wgmma && gpu::native_fp8_candidate(*dot);
    bool tf32 = on_wgmma && gpu::tf32_dot(*dot);
    bool int8 = on_wgmma && gpu::int8_dot(*dot);
    // tf32x3 runs on mma.sync (tf32 too below sm_90, int8 where gpu/int8_wgmma.h did not
    // choose wgmma), from padded tiles.
    bool narrow_or_wide = !on_wgmma && (gpu::tf32_dot(*dot) || gpu::int8_dot(*dot));
    if (!(f16 || bf16 || fp8 || tf32 || int8 || narrow_or_wide) || r == ScalarKind::F64 || dot->result()->type()->rank() != 2) return false;
    if (!dots.empty() && on_wgmma != *wgmma) return false;
    *wgmma = on_wgmma;
    dots.push_back(dot);
  }
  return true;
}

// Both inputs f16, or both bf16 (ldmatrix's 16-bit elements).
// Whether `op` is a dot or holds one in its regions.
bool holds_dot(const ir::Op& op) {
  if (op.kind() == OpKind::Dot) return true;
  for (const auto& region : op.regions()) {
    for (const auto& inner : region->ops()) {
      if (holds_dot(*inner)) return true;
    }
  }
  return false;
}

bool f16_or_bf16_dot(const ir::Op& dot) {
  ScalarKind a = dot.operand(0)->type()->element()->scalar_kind();
  ScalarKind b = dot.operand(1)->type()->element()->scalar_kind();
  return a == b && (a == ScalarKind::F16 || a == ScalarKind::BF16);
}

// The body argument at `v`, when `v` is one used only by the loop's yield (a later
// iteration's buffer, passed down the chain); its index, else -1.
int passed_down(const ir::Value* v, const ir::Region& body) {
  if (!v->is_region_arg() || v->region() != &body || v->index() == 0 || v->num_uses() != 1) return -1;
  return v->users()[0] == body.terminator() ? v->index() : -1;
}

// The loads that carried value k of `loop` holds: `chain` gets its body argument, then the
// arguments the yield passes down to it (a later iteration's, when prefetch_loads ran more
// than one ahead); returns the load the body yields into the last of them, or null when that
// load (in the body) or an initial value's (before the loop) is not one `copyable` takes.
const ir::Value* load_chain(const ir::Op& loop, int k, const std::function<bool(const ir::Value*)>& copyable,
                            std::vector<const ir::Value*>& chain) {
  const ir::Region& body = *loop.region(0);
  const ir::Op* yield = body.terminator();
  chain = {body.arg(k + 1)};
  const ir::Value* next = yield->operand(k);
  for (int at = passed_down(next, body); at > 0 && chain.size() < 8; at = passed_down(next, body)) {
    chain.push_back(next);
    next = yield->operand(at - 1);
  }
  next = loaded_value(next);
  if (!copyable(next) || next->def()->parent() != &body) return nullptr;
  for (const ir::Value* c : chain) {
    const ir::Value* init = loaded_value(loop.operand(c->index() + 2));
    if (!copyable(init) || init->def()->parent() != loop.parent()) return nullptr;
  }
  return next;
}

// A new operand for the carried value `chain[0]` whose loads load_chain found, one per
// iteration ahead.
std::unique_ptr<AsyncOperand> operand_of(std::vector<const ir::Value*> chain) {
  auto operand = std::make_unique<AsyncOperand>();
  operand->carried = chain.front();
  operand->distance = static_cast<int>(chain.size());
  operand->chain = std::move(chain);
  return operand;
}

// Whether the loop's one dot may stay in flight into the next iteration (async_copy.h): a
// wgmma whose accumulator the loop carries and nothing else reads, in f32 (or int8's i32)
// registers that are the loop's own values (f16 ones are unpacked after the wait, which would read them
// while the wgmma still writes them).
bool keeps_dot_in_flight(const ir::Op& loop, const ir::Op& dot, bool wgmma) {
  const ir::Region& body = *loop.region(0);
  int dots = 0;
  for (const auto& op : body.ops()) dots += op->kind() == OpKind::Dot ? 1 : 0;
  const ir::Value* acc = dot.operand(2);
  const ir::Value* result = dot.result();
  const ScalarKind kind = result->type()->element()->scalar_kind();
  return wgmma && dots == 1 && (kind == ScalarKind::F32 || kind == ScalarKind::I32) && acc->is_region_arg() && acc->region() == &body &&
         acc->index() > 0 && acc->num_uses() == 1 && result->num_uses() == 1 &&
         result->users()[0] == body.terminator() && body.terminator()->operand(acc->index() - 1) == result;
}

// Whether `value` is defined outside `loop` (so every iteration reads the same one).
bool defined_outside(const ir::Value* value, const ir::Op& loop) {
  const ir::Region* region = value->def() != nullptr ? value->def()->parent() : value->region();
  for (const ir::Op* owner = region != nullptr ? region->parent() : nullptr; owner != nullptr;
       owner = owner->parent() != nullptr ? owner->parent()->parent() : nullptr) {
    if (owner == &loop) return false;
  }
  return true;
}

// Whether `value` is computed from `from` through ops of `body` (a data dependence, which
// no reordering of the emitted code can break).
bool computed_from(const ir::Value* value, const ir::Value* from, const ir::Region& body) {
  std::vector<const ir::Value*> work = {value};
  std::unordered_set<const ir::Value*> seen;
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (v == from) return true;
    if (!seen.insert(v).second || v->def() == nullptr || v->def()->parent() != &body) continue;
    for (const ir::Value* operand : v->def()->operands()) work.push_back(operand);
  }
  return false;
}

// A loop of several wgmma dots, all in its body itself, whose last one may stay in flight
// into the next iteration, waited for by the first one there (attention's P.V, overlapping
// the next Q.K^T as Triton's does): the body argument that carries its accumulator, or null.
// The last dot's f32 (or i32) result goes to the yield alone; every use of the argument is
// an op of the body after the first dot (the first dot's wait hands its registers over,
// emit_wgmma.cpp); its fragments are never copied to the flat layout (that copy would read
// them at the loop's top, before the wait); B sits in stage buffers (`copied`) and A too, or
// in registers that only a value computed after the first dot's wait writes again.
const ir::Value* last_dot_in_flight(const ir::Op& loop, const FragmentPlan& fragments, bool wgmma,
                                    const std::function<bool(const ir::Value*)>& copied) {
  const ir::Region& body = *loop.region(0);
  std::vector<const ir::Op*> dots;
  for (const auto& op : body.ops()) {
    if (op->kind() == OpKind::Dot) {
      dots.push_back(op.get());
    } else if (holds_dot(*op)) {
      return nullptr;
    }
  }
  if (!wgmma || dots.size() < 2) return nullptr;
  const ir::Op& first = *dots.front();
  const ir::Op& last = *dots.back();
  const ir::Value* result = last.result();
  const ScalarKind kind = result->type()->element()->scalar_kind();
  if ((kind != ScalarKind::F32 && kind != ScalarKind::I32) || result->num_uses() != 1 ||
      result->users()[0] != body.terminator()) {
    return nullptr;
  }
  int index = -1;
  for (int i = 0; i < body.terminator()->num_operands(); ++i) {
    if (body.terminator()->operand(i) == result) index = i;
  }
  if (index < 0) return nullptr;
  const ir::Value* acc = body.arg(index + 1);
  // The overlap keeps the last dot's accumulators, its A (in registers: half as many, two
  // 16-bit elements a register) and the first dot's accumulators live at once; past 128 a
  // thread, ptxas spills (attention at 128 x 64 with 4 warps: d=128 80 -> 328 bytes, d=64
  // 226 -> 252 registers), so such loops wait for it as before.
  const FragmentLayout* first_acc = fragments.layout(first.result());
  const FragmentLayout* last_acc = fragments.layout(result);
  if (first_acc == nullptr || last_acc == nullptr || last_acc->num_regs() + first_acc->num_regs() * 3 / 2 > 128) {
    return nullptr;
  }
  // A in registers: the next iteration may write them again only after the first dot's wait
  // (P, computed from Q.K^T), or never (defined outside the loop).
  const ir::Value* a = last.operand(0);
  const bool a_registers = a_in_registers(last, fragments) &&
                           (defined_outside(a, loop) || computed_from(a, first.result(), body));
  if (fragments.layout(acc) == nullptr || fragments.needs_flat(acc) || !copied(last.operand(1)) ||
      !(copied(a) || a_registers)) {
    return nullptr;
  }
  size_t first_at = 0;
  std::unordered_map<const ir::Op*, size_t> position;
  for (const auto& op : body.ops()) {
    if (op.get() == &first) first_at = position.size();
    position[op.get()] = position.size();
  }
  for (const ir::Use& use : acc->uses()) {
    auto it = position.find(use.user);
    if (it == position.end() || it->second <= first_at || use.user == body.terminator()) return nullptr;
  }
  return acc;
}


// The A of a wgmma dot in `loop`'s body that is defined outside the loop, flat (not
// fragments: P is read from registers) and not copied, or null: such an A can be hoisted.
const ir::Value* hoistable_a(const ir::Op& dot, const ir::Op& loop, const FragmentPlan& fragments, int sm, int num_warps,
                             const AsyncPlan& plan) {
  if (dot.kind() != OpKind::Dot || fragments.layout(dot.result()) == nullptr) return nullptr;
  const ir::Value* a = dot.operand(0);
  const ir::Type* type = a->type();
  ScalarKind k = type->element()->scalar_kind();
  // fp32 only as tf32 (uses_wgmma takes fp32 dots of that precision alone), int8 only where
  // it runs on wgmma (gpu/int8_wgmma.h): its tile K-major, as wgmma reads 8-bit operands.
  bool ok = uses_wgmma(dot, *fragments.layout(dot.result()), sm, num_warps) && type->rank() == 2 &&
            fragments.layout(a) == nullptr && plan.carried.count(a) == 0 && defined_outside(a, loop) &&
            (k == ScalarKind::F16 || k == ScalarKind::BF16 || ir::is_fp8(k) || k == ScalarKind::F32 ||
             (k == ScalarKind::I8 && gpu::int8_dot(dot)));
  return ok ? a : nullptr;
}

// A new buffer for hoisting `a` at plan.reserved_bytes (M-major: K rows of M, where
// `m_major`), or null when it does not fit.
const HoistedOperand* reserve_hoisted(const ir::Value* a, const ir::Op& first, const ir::Op& last, bool m_major,
                                      AsyncPlan& plan) {
  const ir::Type* type = a->type();
  const ScalarKind k = type->element()->scalar_kind();
  const int64_t bytes = k == ScalarKind::F32 ? 4 : k == ScalarKind::I8 ? 1 : 2;  // fp8 staged as f16
  SharedTile tile = m_major ? SharedTile::swizzled(type->shape()[1], type->shape()[0], bytes)
                            : SharedTile::swizzled(type->shape()[0], type->shape()[1], bytes);
  const int64_t a_align = SharedTile::kSwizzleAlign;
  int64_t offset = (plan.reserved_bytes + a_align - 1) / a_align * a_align;
  if (offset + tile.bytes() > kMaxSharedBytes) return nullptr;
  plan.reserved_bytes = offset + tile.bytes();
  plan.hoisted.push_back(std::make_unique<HoistedOperand>(HoistedOperand{&first, a, offset, tile, &last, m_major}));
  return plan.hoisted.back().get();
}

// The loop's hoistable wgmma A operands (hoistable_a) that no earlier loop shares with it
// (plan_shared_hoisted): each gets one buffer, written before the loop.
void plan_hoisted(const ir::Op& loop, const FragmentPlan& fragments, int sm, int num_warps, AsyncPlan& plan) {
  std::unordered_map<const ir::Value*, const HoistedOperand*> here;
  for (const auto& op : loop.region(0)->ops()) {
    const ir::Value* a = hoistable_a(*op, loop, fragments, sm, num_warps, plan);
    if (a == nullptr || plan.hoisted_a.count(op.get()) != 0) continue;
    auto it = here.find(a);
    if (it == here.end()) {
      const HoistedOperand* h = reserve_hoisted(a, loop, loop, trans_a_m_major(*op, fragments, sm, num_warps), plan);
      if (h == nullptr) continue;
      it = here.emplace(a, h).first;
    }
    plan.hoisted_a[op.get()] = it->second;
  }
}

// Values hoisted by several loops of `region` (Q, read by both of causal attention's loops)
// get one buffer at plan.reserved_bytes, before the loops' stage buffers (which later loops
// reuse), written before the first loop and released at the last one's exit.
void plan_shared_hoisted(const ir::Region& region, const FragmentPlan& fragments, int sm, int num_warps, AsyncPlan& plan) {
  std::vector<std::pair<const ir::Value*, std::vector<const ir::Op*>>> readers;  // in program order
  std::unordered_map<const ir::Value*, bool> m_major;  // every reader reads it M-major
  for (const auto& loop : region.ops()) {
    if (loop->kind() != OpKind::For) continue;
    for (const auto& op : loop->region(0)->ops()) {
      const ir::Value* a = hoistable_a(*op, *loop, fragments, sm, num_warps, plan);
      if (a == nullptr) continue;
      const bool mine = trans_a_m_major(*op, fragments, sm, num_warps);
      m_major[a] = m_major.count(a) == 0 ? mine : m_major[a] && mine;
      auto it = std::find_if(readers.begin(), readers.end(), [&](const auto& r) { return r.first == a; });
      if (it == readers.end()) it = readers.insert(readers.end(), {a, {}});
      if (it->second.empty() || it->second.back() != loop.get()) it->second.push_back(loop.get());
    }
  }
  for (const auto& [a, loops] : readers) {
    if (loops.size() < 2) continue;
    const HoistedOperand* h = reserve_hoisted(a, *loops.front(), *loops.back(), m_major.at(a), plan);
    if (h == nullptr) continue;
    for (const ir::Op* loop : loops) {
      for (const auto& op : loop->region(0)->ops()) {
        if (hoistable_a(*op, *loop, fragments, sm, num_warps, plan) == a) plan.hoisted_a[op.get()] = h;
      }
    }
  }
}

void plan_region(const ir::Region& region, const FragmentPlan& fragments, const analysis::AxisInfoAnalysis& axis,
                 int sm, int num_warps, AsyncPlan& plan);

// For each copied operand of `loop` (here[h], whose load in the body is last_loads[h]): how
// many of its own iteration's commit groups come after its own. Each load commits one group
// where it stands, so in the body that is the number of copied loads after it. The loads
// before the loop (the chain's initial values, stage by stage) must commit in the same
// order, every stage before the next: else all 0, the count that is safe in any order.
std::vector<int> later_in_batch(const ir::Op& loop, const std::vector<std::unique_ptr<AsyncOperand>>& here,
                                const std::vector<const ir::Value*>& last_loads) {
  const size_t n = here.size();
  std::vector<int> none(n, 0);
  auto position = [](const ir::Value* v) -> int64_t {
    const ir::Op* def = v->def();
    if (def == nullptr || def->parent() == nullptr) return -1;
    const auto& ops = def->parent()->ops();
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].get() == def) return static_cast<int64_t>(i);
    }
    return -1;
  };
  auto order_of = [&](const std::vector<int64_t>& where) {  // operand indices by position
    std::vector<size_t> order(n);
    for (size_t h = 0; h < n; ++h) order[h] = h;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return where[x] < where[y]; });
    return order;
  };
  std::vector<int64_t> body(n);
  for (size_t h = 0; h < n; ++h) body[h] = position(last_loads[h]);
  const std::vector<size_t> body_order = order_of(body);
  int64_t previous_stage_end = -1;
  for (size_t stage = 0; stage < static_cast<size_t>(here[0]->distance); ++stage) {
    std::vector<int64_t> before(n);
    for (size_t h = 0; h < n; ++h) {
      if (here[h]->chain.size() != here[0]->chain.size()) return none;
      before[h] = position(loop.operand(here[h]->chain[stage]->index() + 2));
      if (before[h] < 0 || before[h] <= previous_stage_end) return none;
    }
    if (order_of(before) != body_order) return none;
    previous_stage_end = *std::max_element(before.begin(), before.end());
  }
  std::vector<int> later(n);
  for (size_t k = 0; k < n; ++k) later[body_order[k]] = static_cast<int>(n - 1 - k);
  return later;
}


// The stage buffers of `op` (and of the loops inside it), from plan.reserved_bytes on.
void plan_op(const ir::Op& op_ref, const FragmentPlan& fragments, const analysis::AxisInfoAnalysis& axis, int sm,
             int num_warps, AsyncPlan& plan) {
  const ir::Op* op = &op_ref;
  {
    // The branches of an `if` never run together: their stage buffers may overlap.
    int64_t base = plan.reserved_bytes, end = base;
    for (const auto& inner : op->regions()) {
      if (op->kind() == OpKind::If) plan.reserved_bytes = base;
      plan_region(*inner, fragments, axis, sm, num_warps, plan);
      end = std::max(end, plan.reserved_bytes);
    }
    plan.reserved_bytes = end;
    if (op->kind() != OpKind::For) return;
    const ir::Region& body = *op->region(0);
    const ir::Op* yield = body.terminator();
    std::vector<std::unique_ptr<AsyncOperand>> here;
    std::vector<const ir::Value*> last_loads;
    // Per operand: whether its loads are host-descriptor blocks the TMA could copy, and then
    // whether transposed (B held K-major). The TMA needs no axis facts: a transposed block is
    // K-major whatever the facts say, but only if the whole loop goes through the TMA.
    std::vector<int> tma_layout;  // -1: not a TMA candidate; 0 / 1: as is / transposed
    std::vector<const ir::Op*> loop_dots;
    bool loop_wgmma = false;
    for (int k = 0; k < op->num_results(); ++k) {
      const ir::Value* arg = body.arg(k + 1);
      std::vector<const ir::Op*> dots;
      bool wgmma = false;
      if (!arg->type()->is_block() || arg->type()->rank() != 2) continue;
      if (!only_tensor_core_operand(arg, fragments, sm, num_warps, dots, &wgmma)) continue;
      std::vector<const ir::Value*> chain;
      const ir::Value* next = load_chain(*op, k, copyable_load, chain);
      if (next == nullptr) continue;
      std::unique_ptr<AsyncOperand> operand = operand_of(chain);
      const std::vector<int64_t>& shape = arg->type()->shape();
      const int64_t bytes = ir::bit_width(arg->type()->element()->scalar_kind()) / 8;
      operand->dots = dots;
      // Transposed only when every load of the chain copies so, and as every dot's B (K-major),
      // or as every dot's A: f16/bf16 on wgmma (M-major: wgmma transposes no 8-bit operand),
      // tf32 or int8 on mma.sync (read element by element, either way).
      const bool as_b = std::all_of(dots.begin(), dots.end(), [&](const ir::Op* d) { return d->operand(1) == arg; });
      const bool as_a = std::all_of(dots.begin(), dots.end(), [&](const ir::Op* d) { return d->operand(0) == arg; });
      // On mma.sync f16/bf16 too: ldmatrix reads a transposed tile with .trans flipped
      // (emit_dot.cpp), so a k^T operand (flash-linear-attention's chunk kernels) is copied in
      // 16-byte runs along M instead of element by element.
      const bool mma_sync_ok = std::all_of(dots.begin(), dots.end(), [](const ir::Op* d) {
        return gpu::tf32_dot(*d) || gpu::int8_dot(*d) || f16_or_bf16_dot(*d);
      });
      const bool transposable = wgmma ? as_b || (as_a && bytes == 2) : mma_sync_ok && (as_a || as_b);
      operand->transposed = transposable && copies_transposed(*next->def(), axis) &&
                            std::all_of(chain.begin(), chain.end(), [&](const ir::Value* c) {
                              return copies_transposed(*loaded_value(op->operand(c->index() + 2))->def(), axis);
                            });
      // wgmma reads tf32 K-major only: a B of rows along N goes there element by element, and
      // so does an A of columns along M (its tile as it is, the copies dealt out along M, at
      // addresses computed from the element index: when they can be).
      if (wgmma && bytes == 4 && as_b && !operand->transposed) operand->transposed = operand->by_element = true;
      // A tf32 B whose dots take A from registers is read in SharedTile::evens_first order:
      // each element copied alone to its place (a 16-byte run along k would be split).
      const bool evens_first = wgmma && bytes == 4 && as_b && std::all_of(dots.begin(), dots.end(), [&](const ir::Op* d) {
        return k_evens_first(*d, fragments);
      });
      if (evens_first) operand->transposed = operand->by_element = true;
      if (wgmma && bytes == 4 && as_a && copies_transposed(*next->def(), axis) &&
          std::all_of(chain.begin(), chain.end(), [&](const ir::Value* c) {
            const ir::Op& load = *loaded_value(op->operand(c->index() + 2))->def();
            return copies_transposed(load, axis) && addresses_recomputable(load);
          }) &&
          addresses_recomputable(*next->def())) {
        operand->by_element = true;
      }
      int layout = -1;
      if (wgmma && sm >= 90 && !plan.descriptor_bases.empty()) {
        std::vector<const ir::Value*> loads = {next};
        for (const ir::Value* c : chain) loads.push_back(loaded_value(op->operand(c->index() + 2)));
        for (const ir::Value* l : loads) {
          const ir::Op* tile = descriptor_tile_of(*l->def());
          const int t = tile == nullptr || plan.descriptor_bases.count(tile->operand(1)) == 0 ? -2
                        : tile->find_attr("transposed") != nullptr && tile->int_attr("transposed") != 0 ? 1 : 0;
          layout = l == next ? t : layout == t ? t : -2;
        }
        if (layout < 0 || (layout == 1 && !as_b)) layout = -1;
      }
      tma_layout.push_back(layout);
      // The arrangement the dot's own staging would use (emit_dot.cpp, emit_wgmma.cpp).
      // tf32 reads a row-major B and an M-major A down the tile's rows (mma_tile_pad).
      const int64_t pad = mma_tile_pad(bytes, operand->transposed ? as_a : as_b);
      operand->tile = operand->transposed ? (wgmma ? SharedTile::swizzled(shape[1], shape[0], bytes)
                                                   : SharedTile::padded(shape[1], shape[0], bytes, pad))
                      : wgmma              ? SharedTile::swizzled(shape[0], shape[1], bytes)
                                           : SharedTile::padded(shape[0], shape[1], bytes, pad);
      operand->tile.evens_first = evens_first;
      loop_wgmma = wgmma;
      for (const ir::Op* d : dots) {
        if (std::find(loop_dots.begin(), loop_dots.end(), d) == loop_dots.end()) loop_dots.push_back(d);
      }
      last_loads.push_back(next);
      here.push_back(std::move(operand));
    }
    // An fp8 dot runs on wgmma's fp8 inputs only with A copied as it is and B copied K-major
    // (wgmma reads 8-bit operands K-major only); otherwise its operands are widened to f16 by
    // the dot's own staging, so none of them is copied. An int8 one on wgmma likewise, its
    // staging then writing both K-major (gpu/int8_wgmma.h chose wgmma where that is rare).
    auto copied_as = [&](const ir::Value* v, bool transposed) {
      return std::any_of(here.begin(), here.end(), [&](const auto& o) { return o->carried == v && o->transposed == transposed; });
    };
    for (size_t h = here.size(); h-- > 0;) {
      bool keep = std::all_of(here[h]->dots.begin(), here[h]->dots.end(), [&](const ir::Op* d) {
        const bool eight_bits = ir::is_fp8(d->operand(0)->type()->element()->scalar_kind()) ||
                                (gpu::int8_dot(*d) && uses_wgmma(*d, *fragments.layout(d->result()), sm, num_warps));
        if (!eight_bits) return true;
        // A row-major int8 B staged by the dot from registers (gpu/int8_wgmma.h): A's copy stays.
        const ir::AttrValue* b_regs = d->find_attr(gpu::kInt8WgmmaAttr);
        if (b_regs != nullptr && *b_regs == ir::AttrValue(gpu::kInt8WgmmaBFromRegisters)) {
          return here[h]->carried == d->operand(0) && copied_as(d->operand(0), false);
        }
        // A loop-invariant int8 A (attention's Q) is written once before the loop instead
        // (hoistable_a): then B's K-major copy stays.
        const bool a_hoisted = gpu::int8_dot(*d) && hoistable_a(*d, *op, fragments, sm, num_warps, plan) == d->operand(0);
        return (copied_as(d->operand(0), false) || a_hoisted) && copied_as(d->operand(1), true);
      });
      if (keep) continue;
      here.erase(here.begin() + static_cast<std::ptrdiff_t>(h));
      last_loads.erase(last_loads.begin() + static_cast<std::ptrdiff_t>(h));
      tma_layout.erase(tma_layout.begin() + static_cast<std::ptrdiff_t>(h));
    }
    for (const auto& operand : here) {
      for (const ir::Op* d : operand->dots) {
        if (ir::is_fp8(d->operand(0)->type()->element()->scalar_kind())) plan.native_fp8.insert(d);
      }
    }
    // Loads that reach a dot through elementwise ops (AsyncOperand::read_back), copied and
    // read back by each thread in the load's own layout.
    for (int k = 0; k < op->num_results(); ++k) {
      const ir::Value* arg = body.arg(k + 1);
      if (!arg->type()->is_block() || !arg->has_uses() ||
          std::any_of(here.begin(), here.end(), [&](const auto& o) { return o->carried == arg; })) {
        continue;
      }
      const ScalarKind kind = arg->type()->element()->scalar_kind();
      const int64_t bytes = ir::bit_width(kind) / 8;
      // Read back as registers at the first use: every use an op of the body itself, not its
      // yield (which passes buffers' offsets down the chain), nor a dot (which would take it
      // for a copied operand in its own arrangement).
      const std::vector<ir::Use> uses = arg->uses();
      bool ok = bytes >= 1 && std::all_of(uses.begin(), uses.end(), [&](const ir::Use& use) {
        return use.user->parent() == &body && use.user != yield && use.user->kind() != OpKind::Dot;
      });
      if (!ok) continue;
      // Each load's runs along the last axis, at least 4 bytes (cp.async's least) as proven;
      // or, every load of the chain alike, 16-byte runs down the columns (axis 0: fla's k and
      // gk read K-contiguous) whose addresses follow from the element index: then the tile
      // holds the block transposed (tile row n is column n), the runs dealt out over the
      // threads (AsyncPlan::recomputed), and a thread reads back what others copied, after
      // the iteration's wait and a barrier (emit_async.cpp).
      auto down_columns = [&](const ir::Value* load) {
        return arg->type()->rank() == 2 && copies_transposed(*load->def(), axis) && addresses_recomputable(*load->def());
      };
      auto runs = [&](const ir::Value* load) {
        return copyable_load(load) && load->def()->has_attr(gpu::kReadBackAttr) &&
               (gpu::access_width(*load->def(), axis) * bytes >= 4 || down_columns(load));
      };
      std::vector<const ir::Value*> chain;
      const ir::Value* next = load_chain(*op, k, runs, chain);
      if (next == nullptr) continue;
      const bool transposed = down_columns(next) && std::all_of(chain.begin(), chain.end(), [&](const ir::Value* c) {
        return down_columns(loaded_value(op->operand(c->index() + 2)));
      });
      if (!transposed && (gpu::access_width(*next->def(), axis) * bytes < 4 ||
                          std::any_of(chain.begin(), chain.end(), [&](const ir::Value* c) {
                            return gpu::access_width(*loaded_value(op->operand(c->index() + 2))->def(), axis) * bytes < 4;
                          }))) {
        continue;
      }
      std::unique_ptr<AsyncOperand> operand = operand_of(chain);
      operand->read_back = true;
      operand->transposed = transposed;
      operand->line = arg->type()->rank() == 1;
      {
        size_t index = 0, first_use = body.ops().size(), first_dot = body.ops().size();
        for (const auto& body_op : body.ops()) {
          for (const ir::Use& use : uses) {
            if (use.user == body_op.get()) first_use = std::min(first_use, index);
          }
          if (first_dot == body.ops().size() && holds_dot(*body_op)) first_dot = index;
          ++index;
        }
        // A line is read at other threads' elements too: its copies wait a barrier more.
        operand->read_before_copies = first_use < first_dot && !operand->line;
      }
      const int64_t cols = arg->type()->shape().back();
      // Read at the fragment positions (FragmentPlan::reads_back: a quad's lanes read rows
      // 8 apart): rows padded by 16 bytes, which keeps the copies' 16-byte runs aligned and
      // puts those rows in distinct banks.
      const bool padded = fragments.reads_back(arg) && cols * bytes % 16 == 0;
      operand->tile = SharedTile::padded(arg->type()->num_elements() / cols, cols, bytes, padded ? 16 : 0);
      // Transposed: rows of the block's columns, padded by 16 bytes (a fragment's quad reads
      // two columns apart, its lanes consecutive rows: distinct banks for 2- and 4-byte elements).
      if (transposed) operand->tile = SharedTile::padded(cols, arg->type()->shape()[0], bytes, 16);
      tma_layout.push_back(-1);
      last_loads.push_back(next);
      here.push_back(std::move(operand));
    }
    // gpu/prefetch_operands.h kept the stage buffers of loops with read_back operands within
    // kReadBackSharedBytes; should padding and alignment take them past kMaxSharedBytes, the
    // last read_back operands are left out (their loads stay prefetched into registers).
    // An extra buffer only where a dot may stay in flight with it (below: one dot reads the
    // copies, or the last of several with last_dot_in_flight); with read_back_fit.
    const int extra = !plan.read_back_fit || loop_dots.size() == 1 || plan.last_dot_in_flight ? 1 : 0;
    auto stage_bytes = [&]() {
      int64_t total = 0;
      for (const auto& o : here) total += (o->distance + 1 + extra) * (o->tile.bytes() + SharedTile::kSwizzleAlign);
      return total;
    };
    // Lines stay (fragment_layout.h's read_back_line_arg counted on them; a few hundred bytes).
    while (stage_bytes() > kMaxSharedBytes) {
      size_t drop = here.size();
      while (drop > 0 && here[drop - 1]->read_back && here[drop - 1]->line) --drop;
      if (drop == 0 || !here[drop - 1]->read_back) break;
      here.erase(here.begin() + static_cast<std::ptrdiff_t>(drop - 1));
      last_loads.erase(last_loads.begin() + static_cast<std::ptrdiff_t>(drop - 1));
      tma_layout.erase(tma_layout.begin() + static_cast<std::ptrdiff_t>(drop - 1));
    }
    loop_dots.erase(std::remove_if(loop_dots.begin(), loop_dots.end(), [&](const ir::Op* d) {
                      return std::none_of(here.begin(), here.end(), [&](const auto& o) {
                        return std::find(o->dots.begin(), o->dots.end(), d) != o->dots.end();
                      });
                    }), loop_dots.end());
    if (here.empty()) {
      plan_hoisted(*op, fragments, sm, num_warps, plan);
      return;
    }
    auto align = [&](int64_t b) {
      const int64_t a = loop_wgmma ? SharedTile::kSwizzleAlign : 16;  // 16: cp.async's widest copies
      return (b + a - 1) / a * a;
    };
    // The extra buffer of a dot kept in flight, only where it fits.
    int64_t with_extra = align(plan.reserved_bytes);
    for (const auto& operand : here) with_extra += (operand->distance + 2) * align(operand->tile.bytes());
    // Both operands must sit in stage buffers: a wgmma still in flight reads them, so one
    // staged by the dot itself would be overwritten by the next iteration's staging.
    auto copied = [&](const ir::Value* v) {
      return std::any_of(here.begin(), here.end(), [&](const auto& o) { return o->carried == v; });
    };
    // The loop must carry the accumulator in fragments: one carried flat (a loaded initial
    // value under experiment "noaccfrag"; by default it goes to the fragments before the
    // loop) is converted back from the dot's fragments each iteration, which an in-flight
    // wgmma has not written yet.
    const ir::Op* flying = loop_dots.size() == 1 && keeps_dot_in_flight(*op, *loop_dots[0], loop_wgmma) &&
                                   fragments.layout(loop_dots[0]->operand(2)) != nullptr &&
                                   copied(loop_dots[0]->operand(0)) && copied(loop_dots[0]->operand(1))
                               ? loop_dots[0]
                               : nullptr;
    // Several dots: the last one, waited for by the first (last_dot_in_flight).
    const ir::Value* flying_acc = nullptr;
    if (flying == nullptr && loop_dots.size() >= 2 && plan.last_dot_in_flight) {
      flying_acc = last_dot_in_flight(*op, fragments, loop_wgmma, copied);
      if (flying_acc != nullptr) flying = body.terminator()->operand(flying_acc->index() - 1)->def();
    }
    // A dot with partial accumulators (fp8 with max_num_imprecise_acc <= K) waits for its
    // instructions to add them into its result: it is never in flight.
    if (flying != nullptr && ir::DotOp(*flying).needs_partial_accumulator()) flying = nullptr;
    // In flight with the extra buffer where it fits, else with the copies after the dot's wait
    // (the stage buffers alone: 128 x 128 x 128 fp16 at 3 stages is 192 KiB, 256 with the
    // extra; before, such a loop waited for every wgmma, where Triton keeps one in flight).
    int64_t without = with_extra;
    for (const auto& operand : here) without -= align(operand->tile.bytes());
    const bool extra_fits = with_extra <= kMaxSharedBytes;
    bool in_flight = flying != nullptr && without <= kMaxSharedBytes;
    bool after_dot = false;
    if (in_flight) {
      plan.in_flight_dots.insert(flying);
      if (flying_acc != nullptr) {
        for (const auto& body_op : body.ops()) {
          if (body_op->kind() != OpKind::Dot) continue;
          plan.in_flight_waits[body_op.get()] = flying_acc;
          break;
        }
      }
      // Without the extra buffer where it costs a thread block per SM (128 x 128 x 64 at 8
      // warps, 3 stages: 4 buffers are 128 KiB, one block; 3 are 96 KiB, two, as Triton has).
      // Registers: the accumulators and about 64 more (ptxas decides; this estimates).
      const int regs = fragments.layout(flying->result())->num_regs() + 64;
      after_dot = blocks_per_sm(without, 32 * num_warps, regs) > blocks_per_sm(with_extra, 32 * num_warps, regs);
      if (!plan.inflight_copies.empty()) after_dot = plan.inflight_copies == "after";
      after_dot = after_dot || !extra_fits;
      if (after_dot) plan.copies_after_dots.insert(flying);
    }
    // TMA copies when every load of every copied operand is a host descriptor's block whose
    // box fits; a transposed block is then held K-major (its tile is the block as stored).
    bool tma = loop_wgmma && sm >= 90;
    for (size_t h = 0; h < here.size() && tma; ++h) {
      const AsyncOperand& o = *here[h];
      const std::vector<int64_t>& shape = o.carried->type()->shape();
      const int64_t rows = tma_layout[h] == 1 ? shape[1] : shape[0], cols = tma_layout[h] == 1 ? shape[0] : shape[1];
      // tf32 (4-byte) operands keep cp.async: the TMA writes a block as stored, and wgmma
      // reads tf32 K-major only.
      tma = tma_layout[h] >= 0 && tma_box_fits(rows, cols, o.tile.element_bytes) && o.tile.element_bytes != 4;
    }
    if (tma) {
      for (size_t h = 0; h < here.size(); ++h) {
        AsyncOperand& o = *here[h];
        const std::vector<int64_t>& shape = o.carried->type()->shape();
        o.transposed = tma_layout[h] == 1;
        o.tile = o.transposed ? SharedTile::swizzled(shape[1], shape[0], o.tile.element_bytes)
                           : SharedTile::swizzled(shape[0], shape[1], o.tile.element_bytes);
      }
    }
    // A transposed read-back operand read before the dots: its barrier serves the loop
    // (AsyncOperand::readies_loop), unless a dot stays in flight (its buffers' rule differs).
    const bool merge = plan.merge_barriers && !in_flight && std::any_of(here.begin(), here.end(), [](const auto& o) {
                         return o->read_back && o->transposed && o->read_before_copies;
                       });
    if (merge) {
      for (const auto& o : here) {
        if (!o->read_back) continue;
        o->read_before_copies = false;
        o->readies_loop = true;
      }
    }
    std::vector<int> later = later_in_batch(*op, here, last_loads);
    for (size_t h = 0; h < here.size(); ++h) {
      AsyncOperand* operand = here[h].get();
      operand->in_flight = in_flight;
      operand->copies_after_dot = after_dot;
      operand->later_in_batch = later[h];
      plan.reserved_bytes = align(plan.reserved_bytes);
      int64_t bytes = align(operand->tile.bytes());
      // One buffer per iteration in flight: the dot's, the `distance` ahead, and with the
      // dot kept in flight the one the previous iteration's dot still reads (unless the
      // copies wait for that dot). An operand read back before the body's dots
      // (AsyncOperand::read_before_copies) is done with its buffer once each thread has read
      // its runs back, before the dot's barrier after which the next copies are issued:
      // `distance` buffers, the copy of iteration i + distance going into iteration i's (as
      // Triton's two for 3 stages).
      const int buffers = operand->read_before_copies ? operand->distance
                                             : operand->distance + 1 + (in_flight && !after_dot ? 1 : 0);
      for (int stage = 0; stage < buffers; ++stage) {
        operand->offset.push_back(plan.reserved_bytes);
        plan.reserved_bytes += bytes;
      }
      for (size_t j = 0; j < operand->chain.size(); ++j) {
        const ir::Value* init = loaded_value(op->operand(operand->chain[j]->index() + 2));
        plan.loads[init] = operand;
        plan.stage[init] = static_cast<int>(j);
        plan.carried[operand->chain[j]] = operand;
      }
      plan.loads[last_loads[h]] = operand;
      // Runs along axis 0, A's elements, or B's elements where each thread's addresses are
      // one base plus constants (dealt out by the index, a runtime stride would make each of
      // them a register of its own, where the load's layout keeps a pointer a group).
      if (operand->transposed || operand->by_element) {
        for (const auto& [load, by] : plan.loads) {
          if (by != operand || !addresses_recomputable(*load->def())) continue;
          if (operand->transposed && operand->by_element && spread_of(load->def()->operand(0)) != Spread::kLinear) continue;
          plan.recomputed.insert(load);
        }
      }
      plan.stage[last_loads[h]] = -1;
      operand->pending_groups = (operand->distance - 1) * static_cast<int>(here.size());
      if (tma) {
        const int param = plan.descriptor_bases.at(descriptor_tile_of(*last_loads[h]->def())->operand(1));
        auto at = std::find(plan.tma_params.begin(), plan.tma_params.end(), param);
        if (at == plan.tma_params.end()) at = plan.tma_params.insert(plan.tma_params.end(), param);
        operand->tma_map = static_cast<int>(at - plan.tma_params.begin());
      }
      plan.operands.push_back(std::move(here[h]));
    }
    if (tma) {  // the mbarriers after the loop's stage buffers
      for (size_t h = plan.operands.size() - here.size(); h < plan.operands.size(); ++h) {
        plan.operands[h]->barriers = (plan.reserved_bytes + 7) / 8 * 8;
        plan.reserved_bytes = plan.operands[h]->barriers + 8 * static_cast<int64_t>(plan.operands[h]->offset.size());
      }
    }
    plan_hoisted(*op, fragments, sm, num_warps, plan);
  }
}

void plan_region(const ir::Region& region, const FragmentPlan& fragments, const analysis::AxisInfoAnalysis& axis,
                 int sm, int num_warps, AsyncPlan& plan) {
  // Ops in sequence reuse the bytes of earlier ones that are done before their first copy:
  // a loop's buffers are live from its first copy (the loads of its initial values, before
  // it) to its exit, which drains them and meets a barrier (emit_for). Attention's two
  // loops (off the diagonal, then on it) thus share theirs.
  plan_shared_hoisted(region, fragments, sm, num_warps, plan);
  std::unordered_map<const ir::Op*, size_t> index;
  for (const auto& op : region.ops()) index.emplace(op.get(), index.size());
  const int64_t entry = plan.reserved_bytes;
  int64_t high = entry;
  std::vector<std::pair<size_t, int64_t>> held;  // earlier ops with buffers: (index, end of their bytes)
  for (const auto& op : region.ops()) {
    size_t first = index.at(op.get());
    if (op->kind() == OpKind::For) {
      for (int j = 3; j < op->num_operands(); ++j) {
        const ir::Op* def = loaded_value(op->operand(j))->def();
        // Only loads can be copies into its buffers (the others are values it carries).
        if (def != nullptr && def->kind() == OpKind::Load && def->parent() == &region) {
          first = std::min(first, index.at(def));
        }
      }
    }
    int64_t start = entry;
    for (const auto& [at, end] : held) start = at >= first ? std::max(start, end) : start;
    plan.reserved_bytes = start;
    plan_op(*op, fragments, axis, sm, num_warps, plan);
    if (plan.reserved_bytes > start) held.emplace_back(index.at(op.get()), plan.reserved_bytes);
    high = std::max(high, plan.reserved_bytes);
  }
  plan.reserved_bytes = high;
}

}  // namespace

std::vector<const HoistedOperand*> AsyncPlan::hoisted_before(const ir::Op& loop) const {
  std::vector<const HoistedOperand*> out;
  for (const auto& h : hoisted) {
    if (h->loop == &loop) out.push_back(h.get());
  }
  return out;
}

std::vector<const HoistedOperand*> AsyncPlan::hoisted_released_at(const ir::Op& loop) const {
  std::vector<const HoistedOperand*> out;
  for (const auto& h : hoisted) {
    if (h->last_loop == &loop) out.push_back(h.get());
  }
  return out;
}

namespace {

// The element kinds a TMA store writes (tensor_map.cpp's data types; 64-bit ones have none).
bool tma_store_kind(ScalarKind k) { return ir::bit_width(k) >= 8 && ir::bit_width(k) <= 32; }

// The loads and stores of plan_tma_blocks: 2-D host-descriptor blocks the box takes, of
// 8- to 32-bit elements; loads not copied already, reading zero past the bounds.
void plan_tma_blocks(const ir::Function& function, AsyncPlan& plan) {
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& region) {
    for (const auto& op : region.ops()) {
      for (const auto& inner : op->regions()) walk(*inner);
      const bool load = op->kind() == OpKind::Load;
      if (!load && op->kind() != OpKind::Store) continue;
      // A load's mask must be the bounds check alone: the TMA would not see a scalar test.
      if (load && (plan.loads.count(op->result()) != 0 || !mask_scalar_tests(*op).empty())) continue;
      const ir::Value* other = load ? ir::load_other(*op) : nullptr;
      if (other != nullptr && !ir::is_zero_constant(other)) continue;
      const ir::Op* tile_op = descriptor_tile_of(*op);
      if (tile_op == nullptr || (tile_op->find_attr("transposed") != nullptr && tile_op->int_attr("transposed") != 0)) {
        continue;
      }
      auto base = plan.descriptor_bases.find(tile_op->operand(1));
      const ir::Type* type = op->operand(0)->type();
      if (base == plan.descriptor_bases.end() || type->rank() != 2) continue;
      const ScalarKind k = type->element()->pointee()->scalar_kind();
      const int64_t bytes = std::max(1, ir::bit_width(k) / 8);
      const std::vector<int64_t>& shape = type->shape();
      if (!tma_store_kind(k) || !tma_box_fits(shape[0], shape[1], bytes)) continue;
      auto at = std::find(plan.tma_params.begin(), plan.tma_params.end(), base->second);
      if (at == plan.tma_params.end()) at = plan.tma_params.insert(plan.tma_params.end(), base->second);
      (load ? plan.tma_loads : plan.tma_stores)[op.get()] = {static_cast<int>(at - plan.tma_params.begin()),
                                                             SharedTile::swizzled(shape[0], shape[1], bytes)};
    }
  };
  walk(function.body());
}

}  // namespace

bool deals_out_rows(const SharedTile& tile, const std::vector<int64_t>& shape, int threads) {
  auto pow2 = [](int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  return tile.swizzle != 0 && shape.size() == 2 && pow2(shape[0]) && pow2(shape[1]) && pow2(threads) &&
         shape[0] * shape[1] >= threads && 16 % tile.element_bytes == 0;
}

AsyncPlan plan_async_copies(const ir::Function& function, const FragmentPlan& fragments, int sm, int num_warps,
                            bool tma, const std::string& inflight_copies, bool merge_barriers, bool read_back_fit) {
  AsyncPlan plan;
  plan.merge_barriers = merge_barriers;
  plan.read_back_fit = read_back_fit;
  // "pv", "pv-before", "pv-after": the last of several dots in flight too, then the order.
  plan.last_dot_in_flight = inflight_copies.rfind("pv", 0) == 0;
  plan.inflight_copies = plan.last_dot_in_flight ? inflight_copies.substr(std::min<size_t>(3, inflight_copies.size()))
                                                 : inflight_copies;
  if (sm >= 90 && tma) {
    const auto& params = function.params();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].arg != nullptr && params[i].part == ir::ArgPart::DescBase) {
        plan.descriptor_bases.emplace(params[i].arg, static_cast<int>(i));
      }
    }
  }
  analysis::AxisInfoAnalysis axis(function);
  plan_region(function.body(), fragments, axis, sm, num_warps, plan);
  if (sm >= 90 && tma) plan_tma_blocks(function, plan);
  // An fp8 wgmma dot outside loops (it stages both operands itself) reads them as fp8 too: A
  // as it is, B transposed (K-major) by its staging (emit_dot.cpp). In a loop whose copies
  // could not be planned, the dot still widens them to f16 (its B's bytes one store each
  // every iteration: not measured against the widened path yet).
  std::function<void(const ir::Region&, bool)> native = [&](const ir::Region& region, bool in_loop) {
    for (const auto& op : region.ops()) {
      for (const auto& inner : op->regions()) native(*inner, in_loop || op->kind() == OpKind::For || op->kind() == OpKind::While);
      const FragmentLayout* l = op->kind() == OpKind::Dot ? fragments.layout(op->result()) : nullptr;
      if (in_loop || l == nullptr || !uses_wgmma(*op, *l, sm, num_warps) || !gpu::native_fp8_candidate(*op) ||
          plan.carried.count(op->operand(0)) != 0 || plan.carried.count(op->operand(1)) != 0 ||
          plan.hoisted_a.count(op.get()) != 0 || a_in_registers(*op, fragments)) {
        continue;
      }
      plan.native_fp8.insert(op.get());
    }
  };
  native(function.body(), false);
  // A wgmma dot stages its other operands right after the stage buffers, swizzled; so do the
  // TMA's loads and stores their blocks.
  const bool tma_blocks = !plan.tma_stores.empty() || !plan.tma_loads.empty();
  if (plan.reserved_bytes > 0 && (any_wgmma(function, fragments, sm, num_warps) || tma_blocks)) {
    plan.reserved_bytes = (plan.reserved_bytes + SharedTile::kSwizzleAlign - 1) / SharedTile::kSwizzleAlign *
                          SharedTile::kSwizzleAlign;
  }
  return plan;
}

}  // namespace tritium::nvptx

namespace tritium::nvptx {

const AsyncOperand* AsyncPlan::copied_line(const ir::Value* v) const {
  auto it = carried.find(v);
  return it != carried.end() && it->second->line && it->second->read_back && it->second->carried == v ? it->second : nullptr;
}

namespace {

bool line_of_copies(const AsyncPlan& plan, const ir::Value* v, const ir::Region* at, int* budget, bool* any) {
  if (!v->type()->is_block()) return true;
  if (plan.copied_line(v) != nullptr) {
    // Read at the line's loop body's top level (its barrier once for the iteration).
    *any = true;
    return v->region() == at;
  }
  const ir::Op* def = v->def();
  if (def == nullptr || --*budget < 0) return false;
  if (def->kind() == OpKind::Splat || def->kind() == OpKind::Constant) return true;
  int index_budget = gpu::kRecomputeBudget;
  if (gpu::recomputable(v, &index_budget)) return true;
  switch (def->kind()) {
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::ConvertLayout: return line_of_copies(plan, def->operand(0), at, budget, any);
    default: break;
  }
  if (!ir::has_trait(def->kind(), ir::kElementwise) || !ir::is_pure(*def) || def->num_results() != 1) return false;
  for (const ir::Value* operand : def->operands()) {
    if (!line_of_copies(plan, operand, at, budget, any)) return false;
  }
  return true;
}

}  // namespace

bool AsyncPlan::reads_copied_lines(const ir::Op& broadcast) const {
  if (broadcast.kind() != OpKind::Broadcast || carried.empty()) return false;
  const ir::Value* line = broadcast.operand(0);
  if (line->type()->shape() == broadcast.result()->type()->shape()) return false;
  int budget = 16;
  bool any = false;
  return line_of_copies(*this, line, broadcast.parent(), &budget, &any) && any;
}

}  // namespace tritium::nvptx

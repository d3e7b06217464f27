// version_on_signs (version_on_signs.h).
#include "gpu/version_on_signs.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/axis_info.h"
#include "gpu/vector_widths.h"
#include "ir/attrs.h"
#include "ir/builder.h"

namespace tritium::gpu {

using ir::OpKind;
using ir::Value;

namespace {

// A test of more scalars than this is not worth a second copy of the kernel.
constexpr size_t kMaxScalars = 4;

int64_t gcd(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

bool defined_in(const Value* v, const ir::Region& body) {
  return v->def() == nullptr ? v->region() == &body : v->def()->parent() == &body;
}

// The scalars of the function's body whose being >= 0 makes the int block `v` >= 0:
// through add, multiplication by a constant >= 0, splat, broadcast and expand_dims.
// False when `v` is built some other way.
bool sign_sources(const Value* v, const analysis::AxisInfoAnalysis& axis, const ir::Region& body,
                  std::vector<const Value*>& out) {
  if (axis.get(v).non_negative) return true;
  if (!v->type()->is_block()) {
    if (!defined_in(v, body) || !ir::is_signed(v->type()->scalar_kind())) return false;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return true;
  }
  const ir::Op* def = v->def();
  if (def == nullptr) return false;
  switch (def->kind()) {
    case OpKind::Add:
      return sign_sources(def->operand(0), axis, body, out) && sign_sources(def->operand(1), axis, body, out);
    case OpKind::Mul:
      for (int i = 0; i < 2; ++i) {
        const analysis::AxisInfo& factor = axis.get(def->operand(1 - i));
        if (factor.constant && *factor.constant >= 0) return sign_sources(def->operand(i), axis, body, out);
      }
      return false;
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
      return sign_sources(def->operand(0), axis, body, out);
    default:
      return false;
  }
}

// Whether axis_info.cpp's rem rule would find runs longer than 1 in `rem` if its dividend
// were known to be >= 0.
bool runs_if_non_negative(const ir::Op& rem, const analysis::AxisInfoAnalysis& axis) {
  const ir::Type* type = rem.result()->type();
  if (!type->is_block() || !type->is_int() || !ir::is_signed(type->element()->scalar_kind())) return false;
  const analysis::AxisInfo& a = axis.get(rem.operand(0));
  const analysis::AxisInfo& b = axis.get(rem.operand(1));
  if (a.non_negative) return false;
  for (int d = 0; d < a.rank(); ++d) {
    if (gcd(gcd(a.contiguity[d], a.divisibility[d]), gcd(b.divisibility[d], b.constancy[d])) > 1) return true;
  }
  return false;
}

void collect_rems(const ir::Region& region, std::vector<const ir::Op*>& out) {
  for (const auto& op : region.ops()) {
    if (op->kind() == OpKind::Rem) out.push_back(op.get());
    for (const auto& inner : op->regions()) collect_rems(*inner, out);
  }
}

void collect_accesses(const ir::Region& region, std::vector<const ir::Op*>& out) {
  for (const auto& op : region.ops()) {
    if (op->kind() == OpKind::Load || op->kind() == OpKind::Store) out.push_back(op.get());
    for (const auto& inner : op->regions()) collect_accesses(*inner, out);
  }
}

// The width an access gets: the facts' width, at most the elements each thread has
// (vector_widths.h's cap; a wider proof changes nothing there).
int capped_width(const ir::Op& access, const analysis::AxisInfoAnalysis& axis, int threads) {
  int64_t per_thread = std::max<int64_t>(1, access.operand(0)->type()->num_elements() / threads);
  return static_cast<int>(std::min<int64_t>(access_width(access, axis), per_thread));
}

// Whether assuming `scalars` >= 0 makes some load or store wider than `widths` says.
bool widens(const ir::Function& function, const std::vector<const Value*>& scalars,
            const std::vector<const ir::Op*>& accesses, const std::vector<int>& widths, int threads) {
  analysis::AxisInfoAnalysis assumed(function, {scalars.begin(), scalars.end()});
  for (size_t i = 0; i < accesses.size(); ++i) {
    if (capped_width(*accesses[i], assumed, threads) > widths[i]) return true;
  }
  return false;
}

// The scalars worth testing: those of every rem whose runs they unlock, kept only when
// that makes an access wider.
std::vector<const Value*> scalars_to_test(const ir::Function& function, int threads) {
  analysis::AxisInfoAnalysis axis(function);
  std::vector<const ir::Op*> accesses;
  collect_accesses(function.body(), accesses);
  std::vector<int> widths;
  for (const ir::Op* op : accesses) widths.push_back(capped_width(*op, axis, threads));
  std::vector<const ir::Op*> rems;
  collect_rems(function.body(), rems);
  std::vector<const Value*> chosen;
  for (const ir::Op* rem : rems) {
    if (!runs_if_non_negative(*rem, axis)) continue;
    std::vector<const Value*> scalars;
    if (!sign_sources(rem->operand(0), axis, function.body(), scalars) || scalars.empty()) continue;
    std::vector<const Value*> with = chosen;
    for (const Value* s : scalars) {
      if (std::find(with.begin(), with.end(), s) == with.end()) with.push_back(s);
    }
    if (with.size() > kMaxScalars || with.size() == chosen.size()) continue;
    if (widens(function, with, accesses, widths, threads)) chosen = std::move(with);
  }
  return chosen;
}

}  // namespace

bool versions_on_signs(const ir::Function&, const GpuOptions& options) { return options.vectorize; }

void version_on_signs(ir::Function& function, const GpuOptions& options) {
  if (!versions_on_signs(function, options)) return;
  std::vector<const Value*> scalars = scalars_to_test(function, 32 * options.num_warps);
  if (scalars.empty()) return;
  ir::Region& body = function.body();
  ir::Op* last_op = body.terminator();
  if (last_op == nullptr || last_op->kind() != OpKind::Return) return;

  // The test goes right after the last of the scalars is defined.
  size_t first_moved = 0;
  for (const Value* s : scalars) {
    if (s->def() != nullptr) first_moved = std::max(first_moved, body.index_of(s->def()) + 1);
  }
  ir::Builder b = ir::Builder::before(body.ops()[first_moved].get());  // at most the return
  const Loc& loc = body.ops()[first_moved]->loc();
  const ir::Type* i1 = ir::Type::scalar(ir::ScalarKind::I1);
  std::vector<Value*> zeros;
  Value* all = nullptr;
  for (const Value* s : scalars) {
    zeros.push_back(b.int_constant(s->type(), 0, loc));
    ir::Op* cmp = b.create(OpKind::Cmp, {i1}, {const_cast<Value*>(s), zeros.back()}, loc);
    ir::set_enum_attr(*cmp, ir::CmpPredicate::Ge);
    all = all == nullptr ? cmp->result() : b.create_value(OpKind::And, i1, {all, cmp->result()}, loc);
  }
  ir::Op* branch = b.create(OpKind::If, {}, {all}, loc);
  ir::Region* then_region = branch->add_region();
  ir::Region* else_region = branch->add_region();

  // The rest of the body, as written, becomes the else branch.
  size_t at = body.index_of(branch) + 1;
  while (body.ops()[at].get() != last_op) else_region->insert(else_region->ops().size(), body.take(body.ops()[at].get()));
  ir::Builder(else_region).create(OpKind::Yield, {}, {}, loc);

  // Its copy, with each scalar s read as maximum(s, 0), becomes the then branch.
  ir::Builder then_builder(then_region);
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < scalars.size(); ++i) {
    Value* s = const_cast<Value*>(scalars[i]);
    map[s] = then_builder.create_value(OpKind::Maximum, s->type(), {s, zeros[i]}, loc);
  }
  for (const auto& op : else_region->ops()) ir::clone_op(*op, *then_region, map);
}

}  // namespace tritium::gpu

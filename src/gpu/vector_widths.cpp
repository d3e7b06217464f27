// Vector widths for code generation (vector_widths.h). Every width is a power of two w
// that divides the last dimension of its access, so a group of w registers that starts at
// a multiple of w in a layout with V % w == 0 holds w consecutive elements of one row,
// starting at a multiple of w along it: an aligned group in the sense of axis_info.cpp.
// The axis facts then say, for w <= the facts:
//   contiguity >= w:         the w addresses are consecutive elements;
//   divisibility >= w bytes: the first one is aligned to w * sizeof(T) (the group starts at
//                            a multiple of w inside its contiguity group);
//   mask constancy >= w:     one mask bit, the first element's, holds for the whole group.
#include "gpu/vector_widths.h"

#include <algorithm>

#include "ir/op_views.h"

namespace tritium::gpu {

namespace {

// The largest power of two <= n (n >= 1).
int64_t floor_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// The width of a masked load's pointer alone (contiguity, alignment, 16 bytes along the
// last dimension), when its mask alone keeps the access scalar.
int masked_pointer_width(const ir::Op& op, const analysis::AxisInfoAnalysis& axis) {
  if (op.kind() != ir::OpKind::Load || ir::is_volatile(op) || ir::LoadOp(op).mask() == nullptr) return 1;
  const ir::Value* ptr = op.operand(0);
  const ir::Type* type = ptr->type();
  if (!type->is_block() || !type->is_ptr() || !axis.has(ptr)) return 1;
  int64_t last = type->shape().back();
  int64_t w = floor_power_of_two(std::max<int64_t>(1, std::min<int64_t>(axis.vector_width(ptr), last)));
  while (last % w != 0) w /= 2;
  return static_cast<int>(w);
}

// Records the widest access of every memory op on a block of pointers, and per block size
// the widest of them.
void collect(const ir::Region& region, const analysis::AxisInfoAnalysis& axis, bool dots, VectorWidths& out) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) collect(*inner, axis, dots, out);
    if (op->kind() == ir::OpKind::Cmp && op->result()->type()->is_block() && axis.has(op->result())) {
      int64_t last = op->result()->type()->shape().back();
      int64_t w = floor_power_of_two(std::max<int64_t>(1, std::min(axis.mask_constancy(op->result()), last)));
      while (last % w != 0) w /= 2;
      if (w > 1) out.per_constant[op.get()] = static_cast<int>(w);
      continue;
    }
    if (op->kind() == ir::OpKind::ExternElementwise && op->find_attr("pack") != nullptr && op->result()->type()->is_block()) {
      // tl.inline_asm_elementwise(pack=P) calls its asm on P elements of a thread: runs of
      // at least P consecutive elements make those P consecutive (nvptx/emit_extern.cpp).
      int& v = out.per_block[op->result()->type()->num_elements()];
      v = std::max(v, static_cast<int>(op->int_attr("pack")));
      continue;
    }
    if (op->kind() == ir::OpKind::MapElementwise && op->find_attr("pack") != nullptr) {
      // tl.map_elementwise(pack=P) likewise takes P registers of a thread per call
      // (nvptx/emit_arith.cpp, emit_map_elementwise), on any block size: at least P.
      int& v = out.at_least[op->result(0)->type()->num_elements()];
      v = std::max(v, static_cast<int>(op->int_attr("pack")));
      int& w = out.per_block[op->result(0)->type()->num_elements()];
      w = std::max(w, v);
      continue;
    }
    if (op->kind() != ir::OpKind::Load && op->kind() != ir::OpKind::Store) continue;
    const ir::Type* ptr_type = op->operand(0)->type();
    if (!ptr_type->is_block()) continue;
    int w = access_width(*op, axis);
    out.per_access[op.get()] = w;
    if (op->kind() == ir::OpKind::Load && !ir::is_volatile(*op) && axis.has(op->operand(0))) {
      const int64_t last = ptr_type->shape().back();
      int64_t c = std::min(axis.get(op->operand(0)).constancy.back(), last);
      const ir::Value* mask = ir::LoadOp(*op).mask();
      if (mask != nullptr && mask->type()->is_block()) c = axis.has(mask) ? std::min(c, axis.mask_constancy(mask)) : 1;
      c = floor_power_of_two(std::max<int64_t>(1, c));
      while (last % c != 0) c /= 2;
      if (c > 1) out.load_constancy[op.get()] = static_cast<int>(c);
    }
    if (w == 1 && axis.has(op->operand(0))) {
      const std::vector<int64_t>& contiguity = axis.get(op->operand(0)).contiguity;
      for (size_t d = 0; d + 1 < contiguity.size(); ++d) {
        if (contiguity[d] >= 2) out.untested.insert(op.get());
      }
    }
    int& v = out.per_block[ptr_type->num_elements()];
    v = std::max(v, w);
    // In a kernel with dots, a load kept narrow by its mask alone (a K not divisible by 16:
    // `k < K - k0` varies inside every run) still lays its block out by its pointer's
    // width, as Triton's coalescing does: each thread then holds runs of consecutive
    // elements of a row, whose addresses are one base plus constants and which a dot
    // operand's copy stores to shared memory as one vector (emit_async.cpp), where one
    // element a thread made every element's 64-bit address a computation of its own
    // (w8a16 at 64x64x64: 255 registers against Triton's 123). Each access still moves
    // w elements, with no run-time test of the run (that would keep both paths).
    if (dots) {
      const int pw = masked_pointer_width(*op, axis);
      if (pw > w) {
        v = std::max(v, pw);
        if (w == 1) out.untested.insert(op.get());
      }
    }
  }
}

// What the flat rule's V of one block size is free to follow: whether an access on such
// blocks is made in the flat rule (its last axis as wide as any other: coalesce.h gives the
// others their own layout), and the reductions over such blocks.
struct BlockUses {
  bool flat_access = false, other_axis_access = false;
  bool reduced_along_last = false, reduced_along_other = false;
  int64_t widest = 16;  // the fewest elements of 16 bytes and the shortest last axis reduced
};

void collect_uses(const ir::Region& region, const analysis::AxisInfoAnalysis& axis,
                  std::map<int64_t, BlockUses>& uses) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) collect_uses(*inner, axis, uses);
    if (op->kind() == ir::OpKind::Reduce && op->operand(0)->type()->is_block()) {
      const ir::Type* type = op->operand(0)->type();
      BlockUses& u = uses[type->num_elements()];
      if (op->int_attr("axis") != type->rank() - 1) {
        u.reduced_along_other = true;
        continue;
      }
      u.reduced_along_last = true;
      u.widest = std::min(u.widest, type->shape().back());
      for (const ir::Value* v : op->operands()) {
        int64_t bytes = std::max<int64_t>(1, ir::bit_width(v->type()->element()->scalar_kind()) / 8);
        u.widest = std::min(u.widest, std::max<int64_t>(1, 16 / bytes));
      }
      continue;
    }
    if (op->kind() != ir::OpKind::Load && op->kind() != ir::OpKind::Store) continue;
    const ir::Type* type = op->operand(0)->type();
    if (!type->is_block()) continue;
    bool other_axis = false;
    if (type->rank() >= 2 && type->is_ptr() && axis.has(op->operand(0))) {
      const int64_t here = access_width(*op, axis);
      for (int d = 0; d + 1 < type->rank(); ++d) other_axis = other_axis || access_width_along(*op, d, axis) > here;
    }
    BlockUses& u = uses[type->num_elements()];
    (other_axis ? u.other_axis_access : u.flat_access) = true;
  }
}

// A join's result element 2e + s is element e of operand s, a split's the reverse. In the
// flat rule with V registers of consecutive elements, a join of blocks of V elements a
// thread into blocks of 2V, or a split of 2V into V, leaves every element in its thread (bit
// 0 of the index becomes a register bit, the rest keep their places): register moves, no
// shared memory. So a block size no access or other rule has given a V takes the one that
// makes its join or split local, in program order (vLLM's AWQ unpacking, three interleaves
// of a [32, 32] int32 load into the [32, 256] the store wants: three round trips through
// shared memory before). Blocks smaller than the CTA fill their first threads in both, so
// the same holds for them.
void follow_joins(const ir::Region& region, const VectorWidths& accesses, VectorWidths& out) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) follow_joins(*inner, accesses, out);
    const bool join = op->kind() == ir::OpKind::Join, split = op->kind() == ir::OpKind::Split;
    if (!join && !split) continue;
    const ir::Type* in = op->operand(0)->type();
    const ir::Type* result = op->result(0)->type();
    if (!in->is_block() || !result->is_block()) continue;
    const int64_t from = in->num_elements(), to = result->num_elements();
    const int64_t v = out.vector(from);
    const int64_t want = join ? 2 * v : v / 2;
    if (want <= 1 || want > 16 || to % want != 0) continue;
    auto given = out.per_block.find(to);
    if (given == out.per_block.end()) {
      out.per_block[to] = static_cast<int>(want);
    } else if (given->second < want && want <= accesses.vector(to)) {
      // The size's own accesses could move `want` elements at once but were capped at its
      // share of the threads (a [1, 256] row of scales at 128 threads: 2): with `want`,
      // fewer threads hold the row and the join stays local.
      given->second = static_cast<int>(want);
    }
  }
}

}  // namespace

bool has_dot(const ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::Dot) return true;
    for (const auto& inner : op->regions()) {
      if (has_dot(*inner)) return true;
    }
  }
  return false;
}

int VectorWidths::vector(int64_t num_elements) const {
  auto it = per_block.find(num_elements);
  return it == per_block.end() ? 1 : it->second;
}

int VectorWidths::width(const ir::Op& op) const {
  auto it = per_access.find(&op);
  return it == per_access.end() ? 1 : it->second;
}

int VectorWidths::constant_width(const ir::Op& op) const {
  auto it = per_constant.find(&op);
  return it == per_constant.end() ? 1 : it->second;
}

int VectorWidths::constant_load_width(const ir::Op& op) const {
  auto it = load_constancy.find(&op);
  return it == load_constancy.end() ? 1 : it->second;
}

int access_width(const ir::Op& op, const analysis::AxisInfoAnalysis& axis) {
  bool load = op.kind() == ir::OpKind::Load;
  if (!load && op.kind() != ir::OpKind::Store) return 1;  // atomics: once per element
  const ir::Value* ptr = op.operand(0);
  const ir::Type* type = ptr->type();
  // A volatile load makes every access it names, one element each.
  if (!type->is_block() || !type->is_ptr() || (load && ir::is_volatile(op)) || !axis.has(ptr)) return 1;
  int64_t w = axis.vector_width(ptr);  // contiguity, divisibility and 16 bytes
  const ir::Value* mask = load ? ir::LoadOp(op).mask() : ir::StoreOp(op).mask();
  if (mask != nullptr && mask->type()->is_block()) {
    // A scalar mask is one bit for the whole block; a block mask must be constant over the group.
    w = axis.has(mask) ? std::min(w, axis.mask_constancy(mask)) : 1;
  }
  int64_t last = type->shape().back();
  w = floor_power_of_two(std::max<int64_t>(1, std::min(w, last)));
  while (last % w != 0) w /= 2;
  return static_cast<int>(w);
}

int64_t access_width_along(const ir::Op& op, int axis, const analysis::AxisInfoAnalysis& facts) {
  const ir::Value* ptr = op.operand(0);
  const ir::Type* type = ptr->type();
  const analysis::AxisInfo& info = facts.get(ptr);
  int64_t bytes = std::max<int64_t>(1, ir::bit_width(type->element()->pointee()->scalar_kind()) / 8);
  int64_t w = std::min({info.contiguity[axis], std::max<int64_t>(1, info.divisibility[axis] / bytes),
                        std::max<int64_t>(1, 16 / bytes)});
  const ir::Value* mask = op.kind() == ir::OpKind::Load ? ir::LoadOp(op).mask() : ir::StoreOp(op).mask();
  if (mask != nullptr && mask->type()->is_block()) w = facts.has(mask) ? std::min(w, facts.get(mask).constancy[axis]) : 1;
  int64_t dim = type->shape()[axis];
  w = floor_power_of_two(std::max<int64_t>(1, std::min(w, dim)));
  while (dim % w != 0) w /= 2;
  return w;
}

int tested_width(const ir::Type* type, int vector, int64_t element_bytes) {
  int g = vector;
  while (g > 1 && (g * element_bytes > 16 || type->shape().back() % g != 0)) g /= 2;
  return g;
}

VectorWidths choose_vector_widths(const ir::Function& function, int threads, bool vectorize) {
  VectorWidths out;
  if (!vectorize) return out;
  analysis::AxisInfoAnalysis axis(function);
  const bool dots = has_dot(function.body());
  collect(function.body(), axis, dots, out);
  if (!dots) {
    // Blocks read or written along another axis only (coalesce.h gives those accesses their
    // own layout: none lays the blocks out in the flat rule) and reduced along their last
    // axis only: V elements of 16 bytes in all, so a row is reduced mostly within threads.
    // With V = 1 every element of a row sat on another lane (triton_kernels' MX quantization
    // to fp4 along axis 0: five shuffles per row and thread, 16 rows each, 99 registers; 63
    // now). Blocks no access touches keep V = 1 (a 255-register histogram of int64 counts
    // spilled more with V = 2).
    std::map<int64_t, BlockUses> uses;
    collect_uses(function.body(), axis, uses);
    for (const auto& [n, u] : uses) {
      if (u.reduced_along_last && !u.reduced_along_other && u.other_axis_access && !u.flat_access) {
        int& v = out.per_block[n];
        v = std::max(v, static_cast<int>(u.widest));
      }
    }
  }
  const VectorWidths uncapped = out;  // the widest access per size, before the cap below
  for (auto& [n, v] : out.per_block) {
    // Every thread gets at least V elements when the block has them (Triton caps
    // sizePerThread at numElems / (32 * num_warps)); V divides N.
    int64_t cap = std::max<int64_t>(1, n / threads);
    int64_t vector = floor_power_of_two(std::min<int64_t>(v, cap));
    auto least = out.at_least.find(n);  // a power of two dividing N (lowering checks it)
    if (least != out.at_least.end()) vector = std::max<int64_t>(vector, least->second);
    while (n % vector != 0) vector /= 2;
    v = static_cast<int>(vector);
  }
  follow_joins(function.body(), uncapped, out);
  for (auto& [op, w] : out.per_access) w = std::min(w, out.vector(op->operand(0)->type()->num_elements()));
  for (auto& [op, w] : out.per_constant) w = std::min(w, out.vector(op->result()->type()->num_elements()));
  return out;
}

}  // namespace tritium::gpu

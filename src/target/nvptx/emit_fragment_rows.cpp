// Fragment rows (fragment_layout.h): reductions along the last axis of a dot's fragments
// without leaving registers, the views and broadcasts that keep rows in place, the
// conversions of rows and of index-computed operands into fragment layouts, and dot
// operands staged into shared memory straight from their fragments.
//
//   reduce(qk [m, n] fragment, axis 1):  per thread, the registers of each of its rows
//       -> shfl.bfly 1, 2 (the four lanes of a quad hold one row's columns)
//       -> warps_n > 1: one shared-memory exchange of the warps' partials (one barrier pair)
//   m[:, None] broadcast to [m, n']: register r of the fragment is rows register row_reg(r).
#include <llvm/IR/Constants.h>

#include "gpu/conversion.h"
#include "gpu/scratch.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

llvm::Value* Emitter::fragment_element(const FragmentLayout& l, int reg) {
  // FragmentLayout::element: element(0, 0, reg) plus this thread's part.
  llvm::Value* base = b_.getInt32(static_cast<uint32_t>(l.element(0, 0, reg)));
  if (l.rows) return b_.CreateAdd(fragment_thread_row(l), base);
  return b_.CreateAdd(fragment_base(l, l.n), base);
}

std::vector<llvm::Value*> Emitter::fragment_coords(const FragmentLayout& l, int reg, const std::vector<int64_t>& shape) {
  // FragmentLayout::element, an axis at a time: register `reg`'s place at warp 0, lane 0
  // (constants) plus this thread's row and column.
  const int64_t e = l.element(0, 0, reg);
  llvm::Value* row = fragment_thread_row(l);
  auto plus = [this](llvm::Value* v, int64_t c) { return b_.CreateAdd(v, b_.getInt32(static_cast<uint32_t>(c))); };
  if (l.rows) {
    if (shape.size() == 1) return {plus(row, e)};
    if (shape.size() == 2 && shape[1] == 1) return {plus(row, e), b_.getInt32(0)};
    return {};
  }
  std::vector<llvm::Value*> rc = {plus(row, e / l.n % l.m), plus(fragment_thread_col(l), e % l.n)};
  if (shape.size() == 2 && l.batch == 1) return rc;
  if (shape.size() == 3) return {b_.getInt32(static_cast<uint32_t>(e / (l.m * l.n))), rc[0], rc[1]};
  return {};
}

bool Emitter::fragment_from_index(const ir::Value* value, const FragmentLayout& l, Regs& out) {
  int budget = kIndexComputeBudget;
  if (!recomputable(value, &budget)) return false;
  out.values.clear();
  out.uniform = false;
  const std::vector<int64_t>& shape = value->type()->shape();
  for (int r = 0; r < l.num_regs(); ++r) {
    std::unordered_map<const ir::Value*, llvm::Value*> memo;
    std::vector<llvm::Value*> coords = fragment_coords(l, r, shape);
    out.values.push_back(coords.empty() ? recompute(value, fragment_element(l, r), memo)
                                        : recompute_at(value, coords, memo));
  }
  return true;
}

Regs Emitter::rows_to_flat(const ir::Value* value, const FragmentLayout& l, const Regs& rows) {
  // One writer per row (lane % 4 == 0 of the warps of the first copy), then the flat owners read.
  llvm::Type* element = element_type(value->type());
  llvm::Type* stored = stored_type(element);
  llvm::Value* writer = b_.CreateAnd(
      b_.CreateICmpEQ(b_.CreateAnd(lane_id(), b_.getInt32(3)), b_.getInt32(0)),
      b_.CreateICmpULT(warp_id(), b_.getInt32(static_cast<uint32_t>(l.warps_m))));
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  guarded(writer, [&]() -> llvm::Value* {
    for (int r = 0; r < l.num_regs(); ++r) {
      b_.CreateStore(to_storage(rows.at(r)), shared_element(stored, fragment_element(l, r), l.m));
    }
    return nullptr;
  });
  barrier();
  Layout flat = layout_of(value->type());
  Regs out;
  for (int r = 0; r < flat.num_regs(); ++r) {
    llvm::Value* e = element_index(flat, r);
    out.values.push_back(guarded(owns(flat, r), [&]() -> llvm::Value* {
      return from_storage(b_.CreateLoad(stored, shared_element(stored, e, l.m)), element);
    }));
  }
  barrier();
  return out;
}

Regs Emitter::line_to_fragment(const ir::Op& broadcast, const FragmentLayout& l) {
  // A row [1, n] broadcast down the fragment's m rows, or a column [m, 1] across its n
  // columns: register r holds the line's element at its column, tile_col(in, wn) + 2 (lane %
  // 4) + c % 2, or at its row, tile_row(im, wm) + lane / 4 + 8 (c / 2).
  const ir::Value* line = broadcast.operand(0);
  const bool row = line->type()->shape()[0] == 1;
  const int64_t count = row ? line->type()->shape()[1] : line->type()->shape()[0];
  const Regs& flat_regs = get(line);
  Regs out;
  out.uniform = false;
  if (flat_regs.uniform) {
    out.values.assign(static_cast<size_t>(l.num_regs()), flat_regs.at(0));
    return out;
  }
  if (auto it = reloaded_lines_.find(&broadcast); it != reloaded_lines_.end()) return it->second;
  llvm::Type* element = element_type(line->type());
  llvm::Type* stored = stored_type(element);
  Layout flat = layout_of(line->type());
  Regs source = materialize(flat_regs, line->type());
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  for (int r = 0; r < flat.num_regs(); ++r) {
    llvm::Value* e = element_index(flat, r);
    guarded(owns(flat, r), [&]() -> llvm::Value* {
      b_.CreateStore(to_storage(source.at(r)), shared_element(stored, e, count));
      return nullptr;
    });
  }
  barrier();
  // One read per column (2 rep_n) or row (2 rep_m) a thread holds, shared by its registers there.
  llvm::Value* thread_part = row ? fragment_thread_col(l) : fragment_thread_row(l);
  std::unordered_map<int64_t, llvm::Value*> by_index;
  for (int r = 0; r < l.num_regs(); ++r) {
    const int64_t e = l.element(0, 0, r);
    const int64_t c = row ? e % l.n : e / l.n % l.m;
    auto it = by_index.find(c);
    if (it == by_index.end()) {
      llvm::Value* index = b_.CreateAdd(thread_part, b_.getInt32(static_cast<uint32_t>(c)));
      llvm::Value* v = from_storage(b_.CreateLoad(stored, shared_element(stored, index, count)), element);
      it = by_index.emplace(c, v).first;
    }
    out.values.push_back(it->second);
  }
  barrier();
  return out;
}

Regs Emitter::reload_line(const ir::Op& broadcast, const FragmentLayout& l) {
  const ir::Value* line = broadcast.operand(0);
  const bool row = line->type()->shape()[0] == 1;
  Regs out;
  out.uniform = false;
  // (A line reloaded early, FragmentPlan::reloaded_early, has no registers yet: computed
  // at each position.)
  if (values_.count(line) != 0 && get(line).uniform) {
    out.values.assign(static_cast<size_t>(l.num_regs()), get(line).at(0));
    return out;
  }
  llvm::Value* thread_part = row ? fragment_thread_col(l) : fragment_thread_row(l);
  // Each column (row) a thread holds computed there, its loads loaded again: no barrier.
  // A row's columns c and c + 1 (c even) share their paired loads, one 2-element load each.
  const std::vector<const ir::Op*>& paired = row ? frags_.paired_loads(broadcast) : std::vector<const ir::Op*>{};
  auto index_of = [&](int64_t e) { return row ? e % l.n : e / l.n % l.m; };
  // Position `first + i` of thread t is t's part plus it; the parts every thread adds.
  std::vector<int64_t> parts;
  for (int warp = 0; warp < l.warps_m * l.warps_n; ++warp) {
    for (int lane = 0; lane < 32; ++lane) parts.push_back(index_of(l.element(warp, lane, 0)) - index_of(l.element(0, 0, 0)));
  }
  // A value of the line's index space whose facts make it constant over aligned runs of
  // C positions holds at `first + i` what it holds at an earlier group's `p + i` where, in
  // every thread, both fall in one run: that group's register serves (pair_mask_).
  const std::unordered_map<const ir::Value*, int> space = pair_mask_ ? line_index_space(line) : std::unordered_map<const ir::Value*, int>{};
  auto same_run = [&](int64_t p, int64_t f, int64_t run) {
    if (run <= 1) return false;
    for (int64_t t : parts) {
      if ((t + p) / run != (t + f) / run) return false;
    }
    return true;
  };
  std::vector<std::pair<int64_t, std::vector<std::unordered_map<const ir::Value*, llvm::Value*>>>> groups;
  std::unordered_map<int64_t, llvm::Value*> at;
  // The first position's addresses: every later position's load address is one of them plus
  // the constant shift_delta proves (shift_wrap_): one base register a load, `[r + imm]`.
  const std::unordered_map<const ir::Value*, int> ptr_space = shift_wrap_ ? line_index_space(line) : std::unordered_map<const ir::Value*, int>{};
  int64_t anchor = -1;
  std::unordered_map<const ir::Value*, llvm::Value*> anchor_memo;
  auto seed_addresses = [&](int64_t position, std::unordered_map<const ir::Value*, llvm::Value*>& memo) {
    for (const auto& [v, reg] : anchor_memo) {
      auto it = ptr_space.find(v);
      if (it == ptr_space.end() || !v->type()->is_block() || !v->type()->element()->is_pointer() || memo.count(v) != 0) continue;
      std::vector<int64_t> shift(v->type()->shape().size(), 0);
      shift[static_cast<size_t>(it->second)] = position - anchor;
      std::unordered_map<const ir::Value*, llvm::Value*> deltas;
      llvm::Value* d = shift_delta(v, shift, deltas);
      if (d == nullptr || !llvm::isa<llvm::ConstantInt>(d)) continue;
      memo[v] = llvm::cast<llvm::ConstantInt>(d)->isZero() ? reg : b_.CreateGEP(b_.getInt8Ty(), reg, d);
    }
  };
  for (int r = 0; r < l.num_regs(); ++r) {
    const int64_t e = l.element(0, 0, r);
    const int64_t c = row ? e % l.n : e / l.n % l.m;
    if (at.count(c) == 0) {
      const int64_t first = paired.empty() ? c : c - c % 2;
      std::vector<std::unordered_map<const ir::Value*, llvm::Value*>> memos(paired.empty() ? 1 : 2);
      for (const auto& [p, earlier] : groups) {
        for (size_t i = 0; i < memos.size(); ++i) {
          for (const auto& [v, reg] : earlier[i]) {
            auto it = space.find(v);
            if (it == space.end() || memos[i].count(v) != 0 || !axis_info().has(v)) continue;
            const int64_t i64 = static_cast<int64_t>(i);
            if (same_run(p + i64, first + i64, axis_info().get(v).constancy.at(static_cast<size_t>(it->second)))) {
              memos[i][v] = reg;
            }
          }
        }
      }
      if (anchor >= 0) {
        for (size_t i = 0; i < memos.size(); ++i) seed_addresses(first + static_cast<int64_t>(i), memos[i]);
      }
      std::vector<std::vector<llvm::Value*>> coords;
      for (size_t i = 0; i < memos.size(); ++i) {
        llvm::Value* index = b_.CreateAdd(thread_part, b_.getInt32(static_cast<uint32_t>(first + static_cast<int64_t>(i))));
        coords.push_back(row ? std::vector<llvm::Value*>{b_.getInt32(0), index} : std::vector<llvm::Value*>{index, b_.getInt32(0)});
      }
      for (const ir::Op* load : paired) reload_pair(*load, coords, memos);
      for (size_t i = 0; i < memos.size(); ++i) {
        at.emplace(first + static_cast<int64_t>(i), recompute_at(line, coords[i], memos[i]));
      }
      if (anchor < 0 && !ptr_space.empty()) {
        anchor = first;
        anchor_memo = memos[0];
      }
      if (!space.empty()) groups.emplace_back(first, std::move(memos));
    }
    out.values.push_back(at.at(c));
  }
  return out;
}

std::unordered_map<const ir::Value*, int> Emitter::line_index_space(const ir::Value* line) {
  std::unordered_map<const ir::Value*, int> out;
  std::vector<const ir::Value*> work{line};
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (!v->type()->is_block() || out.count(v) != 0) continue;
    // The one axis longer than 1 ([1, n], [n, 1], [n]): where the line's index goes.
    const std::vector<int64_t>& shape = v->type()->shape();
    int axis = -1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (axis != -1) return {};
      axis = static_cast<int>(d);
    }
    if (axis == -1) return {};
    out[v] = axis;
    const ir::Op* def = v->def();
    if (def == nullptr) continue;
    switch (def->kind()) {
      case ir::OpKind::MakeRange:
      case ir::OpKind::Broadcast:
      case ir::OpKind::Trans: break;  // a leaf, or another memo below it (recompute_at)
      // Its source at other coordinates, in the same memo: nothing is shared.
      case ir::OpKind::Reshape: return {};
      default:
        for (const ir::Value* operand : def->operands()) work.push_back(operand);
        break;
    }
  }
  return out;
}

Regs Emitter::flat_to_rows(const ir::Value* value, const FragmentLayout& l, const Regs& flat_regs) {
  llvm::Type* element = element_type(value->type());
  llvm::Type* stored = stored_type(element);
  Layout flat = layout_of(value->type());
  Regs source = materialize(flat_regs, value->type());
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  for (int r = 0; r < flat.num_regs(); ++r) {
    llvm::Value* e = element_index(flat, r);
    guarded(owns(flat, r), [&]() -> llvm::Value* {
      b_.CreateStore(to_storage(source.at(r)), shared_element(stored, e, l.m));
      return nullptr;
    });
  }
  barrier();
  Regs out;
  for (int r = 0; r < l.num_regs(); ++r) {
    out.values.push_back(from_storage(b_.CreateLoad(stored, shared_element(stored, fragment_element(l, r), l.m)), element));
  }
  barrier();
  return out;
}

void Emitter::emit_fragment_reduce(const ir::Op& op, const FragmentLayout& rows) {
  const FragmentLayout* input = frags_.layout(op.operand(0));
  if (input == nullptr || input->rows) internal_error("nvptx", "a row reduction of a value not in fragments", op.loc());
  const FragmentLayout& l = *input;
  const size_t n = static_cast<size_t>(op.num_operands());
  std::vector<Regs> in;
  for (const ir::Value* v : op.operands()) in.push_back(fragment_operand(v, l, op));
  // 1. In each thread: the 2 * rep_n registers of each of its rows, in column order.
  std::vector<std::vector<llvm::Value*>> partial(static_cast<size_t>(rows.num_regs()));
  for (int row = 0; row < rows.num_regs(); ++row) {
    std::vector<std::vector<llvm::Value*>> items;
    for (int tile_n = 0; tile_n < l.rep_n; ++tile_n) {
      for (int c = 0; c < 2; ++c) {
        int reg = 2 * (row % 2) + c + 4 * (tile_n + l.rep_n * (row / 2));
        std::vector<llvm::Value*> item;
        for (size_t i = 0; i < n; ++i) item.push_back(in[i].at(reg));
        items.push_back(std::move(item));
      }
    }
    partial[static_cast<size_t>(row)] = combine_ordered(op, std::move(items));
  }
  // 2. The quad: lanes 4g .. 4g + 3 hold the columns 2 * (lane % 4) + {0, 1} of row g; the
  // highest lane bit first under "chain" (Triton's order, as emit_reduce's butterflies).
  const std::vector<int> masks = reduce_chain_ ? std::vector<int>{2, 1} : std::vector<int>{1, 2};
  for (int mask : masks) {
    for (auto& values : partial) {
      std::vector<llvm::Value*> other;
      for (llvm::Value* v : values) other.push_back(shuffle_xor(v, mask));
      values = combine(op, values, other);
    }
  }
  // 3. The warps along n: slot (wn, row) of each operand's scratch, written once per row
  // (lane % 4 == 0 of the first warps_m * warps_n warps), read by every warp for its rows.
  if (l.warps_n > 1) {
    std::vector<llvm::Type*> types;
    std::vector<int64_t> offsets;
    int64_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      types.push_back(stored_type(element_type(op.operand(static_cast<int>(i))->type())));
      offsets.push_back(at);
      at += (l.warps_n * l.m * type_bytes(types.back()) + 15) / 16 * 16;
    }
    check_shared_fits(at, op, "this row reduction across warps");
    const int64_t slots = l.warps_n * l.m;
    llvm::Value* warp = warp_id();
    llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp, b_.getInt32(static_cast<uint32_t>(l.warps_m))),
                                    b_.getInt32(static_cast<uint32_t>(l.warps_n)));
    llvm::Value* writer = b_.CreateAnd(
        b_.CreateICmpEQ(b_.CreateAnd(lane_id(), b_.getInt32(3)), b_.getInt32(0)),
        b_.CreateICmpULT(warp, b_.getInt32(static_cast<uint32_t>(l.warps_m * l.warps_n))));
    sync_if_dirty();  // not planned by allocate_shared (emitter.h)
    guarded(writer, [&]() -> llvm::Value* {
      for (int row = 0; row < rows.num_regs(); ++row) {
        llvm::Value* slot = b_.CreateAdd(b_.CreateMul(wn, b_.getInt32(static_cast<uint32_t>(l.m))), fragment_element(rows, row));
        for (size_t i = 0; i < n; ++i) {
          b_.CreateStore(to_storage(partial[static_cast<size_t>(row)][i]), shared_element_at(offsets[i], types[i], slot, slots));
        }
      }
      return nullptr;
    });
    barrier();
    for (int row = 0; row < rows.num_regs(); ++row) {
      std::vector<std::vector<llvm::Value*>> items;
      for (int w = 0; w < l.warps_n; ++w) {
        llvm::Value* slot = b_.CreateAdd(fragment_element(rows, row), b_.getInt32(static_cast<uint32_t>(w * l.m)));
        std::vector<llvm::Value*> item;
        for (size_t i = 0; i < n; ++i) {
          llvm::Type* element = element_type(op.operand(static_cast<int>(i))->type());
          item.push_back(from_storage(b_.CreateLoad(types[i], shared_element_at(offsets[i], types[i], slot, slots)), element));
        }
        items.push_back(std::move(item));
      }
      partial[static_cast<size_t>(row)] = combine_ordered(op, std::move(items));
    }
    barrier();
  }
  for (size_t i = 0; i < n; ++i) {
    Regs out;
    for (auto& values : partial) out.values.push_back(values[i]);
    set_fragment(op.result(static_cast<int>(i)), std::move(out));
  }
}

void Emitter::emit_fragment_view(const ir::Op& op) {
  // [m] <-> [m, 1]: the same rows in the same registers.
  set_fragment(op.result(), fragment_operand(op.operand(0), *frags_.layout(op.result()), op));
}

void Emitter::emit_fragment_broadcast(const ir::Op& op, const FragmentLayout& l) {
  const ir::Type* from = op.operand(0)->type();
  if (frags_.layout(op.operand(0)) == nullptr && from->rank() == 2 && (from->shape()[0] == 1 || from->shape()[1] == 1) &&
      !l.rows && l.batch == 1) {
    return set_fragment(op.result(), line_to_fragment(op, l));
  }
  const FragmentLayout* rows = frags_.layout(op.operand(0));
  if (rows == nullptr || !rows->rows || rows->warps_m != l.warps_m || rows->m != l.m) {
    internal_error("nvptx", "a fragment broadcast of a value not in matching fragment rows", op.loc());
  }
  Regs in = fragment_operand(op.operand(0), *rows, op);
  Regs out;
  for (int r = 0; r < l.num_regs(); ++r) out.values.push_back(in.at(l.row_reg(r)));
  set_fragment(op.result(), std::move(out));
}

void Emitter::stage_operand(const ir::Value* value, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                            const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed) {
  // A trans read only by dots moved nothing (gpu::trans_staged_by_dots): its source's element
  // (r, c) is its (c, r), staged where that goes.
  if (value->def() != nullptr && gpu::trans_staged_by_dots(*value->def())) {
    stage_operand(value->def()->operand(0), byte_offset, tile, stored, convert, !transposed);
    return;
  }
  const FragmentLayout* l = frags_.layout(value);
  if (value->def() != nullptr && value->def()->kind() == ir::OpKind::ConvertLayout && staged_by_dots(*value->def())) {
    stage_slot(value, byte_offset, tile, stored, convert, transposed);
    return;
  }
  // A flat value staged transposed (or K permuted, SharedTile::evens_first) is stored element
  // by element: at a per-thread base plus constants (stage_held), not at an address per
  // element (stage_rows; K and V of fp32 attention on wgmma kept ~30 such 64-bit addresses
  // each live through the loop).
  if (l == nullptr && (transposed || tile.evens_first) && value->type()->is_block() &&
      !gpu::held_in_slot(value, widths_, threads_)) {
    stage_held(value, materialize(get(value), value->type()), byte_offset, tile, stored, convert, transposed);
    return;
  }
  if (l == nullptr || l->rows) {
    stage_rows(value->type(), get(value), byte_offset, tile, stored, convert, transposed);
    return;
  }
  if (transposed && !tile.evens_first && l->batch == 1 && values_.count(value) == 0) {
    // No flat copy (stages_trans_fragments: wgmma's A as a trans of fragments): each
    // register's element (row, col) written at (col, row) of the tile, one at a time.
    auto it = fragments_.find(value);
    if (it == fragments_.end()) internal_error("nvptx", "a dot operand's fragments are used before they were emitted");
    for (int r = 0; r < l->num_regs(); ++r) {
      llvm::Value* e = fragment_element(*l, r);
      llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(l->n)));
      llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(l->n)));
      b_.CreateStore(convert(it->second.at(r)), tile_element(byte_offset, tile, stored, col, row));
    }
    return;
  }
  if (transposed || tile.evens_first) {  // from the flat copy (made here if nothing else needed one)
    if (values_.count(value) == 0) set(value, fragment_to_flat(value, *l, fragment_operand(value, *l, *value->users()[0])));
    stage_rows(value->type(), get(value), byte_offset, tile, stored, convert, transposed);
    return;
  }
  // Registers c, c + 1 (c even) are columns col, col + 1 of one row: one pair, in one 16-byte
  // chunk of a swizzled tile (col is even), 2-element aligned in a padded one (even stride).
  auto it = fragments_.find(value);
  if (it == fragments_.end()) internal_error("nvptx", "a dot operand's fragments are used before they were emitted");
  const Regs& regs = it->second;
  if (stmatrix_stage(*l, regs, byte_offset, tile, stored, convert)) return;
  llvm::Type* pair = llvm::FixedVectorType::get(stored, 2);
  const llvm::Align align(static_cast<uint64_t>(2 * type_bytes(stored)));
  for (int r = 0; r < l->num_regs(); r += 2) {
    llvm::Value* e = fragment_element(*l, r);
    llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(l->n)));
    llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(l->n)));
    llvm::Value* vec = llvm::PoisonValue::get(pair);
    vec = b_.CreateInsertElement(vec, convert(regs.at(r)), b_.getInt32(0));
    vec = b_.CreateInsertElement(vec, convert(regs.at(r + 1)), b_.getInt32(1));
    b_.CreateAlignedStore(vec, tile_element(byte_offset, tile, stored, row, col), align);
  }
}

bool Emitter::stmatrix_stage(const FragmentLayout& l, const Regs& regs, int64_t byte_offset, const SharedTile& tile,
                             llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert) {
  if (!stsm_stage_ || sm_ < 90 || l.rows || l.batch != 1 || type_bytes(stored) != 2 || tile.evens_first ||
      tile.rows != l.m || tile.cols != l.n) {
    return false;
  }
  if (tile.swizzle == 0 && (tile.stride() * 2 % 16 != 0 || byte_offset % 16 != 0)) return false;
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  // Tile t (register 4t's) of the warp is tile (t % rep_n, t / rep_n): rows tile_row + [0,
  // 16), columns tile_col + [0, 8). An instruction writes tiles t and t + 1: matrix q (lanes
  // 8q .. 8q + 7 give its rows' addresses, register q of every lane holds its row lane / 4,
  // columns 2 (lane % 4) + {0, 1}) is rows 8 (q % 2) + [0, 8) of tile t + q / 2, i.e.
  // registers 4t + 2q, 4t + 2q + 1 (q < 2) and 4 (t + 1) + 2 (q - 2) ... (q >= 2). Lane l
  // addresses row wm * 16 + (l & 15) of tile t + (l >> 4); x2 (an odd last tile) reads the
  // addresses of lanes 0-15 only.
  llvm::Value* lane = lane_id();
  llvm::Value* wm = b_.CreateURem(warp_id(), i32(l.warps_m));
  llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp_id(), i32(l.warps_m)), i32(l.warps_n));
  llvm::Value* lane_row = b_.CreateAdd(b_.CreateMul(wm, i32(16)), b_.CreateAnd(lane, i32(15)));
  llvm::Value* lane_col = b_.CreateMul(wn, i32(l.warp_col_step()));
  llvm::Value* second = b_.CreateLShr(lane, i32(4));
  llvm::Type* pair_type = llvm::FixedVectorType::get(stored, 2);
  auto word = [&](int r) {  // registers r, r + 1 as one .b32, the lower column low
    llvm::Value* vec = llvm::PoisonValue::get(pair_type);
    vec = b_.CreateInsertElement(vec, convert(regs.at(r)), b_.getInt32(0));
    vec = b_.CreateInsertElement(vec, convert(regs.at(r + 1)), b_.getInt32(1));
    return b_.CreateBitCast(vec, b_.getInt32Ty());
  };
  const int tiles = l.num_regs() / 4;
  for (int t = 0; t < tiles; t += 2) {
    const bool pair = t + 1 < tiles;
    const int64_t row0 = l.tile_row(t / l.rep_n, 0), col0 = l.tile_col(t % l.rep_n, 0);
    llvm::Value* row = b_.CreateAdd(lane_row, i32(row0));
    llvm::Value* col = b_.CreateAdd(lane_col, i32(col0));
    if (pair) {
      const int u = t + 1;
      row = b_.CreateAdd(row, b_.CreateMul(second, i32(l.tile_row(u / l.rep_n, 0) - row0)));
      col = b_.CreateAdd(col, b_.CreateMul(second, i32(l.tile_col(u % l.rep_n, 0) - col0)));
    }
    llvm::Value* address = b_.CreatePtrToInt(tile_element(byte_offset, tile, stored, row, col), b_.getInt32Ty());
    std::vector<llvm::Value*> words = {word(4 * t), word(4 * t + 2)};
    if (pair) {
      words.push_back(word(4 * t + 4));
      words.push_back(word(4 * t + 6));
    }
    stmatrix(address, words);
  }
  return true;
}

}  // namespace tritium::nvptx

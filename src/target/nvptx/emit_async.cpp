// Asynchronous copies of dot operands into their stage buffers (async_copy.h): cp.async of
// 4, 8 or 16 bytes per aligned group of a thread's registers, zero-filled where the mask is
// off; groups the axis facts cannot prove contiguous are tested at run time and copied one
// element at a time (ld.global, st.shared) when the test fails; in a cold copy
// (gpu/version_on_signs.h) they are copied one element at a time untested, from addresses
// computed where the copy is issued.
#include <map>

#include <llvm/IR/InlineAsm.h>

#include "gpu/conversion.h"
#include "gpu/version_on_signs.h"
#include "ir/layout.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"
#include "target/nvptx/layout.h"

namespace tritium::nvptx {

llvm::Value* Emitter::raw_shared(llvm::Value* byte_offset) {
  return b_.CreateGEP(b_.getInt8Ty(), shared_base(), byte_offset);
}

llvm::Value* Emitter::raw_shared_address(llvm::Value* byte_offset) {
  return b_.CreateAdd(b_.CreatePtrToInt(shared_base(), b_.getInt32Ty()), byte_offset);
}

void Emitter::ptx_effect(const std::string& text, const std::string& constraints, const std::vector<llvm::Value*>& args) {
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args) types.push_back(a->getType());
  auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), types, false);
  b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), args);
  // What this thread wrote into tiles staged at their definition is now visible to the
  // async proxy (after a barrier, to every thread's wgmma: OperandTile::published).
  if (text.rfind("fence.proxy.async", 0) == 0) {
    for (OperandTile& t : operand_tiles_) {
      if (t.region == emitting_region_) t.fenced = true;
    }
  }
}

void Emitter::stmatrix(llvm::Value* address, const std::vector<llvm::Value*>& words) {
  const bool x4 = words.size() == 4;
  std::vector<llvm::Value*> args = {address};
  args.insert(args.end(), words.begin(), words.end());
  ptx_effect(x4 ? "stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, $3, $4};"
                : "stmatrix.sync.aligned.m8n8.x2.shared.b16 [$0], {$1, $2};",
             x4 ? "r,r,r,r,r,~{memory}" : "r,r,r,~{memory}", args);
}

void Emitter::emit_async_load(const ir::Op& op, const AsyncOperand& operand) {
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  int stage = async_.stage.at(op.result());
  if (stage >= 0) {
    if (stage == 0) {  // live until the loop's exit drains them (emit_for)
      live_stage_ends_[&operand] = operand.end();
    }
    llvm::Value* handle = i32(operand.offset[stage]);
    if (operand.tma_map >= 0) {
      if (stage == 0) init_tma_barriers(operand);
      issue_tma_copies(op, operand, handle, i32(stage));
    } else {
      issue_copies(op, operand, handle);
    }
    set(op.result(), Regs::one(handle));
    return;
  }
  // Iteration i + distance's copy goes to the buffer iteration i - 1 read (the one before
  // the current one, cyclically; with two, simply the other one; an operand read back: the
  // current one, which its threads read back before this iteration's dot), or i - 2 when the dot
  // stays in flight (iteration i - 1's may still read its buffer). Threads may still read
  // it until this iteration's dot meets them at its barrier (where every thread has also
  // waited for the dots of i - 2): the dot issues the copy right after
  // (issue_deferred_copies). The buffers are evenly spaced.
  // An operand in lockstep with another (lockstep_operands) takes that one's buffer plus
  // the constant distance: one rotation per loop, not one per operand.
  auto lead = lockstep_.find(&operand);
  const AsyncOperand& turning = lead != lockstep_.end() ? *lead->second.first : operand;
  llvm::Value* current = current_buffer(turning);
  llvm::Value* handle;
  if (turning.read_before_copies) {
    handle = current;  // read back into registers already (`distance` buffers: async_copy.cpp)
  } else if (turning.offset.size() == 2) {
    handle = b_.CreateSub(i32(turning.offset[0] + turning.offset[1]), current);
  } else {
    const int64_t bytes = turning.offset[1] - turning.offset[0];
    const int64_t back = turning.in_flight && !turning.copies_after_dot ? 2 : 1;
    const int64_t count = static_cast<int64_t>(turning.offset.size());
    handle = b_.CreateSelect(b_.CreateICmpULT(current, i32(turning.offset[0] + back * bytes)),
                             b_.CreateAdd(current, i32((count - back) * bytes)), b_.CreateSub(current, i32(back * bytes)));
  }
  if (lead != lockstep_.end()) handle = b_.CreateAdd(handle, i32(lead->second.second));
  deferred_copies_.push_back({&op, &operand, handle});
  set(op.result(), Regs::one(handle));
}

void Emitter::lockstep_operands(const ir::Region& body) {
  // Two copied operands of one loop whose chains start at stage 0 and turn the same way (as
  // many buffers, evenly spaced by the same amount, the same distance and in-flight rule)
  // keep a constant distance between their current buffers in every iteration: the body
  // arguments of the later one are the earlier one's plus that distance, so its carried
  // offsets (and their rotation) fold away; the loop still yields them, unused.
  std::vector<const AsyncOperand*> operands;
  for (int i = 1; i < static_cast<int>(body.args().size()); ++i) {
    auto it = async_.carried.find(body.arg(i));
    // A read_back operand's argument becomes registers: its offset cannot follow another's.
    if (it != async_.carried.end() && it->second->carried == body.arg(i) && !it->second->read_back) {
      operands.push_back(it->second);
    }
  }
  auto spacing = [](const AsyncOperand& o) { return o.offset.size() > 1 ? o.offset[1] - o.offset[0] : 0; };
  auto evenly_spaced = [&](const AsyncOperand& o) {
    for (size_t j = 1; j < o.offset.size(); ++j) {
      if (o.offset[j] - o.offset[j - 1] != spacing(o)) return false;
    }
    return o.offset.size() > 1;
  };
  for (size_t f = 0; f < operands.size(); ++f) {
    const AsyncOperand& follower = *operands[f];
    for (size_t l = 0; l < f; ++l) {
      const AsyncOperand& leader = *operands[l];
      if (lockstep_.count(&leader) != 0 || !evenly_spaced(leader) || !evenly_spaced(follower) ||
          spacing(leader) != spacing(follower) || leader.offset.size() != follower.offset.size() ||
          leader.distance != follower.distance || leader.in_flight != follower.in_flight ||
          leader.copies_after_dot != follower.copies_after_dot ||
          leader.chain.size() != follower.chain.size()) {
        continue;
      }
      const int64_t delta = follower.offset[0] - leader.offset[0];
      lockstep_[&follower] = {&leader, delta};
      for (size_t j = 0; j < follower.chain.size(); ++j) {
        llvm::Value* at = get(leader.chain[j]).at(0);
        set(follower.chain[j], Regs::one(b_.CreateAdd(at, b_.getInt32(static_cast<uint32_t>(delta)))));
      }
      break;
    }
  }
}

llvm::Value* Emitter::current_buffer(const AsyncOperand& operand) {
  auto it = read_back_offsets_.find(operand.carried);
  return it != read_back_offsets_.end() ? it->second : get(operand.carried).at(0);
}

void Emitter::read_back_before(const ir::Op& op) {
  for (const ir::Value* v : op.operands()) {
    auto it = async_.carried.find(v);
    if (it == async_.carried.end() || !it->second->read_back || it->second->carried != v ||
        read_back_offsets_.count(v) != 0) {
      continue;
    }
    const AsyncOperand& operand = *it->second;
    llvm::Value* handle = get(v).at(0);
    read_back_offsets_[v] = handle;
    // Read only at the fragment positions (read_back_fragment): no flat registers.
    const std::vector<ir::Use> uses = v->uses();
    if (std::all_of(uses.begin(), uses.end(), [&](const ir::Use& use) { return reads_back_fragments(use); })) continue;
    if (operand.transposed) {
      set(v, read_back_transposed(v, operand, handle));
      continue;
    }
    // The iteration's whole batch, as a dot waits for it (emit_dot.cpp): the groups of the
    // later iterations, and those this body has committed so far, stay in flight.
    ptx_effect("cp.async.wait_group " + std::to_string(operand.pending_groups + body_commits_) + ";", "", {});
    // The thread's own runs, where issue_copies put them: element e at its row and column of
    // the tile (the block row-major; its rows padded where it is also read at the fragment
    // positions), runs of up to 16 bytes along the last axis.
    const ir::Type* type = v->type();
    const Layout layout = layout_of(type);
    llvm::Type* element = stored_type(element_type(type));
    const int64_t eb = operand.tile.element_bytes;
    const int64_t cols = type->shape().back();
    int g = std::max(1, std::min<int>(layout.vector(), static_cast<int>(16 / eb)));
    while (g > 1 && (cols % g != 0 || layout.vector() % g != 0)) g /= 2;
    auto* vector_type = llvm::FixedVectorType::get(element, static_cast<unsigned>(g));
    Regs out;
    out.values.assign(static_cast<size_t>(layout.num_regs()), nullptr);
    for (int r = 0; r < layout.num_regs(); r += g) {
      llvm::Value* e = element_index(layout, r);
      if (operand.tile.pad_bytes != 0) {
        llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(cols)));
        e = b_.CreateAdd(e, b_.CreateMul(row, b_.getInt32(static_cast<uint32_t>(operand.tile.stride() - cols))));
      }
      llvm::Value* byte = b_.CreateAdd(handle, b_.CreateMul(e, b_.getInt32(static_cast<uint32_t>(eb))));
      llvm::Value* run = guarded(owns(layout, r), [&]() -> llvm::Value* {
        return b_.CreateAlignedLoad(vector_type, raw_shared(byte), llvm::Align(static_cast<uint64_t>(eb * g)));
      }, llvm::Constant::getNullValue(vector_type));
      for (int i = 0; i < g; ++i) out.values[static_cast<size_t>(r + i)] = b_.CreateExtractElement(run, static_cast<uint64_t>(i));
    }
    set(v, out);
  }
}

void Emitter::wait_for_read_backs(const AsyncOperand& operand) {
  if (copies_ready_.count(operand.carried) != 0) return;
  ptx_effect("cp.async.wait_group " + std::to_string(operand.pending_groups + body_commits_) + ";", "", {});
  // Serving the loop's dots too (AsyncOperand::readies_loop): the copies made visible to
  // wgmma's async proxy, as a dot's wait would (emit_dot.cpp).
  if (operand.readies_loop && wgmma_ && cp_async_fence_) ptx_effect("fence.proxy.async.shared::cta;", "", {});
  barrier();
  // The wait was for the iteration's whole batch: every read-back operand of the loop is in
  // place for every thread now. Not the dots' operands unless readies_loop: else a dot's own
  // barrier also keeps the next copies, which may go into the buffers read here, behind
  // every thread's reads.
  for (const auto& o : async_.operands) {
    if ((o->read_back || operand.readies_loop) && o->carried->region() == operand.carried->region()) {
      copies_ready_.insert(o->carried);
    }
  }
}

llvm::Value* Emitter::read_line_at(const ir::Value* v, llvm::Value* index) {
  const AsyncOperand* operand = async_.copied_line(v);
  if (operand == nullptr) internal_error("nvptx", "a line read at its elements that no copy filled", Loc{});
  wait_for_read_backs(*operand);
  llvm::Type* element = element_type(v->type());
  llvm::Type* stored = stored_type(element);
  const int64_t eb = operand->tile.element_bytes;
  llvm::Value* byte = b_.CreateAdd(current_buffer(*operand), b_.CreateMul(index, b_.getInt32(static_cast<uint32_t>(eb))));
  return from_storage(b_.CreateAlignedLoad(stored, raw_shared(byte), llvm::Align(static_cast<uint64_t>(eb))), element);
}

Regs Emitter::read_back_transposed(const ir::Value* v, const AsyncOperand& operand, llvm::Value* handle) {
  // The runs were dealt out over the threads (issue_transposed_copies): others copied most
  // of this thread's elements. Element (row, col) of the block sits at tile row col, column
  // row, one load each (its registers run along the rows, the tile's runs down them).
  wait_for_read_backs(operand);
  const ir::Type* type = v->type();
  const Layout layout = layout_of(type);
  llvm::Type* element = stored_type(element_type(type));
  const int64_t eb = operand.tile.element_bytes;
  const int64_t cols = type->shape().back();
  Regs out;
  for (int r = 0; r < layout.num_regs(); ++r) {
    llvm::Value* e = element_index(layout, r);
    llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(cols)));
    llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(cols)));
    llvm::Value* byte = b_.CreateAdd(handle, tile_offset(operand.tile, col, row));
    out.values.push_back(guarded(owns(layout, r), [&]() -> llvm::Value* {
      return b_.CreateAlignedLoad(element, raw_shared(byte), llvm::Align(static_cast<uint64_t>(eb)));
    }, llvm::Constant::getNullValue(element)));
  }
  return out;
}

bool Emitter::reads_back_fragments(const ir::Use& use) const {
  const ir::Op& user = *use.user;
  if (!frags_.reads_back(user.operand(use.index)) || user.num_results() != 1 || frags_.layout(user.result()) == nullptr) {
    return false;
  }
  return user.kind() == ir::OpKind::Dot ? use.index == 2 : ir::has_trait(user.kind(), ir::kElementwise);
}

Regs Emitter::read_back_fragment(const ir::Value* value, const FragmentLayout& l, const AsyncOperand& operand) {
  auto known = read_back_fragments_.find(value);
  if (known != read_back_fragments_.end() && known->second.first == l) return known->second.second;
  // Other threads copied most of what this thread reads: their copies are complete and
  // visible once every thread has waited for its iteration's batch and met a barrier, as a
  // dot of this body before did (copies_ready_; then this thread's own wait was that dot's).
  wait_for_read_backs(operand);
  llvm::Value* handle = read_back_offsets_.at(value);
  const SharedTile& tile = operand.tile;
  const ir::Type* type = value->type();
  llvm::Type* element = element_type(type);
  llvm::Type* stored = stored_type(element);
  const int64_t eb = tile.element_bytes;
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  if (operand.transposed && eb == 2 && l.tile_col_step() == 8 && l.rep_n % 2 == 0 && tile.stride() * eb % 16 == 0 &&
      ldmatrix_trans_reads_) {
    // 16-bit elements held transposed: ldmatrix.x4.trans per 16 x 16 of the block (n-tiles in
    // and in + 1 of m-tile im), as Triton reads k^T into its dot operand layout. Matrix q
    // (lanes 8q..8q+7 give its rows' addresses) is tile rows (the block's columns) in * 8 +
    // 8 (q / 2) + [0, 8) from column (the block's row) tile_row + 8 (q % 2): read transposed,
    // lane l gets the block's row tile_row + 8 (q % 2) + l / 4, columns 2 (l % 4) + {0, 1} of
    // that n-tile, i.e. registers c0 c1 (q even) or c2 c3 (q odd) of n-tile in + q / 2.
    llvm::Value* lane = lane_id();
    llvm::Value* wm = b_.CreateURem(warp_id(), i32(l.warps_m));
    llvm::Value* t = b_.CreateAdd(b_.CreateAnd(lane, i32(7)), b_.CreateShl(b_.CreateLShr(lane, i32(4)), 3));
    llvm::Value* k = b_.CreateAdd(b_.CreateMul(wm, i32(16)), b_.CreateShl(b_.CreateAnd(b_.CreateLShr(lane, i32(3)), i32(1)), 3));
    llvm::Value* base = raw_shared_address(
        b_.CreateAdd(handle, b_.CreateMul(b_.CreateAdd(b_.CreateMul(t, i32(tile.stride())), k), i32(eb))));
    Regs out;
    out.values.assign(static_cast<size_t>(l.num_regs()), nullptr);
    llvm::Type* pair_type = llvm::FixedVectorType::get(stored, 2);
    for (int im = 0; im < l.rep_m; ++im) {
      for (int in = 0; in < l.rep_n; in += 2) {
        const int64_t offset = (in * 8 * tile.stride() + l.tile_row(im, 0)) * eb;
        std::vector<llvm::Value*> m = ldmatrix(b_.CreateAdd(base, i32(offset)), 4, true);
        for (int q = 0; q < 4; ++q) {
          const int reg = 2 * (q % 2) + 4 * (in + q / 2 + l.rep_n * im);
          llvm::Value* both = b_.CreateBitCast(m[static_cast<size_t>(q)], pair_type);
          out.values[static_cast<size_t>(reg)] = from_storage(b_.CreateExtractElement(both, b_.getInt32(0)), element);
          out.values[static_cast<size_t>(reg + 1)] = from_storage(b_.CreateExtractElement(both, b_.getInt32(1)), element);
        }
      }
    }
    read_back_fragments_[value] = {l, out};
    return out;
  }
  if (operand.transposed) {
    // Held transposed (tile row n is the block's column n): a register pair's two columns are
    // two tile rows, one load each; the thread's first element (its row, its column) at
    // tile row `col`, column `row`, every register a constant further.
    llvm::Value* base = b_.CreateAdd(
        handle, b_.CreateMul(b_.CreateAdd(b_.CreateMul(fragment_thread_col(l), i32(tile.stride())), fragment_thread_row(l)),
                             i32(eb)));
    Regs out;
    for (int r = 0; r < l.num_regs(); ++r) {
      const int64_t e = l.element(0, 0, r);
      llvm::Value* byte = b_.CreateAdd(base, i32(tile.offset(e % l.n, e / l.n)));
      out.values.push_back(from_storage(b_.CreateAlignedLoad(stored, raw_shared(byte), llvm::Align(static_cast<uint64_t>(eb))),
                                        element));
    }
    read_back_fragments_[value] = {l, out};
    return out;
  }
  if (ldmatrix_reads_ && sm_ >= 90 && eb == 2 && tile.swizzle == 0 && tile.stride() * eb % 16 == 0 &&
      l.num_regs() >= 8) {
    // 16-bit elements in padded rows: ldmatrix.x4 per two 16 x 8 tiles t, t + 1 of the warp
    // (x2 for an odd last one), as Triton reads such an operand into its mma layout
    // (local_load). Matrix q is rows 8 (q % 2) + [0, 8) of tile t + q / 2, so lane l gives
    // the address of row wm * 16 + (l & 15) of tile t + (l >> 4) and gets in register q the
    // pair c = 2 (q % 2), c + 1 of that tile (its row l / 4 + 8 (q % 2), columns 2 (l % 4) +
    // {0, 1}): stmatrix_stage's arrangement read back.
    llvm::Value* lane = lane_id();
    llvm::Value* wm = b_.CreateURem(warp_id(), i32(l.warps_m));
    llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp_id(), i32(l.warps_m)), i32(l.warps_n));
    llvm::Value* row = b_.CreateAdd(b_.CreateMul(wm, i32(16)), b_.CreateAnd(lane, i32(15)));
    llvm::Value* col = b_.CreateMul(wn, i32(l.warp_col_step()));
    llvm::Value* base = b_.CreateAdd(handle, b_.CreateMul(b_.CreateAdd(b_.CreateMul(row, i32(tile.stride())), col), i32(eb)));
    llvm::Value* second = b_.CreateLShr(lane, i32(4));
    llvm::Type* pair_type = llvm::FixedVectorType::get(stored, 2);
    Regs out;
    out.values.assign(static_cast<size_t>(l.num_regs()), nullptr);
    const int tiles = l.num_regs() / 4;
    for (int t = 0; t < tiles; t += 2) {
      const bool pair = t + 1 < tiles;
      const int64_t row0 = l.tile_row(t / l.rep_n, 0), col0 = l.tile_col(t % l.rep_n, 0);
      llvm::Value* byte = b_.CreateAdd(base, i32(tile.offset(row0, col0)));
      if (pair) {
        const int u = t + 1;
        const int64_t step = tile.offset(l.tile_row(u / l.rep_n, 0), l.tile_col(u % l.rep_n, 0)) - tile.offset(row0, col0);
        byte = b_.CreateAdd(byte, b_.CreateMul(second, i32(step)));
      }
      std::vector<llvm::Value*> m = ldmatrix(raw_shared_address(byte), pair ? 4 : 2, false);
      for (int q = 0; q < (pair ? 4 : 2); ++q) {
        const int reg = 4 * (t + q / 2) + 2 * (q % 2);
        llvm::Value* both = b_.CreateBitCast(m[static_cast<size_t>(q)], pair_type);
        out.values[static_cast<size_t>(reg)] = from_storage(b_.CreateExtractElement(both, b_.getInt32(0)), element);
        out.values[static_cast<size_t>(reg + 1)] = from_storage(b_.CreateExtractElement(both, b_.getInt32(1)), element);
      }
    }
    read_back_fragments_[value] = {l, out};
    return out;
  }
  // Register pair (c, c + 1) of a tile: row r, columns 2 (lane % 4) + {0, 1}, adjacent in the
  // row-major buffer: one load of both.
  llvm::Type* pair = llvm::FixedVectorType::get(stored, 2);
  llvm::Value* base = b_.CreateAdd(handle, b_.CreateMul(fragment_base(l, tile.stride()), i32(eb)));
  Regs out;
  for (int r = 0; r < l.num_regs(); r += 2) {
    const int64_t e = l.element(0, 0, r);  // thread 0's element: the register's row and column
    llvm::Value* byte = b_.CreateAdd(base, i32(tile.offset(e / l.n, e % l.n)));
    llvm::Value* both = b_.CreateAlignedLoad(pair, raw_shared(byte), llvm::Align(static_cast<uint64_t>(2 * eb)));
    out.values.push_back(from_storage(b_.CreateExtractElement(both, b_.getInt32(0)), element));
    out.values.push_back(from_storage(b_.CreateExtractElement(both, b_.getInt32(1)), element));
  }
  read_back_fragments_[value] = {l, out};
  return out;
}

void Emitter::issue_deferred_copies() {
  std::vector<DeferredCopy> copies;
  copies.swap(deferred_copies_);
  for (const DeferredCopy& c : copies) issue_copies(*c.op, *c.operand, c.handle);
}

void Emitter::issue_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle) {
  if (operand.tma_map >= 0) {
    // Iteration i + distance's buffer, as the rotation chose it (emit_async_load).
    llvm::Value* trip = trips_.at(op.parent());
    const int64_t count = static_cast<int64_t>(operand.offset.size());
    llvm::Value* index = b_.CreateURem(b_.CreateAdd(trip, b_.getInt32(static_cast<uint32_t>(operand.distance))),
                                       b_.getInt32(static_cast<uint32_t>(count)));
    return issue_tma_copies(op, operand, handle, index);
  }
  if (operand.transposed && !operand.by_element) return issue_transposed_copies(op, operand, handle);
  if (operand.by_element && !operand.transposed) return issue_column_element_copies(op, operand, handle);
  if (operand.by_element && async_.recomputed.count(op.result()) != 0 && issue_row_element_copies(op, operand, handle)) return;
  const ir::Type* type = op.result()->type();
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  Layout layout = layout_of(type);
  const int w = widths_.width(op);
  const bool cold = gpu::computes_cold_addresses(op, w);
  Regs ptr = cold ? cold_addresses(op.operand(0), layout) : materialize(get(op.operand(0)), op.operand(0)->type());
  ir::Value* mask_value = ir::load_mask(op);
  Regs mask;
  if (mask_value != nullptr) mask = materialize(get(mask_value), mask_value->type());
  llvm::Type* element = stored_type(element_type(type));  // f16 or bf16: two bytes; fp8: one
  const int64_t eb = operand.tile.element_bytes;
  const int64_t cols = type->shape().back();
  // Element by element into a tile held transposed (AsyncOperand::by_element): 4 bytes each.
  const bool by_element = operand.by_element;
  const bool untested = cold || !widths_.tests_at_run_time(op);
  int g = by_element ? 1 : w > 1 ? w : untested ? 1 : runtime_vector_width(type, layout, element);
  if (g * eb < 4) g = 1;  // cp.async moves 4, 8 or 16 bytes
  auto mask_at = [&](int r) -> llvm::Value* { return mask_value ? mask.at(r) : nullptr; };

  // One element by hand: ld.global (0 where masked off) and st.shared.
  auto copy_element = [&](int r, llvm::Value* dst) {
    const llvm::Align align(static_cast<uint64_t>(eb));
    llvm::Value* v = guarded(mask_at(r), [&]() -> llvm::Value* {
      return b_.CreateAlignedLoad(element, ptr.at(r), align);
    }, llvm::Constant::getNullValue(element));
    b_.CreateAlignedStore(v, raw_shared(dst), align);
  };
  // A group of `bytes` from register r's address.
  auto copy_group = [&](int r, llvm::Value* dst, int bytes) { cp_async(dst, ptr.at(r), bytes, mask_at(r)); };

  // Where each group goes: when its tile offset is the first group's plus the same constant
  // for every thread (the rows of a group 8 apart keep the swizzle's permutation), that sum,
  // so the copies of one stage share one register (Triton's [r + imm] addresses).
  const SharedTile& tile = operand.tile;
  auto offset_of = [&](int thread, int r) {
    int64_t e = layout.element(thread, r);
    return by_element ? tile.offset(e % cols, e / cols) : tile.offset(e / cols, e % cols);
  };
  llvm::Value* first_dst = nullptr;
  for (int r = 0; r < layout.num_regs(); r += g) {
    llvm::Value* dst = nullptr;
    if (first_dst != nullptr && layout.element(layout.threads() - 1, r) < layout.num_elements()) {
      const int64_t delta = offset_of(0, r) - offset_of(0, 0);
      bool constant = true;
      for (int t = 1; t < layout.threads() && constant; ++t) constant = offset_of(t, r) - offset_of(t, 0) == delta;
      if (constant) dst = b_.CreateAdd(first_dst, i32(delta));
    }
    if (dst == nullptr) {
      llvm::Value* e = element_index(layout, r);
      llvm::Value* row = b_.CreateUDiv(e, i32(cols));
      llvm::Value* col = b_.CreateURem(e, i32(cols));
      dst = b_.CreateAdd(handle, by_element ? tile_offset(tile, col, row) : tile_offset(tile, row, col));
      if (r == 0 && layout.element(layout.threads() - 1, 0) < layout.num_elements()) first_dst = dst;
    }
    guarded(owns(layout, r), [&]() -> llvm::Value* {
      if (by_element) {
        // Within a group the facts proved consecutive (w), from the group's first address:
        // one pointer a group stays live, not one an element.
        const int first = r - r % std::max(w, 1);
        llvm::Value* src = r == first ? ptr.at(r) : b_.CreateConstGEP1_64(b_.getInt8Ty(), ptr.at(first), (r - first) * eb);
        cp_async(dst, src, static_cast<int>(eb), mask_at(first));
      } else if (g == 1 && operand.line && eb >= 4) {
        cp_async(dst, ptr.at(r), static_cast<int>(eb), mask_at(r));  // a line's element: 4 to 16 bytes
      } else if (g == 1) {
        copy_element(r, dst);
      } else if (w > 1) {
        copy_group(r, dst, static_cast<int>(eb * g));  // the facts proved it: consecutive, aligned, one mask bit
      } else {
        // Test what the facts could not prove.
        llvm::Value* fast = group_is_vector(ptr, mask_value ? &mask : nullptr, r, g, eb);
        llvm::BasicBlock* fast_block = llvm::BasicBlock::Create(context_, "copy.vector", kernel_);
        llvm::BasicBlock* slow_block = llvm::BasicBlock::Create(context_, "copy.scalar", kernel_);
        llvm::BasicBlock* join = llvm::BasicBlock::Create(context_, "copy.join", kernel_);
        b_.CreateCondBr(fast, fast_block, slow_block);
        b_.SetInsertPoint(fast_block);
        copy_group(r, dst, static_cast<int>(eb * g));
        b_.CreateBr(join);
        b_.SetInsertPoint(slow_block);
        for (int i = 0; i < g; ++i) copy_element(r + i, b_.CreateAdd(dst, i32(eb * i)));
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
      }
      return nullptr;
    });
  }
  ptx_effect("cp.async.commit_group;", "", {});
  ++body_commits_;
}

Regs Emitter::cold_addresses(const ir::Value* ptr, const Layout& layout) {
  // The thread index through an asm with a side effect: LLVM can neither hoist what is
  // computed from it out of the loop nor merge it with the index computed before the loop.
  // Each element's address is computed here (sharing its row's and column's arithmetic with
  // its neighbours) and dies at its copy; only the scalars live across the loop.
  auto* fn_type = llvm::FunctionType::get(b_.getInt32Ty(), false);
  llvm::Value* t = b_.CreateCall(llvm::InlineAsm::get(fn_type, "mov.u32 $0, %tid.x;", "=r", /*hasSideEffects=*/true), {});
  if (layout.thread_stride() != 1) t = b_.CreateMul(t, b_.getInt32(static_cast<uint32_t>(layout.thread_stride())), "", true, true);
  Regs out;
  for (int r = 0; r < layout.num_regs(); ++r) {
    const int64_t base = layout.reg_base(r);
    llvm::Value* e = base == 0 ? t : b_.CreateAdd(t, b_.getInt32(static_cast<uint32_t>(base)), "", true, true);
    std::unordered_map<const ir::Value*, llvm::Value*> memo;  // one per element: it keys on values
    out.values.push_back(recompute(ptr, e, memo));
  }
  return out;
}

Emitter::DealtCoords Emitter::dealt_coords(int64_t first, int64_t row) {
  // tid < threads and threads | first: where row | threads, row | first too and the row of
  // tid + first is tid's plus first / row, its place in the row tid's; where threads | row,
  // tid + first stays in the row first starts (first % row + tid < row). Computed so, every
  // round's row is one per-thread value plus a constant: the rows' masks and addresses are
  // shared with the other rounds and blocks dealt out alike (fla's gla k with v: 4 row
  // compares a thread, not one a copy).
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  llvm::Value* tid = thread_id();
  const int64_t threads = threads_;
  DealtCoords out;
  if (deal_split_ && row > 0 && first % threads == 0 && (threads % row == 0 || row % threads == 0)) {
    out.split = true;
    if (threads % row == 0) {
      out.thread_row = row == 1 ? tid : b_.CreateUDiv(tid, i32(row));
      out.thread_column = row == 1 ? i32(0) : b_.CreateURem(tid, i32(row));
      out.row_shift = first / row;
    } else {
      out.thread_row = i32(0);
      out.thread_column = tid;
      out.row_shift = first / row;
      out.column_shift = first % row;
    }
    out.row = out.row_shift == 0 ? out.thread_row : b_.CreateAdd(out.thread_row, i32(out.row_shift), "", true, true);
    out.column = out.column_shift == 0 ? out.thread_column : b_.CreateAdd(out.thread_column, i32(out.column_shift), "", true, true);
    return out;
  }
  llvm::Value* index = b_.CreateAdd(tid, i32(first));
  out.row = b_.CreateUDiv(index, i32(row));
  out.column = b_.CreateURem(index, i32(row));
  return out;
}

void Emitter::cp_async(llvm::Value* dst, llvm::Value* address, int bytes, llvm::Value* bit) {
  // .cg (L2 only) is for 16 bytes alone.
  std::string text = std::string(bytes == 16 ? "cp.async.cg" : "cp.async.ca") + ".shared.global [$0], [$1], " +
                     std::to_string(bytes);
  llvm::Value* dst_address = raw_shared_address(dst);
  llvm::Value* src = b_.CreatePtrToInt(address, b_.getInt64Ty());
  if (bit == nullptr) return ptx_effect(text + ";", "r,l", {dst_address, src});
  // A masked-off copy writes zeros: from PTX 7.5 the ignore-src predicate, which ptxas takes
  // as the copy's predicate (a source size of 0 or `bytes` costs two selects and a compare).
  if (ptx_version_ >= 75) return ptx_effect(text + ", $2;", "r,l,b", {dst_address, src, b_.CreateNot(bit)});
  ptx_effect(text + ", $2;", "r,l,r", {dst_address, src, b_.CreateSelect(bit, b_.getInt32(static_cast<uint32_t>(bytes)), b_.getInt32(0))});
}

void Emitter::issue_transposed_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle) {
  // An operand held transposed (B K-major, A M-major): tile row n is column n of the K x N
  // block (named as B; for A read M x K), its K elements contiguous. async_copy.h proved each
  // aligned 16-byte run along axis 0 (8 f16/bf16, 16 fp8) contiguous, aligned and under one
  // mask bit, so a run is one cp.async from its first element's address.
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  const std::vector<int64_t>& shape = op.result()->type()->shape();
  const int64_t K = shape[0], N = shape[1], run_elements = run_of_16_bytes(op.result()->type());
  const ir::Value* ptr_value = op.operand(0);
  const ir::Value* mask_value = ir::load_mask(op);
  auto copy_run = [&](llvm::Value* address, llvm::Value* bit, llvm::Value* k, llvm::Value* n, llvm::Value* dst = nullptr) {
    cp_async(dst != nullptr ? dst : b_.CreateAdd(handle, tile_offset(operand.tile, n, k)), address, 16, bit);
  };
  if (async_.recomputed.count(op.result()) != 0) {
    // The runs dealt out in tile order (thread t takes runs t, t + threads, ...): a warp's
    // copies are consecutive in both memories. Addresses come from the element index.
    const int64_t runs_per_row = K / run_elements, runs = N * runs_per_row;
    llvm::Value* tid = thread_id();
    // A round's tile offset, when it is the first round's plus one amount in every thread
    // (its rows a multiple of the swizzle's period further), is that sum: the copies of a
    // stage share one register, `[r + imm]` in SASS (checked here over all threads).
    auto run_offset = [&](int64_t run) {
      return operand.tile.offset(run / runs_per_row, run % runs_per_row * run_elements);
    };
    llvm::Value* first_dst = nullptr;
    for (int64_t first = 0; first < runs; first += threads_) {
      llvm::Value* run = b_.CreateAdd(tid, i32(first));
      const DealtCoords nk = dealt_coords(first, runs_per_row);
      llvm::Value* n = nk.row;
      llvm::Value* k = b_.CreateMul(nk.column, i32(run_elements));
      llvm::Value* dst = nullptr;
      if (first_dst != nullptr && first + threads_ <= runs) {
        const int64_t delta = run_offset(first) - run_offset(0);
        bool constant = true;
        for (int64_t t = 1; t < threads_ && constant; ++t) constant = run_offset(first + t) - run_offset(t) == delta;
        if (constant) dst = b_.CreateAdd(first_dst, i32(delta));
      }
      if (dst == nullptr) {
        dst = b_.CreateAdd(handle, tile_offset(operand.tile, n, k));
        if (first == 0 && threads_ <= runs) first_dst = dst;
      }
      guarded(first + threads_ <= runs ? nullptr : b_.CreateICmpULT(run, i32(runs)), [&]() -> llvm::Value* {
        std::unordered_map<const ir::Value*, llvm::Value*> memo;  // at B's element (k, n)
        llvm::Value* bit = nullptr;
        llvm::Value* address = nullptr;
        if (nk.split) {
          // B's element (k, n): the first round's thread coordinates plus this round's shift.
          const std::vector<llvm::Value*> thread = {b_.CreateMul(nk.thread_column, i32(run_elements)), nk.thread_row};
          const std::vector<int64_t> shift = {nk.column_shift * run_elements, nk.row_shift};
          std::unordered_map<const ir::Value*, llvm::Value*> base_memo;  // at the thread's coordinates
          if (mask_value != nullptr) {
            bit = mask_value->type()->is_block() ? shifted_mask(mask_value, thread, shift, memo) : get(mask_value).at(0);
          }
          address = shifted_address(ptr_value, thread, shift, base_memo, memo);
        } else {
          if (mask_value != nullptr) {
            bit = mask_value->type()->is_block() ? recompute_at(mask_value, {k, n}, memo) : get(mask_value).at(0);
          }
          address = recompute_at(ptr_value, {k, n}, memo);
        }
        copy_run(address, bit, k, n, dst);
        return nullptr;
      });
    }
  } else if (gpu::access_in_slot(op, widths_, threads_)) {
    issue_slot_runs(op, operand, handle);
    return;
  } else {
    // The thread holding a run's first element copies the run.
    const ir::Type* type = op.result()->type();
    Layout layout = layout_of(type);
    Regs ptr = materialize(get(ptr_value), ptr_value->type());
    Regs mask;
    if (mask_value != nullptr) mask = materialize(get(mask_value), mask_value->type());
    for (int r = 0; r < layout.num_regs(); ++r) {
      llvm::Value* e = element_index(layout, r);
      llvm::Value* k = b_.CreateUDiv(e, i32(N));
      llvm::Value* n = b_.CreateURem(e, i32(N));
      llvm::Value* first = b_.CreateICmpEQ(b_.CreateAnd(k, i32(run_elements - 1)), i32(0));
      llvm::Value* own = owns(layout, r);
      guarded(own == nullptr ? first : b_.CreateAnd(own, first), [&]() -> llvm::Value* {
        copy_run(ptr.at(r), mask_value != nullptr ? mask.at(r) : nullptr, k, n);
        return nullptr;
      });
    }
  }
  ptx_effect("cp.async.commit_group;", "", {});
  ++body_commits_;
}

void Emitter::issue_slot_runs(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle) {
  // A load made in its slot (gpu/coalesce.h), `run` consecutive registers of each thread
  // the consecutive elements of one 16-byte run along K (axis 0): each thread copies its own
  // runs, from its pointer and mask registers in the slot, to tile row n, column k. Where a
  // run's tile offset is the first run's plus the same amount in every thread (a padded
  // tile, a swizzled one whose permutation the register bits keep), that sum: the copies
  // share one address register.
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  const ir::Type* type = op.result()->type();
  const ir::LinearLayout& l = type->layout()->linear();
  const int64_t N = type->shape()[1], run = run_of_16_bytes(type);
  const int regs = static_cast<int>(l.in_size(ir::LinearLayout::kRegister));
  const int64_t lanes = l.in_size(ir::LinearLayout::kLane), threads = lanes * l.in_size(ir::LinearLayout::kWarp);
  auto element = [&](int64_t t, int r) { return l.apply(r, t % lanes, t / lanes); };
  auto tile_at = [&](int64_t e) { return operand.tile.offset(e % N, e / N); };
  for (int r = 0; r < regs; r += static_cast<int>(run)) {
    for (int64_t t = 0; t < threads; ++t) {
      bool whole = (element(t, r) / N) % run == 0;
      for (int64_t i = 1; i < run && whole && r + i < regs; ++i) whole = element(t, r + static_cast<int>(i)) == element(t, r) + i * N;
      if (!whole || r + run > regs) internal_error("nvptx", "a slot copy's registers are not whole 16-byte runs along K", op.loc());
    }
  }
  const ir::Value* ptr_value = op.operand(0);
  const ir::Value* mask_value = ir::load_mask(op);
  const Regs ptr = materialize(slot_operand(op, ptr_value, l), ptr_value->type());
  Regs mask;
  if (mask_value != nullptr) mask = materialize(slot_operand(op, mask_value, l), mask_value->type());
  llvm::Value* part = slot_thread_part(l);
  llvm::Value* first_dst = nullptr;
  for (int r = 0; r < regs; r += static_cast<int>(run)) {
    llvm::Value* dst = nullptr;
    if (first_dst != nullptr) {
      const int64_t delta = tile_at(element(0, r)) - tile_at(element(0, 0));
      bool constant = true;
      for (int64_t t = 1; t < threads && constant; ++t) constant = tile_at(element(t, r)) - tile_at(element(t, 0)) == delta;
      if (constant) dst = b_.CreateAdd(first_dst, i32(delta));
    }
    if (dst == nullptr) {
      llvm::Value* e = b_.CreateXor(part, i32(l.apply(r, 0, 0)));
      dst = b_.CreateAdd(handle, tile_offset(operand.tile, b_.CreateURem(e, i32(N)), b_.CreateUDiv(e, i32(N))));
      if (r == 0) first_dst = dst;
    }
    cp_async(dst, ptr.at(r), 16, mask_value != nullptr ? mask.at(r) : nullptr);
  }
  ptx_effect("cp.async.commit_group;", "", {});
  ++body_commits_;
}

void Emitter::issue_column_element_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle) {
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  const std::vector<int64_t>& shape = op.result()->type()->shape();
  const int64_t M = shape[0], K = shape[1], count = M * K, eb = operand.tile.element_bytes;
  const ir::Value* ptr_value = op.operand(0);
  const ir::Value* mask_value = ir::load_mask(op);
  llvm::Value* tid = thread_id();
  for (int64_t first = 0; first < count; first += threads_) {
    llvm::Value* j = b_.CreateAdd(tid, i32(first));
    const DealtCoords km = dealt_coords(first, M);
    llvm::Value* const k = km.row;
    llvm::Value* const m = km.column;
    guarded(first + threads_ <= count ? nullptr : b_.CreateICmpULT(j, i32(count)), [&]() -> llvm::Value* {
      std::unordered_map<const ir::Value*, llvm::Value*> memo;  // at A's element (m, k)
      std::unordered_map<const ir::Value*, llvm::Value*> base_memo;  // at the thread's coordinates
      const std::vector<llvm::Value*> thread = {km.thread_column, km.thread_row};
      const std::vector<int64_t> shift = {km.column_shift, km.row_shift};
      llvm::Value* bit = nullptr;
      if (mask_value != nullptr && !mask_value->type()->is_block()) bit = get(mask_value).at(0);
      else if (mask_value != nullptr) bit = km.split ? shifted_mask(mask_value, thread, shift, memo) : recompute_at(mask_value, {m, k}, memo);
      llvm::Value* address = km.split ? shifted_address(ptr_value, thread, shift, base_memo, memo)
                                      : recompute_at(ptr_value, {m, k}, memo);
      cp_async(b_.CreateAdd(handle, tile_offset(operand.tile, m, k)), address, static_cast<int>(eb), bit);
      return nullptr;
    });
  }
  ptx_effect("cp.async.commit_group;", "", {});
  ++body_commits_;
}

bool Emitter::issue_row_element_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle) {
  // B is K x N (N contiguous in memory), its tile N rows of K (swizzled: within each group of
  // `period` rows, a row's 16-byte chunks along K permuted by the row). The flat index's bits,
  // most wanted by lanes first: K within a chunk (4 elements: a bank each), N within the
  // swizzle's period (distinct permutations: distinct chunks), then N beyond it (whole 32-byte
  // sectors of a memory row), then K's chunks and column blocks. Lanes take the first five,
  // warps the next, registers the rest, so a warp's copy is 4 K rows x 8 consecutive N
  // elements, in 32 distinct banks. A tile offset is the exclusive or of its bits' offsets
  // (SharedTile::offset is linear over them): a register's bits that a thread's may share
  // (a chunk bit under the permutation) pick one of a few per-thread bases, the rest is a
  // constant added.
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  const std::vector<int64_t>& shape = op.result()->type()->shape();
  const SharedTile& tile = operand.tile;
  const int64_t K = shape[0], N = shape[1], eb = tile.element_bytes;
  if (!deals_out_rows(tile, shape, threads_)) return false;
  const int k_bits = log2_exact(K), n_bits = log2_exact(N);
  const int chunk_bits = std::min(k_bits, log2_exact(16 / eb));
  const int period_bits = std::min(n_bits, log2_exact(tile.swizzle / 16));
  const int block_bits = std::min(k_bits, log2_exact(tile.block_cols()));
  const int thread_bits = log2_exact(threads_);
  // (axis: 0 K, 1 N; bit), lanes' first; the warps' next: K's chunks, which the permutation
  // ties to the lanes' rows (so that registers hold as few of them as can be).
  std::vector<std::pair<int, int>> bits;
  int n_next = 0;
  for (int b = 0; b < chunk_bits; ++b) bits.emplace_back(0, b);
  for (; n_next < n_bits && (n_next < period_bits || static_cast<int>(bits.size()) < 5); ++n_next) bits.emplace_back(1, n_next);
  for (int b = chunk_bits; b < block_bits; ++b) bits.emplace_back(0, b);
  for (; n_next < n_bits; ++n_next) bits.emplace_back(1, n_next);
  for (int b = block_bits; b < k_bits; ++b) bits.emplace_back(0, b);
  auto element = [&](int64_t index) {  // (k, n) of the index's bits
    int64_t k = 0, n = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      if (((index >> i) & 1) == 0) continue;
      (bits[i].first == 0 ? k : n) |= int64_t{1} << bits[i].second;
    }
    return std::pair<int64_t, int64_t>{k, n};
  };
  auto offset_of = [&](int64_t index) {
    auto [k, n] = element(index);
    return tile.offset(n, k);
  };
  int64_t thread_mask = 0;
  for (int b = 0; b < thread_bits; ++b) thread_mask |= offset_of(int64_t{1} << b);
  llvm::Value* tid = thread_id();
  llvm::Value* k_thread = i32(0);
  llvm::Value* n_thread = i32(0);
  for (int b = 0; b < thread_bits; ++b) {
    auto [k, n] = element(int64_t{1} << b);
    llvm::Value* bit = b_.CreateAnd(b_.CreateLShr(tid, i32(b)), i32(1));
    if (k != 0) k_thread = b_.CreateOr(k_thread, b_.CreateMul(bit, i32(k)));
    if (n != 0) n_thread = b_.CreateOr(n_thread, b_.CreateMul(bit, i32(n)));
  }
  llvm::Value* thread_offset = tile_offset(tile, n_thread, k_thread);
  std::map<int64_t, llvm::Value*> bases;
  const ir::Value* ptr_value = op.operand(0);
  const ir::Value* mask_value = ir::load_mask(op);
  const int64_t count = K * N / threads_;
  for (int64_t r = 0; r < count; ++r) {
    const int64_t index = r << thread_bits;
    const auto [k_r, n_r] = element(index);
    const int64_t o = offset_of(index), hi = o & thread_mask, lo = o & ~thread_mask;
    auto it = bases.find(hi);
    if (it == bases.end()) it = bases.emplace(hi, hi == 0 ? thread_offset : b_.CreateXor(thread_offset, i32(hi))).first;
    llvm::Value* k = b_.CreateOr(k_thread, i32(k_r));
    llvm::Value* n = b_.CreateOr(n_thread, i32(n_r));
    std::unordered_map<const ir::Value*, llvm::Value*> memo;  // at B's element (k, n)
    llvm::Value* bit = nullptr;
    if (mask_value != nullptr) bit = mask_value->type()->is_block() ? recompute_at(mask_value, {k, n}, memo) : get(mask_value).at(0);
    cp_async(b_.CreateAdd(handle, b_.CreateAdd(it->second, i32(lo))), recompute_at(ptr_value, {k, n}, memo), static_cast<int>(eb), bit);
  }
  ptx_effect("cp.async.commit_group;", "", {});
  ++body_commits_;
  return true;
}

// ---- TMA copies ----

void Emitter::init_tma_barriers(const AsyncOperand& operand) {
  // One arrival per phase (the issuing thread's arrive.expect_tx); thread 0 initializes, and
  // everyone sees it after the barrier. Each loop entry starts again at phase 0.
  std::string text = "{\n.reg .pred p;\nsetp.eq.u32 p, $0, 0;\n";
  for (size_t i = 0; i < operand.offset.size(); ++i) {
    text += "@p mbarrier.init.shared::cta.b64 [$1+" + std::to_string(8 * i) + "], 1;\n";
  }
  text += "@p fence.mbarrier_init.release.cluster;\n}";
  ptx_effect(text, "r,r", {thread_id(), raw_shared_address(b_.getInt32(static_cast<uint32_t>(operand.barriers)))});
  barrier();
}

void Emitter::invalidate_tma_barriers(const AsyncOperand& operand) {
  std::string text = "{\n.reg .pred p;\nsetp.eq.u32 p, $0, 0;\n";
  for (size_t i = 0; i < operand.offset.size(); ++i) {
    text += "@p mbarrier.inval.shared::cta.b64 [$1+" + std::to_string(8 * i) + "];\n";
  }
  ptx_effect(text + "}", "r,r", {thread_id(), raw_shared_address(b_.getInt32(static_cast<uint32_t>(operand.barriers)))});
}

llvm::Value* Emitter::tma_live(const ir::Op& load) {
  // The scalar tests in the mask's `and` tree (prefetch_loads: whether the iteration runs);
  // the rest is the descriptor's bounds check, which the TMA does itself (zero fill).
  llvm::Value* live = b_.getTrue();
  for (const ir::Value* test : mask_scalar_tests(load)) live = b_.CreateAnd(live, get(test).at(0));
  return live;
}

void Emitter::issue_tma_copies(const ir::Op& op, const AsyncOperand& operand, llvm::Value* handle, llvm::Value* index) {
  // Thread 0 arms the stage's mbarrier with the bytes to come, then copies each column
  // block of the swizzled tile (tma_box): coordinates innermost first, the descriptor's
  // block at (row, col) = its offsets.
  const ir::Op* tile_op = descriptor_tile_of(op);
  const SharedTile& tile = operand.tile;
  const TmaBox box = tma_box(tile.rows, tile.cols, tile.element_bytes);
  auto i32 = [this](llvm::Value* v) { return b_.CreateSExtOrTrunc(v, b_.getInt32Ty()); };
  llvm::Value* row = i32(get(tile_op->operand(2)).at(0));
  llvm::Value* col = i32(get(tile_op->operand(3)).at(0));
  llvm::Value* go = b_.CreateAnd(b_.CreateICmpEQ(thread_id(), b_.getInt32(0)), tma_live(op));
  llvm::Value* bar = raw_shared_address(
      b_.CreateAdd(b_.getInt32(static_cast<uint32_t>(operand.barriers)), b_.CreateMul(index, b_.getInt32(8))));
  const unsigned first_arg = static_cast<unsigned>(function_.body().args().size());
  llvm::Value* map = b_.CreatePtrToInt(kernel_->getArg(first_arg + static_cast<unsigned>(operand.tma_map)), b_.getInt64Ty());
  std::string text = "{\n.reg .pred p;\n.reg .b64 state;\nsetp.ne.b32 p, $0, 0;\n"
                     "@p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$1], " + std::to_string(tile.rows * tile.cols * tile.element_bytes) + ";\n";
  std::string constraints = "r,r,l,r";
  std::vector<llvm::Value*> args = {b_.CreateZExt(go, b_.getInt32Ty()), bar, map, row};
  for (int64_t block = 0; block * box.inner < tile.cols; ++block) {
    const int dst = static_cast<int>(args.size()), x = dst + 1;
    text += "@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$" + std::to_string(dst) +
            "], [$2, {$" + std::to_string(x) + ", $3}], [$1];\n";
    constraints += ",r,r";
    args.push_back(raw_shared_address(b_.CreateAdd(handle, b_.getInt32(static_cast<uint32_t>(block * tile.rows * tile.swizzle)))));
    args.push_back(b_.CreateAdd(col, b_.getInt32(static_cast<uint32_t>(block * box.inner))));
  }
  ptx_effect(text + "}", constraints, args);
}

void Emitter::issue_tma_block(const ir::Op& op, const AsyncPlan::TmaBlock& block, const std::string& before,
                              const std::string& copy, const std::string& after, llvm::Value* bar) {
  // Operands: $0 thread 0's predicate, $1 the map, $2 the row, $3 the mbarrier (or 0), then
  // per column block its shared address and column; `copy` names them {dst}, {col}.
  const SharedTile& tile = block.tile;
  const ir::Op* tile_op = descriptor_tile_of(op);
  const TmaBox box = tma_box(tile.rows, tile.cols, tile.element_bytes);
  auto i32 = [this](llvm::Value* v) { return b_.CreateSExtOrTrunc(v, b_.getInt32Ty()); };
  llvm::Value* row = i32(get(tile_op->operand(2)).at(0));
  llvm::Value* col = i32(get(tile_op->operand(3)).at(0));
  const unsigned first_arg = static_cast<unsigned>(function_.body().args().size());
  llvm::Value* map = b_.CreatePtrToInt(kernel_->getArg(first_arg + static_cast<unsigned>(block.tma_map)), b_.getInt64Ty());
  llvm::Value* go = b_.CreateICmpEQ(thread_id(), b_.getInt32(0));
  std::string text = "{\n.reg .pred p;\n.reg .b64 state;\nsetp.ne.b32 p, $0, 0;\n" + before;
  std::string constraints = "r,l,r,r";
  std::vector<llvm::Value*> args = {b_.CreateZExt(go, b_.getInt32Ty()), map, row, bar != nullptr ? bar : b_.getInt32(0)};
  llvm::Value* start = b_.CreatePtrToInt(shared_element_at(0, b_.getInt8Ty(), b_.getInt32(0), tile.bytes()), b_.getInt32Ty());
  for (int64_t i = 0; i * box.inner < tile.cols; ++i) {
    std::string one = copy;
    const std::string dst = "$" + std::to_string(args.size()), x = "$" + std::to_string(args.size() + 1);
    for (auto [name, value] : {std::pair<std::string, std::string>{"{dst}", dst}, {"{col}", x}}) {
      for (size_t at = one.find(name); at != std::string::npos; at = one.find(name)) one.replace(at, name.size(), value);
    }
    text += one;
    constraints += ",r,r";
    args.push_back(b_.CreateAdd(start, b_.getInt32(static_cast<uint32_t>(i * tile.rows * tile.swizzle))));
    args.push_back(b_.CreateAdd(col, b_.getInt32(static_cast<uint32_t>(i * box.inner))));
  }
  ptx_effect(text + after + "}", constraints, args);
}

void Emitter::emit_tma_load(const ir::Op& op, const AsyncPlan::TmaBlock& load) {
  // The round trips before are read; thread 0 makes the mbarrier (one arrival) after the
  // tile and everyone sees it; thread 0 arms it with the block's bytes and copies each
  // column block; every thread waits for phase 0, reads its registers, and once all have,
  // thread 0 retires the mbarrier, after which the memory is a round trip's again.
  const SharedTile& tile = load.tile;
  const int64_t bar_offset = (tile.bytes() + 7) / 8 * 8;
  llvm::Value* bar = b_.CreatePtrToInt(shared_element_at(bar_offset, b_.getInt8Ty(), b_.getInt32(0), 8), b_.getInt32Ty());
  barrier();
  ptx_effect("{\n.reg .pred p;\nsetp.eq.u32 p, $0, 0;\n@p mbarrier.init.shared::cta.b64 [$1], 1;\n"
             "@p fence.mbarrier_init.release.cluster;\n}",
             "r,r", {thread_id(), bar});
  barrier();
  issue_tma_block(op, load,
                  "@p mbarrier.arrive.expect_tx.shared::cta.b64 state, [$3], " +
                      std::to_string(tile.rows * tile.cols * tile.element_bytes) + ";\n",
                  "@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{dst}], [$1, {{col}, $2}], [$3];\n",
                  "", bar);
  ptx_effect("{\n.reg .pred p;\nwait_${:uid}:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], 0;\n@!p bra wait_${:uid};\n}",
             "r", {bar});
  llvm::Type* element = element_type(op.result()->type());
  llvm::Type* stored = stored_type(element);
  set(op.result(), load_flat_rows(op.result()->type(), 0, tile, stored, llvm::Constant::getNullValue(stored)));
  barrier();
  ptx_effect("{\n.reg .pred p;\nsetp.eq.u32 p, $0, 0;\n@p mbarrier.inval.shared::cta.b64 [$1];\n}", "r,r",
             {thread_id(), bar});
  // Its 8 bytes are the mbarrier's until the inval: no other thread writes them before.
  barrier();
}

void Emitter::emit_tma_store(const ir::Op& op, const AsyncPlan::TmaBlock& store) {
  // Every thread writes its elements into the swizzled tile (replicated copies write equal
  // values) once the round trips before are read, then fences them for the async proxy.
  const SharedTile& tile = store.tile;
  const ir::Value* value = ir::StoreOp(op).value();
  barrier();
  llvm::Type* stored = stored_type(element_type(value->type()));
  stage_operand(value, 0, tile, stored, [this](llvm::Value* v) { return to_storage(v); });
  ptx_effect("fence.proxy.async.shared::cta;", "", {});
  barrier();
  // Thread 0: one bulk tensor store per column block (coordinates innermost first), then it
  // waits until they are done; the barrier after keeps the tile until then.
  issue_tma_block(op, store, "", "@p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {{col}, $2}], [{dst}];\n",
                  "@p cp.async.bulk.commit_group;\n@p cp.async.bulk.wait_group 0;\n", nullptr);
  barrier();
}

void Emitter::wait_tma(const AsyncOperand& operand) {
  // The buffer of iteration t is t % count, filled for the (t / count)-th time: that phase's
  // parity completes when its bytes have landed.
  llvm::Value* trip = trips_.at(operand.carried->region());
  llvm::Value* count = b_.getInt32(static_cast<uint32_t>(operand.offset.size()));
  llvm::Value* bar = raw_shared_address(b_.CreateAdd(b_.getInt32(static_cast<uint32_t>(operand.barriers)),
                                                     b_.CreateMul(b_.CreateURem(trip, count), b_.getInt32(8))));
  llvm::Value* parity = b_.CreateAnd(b_.CreateUDiv(trip, count), b_.getInt32(1));
  ptx_effect("{\n.reg .pred p;\nwait_${:uid}:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n@!p bra wait_${:uid};\n}",
             "r,r", {bar, parity});
}

}  // namespace tritium::nvptx

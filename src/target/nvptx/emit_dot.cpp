// tl.dot: both operands staged through shared memory (row-major, rows padded by 16 bytes so
// that ldmatrix and the fragment loads hit distinct banks), then each warp computes its
// tiles of the fragment layout (fragment_layout.h) with mma.sync, or with fma where no
// tensor-core instruction fits. Also the fragment <-> flat conversions and elementwise ops
// on fragments.
#include <algorithm>
#include <limits>
#include <unordered_set>
#include <vector>

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "gpu/prefetch_operands.h"
#include "gpu/scratch.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

namespace {

// How a dot's products are computed. F16 also serves the fp8 kinds (converted exactly to
// f16 on the way into shared memory).
enum class DotPath { F16, BF16, TF32, TF32x3, I8, Fma };

DotPath choose_path(const ir::Op& dot);

}  // namespace

// ---- threads within a warp ----

llvm::Value* Emitter::lane_id() { return b_.CreateAnd(thread_id(), b_.getInt32(31), "lane"); }
// tid / 32, broadcast from lane 0 by shfl.sync.idx: the same value, but ptxas then knows it
// is one per warp, so what is computed from it alone (a warpgroup's slice of a wgmma operand:
// its descriptors) stays in uniform registers instead of vector registers moved by R2UR.
// Made once, right after %tid.x in the entry, where every thread of the warp is present.
llvm::Value* Emitter::warp_id() {
  if (warp_id_ == nullptr) {
    auto* tid = llvm::cast<llvm::Instruction>(thread_id());
    llvm::IRBuilder<> entry(tid->getNextNode());
    llvm::Value* warp = entry.CreateLShr(tid, entry.getInt32(5), "warp.tid");
    llvm::CallInst* shfl = entry.CreateIntrinsic(
        llvm::Intrinsic::nvvm_shfl_sync_idx_i32, llvm::ArrayRef<llvm::Type*>(),
        {entry.getInt32(0xffffffffu), warp, entry.getInt32(0), entry.getInt32(0x1f)}, nullptr, "warp");
    // The range of tid / 32, which LLVM no longer sees through the shuffle.
    llvm::MDBuilder md(context_);
    shfl->setMetadata(llvm::LLVMContext::MD_range,
                      md.createRange(llvm::APInt(32, 0), llvm::APInt(32, static_cast<uint64_t>((threads_ + 31) / 32))));
    warp_id_ = shfl;
  }
  return warp_id_;
}

// ---- shared memory in rows ----

llvm::Value* Emitter::tile_offset(const SharedTile& tile, llvm::Value* row, llvm::Value* col) {
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  if (tile.evens_first) {  // SharedTile::stored_column
    col = b_.CreateOr(b_.CreateOr(b_.CreateAnd(col, i32(~int64_t{7})), b_.CreateShl(b_.CreateAnd(col, i32(1)), i32(2))),
                      b_.CreateLShr(b_.CreateAnd(col, i32(7)), i32(1)));
  }
  if (tile.swizzle == 0) {
    return b_.CreateMul(b_.CreateAdd(b_.CreateMul(row, i32(tile.stride())), col), i32(tile.element_bytes));
  }
  // SharedTile::offset, on registers.
  llvm::Value* block = b_.CreateUDiv(col, i32(tile.block_cols()));
  llvm::Value* within = b_.CreateURem(col, i32(tile.block_cols()));
  llvm::Value* linear = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(block, i32(tile.rows * tile.swizzle)), b_.CreateMul(row, i32(tile.swizzle))),
                                     b_.CreateMul(within, i32(tile.element_bytes)));
  llvm::Value* chunk = b_.CreateAnd(b_.CreateLShr(linear, i32(7)), i32(tile.swizzle / 16 - 1));
  return b_.CreateXor(linear, b_.CreateShl(chunk, i32(4)));
}

int64_t Emitter::stage_rows(const ir::Type* type, const Regs& source, int64_t byte_offset, const SharedTile& tile,
                            llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert,
                            bool transposed) {
  Layout layout = layout_of(type);
  Regs regs = materialize(source, type);
  int64_t cols = type->shape().back();
  int64_t rows = type->num_elements() / cols;
  const int64_t stride = tile.stride();
  int group = layout.vector();
  if (cols % group != 0 || transposed || tile.evens_first) group = 1;
  // A swizzled group stays in one 16-byte chunk.
  if (tile.swizzle != 0 && group * type_bytes(stored) > 16) group = static_cast<int>(16 / type_bytes(stored));
  for (int r = 0; r < layout.num_regs(); r += group) {
    llvm::Value* e = element_index(layout, r);
    llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(cols)));
    llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(cols)));
    if (transposed) std::swap(row, col);
    llvm::Value* index = tile.swizzle == 0 ? b_.CreateAdd(b_.CreateMul(row, b_.getInt32(static_cast<uint32_t>(stride))), col)
                                           : tile_offset(tile, row, col);
    guarded(owns(layout, r), [&]() -> llvm::Value* {
      llvm::Value* ptr = tile.swizzle == 0 ? shared_element_at(byte_offset, stored, index, rows * stride)
                                           : shared_element_at(byte_offset, b_.getInt8Ty(), index, tile.bytes());
      if (group == 1) {
        b_.CreateStore(convert(regs.at(r)), ptr);
        return nullptr;
      }
      llvm::Value* vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(stored, group));
      for (int i = 0; i < group; ++i) vec = b_.CreateInsertElement(vec, convert(regs.at(r + i)), b_.getInt32(i));
      b_.CreateAlignedStore(vec, ptr, llvm::Align(static_cast<uint64_t>(group * type_bytes(stored))));
      return nullptr;
    });
  }
  return tile.swizzle == 0 ? rows * stride * type_bytes(stored) : tile.bytes();
}

llvm::Value* Emitter::tile_element(int64_t byte_offset, const SharedTile& tile, llvm::Type* stored, llvm::Value* row,
                                   llvm::Value* col) {
  if (tile.swizzle != 0) return shared_element_at(byte_offset, b_.getInt8Ty(), tile_offset(tile, row, col), tile.bytes());
  llvm::Value* index = b_.CreateAdd(b_.CreateMul(row, b_.getInt32(static_cast<uint32_t>(tile.stride()))), col);
  return shared_element_at(byte_offset, stored, index, tile.rows * tile.stride());
}

Regs Emitter::load_flat_rows(const ir::Type* type, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                              llvm::Value* fill) {
  Layout layout = layout_of(type);
  int64_t cols = type->shape().back();
  llvm::Type* element = element_type(type);
  int group = layout.vector();
  if (cols % group != 0 || tile.evens_first) group = 1;
  // A swizzled group stays in one 16-byte chunk (as stage_rows writes them).
  if (tile.swizzle != 0 && group * type_bytes(stored) > 16) group = static_cast<int>(16 / type_bytes(stored));
  Regs out;
  out.values.resize(layout.num_regs());
  for (int r = 0; r < layout.num_regs(); r += group) {
    llvm::Value* e = element_index(layout, r);
    llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(cols)));
    llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(cols)));
    llvm::Type* vec_type = llvm::FixedVectorType::get(stored, group);
    llvm::Value* loaded = guarded(
        owns(layout, r),
        [&]() -> llvm::Value* {
          llvm::Value* ptr = tile_element(byte_offset, tile, stored, row, col);
          return b_.CreateAlignedLoad(vec_type, ptr, llvm::Align(static_cast<uint64_t>(group * type_bytes(stored))));
        },
        fill != nullptr ? b_.CreateVectorSplat(static_cast<unsigned>(group), fill) : llvm::PoisonValue::get(vec_type));
    for (int i = 0; i < group; ++i) {
      out.values[r + i] = from_storage(b_.CreateExtractElement(loaded, b_.getInt32(i)), element);
    }
  }
  return out;
}

// The shared-memory index (row * stride + column) of register 0 of this thread's tile
// (0, 0); the other registers add a constant (fragment_offset).
llvm::Value* Emitter::fragment_base(const FragmentLayout& l, int64_t stride) {
  return b_.CreateAdd(b_.CreateMul(fragment_thread_row(l), b_.getInt32(static_cast<uint32_t>(stride))),
                      fragment_thread_col(l));
}

llvm::Value* Emitter::fragment_thread_row(const FragmentLayout& l) {
  llvm::Value* wm = b_.CreateURem(warp_id(), b_.getInt32(static_cast<uint32_t>(l.warps_m)));
  return b_.CreateAdd(b_.CreateMul(wm, b_.getInt32(16)), b_.CreateLShr(lane_id(), b_.getInt32(2)));
}

llvm::Value* Emitter::fragment_thread_col(const FragmentLayout& l) {
  llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp_id(), b_.getInt32(static_cast<uint32_t>(l.warps_m))),
                                  b_.getInt32(static_cast<uint32_t>(l.warps_n)));
  return b_.CreateAdd(b_.CreateMul(wn, b_.getInt32(static_cast<uint32_t>(l.warp_col_step()))),
                      b_.CreateShl(b_.CreateAnd(lane_id(), b_.getInt32(3)), 1));
}

namespace {
// fragment_base's index plus this is register `reg`'s (c = 0 or 2: the pair c, c + 1).
int64_t fragment_offset(const FragmentLayout& l, int reg, int64_t stride) {
  int c = reg % 4, tile = reg / 4;
  int in = tile % l.rep_n;
  tile /= l.rep_n;
  int im = tile % l.rep_m;
  int64_t b = tile / l.rep_m;
  int64_t row = b * l.m + l.tile_row(im, 0) + 8 * (c / 2);
  return row * stride + l.tile_col(in, 0) + c % 2;
}
}  // namespace

bool Emitter::stmatrix_fragment_rows(const FragmentLayout& l, const Regs& regs, int64_t byte_offset,
                                     int64_t stride, llvm::Type* stored) {
  if (!stmatrix_ || sm_ < 90 || l.rows || type_bytes(stored) != 2 || (stride * 2) % 16 != 0 || byte_offset % 16 != 0) {
    return false;
  }
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  // Lane l gives the address of row l % 8 of matrix l / 8; matrix j is half j % 2 (rows 0-7
  // or 8-15) of the group's tile j / 2. Without the tile: the warp's place and that row.
  llvm::Value* lane = lane_id();
  llvm::Value* wm = b_.CreateURem(warp_id(), i32(l.warps_m));
  llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp_id(), i32(l.warps_m)), i32(l.warps_n));
  llvm::Value* row = b_.CreateAdd(b_.CreateMul(wm, i32(16)),
                                  b_.CreateAdd(b_.CreateAnd(lane, i32(7)), b_.CreateAnd(lane, i32(8))));
  llvm::Value* base = b_.CreateAdd(b_.CreateMul(row, i32(stride)), b_.CreateMul(wn, i32(l.warp_col_step())));
  llvm::Value* second_tile = b_.CreateLShr(lane, i32(4));  // lanes 16-31: the group's second tile
  const int64_t elements = l.batch * l.m * stride;
  // Register pair r, r + 1 as one .b32 (the lower column low), through a two-element vector
  // as the pair stores do, so that a conversion to it stays one cvt of the pair (f16x2).
  llvm::Type* pair_type = llvm::FixedVectorType::get(stored, 2);
  auto word = [&](int r) {
    llvm::Value* vec = llvm::PoisonValue::get(pair_type);
    vec = b_.CreateInsertElement(vec, to_storage(regs.at(r)), b_.getInt32(0));
    vec = b_.CreateInsertElement(vec, to_storage(regs.at(r + 1)), b_.getInt32(1));
    return b_.CreateBitCast(vec, b_.getInt32Ty());
  };
  const int tiles = l.num_regs() / 4;
  const int64_t common = tiles > 1 ? fragment_offset(l, 4, stride) - fragment_offset(l, 0, stride) : 0;
  llvm::Value* lane_base = b_.CreateAdd(base, b_.CreateMul(second_tile, i32(common)));
  for (int t = 0; t < tiles; t += 2) {
    const bool pair = t + 1 < tiles;
    // fragment_offset of a tile's register 0 is its (0, 0): the row and column of the tile.
    const int64_t first = fragment_offset(l, 4 * t, stride);
    const int64_t step = pair ? fragment_offset(l, 4 * (t + 1), stride) - first : 0;
    // One lane base for the groups whose two tiles are `common` apart (adjacent n-tiles: all
    // but a pair across a row of tiles), each group then a constant offset of it.
    llvm::Value* index = step == common ? b_.CreateAdd(lane_base, i32(first))
                                        : b_.CreateAdd(b_.CreateAdd(base, i32(first)), b_.CreateMul(second_tile, i32(step)));
    llvm::Value* address = b_.CreatePtrToInt(shared_element_at(byte_offset, stored, index, elements), b_.getInt32Ty());
    std::vector<llvm::Value*> words = {word(4 * t), word(4 * t + 2)};
    if (pair) {
      words.push_back(word(4 * t + 4));
      words.push_back(word(4 * t + 6));
    }
    stmatrix(address, words);
  }
  return true;
}

void Emitter::store_fragment_rows(const FragmentLayout& l, const Regs& regs, int64_t byte_offset, int64_t stride,
                                  llvm::Type* stored) {
  if (stmatrix_fragment_rows(l, regs, byte_offset, stride, stored)) return;
  llvm::Value* base = fragment_base(l, stride);
  llvm::Type* pair = llvm::FixedVectorType::get(stored, 2);
  int64_t elements = l.batch * l.m * stride;
  for (int r = 0; r < l.num_regs(); r += 2) {
    llvm::Value* vec = llvm::PoisonValue::get(pair);
    vec = b_.CreateInsertElement(vec, to_storage(regs.at(r)), b_.getInt32(0));
    vec = b_.CreateInsertElement(vec, to_storage(regs.at(r + 1)), b_.getInt32(1));
    llvm::Value* index = b_.CreateAdd(base, b_.getInt32(static_cast<uint32_t>(fragment_offset(l, r, stride))));
    b_.CreateAlignedStore(vec, shared_element_at(byte_offset, stored, index, elements),
                          llvm::Align(static_cast<uint64_t>(2 * type_bytes(stored))));
  }
}

Regs Emitter::load_fragment_rows(const FragmentLayout& l, int64_t byte_offset, int64_t stride, llvm::Type* stored,
                                 llvm::Type* element) {
  llvm::Value* base = fragment_base(l, stride);
  llvm::Type* pair = llvm::FixedVectorType::get(stored, 2);
  int64_t elements = l.batch * l.m * stride;
  Regs out;
  for (int r = 0; r < l.num_regs(); r += 2) {
    llvm::Value* index = b_.CreateAdd(base, b_.getInt32(static_cast<uint32_t>(fragment_offset(l, r, stride))));
    llvm::Value* v = b_.CreateAlignedLoad(pair, shared_element_at(byte_offset, stored, index, elements),
                                          llvm::Align(static_cast<uint64_t>(2 * type_bytes(stored))));
    out.values.push_back(from_storage(b_.CreateExtractElement(v, b_.getInt32(0)), element));
    out.values.push_back(from_storage(b_.CreateExtractElement(v, b_.getInt32(1)), element));
  }
  return out;
}

// ---- fragments <-> the flat layout ----

namespace {
// The wavefronts one warp's shared-memory access takes: `first[lane]` the first 4-byte word
// each lane touches (-1: none), `width` bytes each (4, 8 or 16). The lanes go in phases of
// 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16); a phase takes as many wavefronts as
// the most distinct words any one of the 32 banks holds.
int64_t access_wavefronts(const std::vector<int64_t>& first, int64_t width) {
  const int64_t words = width / 4, per_phase = 32 / words;
  int64_t total = 0;
  for (size_t start = 0; start < first.size(); start += static_cast<size_t>(per_phase)) {
    std::vector<std::vector<int64_t>> banks(32);
    int64_t worst = 0;
    for (size_t lane = start; lane < std::min(first.size(), start + static_cast<size_t>(per_phase)); ++lane) {
      if (first[lane] < 0) continue;
      for (int64_t w = first[lane]; w < first[lane] + words; ++w) {
        std::vector<int64_t>& held = banks[static_cast<size_t>(w % 32)];
        if (std::find(held.begin(), held.end(), w) == held.end()) held.push_back(w);
        worst = std::max<int64_t>(worst, static_cast<int64_t>(held.size()));
      }
    }
    total += worst;
  }
  return total;
}
}  // namespace

int64_t Emitter::round_trip_stride(const FragmentLayout& l, const ir::Type* type, int64_t bytes) const {
  const int64_t narrow = l.n + 16 / bytes;
  // Kernels of 4 warps and more: at 2 warps ptxas took the wider rows badly in the benchmark's
  // specializations (fla's dhu at 2 warps spilled 368 -> 612 bytes, mamba's bmm_bwd 32x64
  // 96 -> 126 registers; session 39), where at 4 and 8 warps nothing moved but the stores.
  if (!pair_pad_ || bytes != 4 || l.rows || threads_ < 128) return narrow;
  const Layout flat = layout_of(type);
  const int64_t cols = type->shape().back(), n = type->num_elements();
  int group = flat.vector();
  if (cols % group != 0) group = 1;
  const int64_t piece = std::min<int64_t>(group * bytes, 16);
  // Warp 0's accesses on both sides of the round trip at row stride `stride`.
  auto cost = [&](int64_t stride) {
    int64_t total = 0;
    std::vector<int64_t> first(32);
    for (int r = 0; r < l.num_regs(); r += 2) {  // the fragments' column pairs (store_fragment_rows)
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t index = (lane >> 2) * stride + 2 * (lane & 3) + fragment_offset(l, r, stride);
        first[static_cast<size_t>(lane)] = index * bytes / 4;
      }
      total += access_wavefronts(first, 2 * bytes);
    }
    for (int r = 0; r < flat.num_regs(); r += group) {  // the flat rows' runs (load_flat_rows, stage_rows)
      for (int64_t part = 0; part < group * bytes; part += piece) {
        for (int lane = 0; lane < 32; ++lane) {
          const int64_t e = flat.element(lane, r);
          first[static_cast<size_t>(lane)] = e >= n ? -1 : ((e / cols) * stride + e % cols) * bytes / 4 + part / 4;
        }
        total += access_wavefronts(first, piece);
      }
    }
    return total;
  };
  const int64_t wide = l.n + 32 / bytes;
  return cost(wide) < cost(narrow) ? wide : narrow;
}

void Emitter::check_shared_fits(int64_t bytes, const ir::Op& op, const std::string& what) {
  const int64_t limit = max_shared_optin(sm_);
  if (bytes > limit) {
    // Triton's error for such a kernel (raised when it loads), located here.
    const std::string message = what + ": out of resource: shared memory, Required: " + std::to_string(bytes) +
                                ", Hardware limit: " + std::to_string(limit) + " (sm_" + std::to_string(sm_) +
                                "); use smaller blocks or fewer stages";
    throw OutOfResources(make_error(op.loc(), message).what(), "shared memory", bytes, limit);
  }
}

Regs Emitter::fragment_to_flat(const ir::Value* value, const FragmentLayout& l, const Regs& fragment) {
  if (l.rows) return rows_to_flat(value, l, fragment);
  llvm::Type* stored = stored_type(element_type(value->type()));
  int64_t stride = round_trip_stride(l, value->type(), type_bytes(stored));
  const ir::Op* at = value->def() != nullptr ? value->def() : value->region()->parent();
  check_shared_fits(l.batch * l.m * stride * type_bytes(stored), *at, "changing this block's layout");
  make_room(l.batch * l.m * stride * type_bytes(stored));
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  store_fragment_rows(l, fragment, 0, stride, stored);
  barrier();
  Regs flat = load_flat_rows(value->type(), 0,
                             SharedTile::padded(l.batch * l.m, l.n, type_bytes(stored), (stride - l.n) * type_bytes(stored)),
                             stored);
  end_round_trip();
  return flat;
}

Regs Emitter::fragment_operand(const ir::Value* value, const FragmentLayout& l, const ir::Op& user) {
  if (frags_.layout(value) != nullptr) {
    auto it = fragments_.find(value);
    if (it == fragments_.end()) internal_error("nvptx", "a fragment is used before it was emitted", user.loc());
    return it->second;
  }
  // A read-back operand read at its fragment positions from its stage buffer.
  if (frags_.reads_back(value) && !l.rows && l.batch == 1) {
    auto it = async_.carried.find(value);
    if (it != async_.carried.end() && it->second->read_back && it->second->carried == value) {
      return read_back_fragment(value, l, *it->second);
    }
  }
  const Regs& flat = get(value);
  if (flat.uniform || !value->type()->is_block()) {
    Regs out;
    out.values.assign(l.num_regs(), flat.at(0));
    return out;
  }
  // Masks and offsets built from ranges: computed where each register is (no round trip).
  if (Regs computed; fragment_from_index(value, l, computed)) return computed;
  if (l.rows) return flat_to_rows(value, l, flat);
  if (auto it = invariant_fragments_.find(value); it != invariant_fragments_.end() && *frags_.invariant_copy(value) == l) {
    return it->second;
  }
  return flat_to_fragment(value, l, user);
}

Regs Emitter::flat_to_fragment(const ir::Value* value, const FragmentLayout& l, const ir::Op& at) {
  const Regs& flat = get(value);
  if (flat.uniform) {
    Regs out;
    out.values.assign(l.num_regs(), flat.at(0));
    return out;
  }
  llvm::Type* stored = stored_type(element_type(value->type()));
  int64_t stride = round_trip_stride(l, value->type(), type_bytes(stored));
  check_shared_fits(l.batch * l.m * stride * type_bytes(stored), at, "changing this block's layout");
  make_room(l.batch * l.m * stride * type_bytes(stored));
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  stage_rows(value->type(), flat, 0,
             SharedTile::padded(l.batch * l.m, l.n, type_bytes(stored), (stride - l.n) * type_bytes(stored)), stored,
             [this](llvm::Value* v) { return to_storage(v); });
  barrier();
  Regs out = load_fragment_rows(l, 0, stride, stored, element_type(value->type()));
  barrier();
  return out;
}

void Emitter::set_fragment(const ir::Value* value, Regs regs) {
  const FragmentLayout* l = frags_.layout(value);
  if (l == nullptr) internal_error("nvptx", "set_fragment on a value of the flat layout");
  fragments_[value] = std::move(regs);
  if (frags_.needs_flat(value)) {
    if (const ir::Op* at = flat_copy_point(value)) {
      flat_copies_at_[at].push_back(value);
    } else {
      // Made at once: an elementwise op's, in the kernel's top-level region, may leave its
      // ending barrier pending too (end_round_trip; experiment "lazycopy", the default), as
      // a store's copy does (emit_op): what follows up to the next op that writes shared
      // memory only reads the copy (fla's kkt: the scaled, masked A's copy for its store).
      const ir::Op* def = value->def();
      const bool outer = lazy_round_trips_;
      lazy_round_trips_ = outer || (lazy_trailing_ && lazy_copies_ && def != nullptr && def->parent() != nullptr &&
                                    def->parent()->parent() == nullptr && ir::has_trait(def->kind(), ir::kElementwise));
      set(value, flat_copy(value, *l, fragments_.at(value), nullptr));
      lazy_round_trips_ = outer;
    }
  }
}

Regs Emitter::flat_copy(const ir::Value* value, const FragmentLayout& l, const Regs& fragment, const ir::Op* at) {
  // The op the copy comes before: `at`, or the one after the definition (a region's
  // argument, converted before its region is emitted, takes the round trip).
  const ir::Op* def = value->def();
  if (at == nullptr && def != nullptr) {
    const auto& ops = def->parent()->ops();
    for (size_t i = 0; i + 1 < ops.size(); ++i) {
      if (ops[i].get() == def) at = ops[i + 1].get();
    }
  }
  std::vector<const ir::Op*> readers;
  if (!l.rows && def != nullptr && at != nullptr && at->parent() == emitting_region_) {
    readers = tile_readers(value, *at);
  }
  if (readers.empty() || slot_runs_down(value)) return fragment_to_flat(value, l, fragment);
  const SharedTile tile = *operand_tile_of(*readers[0]);
  if (!operand_tile_fits(tile.bytes())) return fragment_to_flat(value, l, fragment);
  // Staged as the dots read it, its flat registers read back from the same tile.
  llvm::Type* stored = stored_type(element_type(value->type()));
  sync_if_dirty();  // not planned by allocate_shared (emitter.h)
  stage_operand(value, 0, tile, stored, [this](llvm::Value* v) { return to_storage(v); });
  // wgmma reads it through the async proxy (stage_dot_operands).
  if (tile.swizzle != 0) ptx_effect("fence.proxy.async.shared::cta;", "", {});
  barrier();
  Regs flat = load_flat_rows(value->type(), 0, tile, stored);
  keep_operand_tile(value, tile, readers);
  return flat;
}

std::optional<SharedTile> Emitter::operand_tile_of(const ir::Op& dot) const {
  const FragmentLayout* l = frags_.layout(dot.result());
  const ir::Value* b = dot.operand(1);
  auto half = [](const ir::Value* v) {
    ScalarKind k = v->type()->element()->scalar_kind();
    return k == ScalarKind::F16 || k == ScalarKind::BF16;
  };
  if (l == nullptr || !half(dot.operand(0)) || !half(b) || b->type()->shape().size() != 2) return std::nullopt;
  const DotPath path = choose_path(dot);
  if (path != DotPath::F16 && path != DotPath::BF16) return std::nullopt;
  if (async_.carried.count(b) != 0 || async_.in_flight_dots.count(&dot) != 0) return std::nullopt;
  if (b->def() != nullptr && gpu::trans_staged_by_dots(*b->def())) return std::nullopt;
  const bool wgmma = uses_wgmma(dot, *l, sm_, threads_ / 32);
  if (wgmma && k_evens_first(dot, frags_)) return std::nullopt;
  const std::vector<int64_t>& shape = b->type()->shape();
  // Held transposed (K-major) as stage_dot_operands stages it: on wgmma only, with keepb.
  if (slot_runs_down(b)) {
    if (!wgmma || !keep_b_widely_) return std::nullopt;
    return SharedTile::swizzled(shape[1], shape[0], 2);
  }
  return wgmma ? SharedTile::swizzled(shape[0], shape[1], 2) : SharedTile::padded(shape[0], shape[1], 2, mma_tile_pad(2, false));
}

namespace {
bool same_tile(const SharedTile& a, const SharedTile& b) {
  return a.rows == b.rows && a.cols == b.cols && a.element_bytes == b.element_bytes && a.swizzle == b.swizzle &&
         a.pad_bytes == b.pad_bytes && a.evens_first == b.evens_first;
}
}  // namespace

std::vector<const ir::Op*> Emitter::tile_readers(const ir::Value* value, const ir::Op& from) const {
  std::vector<const ir::Op*> readers;
  std::optional<SharedTile> tile;
  bool started = false;
  for (const auto& op : from.parent()->ops()) {
    started = started || op.get() == &from;
    if (!started) continue;
    // What moves round trips' start or writes at fixed offsets of shared memory (a loop's
    // stage and hoisted buffers, the TMA's tiles), and regions (which may not run).
    if (!op->regions().empty() || op->kind() == OpKind::Return || async_.tma_loads.count(op.get()) != 0 ||
        async_.tma_stores.count(op.get()) != 0 ||
        (op->kind() == OpKind::Load && async_.stage.count(op->result()) != 0 && async_.stage.at(op->result()) >= 0)) {
      break;
    }
    if (op->kind() != OpKind::Dot || op->operand(1) != value) continue;
    std::optional<SharedTile> t = operand_tile_of(*op);
    if (!t || (tile && !same_tile(*tile, *t))) continue;
    tile = t;
    readers.push_back(op.get());
  }
  return readers;
}

bool Emitter::operand_tile_fits(int64_t bytes) const { return round_trip_start() + bytes <= tile_budget_; }

int64_t Emitter::shared_lower_bound(const ir::Region& region, int64_t start) const {
  int64_t most = start;
  for (const auto& op : region.ops()) {
    for (const auto& r : op->results()) {
      const FragmentLayout* l = frags_.layout(r.get());
      if (l == nullptr || l->rows || !frags_.needs_flat(r.get())) continue;
      const int64_t bytes = gpu::scratch_element_bytes(r->type());
      most = std::max(most, start + l->batch * l->m * round_trip_stride(*l, r->type(), bytes) * bytes);
    }
    if (op->kind() == OpKind::Dot && frags_.layout(op->result()) != nullptr) {
      // Each operand not copied nor hoisted, unpadded: at least that much.
      int64_t bytes = 0;
      const bool a_held = op->parent() != nullptr && op->parent()->parent() != nullptr &&
                          a_fragments_hoisted(*op, *op->parent()->parent());
      if (async_.carried.count(op->operand(0)) == 0 && async_.hoisted_a.count(op.get()) == 0 && !a_held) {
        bytes += op->operand(0)->type()->num_elements() * gpu::scratch_element_bytes(op->operand(0)->type());
      }
      if (async_.carried.count(op->operand(1)) == 0) {
        bytes += op->operand(1)->type()->num_elements() * gpu::scratch_element_bytes(op->operand(1)->type());
      }
      most = std::max(most, start + bytes);
    }
    if (op->has_attr("shared_offsets")) {
      const std::vector<int64_t>& offsets = op->ints_attr("shared_offsets");
      const std::vector<int64_t>& sizes = op->ints_attr("shared_sizes");
      for (size_t i = 0; i < offsets.size() && i < sizes.size(); ++i) most = std::max(most, start + offsets[i] + sizes[i]);
    }
    for (const auto& r : op->regions()) {
      // A loop's round trips start after its stage buffers (round_trip_start).
      int64_t inner = start;
      for (const auto& o : async_.operands) {
        if (o->carried->region() == r.get()) inner = std::max(inner, std::min(o->end(), async_.reserved_bytes));
      }
      most = std::max(most, shared_lower_bound(*r, inner));
    }
  }
  return most;
}

void Emitter::make_room(int64_t bytes) {
  bool done = false;
  for (const OperandTile& t : operand_tiles_) done = done || (t.done && t.region == emitting_region_);
  if (!done || round_trip_start() + bytes <= tile_budget_ || emitting_region_ == nullptr) return;
  barrier();
  release_operand_tiles(*emitting_region_, false);
}

void Emitter::keep_operand_tile(const ir::Value* value, const SharedTile& tile, const std::vector<const ir::Op*>& readers) {
  OperandTile t;
  t.value = value;
  t.region = readers.back()->parent();
  t.offset = round_trip_start();
  t.tile = tile;
  t.transposed = slot_runs_down(value);
  t.readers.insert(readers.begin(), readers.end());
  t.last = readers.back();
  operand_tiles_.push_back(std::move(t));
}

Emitter::OperandTile* Emitter::operand_tile(const ir::Op& dot) {
  for (OperandTile& t : operand_tiles_) {
    if (!t.done && t.readers.count(&dot) != 0 && (t.value == dot.operand(1) || t.at_definition)) return &t;
  }
  return nullptr;
}

Emitter::OperandTile* Emitter::operand_tile_a(const ir::Op& dot) {
  for (OperandTile& t : operand_tiles_) {
    if (!t.done && t.a_readers.count(&dot) != 0) return &t;
  }
  return nullptr;
}

std::optional<Emitter::SourceRead> Emitter::source_read(const ir::Op& dot, int index) const {
  if (dot.kind() != OpKind::Dot) return std::nullopt;
  const FragmentLayout* l = frags_.layout(dot.result());
  auto half = [](const ir::Value* v) {
    ScalarKind k = v->type()->element()->scalar_kind();
    return k == ScalarKind::F16 || k == ScalarKind::BF16;
  };
  const ir::Value* a = dot.operand(0);
  const ir::Value* b = dot.operand(1);
  if (l == nullptr || l->batch != 1 || !half(a) || !half(b) || a->type()->shape().size() != 2 ||
      b->type()->shape().size() != 2) {
    return std::nullopt;
  }
  const DotPath path = choose_path(dot);
  if (path != DotPath::F16 && path != DotPath::BF16) return std::nullopt;
  if (!uses_wgmma(dot, *l, sm_, threads_ / 32) || k_evens_first(dot, frags_)) return std::nullopt;
  if (async_.in_flight_dots.count(&dot) != 0) return std::nullopt;
  const ir::Value* v = dot.operand(index);
  if (async_.carried.count(v) != 0) return std::nullopt;
  if (index == 0 && (a_in_registers(dot, frags_) || async_.hoisted_a.count(&dot) != 0 ||
                     hoisted_a_fragments_.count(&dot) != 0)) {
    return std::nullopt;
  }
  const bool trans = v->def() != nullptr && gpu::trans_staged_by_dots(*v->def());
  const ir::Value* source = trans ? v->def()->operand(0) : v;
  if (frags_.layout(source) != nullptr || frags_.layout(v) != nullptr) return std::nullopt;  // flat blocks only
  // As stage_dot_operands stages it: A M-major and B K-major when its slot runs that way or it
  // is a staged trans (whose source is then staged the other way round).
  const bool flipped = slot_runs_down(v) || trans;
  const std::vector<int64_t>& shape = v->type()->shape();
  SourceRead r;
  r.source = source;
  r.tile = flipped ? SharedTile::swizzled(shape[1], shape[0], 2) : SharedTile::swizzled(shape[0], shape[1], 2);
  r.transposed = trans ? !flipped : flipped;
  return r;
}

void Emitter::stage_at_definition(const ir::Op& op) {
  if (op.parent() == nullptr || op.parent() != emitting_region_ || op.kind() == OpKind::Dot) return;
  const auto& ops = op.parent()->ops();
  for (const auto& result : op.results()) {
    const ir::Value* x = result.get();
    if (!x->type()->is_block() || x->type()->shape().size() != 2 || frags_.layout(x) != nullptr) continue;
    // The uses to cover: x's own, and those of each trans of it that the dots stage.
    std::unordered_set<const ir::Op*> uses;
    bool plain = true;
    for (const ir::Op* u : x->users()) {
      if (u->kind() == OpKind::Dot) {
        uses.insert(u);
      } else if (gpu::trans_staged_by_dots(*u)) {
        for (const ir::Op* w : u->result()->users()) uses.insert(w);
      } else {
        plain = false;
      }
    }
    if (!plain || uses.empty()) continue;
    std::optional<SourceRead> first;
    std::vector<const ir::Op*> b_readers, a_readers;
    const ir::Op* last = nullptr;
    size_t covered = 0;
    bool started = false, ok = true;
    for (const auto& o : ops) {
      if (!started) {
        started = o.get() == &op;
        continue;
      }
      // What ends an operand tile's life (tile_readers).
      if (!o->regions().empty() || o->kind() == OpKind::Return || async_.tma_loads.count(o.get()) != 0 ||
          async_.tma_stores.count(o.get()) != 0 ||
          (o->kind() == OpKind::Load && async_.stage.count(o->result()) != 0 && async_.stage.at(o->result()) >= 0)) {
        break;
      }
      if (uses.count(o.get()) == 0) continue;
      bool reads = false;
      for (int i = 0; i < 2 && ok; ++i) {
        const ir::Value* v = o->operand(i);
        const bool mine = v == x || (v->def() != nullptr && gpu::trans_staged_by_dots(*v->def()) && v->def()->operand(0) == x);
        if (!mine) continue;
        std::optional<SourceRead> r = source_read(*o, i);
        if (!r || r->source != x || (first && (!same_tile(first->tile, r->tile) || first->transposed != r->transposed))) {
          ok = false;
          break;
        }
        if (!first) first = r;
        (i == 0 ? a_readers : b_readers).push_back(o.get());
        reads = true;
      }
      if (!ok) break;
      // Its accumulator may be x too (never for a 16-bit block and an f32 result).
      if (o->operand(2) == x) ok = false;
      if (reads) {
        ++covered;
        last = o.get();
      }
    }
    if (!ok || !first || covered != uses.size()) continue;
    const int64_t bytes = (first->tile.bytes() + SharedTile::kSwizzleAlign - 1) / SharedTile::kSwizzleAlign *
                          SharedTile::kSwizzleAlign;
    // The lowest offset past the live stage and hoisted buffers where it overlaps no live
    // tile (a hole that tiles given back left below where round trips start), within the
    // budget.
    const int64_t floor = [&] {
      int64_t end = 0;
      for (const auto& [buffer, last] : live_stage_ends_) end = std::max(end, last);
      for (const auto& [buffer, last] : live_hoisted_ends_) end = std::max(end, last);
      return end == 0 ? 0 : std::min((end + SharedTile::kSwizzleAlign - 1) / SharedTile::kSwizzleAlign * SharedTile::kSwizzleAlign,
                                     async_.reserved_bytes);
    }();
    int64_t at = floor;
    for (bool moved = true; moved;) {
      moved = false;
      for (const OperandTile& t : operand_tiles_) {
        const int64_t end = (t.offset + t.tile.bytes() + SharedTile::kSwizzleAlign - 1) / SharedTile::kSwizzleAlign *
                            SharedTile::kSwizzleAlign;
        if (at < end && t.offset < at + bytes) {
          at = end;
          moved = true;
        }
      }
    }
    if (at + bytes > tile_budget_) continue;
    sync_if_dirty();  // not planned by allocate_shared (emitter.h)
    OperandTile t;
    t.value = x;
    t.region = op.parent();
    t.offset = at;
    t.tile = first->tile;
    t.transposed = first->transposed;
    t.at_definition = true;
    t.readers.insert(b_readers.begin(), b_readers.end());
    t.a_readers.insert(a_readers.begin(), a_readers.end());
    t.last = last;
    // (Offsets count from where round trips start: a hole below it is a negative one.)
    stage_operand(x, t.offset - round_trip_start(), t.tile, stored_type(element_type(x->type())),
                  [this](llvm::Value* v) { return to_storage(v); }, t.transposed);
    shared_bytes_ = std::max(shared_bytes_, t.offset + t.tile.bytes());
    // wgmma reads it through the async proxy: its first reader fences and meets a barrier
    // unless both came since (stage_dot_operands; OperandTile::published). No round trip
    // reaches a live tile.
    operand_tiles_.push_back(std::move(t));
  }
}

void Emitter::release_operand_tiles(const ir::Region& region, bool at_end) {
  bool any = false, unread = false;
  for (const OperandTile& t : operand_tiles_) {
    if (t.region != &region || (!at_end && !t.freed)) continue;
    any = true;
    unread = unread || !t.freed;
  }
  if (!any) return;
  // Round trips then start lower: what a planned op may still read above, and (at the end)
  // the tiles' own readers, are waited for first (not past a return: nothing follows it).
  // A round trip's ending barrier left pending (end_round_trip) stays pending with
  // "lazycopy": whatever next writes shared memory meets it first (emit_op, sync_if_dirty).
  const bool returned = b_.GetInsertBlock()->getTerminator() != nullptr;
  if (!returned && unread) barrier();
  if (!returned && !(lazy_copies_ && trailing_)) sync_if_dirty();
  operand_tiles_.erase(std::remove_if(operand_tiles_.begin(), operand_tiles_.end(),
                                      [&](const OperandTile& t) { return t.region == &region && (at_end || t.freed); }),
                       operand_tiles_.end());
}

const ir::Op* Emitter::flat_copy_point(const ir::Value* value) const {
  const ir::Region* region = value->def() != nullptr ? value->def()->parent() : value->region();
  // The readers of each layout, each as the op of `region` that is or holds it.
  std::unordered_set<const ir::Op*> flat_readers, fragment_readers;
  for (const ir::Use& use : value->uses()) {
    const ir::Op* op = use.user;
    while (op != nullptr && op->parent() != region) op = op->parent()->parent();
    if (op == nullptr) return nullptr;
    (reads_fragment(frags_, *use.user, use.index) ? fragment_readers : flat_readers).insert(op);
  }
  // Right after the last fragment reader before the first flat reader: there the fragments
  // may die as the copy is made, and the copy is not live beside them before. With no
  // fragment reader before it, at once. Never while a loop's prologue copies are in flight
  // (from the first to the loop, whose exit drains them: a round trip there would start past
  // their buffers), so a fragment reader there ends the search, unless it is that loop (a
  // first loop that reads the fragments and stores, pipelined past its stores, gets the copy
  // after it); nor past a TMA block load.
  const ir::Op* point = nullptr;
  bool after = value->def() == nullptr, next = false, copies_in_flight = false;
  for (const auto& op : region->ops()) {
    if (!after) {
      after = op.get() == value->def();
      continue;
    }
    if (next) point = op.get();
    next = false;
    if (flat_readers.count(op.get()) != 0) break;
    if (op->kind() == OpKind::Load && async_.tma_loads.count(op.get()) != 0) break;
    if (op->kind() == OpKind::Load && async_.stage.count(op->result()) != 0) copies_in_flight = true;
    if (op->kind() == OpKind::For) copies_in_flight = false;
    if (fragment_readers.count(op.get()) != 0) {
      if (copies_in_flight) break;
      next = true;
    }
  }
  return point;
}

void Emitter::emit_fragment_elementwise(const ir::Op& op, const FragmentLayout& l) {
  std::vector<Regs> inputs;
  for (const ir::Value* v : op.operands()) inputs.push_back(fragment_operand(v, l, op));
  if (std::optional<Regs> pairs = f32_to_half_in_pairs(op, inputs[0], l.num_regs())) {
    return set_fragment(op.result(), std::move(*pairs));
  }
  ElementFn fn = element_fn(op);
  Regs out;
  std::vector<llvm::Value*> args(inputs.size());
  for (int r = 0; r < l.num_regs(); ++r) {
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i].at(r);
    out.values.push_back(fn(args));
  }
  set_fragment(op.result(), std::move(out));
}

// ---- the dot ----

namespace {

DotPath choose_path(const ir::Op& dot) {
  ScalarKind a = dot.operand(0)->type()->element()->scalar_kind();
  ScalarKind b = dot.operand(1)->type()->element()->scalar_kind();
  ScalarKind result = dot.result()->type()->element()->scalar_kind();
  ir::InputPrecision precision = ir::DotOp(dot).input_precision();
  if (a == ScalarKind::F16 && b == ScalarKind::F16 && result != ScalarKind::F64) return DotPath::F16;
  if (a == ScalarKind::BF16 && b == ScalarKind::BF16 && result != ScalarKind::F64) return DotPath::BF16;
  if (ir::is_fp8(a) && ir::is_fp8(b) && result != ScalarKind::F64) return DotPath::F16;
  if (gpu::tf32_dot(dot)) return precision == ir::InputPrecision::Tf32 ? DotPath::TF32 : DotPath::TF32x3;
  if (gpu::int8_dot(dot)) return DotPath::I8;
  return DotPath::Fma;
}

}  // namespace

std::string wgmma_fp8_types(const ir::Op& dot) {
  auto name = [](const ir::Value* v) {
    return v->type()->element()->scalar_kind() == ScalarKind::F8E5 ? std::string("e5m2") : std::string("e4m3");
  };
  return name(dot.operand(0)) + "." + name(dot.operand(1));
}

std::string describe_dot(const ir::Op& op, const FragmentLayout* fragments, int sm, int num_warps, bool native_fp8) {
  if (fragments == nullptr) return "fma, flat layout (below one 16 x 8 tile)";
  const std::string acc16 =
      op.result()->type()->element()->scalar_kind() == ScalarKind::F16 && choose_path(op) == DotPath::F16
          ? ", f16 accumulators"
          : "";
  if (uses_wgmma(op, *fragments, sm, num_warps)) {
    bool bf16 = choose_path(op) == DotPath::BF16;
    const std::string n = std::to_string(std::min<int64_t>(fragments->n / fragments->warps_n, 256));
    const std::string groups =
        fragments->warps_n > 1 ? ", " + std::to_string(fragments->warps_n) + " warpgroups side by side along n" : "";
    if (choose_path(op) == DotPath::TF32) {
      return "wgmma m64n" + n + "k8 tf32, operands in swizzled shared memory (B K-major)" + groups;
    }
    if (choose_path(op) == DotPath::I8) {
      return "wgmma m64n" + n + "k32 s8, operands in swizzled shared memory (B K-major)" + groups;
    }
    if (native_fp8) {
      return "wgmma m64n" + n + "k32 " + wgmma_fp8_types(op) + ", operands in swizzled shared memory (B K-major)" +
             groups + acc16;
    }
    return "wgmma m64n" + n + "k16 " + (bf16 ? "bf16" : "f16") + ", operands in swizzled shared memory" + groups + acc16;
  }
  ScalarKind ka = op.operand(0)->type()->element()->scalar_kind();
  ScalarKind kb = op.operand(1)->type()->element()->scalar_kind();
  switch (choose_path(op)) {
    case DotPath::F16:
      return (ir::is_fp8(ka) || ir::is_fp8(kb) ? "mma.sync m16n8k16 f16 (fp8 widened exactly)" : "mma.sync m16n8k16 f16") +
             acc16;
    case DotPath::BF16: return "mma.sync m16n8k16 bf16";
    case DotPath::TF32: return "mma.sync m16n8k8 tf32";
    case DotPath::TF32x3: return "mma.sync m16n8k8 tf32 x 3";
    case DotPath::I8: return "mma.sync m16n8k32 s8";
    case DotPath::Fma: return "fma";
  }
  return "fma";
}

namespace {
// The most registers a thread holds of one dot's hoisted A fragments (a_fragments_hoisted):
// 16 x 128 bf16, Q of vLLM's BLOCK_M 16 unified attention.
constexpr int64_t kHoistedAFragmentRegs = 32;
// The most registers of fragments (the dot's result, those its loop carries: fragment_pressure)
// and hoisted A together. Held through the whole loop, A's registers compete with everything
// the body keeps live besides fragments (K's and P's operands, masks, addresses): vLLM's
// unified attention (24 + 32) gains (prefill 1.008 -> 1.047 of Triton, H100), its
// prefix_prefill at BLOCK_M 128 on sm_80 (104 + 32, already at 255 registers) spilled 132 ->
// 1004 bytes and met 10 more barriers.
constexpr int kHoistedAPressureBudget = 96;

// Whether `value` is defined outside `loop` (every iteration reads the same one).
bool invariant_in(const ir::Value* value, const ir::Op& loop) {
  const ir::Region* region = value->def() != nullptr ? value->def()->parent() : value->region();
  for (const ir::Op* owner = region != nullptr ? region->parent() : nullptr; owner != nullptr;
       owner = owner->parent() != nullptr ? owner->parent()->parent() : nullptr) {
    if (owner == &loop) return false;
  }
  return true;
}
}  // namespace

bool Emitter::a_fragments_hoisted(const ir::Op& dot, const ir::Op& loop) const {
  if (!hoist_a_fragments_ || loop.kind() != OpKind::For || dot.kind() != OpKind::Dot || dot.parent() != loop.region(0)) {
    return false;
  }
  const FragmentLayout* l = frags_.layout(dot.result());
  if (l == nullptr || l->batch != 1 || uses_wgmma(dot, *l, sm_, threads_ / 32) || a_in_registers(dot, frags_)) {
    return false;
  }
  const DotPath path = choose_path(dot);
  const ir::Value* a = dot.operand(0);
  const ScalarKind k = a->type()->element()->scalar_kind();
  if ((path != DotPath::F16 && path != DotPath::BF16) || (k != ScalarKind::F16 && k != ScalarKind::BF16) ||
      a->type()->rank() != 2) {
    return false;
  }
  // Flat, neither copied nor hoisted into shared memory, staged row-major (not M-major).
  if (frags_.layout(a) != nullptr || async_.carried.count(a) != 0 || async_.hoisted_a.count(&dot) != 0 ||
      !invariant_in(a, loop) || slot_runs_down(a) || (a->def() != nullptr && gpu::trans_staged_by_dots(*a->def()))) {
    return false;
  }
  const int64_t K = a->type()->shape().back();
  const int64_t regs = l->rep_m * (K / 16) * 4;
  return K % 16 == 0 && regs <= kHoistedAFragmentRegs &&
         fragment_pressure(frags_, dot, *l) + regs <= kHoistedAPressureBudget;
}

void Emitter::hoist_a_fragments(const ir::Op& loop) {
  for (const auto& op : loop.region(0)->ops()) {
    if (!a_fragments_hoisted(*op, loop)) continue;
    const ir::Value* a = op->operand(0);
    const FragmentLayout& l = *frags_.layout(op->result());
    const int64_t K = a->type()->shape().back();
    const int64_t rows = a->type()->num_elements() / K;
    // As stage_dot_operands stages a row-major A, at where round trips start: read by this
    // thread's ldmatrix now, then given back (the barrier after).
    const SharedTile tile = SharedTile::padded(rows, K, 2, 16);
    check_shared_fits(tile.bytes(), *op, "staging this dot's loop-invariant A");
    sync_if_dirty();
    stage_operand(a, 0, tile, stored_type(scalar_type(a->type()->element()->scalar_kind())),
                  [this](llvm::Value* v) { return to_storage(v); });
    barrier();
    auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
    // emit_dot's lane addresses of A's four 8 x 8 quarters (row-major tile).
    llvm::Value* lane = lane_id();
    llvm::Value* wm = b_.CreateURem(warp_id(), i32(l.warps_m));
    llvm::Value* quarter = b_.CreateLShr(lane, i32(3));
    llvm::Value* row8 = b_.CreateAnd(lane, i32(7));
    llvm::Value* low = b_.CreateMul(b_.CreateAnd(quarter, i32(1)), i32(8));
    llvm::Value* high = b_.CreateLShr(quarter, i32(1));
    llvm::Value* a_row = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(wm, i32(16)), row8), low);
    llvm::Value* a_lane = b_.CreateAdd(b_.CreateMul(a_row, i32(tile.stride())), b_.CreateMul(high, i32(8)));
    llvm::Value* a_base = b_.CreateAdd(shared_address(0), b_.CreateMul(a_lane, i32(2)));
    std::vector<std::vector<std::vector<llvm::Value*>>> held;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      held.emplace_back();
      for (int im = 0; im < l.rep_m; ++im) {
        const int64_t m = l.tile_row(im, 0);
        held.back().push_back(ldmatrix(b_.CreateAdd(a_base, i32((m * tile.stride() + k0) * 2)), 4, false));
      }
    }
    barrier();
    hoisted_a_fragments_[op.get()] = std::move(held);
  }
}

void Emitter::stage_hoisted(const HoistedOperand& h) {
  // Its buffer lies among the stage buffers, at an offset from the start of shared memory;
  // stage_operand's offsets count from where round trips start now.
  const int64_t start = round_trip_start();
  ScalarKind k = h.value->type()->element()->scalar_kind();
  // wgmma's inputs: f16 and bf16 as they are, fp8 widened exactly to f16 (as stage_dot_operands).
  llvm::Type* stored = ir::is_fp8(k) ? b_.getHalfTy() : stored_type(scalar_type(k));
  // An M-major tile (a trans of fragments: trans_a_m_major) holds the source as it is.
  stage_operand(
      h.value, h.offset - start, h.tile, stored,
      [this, k](llvm::Value* v) -> llvm::Value* {
        return ir::is_fp8(k) ? b_.CreateFPTrunc(fp8_to_f32(v, k), b_.getHalfTy()) : to_storage(v);
      },
      h.m_major);
}

llvm::Value* Emitter::shared_address(int64_t byte_offset) {
  llvm::Value* ptr = shared_element_at(byte_offset, b_.getInt8Ty(), b_.getInt32(0), 0);
  return b_.CreatePtrToInt(ptr, b_.getInt32Ty());
}

std::vector<llvm::Value*> Emitter::ldmatrix(llvm::Value* address, int count, bool trans) {
  std::vector<llvm::Type*> results(count, b_.getInt32Ty());
  auto* result_type = llvm::StructType::get(context_, results);
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) + (trans ? ".trans" : "") + ".shared.b16 {";
  std::string constraints;
  for (int i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  text += "}, [$" + std::to_string(count) + "];";
  constraints += "r";
  auto* fn_type = llvm::FunctionType::get(result_type, {b_.getInt32Ty()}, false);
  // Side effects: the read must stay between the barriers around it.
  llvm::Value* call = b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), {address});
  std::vector<llvm::Value*> out;
  for (int i = 0; i < count; ++i) out.push_back(b_.CreateExtractValue(call, static_cast<unsigned>(i)));
  return out;
}

void Emitter::mma(const std::string& shape_and_types, const std::vector<llvm::Value*>& a,
                  const std::vector<llvm::Value*>& b, llvm::Value** c) {
  const bool packed = c[0]->getType()->isHalfTy();
  std::vector<llvm::Value*> acc(c, c + 4);
  if (packed) acc = pack_pairs(acc);
  const int count = static_cast<int>(acc.size());
  llvm::Type* acc_type = acc[0]->getType();
  const std::string out = acc_type->isFloatTy() ? "=f" : "=r";
  std::string text = "mma.sync.aligned." + shape_and_types + " {";
  std::string constraints;
  for (int i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += (i ? "," : "") + out;
  }
  text += "}, {";
  std::vector<llvm::Value*> args;
  std::vector<llvm::Type*> types;
  int next = count;
  auto operands = [&](const std::vector<llvm::Value*>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      text += (i ? ", $" : "$") + std::to_string(next++);
      constraints += ",r";
      args.push_back(values[i]);
      types.push_back(b_.getInt32Ty());
    }
    text += "}, {";
  };
  operands(a);
  operands(b);
  for (int i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(next++);
    constraints += "," + std::to_string(i);  // tied to output i
    args.push_back(acc[i]);
    types.push_back(acc_type);
  }
  text += "};";
  auto* result_type = llvm::StructType::get(context_, std::vector<llvm::Type*>(count, acc_type));
  auto* fn_type = llvm::FunctionType::get(result_type, types, false);
  llvm::Value* call = b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/false), args);
  for (int i = 0; i < count; ++i) acc[i] = b_.CreateExtractValue(call, static_cast<unsigned>(i));
  if (packed) acc = unpack_half_pairs(acc);
  std::copy(acc.begin(), acc.end(), c);
}

std::vector<llvm::Value*> Emitter::pack_pairs(const std::vector<llvm::Value*>& halves) {
  std::vector<llvm::Value*> words;
  for (size_t i = 0; i + 1 < halves.size(); i += 2) {
    llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(halves[i]->getType(), 2));
    v = b_.CreateInsertElement(v, halves[i], b_.getInt32(0));
    v = b_.CreateInsertElement(v, halves[i + 1], b_.getInt32(1));
    words.push_back(b_.CreateBitCast(v, b_.getInt32Ty()));
  }
  return words;
}

std::vector<llvm::Value*> Emitter::unpack_half_pairs(const std::vector<llvm::Value*>& words) {
  std::vector<llvm::Value*> halves;
  for (llvm::Value* word : words) {
    llvm::Value* v = b_.CreateBitCast(word, llvm::FixedVectorType::get(b_.getHalfTy(), 2));
    halves.push_back(b_.CreateExtractElement(v, b_.getInt32(0)));
    halves.push_back(b_.CreateExtractElement(v, b_.getInt32(1)));
  }
  return halves;
}

DotStaging Emitter::stage_dot_operands(const ir::Op& op, bool fp8_as_f16, bool wgmma, bool a_in_registers) {
  const ir::Value* a = op.operand(0);
  const ir::Value* b = op.operand(1);
  ScalarKind ka = a->type()->element()->scalar_kind();
  ScalarKind kb = b->type()->element()->scalar_kind();
  const std::vector<int64_t>& b_shape = b->type()->shape();
  const int64_t K = a->type()->shape().back();
  // The element in shared memory: fp8 as f16 (exact) for the tensor cores, else as it is.
  auto staged_type = [&](ScalarKind k) -> llvm::Type* {
    return fp8_as_f16 && ir::is_fp8(k) ? b_.getHalfTy() : stored_type(scalar_type(k));
  };
  auto converter = [this, fp8_as_f16](ScalarKind k) {
    return [this, k, fp8_as_f16](llvm::Value* v) -> llvm::Value* {
      if (fp8_as_f16 && ir::is_fp8(k)) return b_.CreateFPTrunc(fp8_to_f32(v, k), b_.getHalfTy());
      return to_storage(v);
    };
  };
  DotStaging s;
  s.a = staged_type(ka);
  s.b = staged_type(kb);
  int64_t a_rows = a->type()->num_elements() / K;
  int64_t b_rows = b->type()->num_elements() / b_shape.back();
  auto tile = [wgmma](int64_t rows, int64_t cols, int64_t bytes, int64_t pad) {
    return wgmma ? SharedTile::swizzled(rows, cols, bytes) : SharedTile::padded(rows, cols, bytes, pad);
  };
  // Staged here, A is row-major (read along its rows) and B too (tf32 reads it down them),
  // but for wgmma's tf32, fp8 and int8, which read B K-major only: then B is held transposed.
  // An operand staged from a slot whose registers run along M (A) or K (B) is held
  // transposed where the instruction reads that (as the copies of such operands are,
  // async_copy.h): A M-major on wgmma for 16-bit elements only (its transpose bit; tf32 and
  // 8-bit A are K-major), on mma.sync for every tensor-core path (ldmatrix .trans, or
  // element by element); B K-major on both. Each run of the slot is then one vector store
  // (stage_slot). The fma dots (emit_flat_dot, DotPath::Fma) read row-major tiles only.
  // An operand that is a trans the dots stage themselves (gpu::trans_staged_by_dots) is held
  // the other way round where the instruction reads that too: its source's rows are then the
  // tile's (a dot result's fragments, pairs along its rows; a flat block's runs).
  const bool tensor_cores = frags_.layout(op.result()) != nullptr && choose_path(op) != DotPath::Fma;
  auto staged_trans = [](const ir::Value* v) { return v->def() != nullptr && gpu::trans_staged_by_dots(*v->def()); };
  const bool b_transposed = (wgmma && (gpu::tf32_dot(op) || gpu::int8_dot(op) || (!fp8_as_f16 && ir::is_fp8(kb)))) ||
                            (tensor_cores && (slot_runs_down(b) || staged_trans(b)));
  s.a_m_major = tensor_cores && !a_in_registers && (!wgmma || type_bytes(s.a) == 2) &&
                (slot_runs_down(a) || staged_trans(a));
  s.tile_a = s.a_m_major ? tile(K, a_rows, type_bytes(s.a), mma_tile_pad(type_bytes(s.a), true))
                         : tile(a_rows, K, type_bytes(s.a), 16);
  s.tile_b = b_transposed ? tile(b_shape.back(), b_rows, type_bytes(s.b), 16)
                          : tile(b_rows, b_shape.back(), type_bytes(s.b), mma_tile_pad(type_bytes(s.b), gpu::tf32_dot(op)));
  // A tf32 dot with A in registers reads K in evens_first order: on wgmma, B's tile holds it
  // so (mma.sync reads its elements in that order instead, emit_dot).
  s.tile_b.evens_first = wgmma && k_evens_first(op, frags_);
  s.stride_a = s.tile_a.stride();
  s.stride_b = s.tile_b.stride();
  // An operand copied asynchronously is already in its stage buffer (async_copy.h); a B
  // that an earlier op kept in its operand tile is there (emitter.h).
  auto copied_a = async_.carried.find(a), copied_b = async_.carried.find(b);
  // An A staged where it was defined (stage_at_definition) is read in its tile.
  OperandTile* kept_a = copied_a == async_.carried.end() && !a_in_registers && async_.hoisted_a.count(&op) == 0
                            ? operand_tile_a(op)
                            : nullptr;
  const bool a_staged_here =
      copied_a == async_.carried.end() && !a_in_registers && async_.hoisted_a.count(&op) == 0 && kept_a == nullptr;
  OperandTile* kept_b = copied_b == async_.carried.end() ? operand_tile(op) : nullptr;
  const bool b_staged_here = copied_b == async_.carried.end() && kept_b == nullptr;
  // A B staged here that later dots of the region read too, in the same tile, is kept in an
  // operand tile (where round trips start now). Where A is staged here too, B is staged
  // first, kept, and A after it (where round trips then start), with keepb; without, such
  // a B is staged by each of its dots.
  const int64_t align = wgmma ? SharedTile::kSwizzleAlign : 16;
  const int64_t a_bytes = a_staged_here ? (s.tile_a.bytes() + align - 1) / align * align : 0;
  std::vector<const ir::Op*> b_readers;
  if (b_staged_here && (!a_staged_here || keep_b_widely_) && operand_tile_of(op)) {
    b_readers = tile_readers(b, op);
    const int64_t kept_bytes = (operand_tile_of(op)->bytes() + align - 1) / align * align;
    if (b_readers.size() < 2 || b_readers[0] != &op || !operand_tile_fits(kept_bytes + a_bytes)) b_readers.clear();
  }
  const bool b_kept_first = !b_readers.empty() && a_staged_here;
  // B follows A's tile when A is staged here (and B not kept first), else it starts at byte
  // 0 (A is in its stage or hoisted buffer, or in registers): reserving A's bytes there cost
  // w8a16's 8-warp 128x128x64 tile 16 KiB of shared memory for nothing.
  s.b_offset = a_staged_here && !b_kept_first ? a_bytes : 0;
  const int64_t staged_bytes = b_kept_first ? (s.tile_b.bytes() + align - 1) / align * align + a_bytes
                                            : s.b_offset + s.tile_b.bytes();
  check_shared_fits(staged_bytes, op, "staging this dot's operands");
  if (a_staged_here || b_staged_here) {
    make_room(staged_bytes);
    kept_b = copied_b == async_.carried.end() ? operand_tile(op) : nullptr;  // (tiles given back moved)
    sync_if_dirty();  // unplanned staging
  }
  // A B held transposed and in fragments is staged from its flat copy, made by a round trip
  // through shared memory from byte 0: made before A is staged there, not after (it would
  // overwrite A).
  // (A trans's source is what is staged, transposed when B is not.)
  const ir::Value* b_source = staged_trans(b) ? b->def()->operand(0) : b;
  if (b_staged_here && b_transposed != (b_source != b) && values_.count(b_source) == 0) {
    const FragmentLayout* lb = frags_.layout(b_source);
    const bool slot = b_source->def() != nullptr && b_source->def()->kind() == ir::OpKind::ConvertLayout &&
                      staged_by_dots(*b_source->def());
    if (lb != nullptr && !lb->rows && !slot) {
      set(b_source, fragment_to_flat(b_source, *lb, fragment_operand(b_source, *lb, *b_source->users()[0])));
    }
  }
  // B kept first: staged and kept at byte 0 of where round trips start, which then start
  // past it, where A goes.
  if (b_kept_first && b_staged_here) {
    stage_operand(b, 0, s.tile_b, s.b, converter(kb), b_transposed);
    s.b_k_major = b_transposed;
    s.b_address = shared_address(0);
    if (!same_tile(s.tile_b, *operand_tile_of(op)) || b_transposed != slot_runs_down(b)) {
      internal_error("nvptx", "an operand tile is not where its dot staged it", op.loc());
    }
    keep_operand_tile(b, s.tile_b, b_readers);
  }
  auto hoisted = async_.hoisted_a.find(&op);
  if (kept_a != nullptr) {
    if (!same_tile(s.tile_a, kept_a->tile)) internal_error("nvptx", "an A tile is not how its dot stages it", op.loc());
    s.a_address = raw_shared_address(b_.getInt32(static_cast<uint32_t>(kept_a->offset)));
  } else if (hoisted != async_.hoisted_a.end()) {
    s.tile_a = hoisted->second->tile;  // written before the loop (emit_for)
    s.a_m_major = hoisted->second->m_major;
    s.a_address = raw_shared_address(b_.getInt32(static_cast<uint32_t>(hoisted->second->offset)));
  } else if (copied_a == async_.carried.end()) {
    if (!a_in_registers) stage_operand(a, 0, s.tile_a, s.a, converter(ka), s.a_m_major);
    s.a_address = shared_address(0);
  } else {
    s.tile_a = copied_a->second->tile;
    s.stride_a = copied_a->second->tile.stride();
    s.a_m_major = copied_a->second->transposed;
    s.a_address = raw_shared_address(get(a).at(0));
  }
  if (kept_b != nullptr) {
    if (kept_b->at_definition && !same_tile(s.tile_b, kept_b->tile)) {
      internal_error("nvptx", "a B tile is not how its dot stages it", op.loc());
    }
    s.tile_b = kept_b->tile;
    s.stride_b = s.tile_b.stride();
    // (A tile staged at the definition holds its source: a trans read as B is K-major there.)
    s.b_k_major = kept_b->at_definition ? b_transposed : kept_b->transposed;
    s.b_address = raw_shared_address(b_.getInt32(static_cast<uint32_t>(kept_b->offset)));
  } else if (b_kept_first) {
    s.stride_b = s.tile_b.stride();  // staged and kept above
  } else if (b_staged_here) {
    stage_operand(b, s.b_offset, s.tile_b, s.b, converter(kb), b_transposed);
    s.b_k_major = b_transposed;
    s.b_address = shared_address(s.b_offset);
    if (!b_readers.empty()) {
      if (!same_tile(s.tile_b, *operand_tile_of(op)) || s.b_offset != 0 || b_transposed != slot_runs_down(b)) {
        internal_error("nvptx", "an operand tile is not where its dot staged it", op.loc());
      }
      keep_operand_tile(b, s.tile_b, b_readers);
    }
  } else {
    if (copied_b->second->tile.evens_first != s.tile_b.evens_first) {
      internal_error("nvptx", "a copied B's K order is not its dot's (async_copy.cpp: evens_first)");
    }
    s.tile_b = copied_b->second->tile;
    s.stride_b = s.tile_b.stride();
    s.b_k_major = copied_b->second->transposed;
    s.b_address = raw_shared_address(get(b).at(0));
  }
  // Copied operands: this thread's copies done, then everyone's (the barrier), which also
  // means every thread is done reading the other buffer: the next copies go there now.
  bool copied = copied_a != async_.carried.end() || copied_b != async_.carried.end();
  // The later iterations' copies may stay in flight (async_copy.h): those of the iterations
  // between, and those this iteration has committed so far (at an earlier dot of the loop,
  // as attention's second dot after its first: waiting for them too would serialize each
  // iteration's copies with its math).
  // And the groups its operand's own iteration committed after it (V's, at attention's first
  // dot, which reads K only), the fewer of the two operands' when both are copied.
  //
  // A dot directly in the body of the loop that copies its operands waits instead for the
  // whole batch of its iteration (every copied operand of the loop, as Triton does), when
  // the loop's operands run equally far ahead: a later dot of the same body whose operands
  // are all in place then needs no wait, fence or barrier of its own (attention's P.V after
  // Q.Kᵀ: one barrier per iteration, not two).
  const ir::Region* body = nullptr;
  std::vector<const AsyncOperand*> loop_operands;
  for (auto it : {copied_a, copied_b}) {
    if (it != async_.carried.end() && it->first->region() == op.parent()) body = op.parent();
  }
  if (body != nullptr) {
    for (const auto& o : async_.operands) {
      if (o->carried->region() == body) loop_operands.push_back(o.get());
    }
    for (const AsyncOperand* o : loop_operands) {
      if (o->distance != loop_operands[0]->distance || o->chain.size() != loop_operands[0]->chain.size()) body = nullptr;
    }
  }
  auto ready = [&](decltype(copied_a) it) { return it != async_.carried.end() && copies_ready_.count(it->first) != 0; };
  const bool all_ready = body != nullptr && (copied_a == async_.carried.end() || ready(copied_a)) &&
                         (copied_b == async_.carried.end() || ready(copied_b));
  // (A kept B was fenced and met at a barrier where it was staged; a tile staged at its
  // definition was fenced there, and is met at a barrier here unless one came since.)
  const bool unpublished = (kept_a != nullptr && kept_a->at_definition && !kept_a->published) ||
                           (kept_b != nullptr && kept_b->at_definition && !kept_b->published);
  if (all_ready && !a_staged_here && !b_staged_here && !unpublished) {
    // None left (the earlier dot issued them after its barrier), unless this dot issues
    // them after its wait and a barrier (emit_dot).
    if (async_.copies_after_dots.count(&op) == 0) issue_deferred_copies();
    s.in_place = true;
    return s;
  }
  // TMA copies (async_copy.h: all of a loop's, or none): each thread waits on the stage's
  // mbarrier of each operand it waits for; the bytes are then visible to the async proxy too.
  auto tma = [&](decltype(copied_a) it) { return it != async_.carried.end() && it->second->tma_map >= 0; };
  const bool tma_copies = tma(copied_a) || tma(copied_b);
  if (copied && !all_ready && tma_copies) {
    if (body != nullptr) {
      for (const AsyncOperand* o : loop_operands) {
        wait_tma(*o);
        copies_ready_.insert(o->carried);
      }
    } else {
      for (auto it : {copied_a, copied_b}) {
        if (it != async_.carried.end()) wait_tma(*it->second);
      }
    }
  } else if (copied && !all_ready) {
    int pending = std::numeric_limits<int>::max();
    if (body != nullptr) {
      for (const AsyncOperand* o : loop_operands) {
        pending = std::min(pending, o->pending_groups);
        copies_ready_.insert(o->carried);
      }
    } else {
      for (auto it : {copied_a, copied_b}) {
        if (it != async_.carried.end()) pending = std::min(pending, it->second->pending_groups + it->second->later_in_batch);
      }
    }
    pending += body_commits_;
    ptx_effect("cp.async.wait_group " + std::to_string(pending) + ";", "", {});
  }
  // wgmma reads shared memory through the async proxy: what this thread wrote through the
  // generic one (st.shared, cp.async) is made visible to it before the barrier, as the PTX
  // ISA asks. Not needed when both operands are TMA copies (written through the async
  // proxy). TRITIUM_REDUCE_EXPERIMENT=nofence: none for cp.async copies, only for operands
  // staged from registers (Triton's rule, whose FenceInsertion fences register-to-shared
  // copies only; for timing the fence in attention's loop, codegen.h).
  const bool cp_async_writes = !tma(copied_b) || (copied_a != async_.carried.end() && !tma(copied_a));
  const bool generic_writes = a_staged_here || b_staged_here || unpublished || (cp_async_fence_ && cp_async_writes);
  if (wgmma && generic_writes) ptx_effect("fence.proxy.async.shared::cta;", "", {});
  barrier();
  // A dot that issues them after its own wait does (emit_dot), and so does a loop's last
  // dot kept in flight past its first (async_copy.cpp: last_dot_in_flight).
  if (copied && !copies_after_loop_dot(op)) issue_deferred_copies();
  s.in_place = !a_staged_here && (!b_staged_here || !b_readers.empty());
  return s;
}

namespace {
// The accumulator type of a dot whose result is `kind`: f32 for floats (f64 when the result
// is), i32 for integers.
llvm::Type* accumulator_type(llvm::IRBuilder<>& b, ScalarKind kind) {
  if (!ir::is_float(kind)) return b.getInt32Ty();
  return kind == ScalarKind::F64 ? b.getDoubleTy() : b.getFloatTy();
}

llvm::Value* convert_accumulator(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Type* to) {
  if (v->getType() == to) return v;
  return to->isIntegerTy() ? b.CreateSExtOrTrunc(v, to) : b.CreateFPCast(v, to);
}
}  // namespace

void Emitter::emit_flat_dot(const ir::Op& op) {
  const ir::Type* type = op.result()->type();
  llvm::Type* acc_type = accumulator_type(b_, type->element()->scalar_kind());
  Regs acc = materialize(get(op.operand(2)), type);
  std::vector<llvm::Value*> c;
  for (llvm::Value* v : acc.values) c.push_back(convert_accumulator(b_, v, acc_type));
  DotStaging s = stage_dot_operands(op, false, false);
  // Register r holds element e of [batch x] m x n: A's row (batch, m), B's column (batch, n).
  const std::vector<int64_t>& shape = type->shape();
  const int64_t n = shape.back(), m = shape[shape.size() - 2];
  const int64_t K = op.operand(0)->type()->shape().back();
  Layout layout = layout_of(type);
  std::vector<llvm::Value*> a_rows, b_cols;
  for (int r = 0; r < layout.num_regs(); ++r) {
    llvm::Value* e = element_index(layout, r);
    llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(n)));  // batch * m + row
    llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(n)));
    llvm::Value* batch = b_.CreateUDiv(row, b_.getInt32(static_cast<uint32_t>(m)));
    // An unowned register (e >= N) reads a clamped row: in bounds, never stored.
    row = b_.CreateSelect(b_.CreateICmpULT(e, b_.getInt32(static_cast<uint32_t>(layout.num_elements()))), row,
                          b_.getInt32(0));
    batch = b_.CreateSelect(b_.CreateICmpULT(e, b_.getInt32(static_cast<uint32_t>(layout.num_elements()))), batch,
                            b_.getInt32(0));
    a_rows.push_back(b_.CreateMul(row, b_.getInt32(static_cast<uint32_t>(s.stride_a))));
    b_cols.push_back(b_.CreateAdd(b_.CreateMul(batch, b_.getInt32(static_cast<uint32_t>(K * s.stride_b))), col));
  }
  emit_fma_dot(op, a_rows, b_cols, s.b_offset, s.stride_b, s.a, s.b, acc_type, c);
  barrier();
  Regs out;
  for (llvm::Value* v : c) out.values.push_back(convert_accumulator(b_, v, element_type(type)));
  set(op.result(), std::move(out));
}

const ir::Op* Emitter::leaves_wait_to_next_dot(const ir::Op& dot, bool in_place) const {
  if (!chain_dot_waits_ || !in_place || dot.parent() == nullptr) return nullptr;
  const ir::Value* result = dot.result();
  const FragmentLayout* l = frags_.layout(result);
  // f32 accumulators only (f16 ones are unpacked after the wait; int8's take no chain here),
  // read in fragments only (a flat copy may be made right after the dot: set_fragment).
  if (l == nullptr || result->type()->element()->scalar_kind() != ScalarKind::F32 || frags_.needs_flat(result)) {
    return nullptr;
  }
  // The loop plans' dots keep their own waits; so does one that issues copies after its
  // wait. (An operand tile this dot reads last is given back after the wait that ends it:
  // tiles_ending_unwaited_.)
  auto planned = [&](const ir::Op& d) {
    return async_.in_flight_dots.count(&d) != 0 || async_.in_flight_waits.count(&d) != 0 ||
           async_.copies_after_dots.count(&d) != 0 || ir::DotOp(d).needs_partial_accumulator();
  };
  if (planned(dot)) return nullptr;
  // The next op: a wgmma dot. Either it accumulates onto this one in the same layout and
  // instruction (wgmmas of one shape are ordered on their registers), this one's only
  // reader; or it does not read this one, whose readers all come after it.
  const auto& ops = dot.parent()->ops();
  const size_t at = dot.parent()->index_of(&dot);
  if (at + 1 >= ops.size()) return nullptr;
  const ir::Op* next = ops[at + 1].get();
  const FragmentLayout* ln = next->kind() == ir::OpKind::Dot ? frags_.layout(next->result()) : nullptr;
  if (ln == nullptr || planned(*next) || !uses_wgmma(*next, *ln, sm_, threads_ / 32)) return nullptr;
  auto element = [](const ir::Value* v) { return v->type()->element()->scalar_kind(); };
  if (next->operand(2) == result) {
    const bool same_shape = *ln == *l && element(next->result()) == ScalarKind::F32 &&
                            element(next->operand(0)) == element(dot.operand(0)) &&
                            element(next->operand(1)) == element(dot.operand(1)) &&
                            choose_path(*next) == choose_path(dot) &&
                            async_.native_fp8.count(next) == async_.native_fp8.count(&dot);
    return same_shape && result->users().size() == 1 ? next : nullptr;
  }
  for (const ir::Use& use : result->uses()) {
    const ir::Op* user = use.user;
    while (user != nullptr && user->parent() != dot.parent()) user = user->parent()->parent();
    if (user == nullptr || dot.parent()->index_of(user) <= at + 1) return nullptr;
  }
  return next;
}

bool Emitter::takes_unwaited(const ir::Op& op, const FragmentLayout& l) {
  if (unwaited_.empty() || &op != unwaited_taker_ || !uses_wgmma(op, l, sm_, threads_ / 32)) return false;
  // Nothing staged first (it might reuse what the unwaited dots read) and no copies issued
  // before the wgmmas (stage_dot_operands): both operands in their stage buffers, an operand
  // tile, hoisted or registers, neither of them an unwaited result.
  // (An accumulator in flight only from the dot that planned this chain: the last one.)
  for (const ir::Value* v : unwaited_) {
    if (op.operand(0) == v || op.operand(1) == v || (op.operand(2) == v && v != unwaited_.back())) return false;
  }
  const bool a_ready = async_.carried.count(op.operand(0)) != 0 || a_in_registers(op, frags_) ||
                       async_.hoisted_a.count(&op) != 0;
  const bool b_ready = async_.carried.count(op.operand(1)) != 0 || operand_tile(op) != nullptr;
  return a_ready && b_ready && deferred_copies_.empty();
}

void Emitter::wait_with_unwaited(std::vector<llvm::Value*>& d, const std::vector<const ir::Value*>& also) {
  std::vector<llvm::Value*> all = d;
  for (const ir::Value* v : also) {
    const Regs& regs = fragments_.at(v);
    all.insert(all.end(), regs.values.begin(), regs.values.end());
  }
  wgmma_wait(0, all);
  auto from = all.begin();
  std::copy(from, from + static_cast<std::ptrdiff_t>(d.size()), d.begin());
  from += static_cast<std::ptrdiff_t>(d.size());
  for (const ir::Value* v : also) {
    Regs& regs = fragments_.at(v);
    std::copy(from, from + static_cast<std::ptrdiff_t>(regs.values.size()), regs.values.begin());
    from += static_cast<std::ptrdiff_t>(regs.values.size());
  }
  end_unwaited_tiles();
}

void Emitter::wait_unwaited_dot() {
  if (unwaited_.empty()) return;
  std::vector<const ir::Value*> values;
  values.swap(unwaited_);
  unwaited_taker_ = nullptr;
  std::vector<llvm::Value*> none;
  wait_with_unwaited(none, values);
}

void Emitter::end_operand_tile(const ir::Op& dot) {
  // Its B tile, and a tile staged at its definition that it reads as A (stage_at_definition).
  for (OperandTile& t : operand_tiles_) {
    if (!t.done && t.last == &dot && (t.readers.count(&dot) != 0 || t.a_readers.count(&dot) != 0)) t.done = true;
  }
}

void Emitter::end_unwaited_tiles() {
  for (const ir::Op* dot : tiles_ending_unwaited_) end_operand_tile(*dot);
  tiles_ending_unwaited_.clear();
}

void Emitter::emit_dot(const ir::Op& op) {
  const FragmentLayout* fragments = frags_.layout(op.result());
  // The previous dot left its wait to this one (leaves_wait_to_next_dot): waited for here
  // unless these wgmmas take its accumulators in flight.
  if (fragments == nullptr || !takes_unwaited(op, *fragments)) wait_unwaited_dot();
  if (fragments == nullptr) return emit_flat_dot(op);
  const FragmentLayout& l = *fragments;
  ScalarKind kr = op.result()->type()->element()->scalar_kind();
  const int64_t K = op.operand(0)->type()->shape().back();
  DotPath path = choose_path(op);

  // An fp16 result of f16 or fp8 inputs accumulates in f16 on the tensor cores, as Triton's
  // (out_dtype=tl.float16: .f16 accumulators, two to a register).
  const bool f16_acc = kr == ScalarKind::F16 && path == DotPath::F16;
  llvm::Type* acc_type = f16_acc ? b_.getHalfTy() : accumulator_type(b_, kr);
  Regs acc = fragment_operand(op.operand(2), l, op);  // may round-trip through shared memory first
  std::vector<llvm::Value*> c;
  for (int r = 0; r < l.num_regs(); ++r) c.push_back(convert_accumulator(b_, acc.at(r), acc_type));
  const bool wgmma = uses_wgmma(op, l, sm_, threads_ / 32);
  const bool a_registers = a_in_registers(op, frags_);
  // A's fragments loaded before the loop (a_fragments_hoisted), by k-step and band.
  auto hoisted_a = hoisted_a_fragments_.find(&op);
  const bool a_hoisted = hoisted_a != hoisted_a_fragments_.end();
  // fp8 on wgmma's own 8-bit inputs (async_copy.h: both operands in stage buffers).
  const bool native_fp8 = wgmma && async_.native_fp8.count(&op) != 0;
  DotStaging staging = stage_dot_operands(op, path == DotPath::F16 && !native_fp8, wgmma, a_registers || a_hoisted);
  const int64_t stride_a = staging.stride_a, stride_b = staging.stride_b, b_offset = staging.b_offset;
  llvm::Type* sa = staging.a;
  llvm::Type* sb = staging.b;

  llvm::Value* lane = lane_id();
  llvm::Value* warp = warp_id();
  llvm::Value* wm = b_.CreateURem(warp, b_.getInt32(static_cast<uint32_t>(l.warps_m)));
  llvm::Value* wn = b_.CreateURem(b_.CreateUDiv(warp, b_.getInt32(static_cast<uint32_t>(l.warps_m))),
                                  b_.getInt32(static_cast<uint32_t>(l.warps_n)));
  auto i32 = [this](int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); };
  auto reg_of = [&](int64_t batch, int im, int in) { return static_cast<int>(((batch * l.rep_m + im) * l.rep_n + in) * 4); };

  if (wgmma) {
    const char* input = path == DotPath::BF16  ? "bf16"
                        : path == DotPath::TF32 ? "tf32"
                        : path == DotPath::I8   ? "s8"
                                                : "f16";
    if (native_fp8) {
      emit_wgmma(op, l, staging, "", c);
    } else if (a_registers) {
      emit_wgmma_registers_a(op, l, staging, input, c);
    } else {
      emit_wgmma(op, l, staging, input, c);
    }
    if (async_.copies_after_dots.count(&op) != 0) {
      // The previous iteration's dot is done in this warpgroup (wait_group 1); after the
      // barrier, in every one: its buffers take the next copies (AsyncOperand::copies_after_dot).
      barrier();
      issue_deferred_copies();
    }
  } else if (path == DotPath::F16 || path == DotPath::BF16) {
    const std::string types = path == DotPath::BF16 ? "m16n8k16.row.col.f32.bf16.bf16.f32"
                              : f16_acc             ? "m16n8k16.row.col.f16.f16.f16.f16"
                                                    : "m16n8k16.row.col.f32.f16.f16.f32";
    // ldmatrix: lane l gives the row address of matrix l / 8. A's four matrices are the
    // 8 x 8 quarters of a 16 x 16 tile (rows + 8 * (i % 2), columns + 8 * (i / 2)); B's are
    // rows k + 8 * (i % 2) of n-tiles in and in + 1 (i / 2), read transposed.
    // An operand copied transposed (async_copy.h: A M-major, B K-major; its tile's rows run
    // along k, element (m, k) of A at k * stride + m, (k, n) of B at n * stride + k) is read
    // the other way: A's quarters by .trans from rows k + 8 * (i / 2), columns m + 8 * (i % 2);
    // B's without .trans from rows n of n-tile in + i / 2, columns k + 8 * (i % 2). Each
    // thread then holds the same fragment elements as from the row-major tiles.
    const bool a_t = staging.a_m_major, b_t = staging.b_k_major;
    llvm::Value* quarter = b_.CreateLShr(lane, b_.getInt32(3));
    llvm::Value* row8 = b_.CreateAnd(lane, b_.getInt32(7));
    llvm::Value* low = b_.CreateMul(b_.CreateAnd(quarter, i32(1)), i32(8));  // 8 * (i % 2)
    llvm::Value* high = b_.CreateLShr(quarter, i32(1));                     // i / 2
    llvm::Value* a_lane;
    if (a_t) {
      llvm::Value* k_row = b_.CreateAdd(row8, b_.CreateMul(high, i32(8)));
      a_lane = b_.CreateAdd(b_.CreateMul(k_row, i32(stride_a)), b_.CreateAdd(b_.CreateMul(wm, i32(16)), low));
    } else {
      llvm::Value* a_row = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(wm, i32(16)), row8), low);
      a_lane = b_.CreateAdd(b_.CreateMul(a_row, i32(stride_a)), b_.CreateMul(high, i32(8)));
    }
    llvm::Value* b_lane;
    if (b_t) {
      llvm::Value* n_tile =
          b_.CreateAdd(b_.CreateMul(wn, i32(l.warp_col_step())), b_.CreateMul(high, i32(l.tile_col_step())));
      llvm::Value* n_row = b_.CreateAdd(n_tile, row8);
      b_lane = b_.CreateAdd(b_.CreateMul(n_row, i32(stride_b)), low);
    } else {
      llvm::Value* b_row = b_.CreateAdd(row8, low);
      b_lane = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(b_row, i32(stride_b)), b_.CreateMul(wn, i32(l.warp_col_step()))),
                            b_.CreateMul(high, i32(l.tile_col_step())));
    }
    llvm::Value* a_base = b_.CreateAdd(staging.a_address, b_.CreateMul(a_lane, i32(2)));
    llvm::Value* b_base = b_.CreateAdd(staging.b_address, b_.CreateMul(b_lane, i32(2)));
    for (int64_t batch = 0; batch < l.batch; ++batch) {
      for (int64_t k0 = 0; k0 < K; k0 += 16) {
        std::vector<std::vector<llvm::Value*>> af(l.rep_m), bf(l.rep_n);
        for (int im = 0; im < l.rep_m; ++im) {
          const int64_t m = batch * l.m + l.tile_row(im, 0);
          int64_t offset = (a_t ? k0 * stride_a + m : m * stride_a + k0) * 2;
          af[im] = a_hoisted     ? hoisted_a->second.at(static_cast<size_t>(k0 / 16)).at(static_cast<size_t>(im))
                   : a_registers ? a_fragment(op.operand(0), k0, im)
                                 : ldmatrix(b_.CreateAdd(a_base, i32(offset)), 4, a_t);
        }
        for (int in = 0; in < l.rep_n; in += 2) {
          const int64_t k = batch * K + k0;
          int64_t offset = (b_t ? l.tile_col(in, 0) * stride_b + k : k * stride_b + l.tile_col(in, 0)) * 2;
          bool pair = in + 1 < l.rep_n;
          std::vector<llvm::Value*> m = ldmatrix(b_.CreateAdd(b_base, i32(offset)), pair ? 4 : 2, !b_t);
          bf[in] = {m[0], m[1]};
          if (pair) bf[in + 1] = {m[2], m[3]};
        }
        for (int im = 0; im < l.rep_m; ++im) {
          for (int in = 0; in < l.rep_n; ++in) mma(types, af[im], bf[in], &c[reg_of(batch, im, in)]);
        }
      }
    }
  } else if (path == DotPath::TF32 || path == DotPath::TF32x3 || path == DotPath::I8) {
    // Fragments loaded element by element: group g = lane / 4, t = lane % 4.
    llvm::Value* g = b_.CreateLShr(lane, i32(2));
    llvm::Value* t = b_.CreateAnd(lane, i32(3));
    bool i8 = path == DotPath::I8;
    // tf32: A (g | g+8, t | t+4), B (t | t+4, g). i8: four bytes along k from 4 * t, A rows
    // g | g+8 and k + 0 | 16, B k + 0 | 16. An operand copied transposed (A M-major, B
    // K-major: async_copy.h) has its tile's rows along k: element (m, k) of A at k * stride + m,
    // (k, n) of B at n * stride + k. Each index is this lane's part plus a constant.
    const bool a_t = staging.a_m_major, b_t = staging.b_k_major;
    llvm::Value* k_lane = i8 ? b_.CreateMul(t, i32(4)) : t;
    llvm::Value* m_lane = b_.CreateAdd(b_.CreateMul(wm, i32(16)), g);
    llvm::Value* n_lane = b_.CreateAdd(b_.CreateMul(wn, i32(l.warp_col_step())), g);
    auto linear = [&](llvm::Value* row, llvm::Value* col, int64_t stride) {
      return b_.CreateAdd(b_.CreateMul(row, i32(stride)), col);
    };
    // A tf32 A from registers (k_evens_first) has K in evens_first order: B's fragment reads
    // rows 2t and 2t + 1 of each 8 (b0, b1) instead of t and t + 4.
    const bool evens_first = !i8 && a_registers;
    llvm::Value* kb_lane = evens_first ? b_.CreateShl(t, i32(1)) : k_lane;
    llvm::Value* a_lane = a_t ? linear(k_lane, m_lane, stride_a) : linear(m_lane, k_lane, stride_a);
    llvm::Value* b_lane = b_t ? linear(n_lane, kb_lane, stride_b) : linear(kb_lane, n_lane, stride_b);
    auto a_at = [&](int64_t m, int64_t k) { return a_t ? k * stride_a + m : m * stride_a + k; };
    auto b_at = [&](int64_t k, int64_t n) { return b_t ? n * stride_b + k : k * stride_b + n; };
    const int64_t step = i8 ? 32 : 8, second_k = i8 ? 16 : 4;
    llvm::Type* element = i8 ? b_.getInt8Ty() : b_.getFloatTy();
    // Element `index` of an operand's tile: in its stage buffer when copied (async_copy.h),
    // else where the dot staged it.
    auto operand_element = [&](const ir::Value* v, int64_t staged_at, llvm::Value* index) {
      if (async_.carried.count(v) == 0) return shared_element_at(staged_at, element, index, 0);
      return raw_shared(b_.CreateAdd(get(v).at(0), b_.CreateMul(index, i32(i8 ? 1 : 4))));
    };
    auto load_a = [&](int64_t offset) {
      return b_.CreateLoad(element, operand_element(op.operand(0), 0, b_.CreateAdd(a_lane, i32(offset))));
    };
    auto load_b = [&](int64_t offset) {
      return b_.CreateLoad(element, operand_element(op.operand(1), b_offset, b_.CreateAdd(b_lane, i32(offset))));
    };
    // Four bytes loaded one by one, packed little-endian (k + 0 in the low byte).
    auto pack4 = [&](const std::function<llvm::Value*(int)>& byte) {
      llvm::Value* word = b_.getInt32(0);
      for (int j = 0; j < 4; ++j) word = b_.CreateOr(word, b_.CreateShl(b_.CreateZExt(byte(j), b_.getInt32Ty()), 8 * j));
      return word;
    };
    // tf32 parts of x: big = x rounded to tf32 (cvt.rna), small = the rest rounded again.
    auto tf32 = [&](llvm::Value* x) { return ptx_unary("cvt.rna.tf32.f32 $0, $1;", "=r,f", b_.getInt32Ty(), {x}); };
    auto small = [&](llvm::Value* x, llvm::Value* big) {
      return tf32(b_.CreateFSub(x, b_.CreateBitCast(big, b_.getFloatTy())));
    };
    for (int64_t batch = 0; batch < l.batch; ++batch) {
      for (int64_t k0 = 0; k0 < K; k0 += step) {
        std::vector<std::vector<llvm::Value*>> af(l.rep_m), bf(l.rep_n), as(l.rep_m), bs(l.rep_n);
        for (int im = 0; im < l.rep_m && evens_first; ++im) {
          for (llvm::Value* x : a_fragment(op.operand(0), k0, im)) {  // batch 0 only (a_in_registers)
            af[im].push_back(tf32(x));
            as[im].push_back(small(x, af[im].back()));
          }
        }
        for (int im = 0; im < l.rep_m && !evens_first; ++im) {
          const int64_t m = batch * l.m + l.tile_row(im, 0);
          for (auto [dm, dk] : {std::pair<int64_t, int64_t>{0, 0}, {8, 0}, {0, second_k}, {8, second_k}}) {
            const int64_t offset = a_at(m + dm, k0 + dk);
            if (i8 && !a_t) {
              // A's four bytes along k are one aligned word (rows of a multiple of 16 bytes,
              // k a multiple of 4): little-endian, k + 0 in the low byte, as pack4's.
              af[im].push_back(b_.CreateAlignedLoad(b_.getInt32Ty(),
                                                    operand_element(op.operand(0), 0, b_.CreateAdd(a_lane, i32(offset))),
                                                    llvm::Align(4)));
              continue;
            }
            if (i8) {
              af[im].push_back(pack4([&](int j) { return load_a(a_at(m + dm, k0 + dk + j)); }));
              continue;
            }
            llvm::Value* x = load_a(offset);
            af[im].push_back(tf32(x));
            as[im].push_back(small(x, af[im].back()));
          }
        }
        for (int in = 0; in < l.rep_n; ++in) {
          const int64_t n = l.tile_col(in, 0);
          for (int64_t k : {batch * K + k0, batch * K + k0 + (evens_first ? 1 : second_k)}) {
            const int64_t offset = b_at(k, n);
            if (i8 && b_t) {  // four bytes along k: one aligned word of a K-major row
              bf[in].push_back(b_.CreateAlignedLoad(
                  b_.getInt32Ty(), operand_element(op.operand(1), b_offset, b_.CreateAdd(b_lane, i32(offset))),
                  llvm::Align(4)));
              continue;
            }
            if (i8) {
              bf[in].push_back(pack4([&](int j) { return load_b(b_at(k + j, n)); }));
              continue;
            }
            llvm::Value* x = load_b(offset);
            bf[in].push_back(tf32(x));
            bs[in].push_back(small(x, bf[in].back()));
          }
        }
        // int8 saturates at the int32 limits instead of wrapping (.satfinite), as Triton's does.
        const std::string types =
            i8 ? "m16n8k32.row.col.satfinite.s32.s8.s8.s32" : "m16n8k8.row.col.f32.tf32.tf32.f32";
        for (int im = 0; im < l.rep_m; ++im) {
          for (int in = 0; in < l.rep_n; ++in) {
            llvm::Value** tile = &c[reg_of(batch, im, in)];
            if (path == DotPath::TF32x3) {  // the small products first, as they are the smallest
              mma(types, as[im], bf[in], tile);
              mma(types, af[im], bs[in], tile);
            }
            mma(types, af[im], bf[in], tile);
          }
        }
      }
    }
  } else {
    // Each register's row of A and column of B (fragment_offset's layout, split in two).
    llvm::Value* row0 = b_.CreateAdd(b_.CreateMul(wm, i32(16)), b_.CreateLShr(lane, i32(2)));
    llvm::Value* col0 =
        b_.CreateAdd(b_.CreateMul(wn, i32(l.warp_col_step())), b_.CreateShl(b_.CreateAnd(lane, i32(3)), 1));
    std::vector<llvm::Value*> a_rows, b_cols;
    for (int r = 0; r < l.num_regs(); ++r) {
      int c4 = r % 4, tile = r / 4;
      int in = tile % l.rep_n, im = (tile / l.rep_n) % l.rep_m;
      int64_t batch = tile / l.rep_n / l.rep_m;
      int64_t row = batch * l.m + l.tile_row(im, 0) + 8 * (c4 / 2);
      a_rows.push_back(b_.CreateMul(b_.CreateAdd(row0, i32(row)), i32(stride_a)));
      b_cols.push_back(b_.CreateAdd(col0, i32(batch * K * stride_b + l.tile_col(in, 0) + c4 % 2)));
    }
    emit_fma_dot(op, a_rows, b_cols, b_offset, stride_b, sa, sb, acc_type, c);
  }
  // The end of this round trip, unless both operands were read in their stage buffers or
  // operand tiles: the next copy into a buffer waits for the next dot's barrier instead, and
  // a tile is given back after a barrier past its last reader (emitter.h).
  if (!staging.in_place) barrier();
  // A tile this dot reads last is given back after its wait: now, or where the wait it left
  // to the next dot comes (a barrier before then must not free it: other warpgroups' wgmmas
  // may still read it).
  if (std::find(unwaited_.begin(), unwaited_.end(), op.result()) != unwaited_.end()) {
    tiles_ending_unwaited_.push_back(&op);
  } else {
    end_operand_tile(op);
  }

  Regs out;
  for (llvm::Value* v : c) out.values.push_back(convert_accumulator(b_, v, element_type(op.result()->type())));
  set_fragment(op.result(), std::move(out));
}

// Products and sums in `acc_type`, one k at a time in a loop: register r of this thread is
// the sum over k of A[a_rows[r] + k] * B[b_cols[r] + k * stride_b] (shared-memory indices),
// fused multiply-adds as Triton's fma dot does.
void Emitter::emit_fma_dot(const ir::Op& op, const std::vector<llvm::Value*>& a_rows,
                           const std::vector<llvm::Value*>& b_cols, int64_t b_offset, int64_t stride_b,
                           llvm::Type* sa, llvm::Type* sb, llvm::Type* acc_type, std::vector<llvm::Value*>& c) {
  ScalarKind ka = op.operand(0)->type()->element()->scalar_kind();
  ScalarKind kb = op.operand(1)->type()->element()->scalar_kind();
  const int64_t K = op.operand(0)->type()->shape().back();
  bool int_acc = acc_type->isIntegerTy();
  auto widen = [&](llvm::Value* v, ScalarKind k) -> llvm::Value* {
    if (ir::is_fp8(k)) v = fp8_to_f32(v, k);
    if (int_acc) return ir::is_signed(k) ? b_.CreateSExtOrTrunc(v, acc_type) : b_.CreateZExtOrTrunc(v, acc_type);
    if (v->getType()->isIntegerTy()) return ir::is_signed(k) ? b_.CreateSIToFP(v, acc_type) : b_.CreateUIToFP(v, acc_type);
    return v->getType() == acc_type ? v : b_.CreateFPCast(v, acc_type);
  };
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, "dot.k", kernel_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, "dot.done", kernel_);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  llvm::PHINode* k = b_.CreatePHI(b_.getInt32Ty(), 2, "k");
  k->addIncoming(b_.getInt32(0), pre);
  std::vector<llvm::PHINode*> phis;
  for (llvm::Value* v : c) {
    phis.push_back(b_.CreatePHI(acc_type, 2));
    phis.back()->addIncoming(v, pre);
  }
  llvm::Value* k_row = b_.CreateMul(k, b_.getInt32(static_cast<uint32_t>(stride_b)));
  // Equal indices load once (LLVM merges them): a thread's registers share rows and columns.
  std::vector<llvm::Value*> next;
  for (size_t r = 0; r < c.size(); ++r) {
    llvm::Value* x = widen(b_.CreateLoad(sa, shared_element_at(0, sa, b_.CreateAdd(a_rows[r], k), 0)), ka);
    llvm::Value* y = widen(b_.CreateLoad(sb, shared_element_at(b_offset, sb, b_.CreateAdd(b_cols[r], k_row), 0)), kb);
    if (int_acc) {
      next.push_back(b_.CreateAdd(phis[r], b_.CreateMul(x, y)));
    } else {
      next.push_back(b_.CreateIntrinsic(llvm::Intrinsic::fma, {acc_type}, {x, y, phis[r]}));
    }
  }
  llvm::Value* k_next = b_.CreateAdd(k, b_.getInt32(1));
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  k->addIncoming(k_next, latch);
  for (size_t r = 0; r < phis.size(); ++r) phis[r]->addIncoming(next[r], latch);
  b_.CreateCondBr(b_.CreateICmpULT(k_next, b_.getInt32(static_cast<uint32_t>(K))), body, exit);
  b_.SetInsertPoint(exit);
  for (size_t r = 0; r < c.size(); ++r) c[r] = next[r];
}

}  // namespace tritium::nvptx

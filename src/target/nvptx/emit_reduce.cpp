// reduce and scan over one axis of a block. The block's layout, as a linear layout
// (ir/linear_layout.h), says which register, lane and warp bits move along the axis: those
// are the bits combined, within a thread over registers, within a warp by butterfly
// shuffles, across warps through shared memory. Nothing here depends on which layout it is.
//
//   reduce [outer, K, inner] along K:  registers left to right -> shfl.bfly per lane bit,
//                                      the highest first -> smem (each warp's partial once,
//                                      read back by vector loads and, past 16 bytes,
//                                      shfl.bfly), combined as a butterfly over the warps
//                                      with the widest stride first, then the results placed
//                                      in the result's layout. That is Triton 3.6's order:
//                                      a float sum equals Triton's to the last bit where the
//                                      two lay the block out alike.
//   scan:  the thread's runs of consecutive elements in order, then one level per axis
//          bit, low to high; each element keeps its prefix P and the total B of its
//          aligned run of 2^level, and takes B from its partner (the element with that
//          bit flipped): a register or a lane (shfl.bfly); the levels across
//          warps together, in one round through smem. What a register takes from other
//          threads is gathered per run (its carry) and joins P at the end.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <bit>

#include "gpu/scratch.h"
#include "ir/linear_layout.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

namespace {

// Scratch for one exchange across warps: more registers are exchanged in several rounds.
constexpr int64_t kScratchBytes = gpu::kScratchChunk;

// The block around the axis: [outer, K, inner], each a power of two.
struct AxisBits {
  int inner_bits = 0;  // element bits below the axis
  int axis_bits = 0;   // element bits of the axis
};

AxisBits axis_bits(const ir::Type* type, int64_t axis) {
  AxisBits a;
  const auto& shape = type->shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    int bits = log2_exact(shape[d]);
    if (static_cast<int64_t>(d) > axis) a.inner_bits += bits;
    if (static_cast<int64_t>(d) == axis) a.axis_bits = bits;
  }
  return a;
}

// The subsets of `mask`, in increasing order (0 first).
std::vector<int> subsets(int mask) {
  std::vector<int> out;
  int s = 0;
  do {
    out.push_back(s);
    s = (s - mask) & mask;
  } while (s != 0);
  return out;
}

// The bits of `value` under `mask` packed together at the bottom, in order (x86's pext with
// a constant mask): a shift and an and per run of consecutive mask bits.
llvm::Value* compress_bits(llvm::IRBuilder<>& b, llvm::Value* value, uint32_t mask) {
  llvm::Value* out = nullptr;
  int placed = 0;
  for (int bit = 0; bit < 32;) {
    if (!(mask & (1u << bit))) {
      ++bit;
      continue;
    }
    int run = 0;
    while (bit + run < 32 && (mask & (1u << (bit + run)))) ++run;
    uint32_t run_mask = run == 32 ? ~0u : ((1u << run) - 1) << bit;
    llvm::Value* part = b.CreateAnd(value, b.getInt32(run_mask));
    if (bit > placed) part = b.CreateLShr(part, b.getInt32(static_cast<uint32_t>(bit - placed)));
    out = out ? b.CreateOr(out, part) : part;
    placed += run;
    bit += run;
  }
  return out ? out : b.getInt32(0);
}

}  // namespace

std::vector<llvm::Value*> Emitter::combine(const ir::Op& op, const std::vector<llvm::Value*>& lhs,
                                           const std::vector<llvm::Value*>& rhs) {
  const ir::Region& region = *op.region(0);
  size_t n = lhs.size();
  for (size_t i = 0; i < n; ++i) {
    set(region.arg(static_cast<int>(i)), Regs::one(lhs[i]));
    set(region.arg(static_cast<int>(n + i)), Regs::one(rhs[i]));
  }
  emit_region(region);
  std::vector<llvm::Value*> out;
  for (const ir::Value* v : region.terminator()->operands()) out.push_back(get(v).at(0));
  return out;
}

std::vector<llvm::Value*> Emitter::combine_ordered(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items) {
  if (!reduce_chain_) return combine_tree(op, std::move(items));
  // Left to right (Triton's order): a sum of products contracts into one fma per element.
  std::vector<llvm::Value*> acc = items[0];
  for (size_t j = 1; j < items.size(); ++j) acc = combine(op, acc, items[j]);
  return acc;
}

std::vector<llvm::Value*> Emitter::combine_tree(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items) {
  while (items.size() > 1) {
    std::vector<std::vector<llvm::Value*>> next;
    for (size_t i = 0; i + 1 < items.size(); i += 2) next.push_back(combine(op, items[i], items[i + 1]));
    if (items.size() % 2) next.push_back(items.back());
    items = std::move(next);
  }
  return items[0];
}

std::vector<llvm::Value*> Emitter::combine_strided(const ir::Op& op, std::vector<std::vector<llvm::Value*>> items) {
  for (size_t half = items.size() / 2; half > 0; half /= 2) {
    for (size_t i = 0; i < half; ++i) items[i] = combine(op, items[i], items[i + half]);
    items.resize(half);
  }
  return items[0];
}

void Emitter::read_shared_run(llvm::Type* stored, llvm::Type* element, int64_t count, int64_t vec,
                              const std::function<llvm::Value*(int64_t)>& at,
                              std::vector<std::vector<llvm::Value*>>& out) {
  const int64_t bytes = type_bytes(stored);
  for (int64_t j = 0; j < count; j += vec) {
    if (vec == 1) {
      out[j].push_back(from_storage(b_.CreateLoad(stored, at(j)), element));
      continue;
    }
    llvm::Type* vec_type = llvm::FixedVectorType::get(stored, static_cast<unsigned>(vec));
    llvm::Value* loaded = b_.CreateAlignedLoad(vec_type, at(j), llvm::Align(static_cast<uint64_t>(vec * bytes)));
    for (int64_t e = 0; e < vec; ++e) {
      out[j + e].push_back(from_storage(b_.CreateExtractElement(loaded, b_.getInt32(static_cast<uint32_t>(e))), element));
    }
  }
}

llvm::Value* Emitter::shuffle_xor(llvm::Value* value, int mask) {
  return shuffle_lanes(value, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, b_.getInt32(static_cast<uint32_t>(mask)), 0x1f);
}

llvm::Value* Emitter::shuffle_lanes(llvm::Value* value, unsigned intrinsic, llvm::Value* arg, uint32_t clamp) {
  llvm::Type* type = value->getType();
  unsigned bits = static_cast<unsigned>(module_.getDataLayout().getTypeSizeInBits(type));
  auto shfl32 = [&](llvm::Value* v) {
    return b_.CreateIntrinsic(static_cast<llvm::Intrinsic::ID>(intrinsic), {b_.getInt32(0xffffffffu), v, arg, b_.getInt32(clamp)});
  };
  if (bits == 64) {
    llvm::Value* whole = b_.CreateBitCast(value, b_.getInt64Ty());
    llvm::Value* lo = shfl32(b_.CreateTrunc(whole, b_.getInt32Ty()));
    llvm::Value* hi = shfl32(b_.CreateTrunc(b_.CreateLShr(whole, 32), b_.getInt32Ty()));
    llvm::Value* joined = b_.CreateOr(b_.CreateZExt(lo, b_.getInt64Ty()), b_.CreateShl(b_.CreateZExt(hi, b_.getInt64Ty()), 32));
    return b_.CreateBitCast(joined, type);
  }
  llvm::Type* as_int = b_.getIntNTy(bits);
  llvm::Value* widened = b_.CreateZExt(b_.CreateBitCast(value, as_int), b_.getInt32Ty());
  return b_.CreateBitCast(b_.CreateTrunc(shfl32(widened), as_int), type);
}

void Emitter::emit_reduce(const ir::Op& op) {
  if (const FragmentLayout* rows = frags_.layout(op.result(0))) return emit_fragment_reduce(op, *rows);
  const ir::Type* in_type = op.operand(0)->type();
  const size_t n = static_cast<size_t>(op.num_operands());
  Layout layout = layout_of(in_type);
  int64_t axis_dim = op.int_attr("axis");
  AxisBits axis = axis_bits(in_type, axis_dim);
  std::vector<Regs> in;
  const ir::Op* view = op.operand(0)->def();
  if (view != nullptr && frags_.reduces_fragments(view)) {
    // A full reduction of a flattened block of fragments (FragmentPlan::reduces_fragments):
    // the fragments' registers as the thread's elements, one each, the combine indifferent
    // to which element sits where.
    const FragmentLayout& l = *frags_.layout(view->operand(0));
    if (!layout.full() || layout.num_regs() != l.num_regs()) {
      internal_error("nvptx", "a reduction of fragments whose flat layout holds another count", op.loc());
    }
    in.push_back(fragment_operand(view->operand(0), l, op));
  } else {
    for (const ir::Value* v : op.operands()) in.push_back(materialize(get(v), in_type));
  }

  // The input bits that move along the axis (lane and warp masks as thread-index bits).
  const gpu::ReduceMasks masks = gpu::reduce_masks(in_type, axis_dim, layout);
  const int reg_mask = masks.reg;
  const int lane_mask = masks.lane;
  const int warp_mask = masks.warp;

  // 1. Within each thread: the registers that differ only in axis bits.
  std::vector<int> keys;  // registers with every axis bit clear
  std::vector<std::vector<llvm::Value*>> partial;
  for (int r = 0; r < layout.num_regs(); ++r) {
    if (r & reg_mask) continue;
    std::vector<std::vector<llvm::Value*>> items;
    for (int sub : subsets(reg_mask)) {
      std::vector<llvm::Value*> item;
      for (size_t i = 0; i < n; ++i) item.push_back(in[i].at(r | sub));
      items.push_back(std::move(item));
    }
    keys.push_back(r);
    if (reduce_chain_) {
      // Left to right (Triton's order): x0 op x1, then op x2, ...; a sum of products then
      // contracts into one fma per element (a tree pairs products: fmul + fma + fadd).
      std::vector<llvm::Value*> acc = items[0];
      for (size_t j = 1; j < items.size(); ++j) acc = combine(op, acc, items[j]);
      partial.push_back(std::move(acc));
    } else {
      partial.push_back(combine_tree(op, std::move(items)));
    }
  }
  // 2. Within each warp: a butterfly over the lane bits on the axis, the highest first
  // (Triton's order: a sum is the same to the last bit); every lane ends with it.
  for (int j = 4; j >= 0; --j) {
    if (!(lane_mask & (1 << j))) continue;
    for (auto& values : partial) {
      std::vector<llvm::Value*> other;
      for (llvm::Value* v : values) other.push_back(shuffle_xor(v, 1 << j));
      values = combine(op, values, other);
    }
  }
  // 3. Across warps: each key's partial of every thread whose reduced lane bits are clear,
  // in the op's first buffer, then every thread reads its group's 2^popcount(warp_mask)
  // partials and combines them (a barrier between a chunk's reads and the next chunk's
  // writes; none after the last). Only the writers' slots exist: a key has one column per
  // value of the thread bits that are neither reduced lane nor reduced warp bits, times the
  // group (gpu::reduce_columns), and slot (key, writer) sits at key * columns + the writer's
  // column: those bits above, its warp bits below, so a group's partials are consecutive
  // and read by vector loads (a 16-warp row: 4 x ld.shared.v4 instead of 16 loads). A
  // 128-row block reduced across 32 lanes and 4 warps so takes 16 bytes a key: all its keys
  // in one round, every partial stored before any is read (a column per thread, 512 bytes a
  // key, took four rounds of 32 keys, each round's reads live beside the partials of the
  // rounds still to come).
  const int threads = layout.threads();
  const int64_t keys_n = static_cast<int64_t>(keys.size());
  const ir::Type* out_type = op.result(0)->type();
  // Where the results go through shared memory to the threads that own them, and all the
  // keys fit one round across warps, those threads read their results' partials straight
  // from the round's slots instead (gpu::reduce_reads_owned): no placement round trip.
  const bool read_owned = out_type->is_block() && gpu::reduce_reads_owned(op, layout, layout_of(out_type), masks);
  std::vector<std::vector<llvm::Value*>> owned;  // read_owned: per result register
  std::vector<llvm::Type*> types;
  for (size_t i = 0; i < n; ++i) types.push_back(stored_type(element_type(op.operand(static_cast<int>(i))->type())));
  llvm::Value* tid = thread_id();
  if (warp_mask != 0) {
    // A chunk of keys at a time, so the scratch stays small.
    int64_t per_key = 0;
    const int64_t columns = gpu::reduce_columns(masks, threads);
    for (size_t i = 0; i < n; ++i) per_key += (type_bytes(types[i]) * columns + 15) / 16 * 16;
    int64_t chunk = std::max<int64_t>(1, kScratchBytes / per_key);
    llvm::Value* writer = b_.CreateICmpEQ(b_.CreateAnd(tid, b_.getInt32(static_cast<uint32_t>(lane_mask))), b_.getInt32(0));
    const int group_bits = std::popcount(static_cast<uint32_t>(warp_mask));
    const int64_t group = int64_t{1} << group_bits;
    const uint32_t other_mask =
        static_cast<uint32_t>(threads - 1) & ~static_cast<uint32_t>(warp_mask) & ~static_cast<uint32_t>(lane_mask);
    // The thread's slot column: its other bits above, its warp bits below (compressed into the
    // warp's index in its group, placed as said after `spread`).
    llvm::Value* group_warp = compress_bits(b_, tid, static_cast<uint32_t>(warp_mask));
    int64_t area_bytes = 0;
    for (size_t i = 0; i < n; ++i) area_bytes += (std::min(keys_n, chunk) * columns * type_bytes(types[i]) + 15) / 16 * 16;
    const int64_t area = scratch(op, gpu::kReduceAcrossWarps, area_bytes);
    // Vector loads where every chunk's area is 16-byte aligned (a group's first slot is
    // aligned to the group's bytes: its index is a multiple of `group`). A thread reads its
    // whole group when one load of at most 16 bytes holds it, else 8 bytes of it and the
    // lanes exchange the rest by shuffles: fewer values live at once (more warps would
    // mean more registers, where ptxas moves the next global loads up into the shuffles).
    const int64_t start = round_trip_start();
    std::vector<bool> vectorized(n);
    int64_t per_lane = group;  // partials each thread reads
    {
      int64_t chunk_at = 0, slots0 = std::min(keys_n, chunk) * columns;
      for (size_t i = 0; i < n; ++i) {
        const int64_t bytes = type_bytes(types[i]);
        vectorized[i] = (bytes == 4 || bytes == 8) && (start + area + chunk_at) % 16 == 0;
        int64_t reads = 1;
        if (vectorized[i]) reads = group * bytes <= 16 ? group : 8 / bytes;
        per_lane = std::min(per_lane, reads);
        chunk_at += (slots0 * bytes + 15) / 16 * 16;
      }
    }
    // The lowest reduced lane bits, one per halving of the partials a thread reads.
    int spread = 0;
    for (int j = 0, need = group_bits - std::countr_zero(static_cast<uint64_t>(per_lane)); j < 5 && need > 0; ++j) {
      if (lane_mask & (1 << j)) {
        spread |= 1 << j;
        --need;
      }
    }
    if (std::popcount(static_cast<uint32_t>(spread)) !=
        group_bits - std::countr_zero(static_cast<uint64_t>(per_lane))) {
      spread = 0;
      per_lane = group;
    }
    // Triton's order across warps: a butterfly over the warps of a group, the widest stride
    // first ((w0 + w2) + (w1 + w3) for four). With L = group / per_lane lanes sharing the
    // work, lane l reads warps l, l + L, l + 2L, ... (combined by the strides down to L in
    // the thread) and the lanes then exchange the strides below L: so warp w's partial sits
    // at (w % L) * per_lane + w / L of its group.
    const int lane_share_bits = group_bits - std::countr_zero(static_cast<uint64_t>(per_lane));
    llvm::Value* placed = group_warp;
    if (lane_share_bits > 0) {
      const uint32_t low = (1u << lane_share_bits) - 1;
      placed = b_.CreateOr(b_.CreateShl(b_.CreateAnd(group_warp, b_.getInt32(low)),
                                        static_cast<uint64_t>(std::countr_zero(static_cast<uint64_t>(per_lane)))),
                           b_.CreateLShr(group_warp, static_cast<uint64_t>(lane_share_bits)));
    }
    llvm::Value* writer_column = b_.CreateOr(b_.CreateShl(compress_bits(b_, tid, other_mask), group_bits), placed);
    // The first slot this thread reads, made after the barrier (not live across the
    // partials' computation).
    auto lane_column = [&]() {
      llvm::Value* base = b_.CreateAnd(tid, b_.getInt32(~static_cast<uint32_t>(lane_mask | warp_mask)));
      llvm::Value* group_column = b_.CreateShl(compress_bits(b_, base, other_mask), group_bits);
      if (spread == 0) return group_column;
      return b_.CreateOr(group_column, b_.CreateMul(compress_bits(b_, tid, static_cast<uint32_t>(spread)),
                                                    b_.getInt32(static_cast<uint32_t>(per_lane))));
    };
    for (int64_t first = 0; first < keys_n; first += chunk) {
      if (first > 0) barrier();
      int64_t last = std::min(keys_n, first + chunk);
      int64_t slots = (last - first) * columns;
      std::vector<int64_t> chunk_offsets;
      int64_t at = 0;
      for (size_t i = 0; i < n; ++i) {
        chunk_offsets.push_back(at);
        at += (slots * type_bytes(types[i]) + 15) / 16 * 16;
      }
      auto slot = [&](size_t i, int64_t key, llvm::Value* column) {
        llvm::Value* index = b_.CreateAdd(b_.getInt32(static_cast<uint32_t>((key - first) * columns)), column);
        return shared_element_at(area + chunk_offsets[i], types[i], index, slots);
      };
      // Each key's slot at a constant distance from the chunk's first one: one address
      // register and immediate offsets (`[%rd+512]`), not an address per key.
      std::vector<llvm::Value*> column_at, ptrs, stored;
      for (size_t i = 0; i < n; ++i) column_at.push_back(slot(i, first, writer_column));
      for (int64_t k = first; k < last; ++k) {
        for (size_t i = 0; i < n; ++i) {
          ptrs.push_back(b_.CreateConstGEP1_64(types[i], column_at[i], static_cast<uint64_t>((k - first) * columns)));
          stored.push_back(to_storage(partial[k][i]));
        }
      }
      shared_stores_if(writer, ptrs, stored);
      barrier();
      if (read_owned) {
        // Result register r of this thread: its element's row in the input (the element at
        // axis position 0), that element's key (its register, the axis bits clear, as an
        // index among the keys) and its writers' column; the group's partials from there,
        // in slot order, back in warp order (slot (w % L) * per_lane + w / L), combined as
        // the butterfly above combines them.
        const Layout result = layout_of(out_type);
        const int v_bits = log2_exact(layout.vector());
        const int vt_bits = log2_exact(int64_t{layout.vector()} * threads);
        const uint32_t key_bits = static_cast<uint32_t>(layout.num_regs() - 1) & ~static_cast<uint32_t>(reg_mask);
        const int64_t lanes_sharing = int64_t{1} << lane_share_bits;
        for (int r = 0; r < result.num_regs(); ++r) {
          llvm::Value* e = element_index(result, r);
          llvm::Value* e_in = b_.CreateOr(
              b_.CreateShl(b_.CreateLShr(e, static_cast<uint64_t>(axis.inner_bits)),
                           static_cast<uint64_t>(axis.inner_bits + axis.axis_bits)),
              b_.CreateAnd(e, b_.getInt32(static_cast<uint32_t>((int64_t{1} << axis.inner_bits) - 1))));
          llvm::Value* t_in =
              b_.CreateAnd(b_.CreateLShr(e_in, static_cast<uint64_t>(v_bits)), b_.getInt32(static_cast<uint32_t>(threads - 1)));
          llvm::Value* reg_in = b_.CreateOr(b_.CreateShl(b_.CreateLShr(e_in, static_cast<uint64_t>(vt_bits)), static_cast<uint64_t>(v_bits)),
                                            b_.CreateAnd(e_in, b_.getInt32(static_cast<uint32_t>(layout.vector() - 1))));
          llvm::Value* at = b_.CreateAdd(b_.CreateMul(compress_bits(b_, reg_in, key_bits), b_.getInt32(static_cast<uint32_t>(columns))),
                                         b_.CreateShl(compress_bits(b_, t_in, other_mask), static_cast<uint64_t>(group_bits)));
          // A register past the block's end reads slot 0 (its value is never used).
          if (llvm::Value* own = owns(result, r)) at = b_.CreateSelect(own, at, b_.getInt32(0));
          std::vector<std::vector<llvm::Value*>> by_slot(static_cast<size_t>(group));
          for (size_t i = 0; i < n; ++i) {
            llvm::Type* type = element_type(op.operand(static_cast<int>(i))->type());
            const int64_t bytes = type_bytes(types[i]);
            const int64_t vec = vectorized[i] ? std::min<int64_t>(group, 16 / bytes) : 1;
            read_shared_run(types[i], type, group, vec, [&](int64_t j) {
              return slot(i, first, b_.CreateAdd(at, b_.getInt32(static_cast<uint32_t>(j))));
            }, by_slot);
          }
          std::vector<std::vector<llvm::Value*>> by_warp(static_cast<size_t>(group));
          for (int64_t w = 0; w < group; ++w) by_warp[w] = by_slot[(w % lanes_sharing) * per_lane + w / lanes_sharing];
          owned.push_back(combine_strided(op, std::move(by_warp)));
        }
        break;
      }
      llvm::Value* first_column = lane_column();
      for (int64_t k = first; k < last; ++k) {
        // Each thread reads `per_lane` consecutive partials of its group (a vector load of up
        // to 16 bytes where they are 4 or 8 bytes), the lanes that differ in `spread`'s bits
        // (reduced lane bits: the same group) different ones, and combines them; a butterfly
        // over `spread` then gives every lane the group's total. Without enough reduced lane
        // bits, each thread reads and combines the whole group.
        std::vector<std::vector<llvm::Value*>> items(static_cast<size_t>(per_lane));
        for (size_t i = 0; i < n; ++i) {
          llvm::Type* type = element_type(op.operand(static_cast<int>(i))->type());
          const int64_t bytes = type_bytes(types[i]);
          const int64_t vec = vectorized[i] ? std::min<int64_t>(per_lane, 16 / bytes) : 1;
          read_shared_run(types[i], type, per_lane, vec, [&](int64_t j) {
            return slot(i, k, b_.CreateAdd(first_column, b_.getInt32(static_cast<uint32_t>(j))));
          }, items);
        }
        partial[k] = combine_strided(op, std::move(items));
        for (int j = 4; j >= 0; --j) {
          if (!(spread & (1 << j))) continue;
          std::vector<llvm::Value*> other;
          for (llvm::Value* v : partial[k]) other.push_back(shuffle_xor(v, 1 << j));
          partial[k] = combine(op, partial[k], other);
        }
      }
    }
  }

  // 4. Placement. Threads whose thread bits reach past the block hold no element and so no
  // result; everyone else holds the result of every (outer, inner) its keys stand for.
  if (read_owned) {
    for (size_t i = 0; i < n; ++i) {
      Regs out;
      for (const auto& values : owned) out.values.push_back(values[i]);
      set(op.result(static_cast<int>(i)), std::move(out));
    }
    return;
  }
  if (!out_type->is_block()) {
    std::vector<llvm::Value*> values = partial[0];
    if (!masks.every_thread_valid) values = from_thread0(values, scratch(op, gpu::kReduceScalar, 8 * static_cast<int64_t>(n)));
    for (size_t i = 0; i < n; ++i) set(op.result(static_cast<int>(i)), Regs::one(values[i]));
    return;
  }
  Layout result = layout_of(out_type);
  const int64_t inner = int64_t{1} << axis.inner_bits;
  const int64_t axis_len = int64_t{1} << axis.axis_bits;
  int reduced_threads = lane_mask | warp_mask;
  std::optional<std::vector<int>> key_of = gpu::reduce_local_keys(in_type, axis_dim, layout, result, masks);
  std::vector<Regs> out(n);
  if (key_of) {
    for (int r = 0; r < result.num_regs(); ++r) {
      size_t k = static_cast<size_t>(std::find(keys.begin(), keys.end(), (*key_of)[r]) - keys.begin());
      for (size_t i = 0; i < n; ++i) out[i].values.push_back(partial[k][i]);
    }
  } else {
    // Through shared memory, at the result's flat index (the op's second buffer).
    int64_t result_n = result.num_elements();
    std::vector<int64_t> result_offsets;
    int64_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      at = (at + 15) / 16 * 16;
      result_offsets.push_back(at);
      at += result_n * type_bytes(types[i]);
    }
    const int64_t placed = scratch(op, gpu::kReducePlacement, at);
    for (int64_t& offset : result_offsets) offset += placed;
    llvm::Value* representative =
        b_.CreateICmpEQ(b_.CreateAnd(tid, b_.getInt32(static_cast<uint32_t>(reduced_threads))), b_.getInt32(0));
    for (int64_t k = 0; k < keys_n; ++k) {
      llvm::Value* e = element_index(layout, keys[k]);  // its axis position is 0
      llvm::Value* e_out = b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(axis_len * inner))),
                                                     b_.getInt32(static_cast<uint32_t>(inner))),
                                        b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(inner))));
      // A branch around plain stores here: their addresses (the result's flat index) are
      // no constant distance apart when they are made, and as operands of predicated
      // inline PTX each would be one more live address (LLVM folds plain stores' into one
      // base and immediate offsets).
      guarded(and_pred(representative, owns(layout, keys[k])), [&]() -> llvm::Value* {
        for (size_t i = 0; i < n; ++i) {
          b_.CreateStore(to_storage(partial[k][i]), shared_element_at(result_offsets[i], types[i], e_out, result_n));
        }
        return nullptr;
      });
    }
    barrier();
    for (int r = 0; r < result.num_regs(); ++r) {
      llvm::Value* e = element_index(result, r);
      for (size_t i = 0; i < n; ++i) {
        llvm::Type* type = element_type(op.operand(static_cast<int>(i))->type());
        out[i].values.push_back(guarded(owns(result, r), [&]() -> llvm::Value* {
          return from_storage(b_.CreateLoad(types[i], shared_element_at(result_offsets[i], types[i], e, result_n)), type);
        }));
      }
    }
  }
  for (size_t i = 0; i < n; ++i) set(op.result(static_cast<int>(i)), std::move(out[i]));
}

void Emitter::emit_scan(const ir::Op& op) {
  const ir::Type* type = op.operand(0)->type();
  const size_t n = static_cast<size_t>(op.num_operands());
  const bool reverse = op.int_attr("reverse") != 0;
  Layout layout = layout_of(type);
  ir::LinearLayout linear = ir::LinearLayout::flat(type->shape(), layout.threads(), layout.vector());
  AxisBits axis = axis_bits(type, op.int_attr("axis"));
  const int regs = layout.num_regs();
  // The op's buffer, reused by every level and chunk across warps: a barrier before each
  // reuse (after the previous reads), none after the last.
  bool scratch_used = false;
  // prefix[r][i] and total[r][i]: the scan so far and the total of the element's run.
  std::vector<std::vector<llvm::Value*>> prefix(regs), total;
  for (size_t i = 0; i < n; ++i) {
    Regs in = materialize(get(op.operand(static_cast<int>(i))), type);
    for (int r = 0; r < regs; ++r) prefix[r].push_back(in.at(r));
  }
  total = prefix;
  std::vector<llvm::Type*> types;
  for (size_t i = 0; i < n; ++i) types.push_back(stored_type(element_type(op.operand(static_cast<int>(i))->type())));
  llvm::Value* tid = thread_id();
  // carry[r]: the partners' totals gathered over the levels after the in-thread runs, where
  // has_carry[r] (i1) says it holds any.
  std::vector<std::vector<llvm::Value*>> carry(regs);
  std::vector<llvm::Value*> has_carry(regs, nullptr);
  // After levels across lanes by shfl.up (scan_shfl_up_) that a round across warps follows:
  // only the lanes with these thread bits set hold the run totals, so the round reads the
  // totals from their slots (-1: every lane holds them).
  int64_t totals_lane = -1;
  uint32_t totals_lane_mask = 0;

  // The lowest levels whose partners are registers of the same thread: each run of
  // registers they span (consecutive elements along the axis) is scanned in order, one
  // combine per element (the levels would take one per element and level, and more for the
  // totals), and its last prefix in scan order is the run's total.
  int first_level = axis.inner_bits;
  std::vector<int> run_bits;  // the register bit of each such level, low to high
  for (; first_level < axis.inner_bits + axis.axis_bits; ++first_level) {
    int bit = -1;
    for (int j = 0; j < linear.in_bits(ir::LinearLayout::kRegister); ++j) {
      if (linear.basis(ir::LinearLayout::kRegister, j) == int64_t{1} << first_level) bit = j;
    }
    if (bit < 0) break;
    run_bits.push_back(bit);
  }
  if (!run_bits.empty()) {
    int run_mask = 0;
    for (int bit : run_bits) run_mask |= 1 << bit;
    const int run = 1 << run_bits.size();
    for (int r0 = 0; r0 < regs; ++r0) {
      if (r0 & run_mask) continue;
      // The run's registers by position along the axis.
      std::vector<int> at(static_cast<size_t>(run));
      for (int p = 0; p < run; ++p) {
        int r = r0;
        for (size_t k = 0; k < run_bits.size(); ++k) {
          if (p & (1 << k)) r |= 1 << run_bits[k];
        }
        at[static_cast<size_t>(p)] = r;
      }
      if (reverse) std::reverse(at.begin(), at.end());
      for (int p = 1; p < run; ++p) prefix[at[p]] = combine(op, prefix[at[p - 1]], prefix[at[p]]);
      for (int p = 0; p < run; ++p) total[at[p]] = prefix[at[run - 1]];
    }
  }

  for (int level = first_level; level < axis.inner_bits + axis.axis_bits; ++level) {
    // The partner's run total, per register: the element with bit `level` flipped.
    std::vector<std::vector<llvm::Value*>> partner(regs);
    // Where `takes`, the partner's total joins register r's carry as its left operand (the
    // partner's elements come first in scan order).
    auto take_into_carry = [&](int r, llvm::Value* takes) {
      if (carry[r].empty()) {
        carry[r] = partner[r];
        has_carry[r] = takes;
        return;
      }
      std::vector<llvm::Value*> with_partner = combine(op, partner[r], carry[r]);
      for (size_t i = 0; i < n; ++i) {
        carry[r][i] =
            b_.CreateSelect(takes, b_.CreateSelect(has_carry[r], with_partner[i], partner[r][i]), carry[r][i]);
      }
      has_carry[r] = b_.CreateOr(has_carry[r], takes);
    };
    llvm::Value* upper = nullptr;  // per thread: whether this thread's elements have the bit set
    std::vector<bool> reg_upper(regs, false);
    int reg_bit = -1, thread_bit = -1;
    // The input bit that moves exactly this bit of the flat index (lanes then warps as
    // thread-index bits).
    for (int j = 0; j < linear.in_bits(ir::LinearLayout::kRegister); ++j) {
      if (linear.basis(ir::LinearLayout::kRegister, j) == int64_t{1} << level) reg_bit = j;
    }
    for (int j = 0; j < linear.in_bits(ir::LinearLayout::kLane); ++j) {
      if (linear.basis(ir::LinearLayout::kLane, j) == int64_t{1} << level) thread_bit = j;
    }
    for (int j = 0; j < linear.in_bits(ir::LinearLayout::kWarp); ++j) {
      if (linear.basis(ir::LinearLayout::kWarp, j) == int64_t{1} << level) thread_bit = 5 + j;
    }
    // Registers whose elements differ only in the axis's bits below `level` lie in one run:
    // their totals are the same values (each level combines a run's halves in one order), so
    // across threads one register of each such class is exchanged for all (V times fewer
    // shuffles, and fewer bytes and rounds through shared memory). Bits below the axis
    // (inner dimensions) are other scans, with other totals.
    int low_reg_bits = 0;
    for (int j = 0; j < linear.in_bits(ir::LinearLayout::kRegister); ++j) {
      int64_t basis = linear.basis(ir::LinearLayout::kRegister, j);
      if (basis >= (int64_t{1} << axis.inner_bits) && basis < (int64_t{1} << level)) low_reg_bits |= 1 << j;
    }
    auto exchanged = [&](int r) { return (r & low_reg_bits) == 0; };
    auto share = [&]() {
      for (int r = 0; r < regs; ++r) {
        if (!exchanged(r)) partner[r] = partner[r & ~low_reg_bits];
      }
    };
    if (reg_bit >= 0) {
      for (int r = 0; r < regs; ++r) {
        partner[r] = total[r ^ (1 << reg_bit)];
        reg_upper[r] = (r >> reg_bit) & 1;
      }
    } else if (thread_bit >= 0 && thread_bit < 5 && scan_shfl_up_) {
      // This level and the next ones across consecutive lane bits at once, as an inclusive
      // scan of the run totals over the group's lanes by shfl.up (shfl.down reversed): at
      // distance d, a lane at position p >= d combines the value d lanes before it (its
      // left operand: it comes first). One shuffle and combine per level and run (the
      // butterfly takes two combines and selects for the carry and the total); one more
      // shuffle gives the exclusive prefix, the carry's part from these levels.
      int k = 1;
      const int end = axis.inner_bits + axis.axis_bits;
      while (level + k < end && thread_bit + k < 5 &&
             linear.in_bits(ir::LinearLayout::kLane) > thread_bit + k &&
             linear.basis(ir::LinearLayout::kLane, thread_bit + k) == int64_t{1} << (level + k)) {
        ++k;
      }
      const uint32_t width = 1u << k;
      const uint32_t lanes = (width - 1) << thread_bit;
      llvm::Value* pos = b_.CreateAnd(b_.CreateLShr(tid, b_.getInt32(static_cast<uint32_t>(thread_bit))), b_.getInt32(width - 1));
      const unsigned shfl = reverse ? llvm::Intrinsic::nvvm_shfl_sync_down_i32 : llvm::Intrinsic::nvvm_shfl_sync_up_i32;
      const uint32_t clamp = reverse ? 0x1f : 0;
      std::vector<std::vector<llvm::Value*>> inclusive(regs);
      for (int r = 0; r < regs; ++r) {
        if (!exchanged(r)) continue;
        std::vector<llvm::Value*> inc = total[r];
        for (uint32_t d = 1; d < width; d <<= 1) {
          std::vector<llvm::Value*> other;
          for (llvm::Value* v : inc) other.push_back(shuffle_lanes(v, shfl, b_.getInt32(d << thread_bit), clamp));
          llvm::Value* valid = reverse ? b_.CreateICmpULT(pos, b_.getInt32(width - d)) : b_.CreateICmpUGE(pos, b_.getInt32(d));
          std::vector<llvm::Value*> joined = combine(op, other, inc);
          for (size_t i = 0; i < n; ++i) inc[i] = b_.CreateSelect(valid, joined[i], inc[i]);
        }
        for (llvm::Value* v : inc) partner[r].push_back(shuffle_lanes(v, shfl, b_.getInt32(1u << thread_bit), clamp));
        inclusive[r] = std::move(inc);
      }
      share();
      for (int r = 0; r < regs; ++r) {
        if (!exchanged(r)) inclusive[r] = inclusive[r & ~low_reg_bits];
      }
      llvm::Value* takes = reverse ? b_.CreateICmpNE(pos, b_.getInt32(width - 1)) : b_.CreateICmpNE(pos, b_.getInt32(0));
      for (int r = 0; r < regs; ++r) take_into_carry(r, takes);
      // The run's total after these levels: the inclusive value of the group's last lane in
      // scan order. A round across warps next reads it from that lane's slot; any other
      // level takes it by shfl.idx; after the last level it is not needed.
      const int next = level + k;
      bool warps_next = false;
      for (int j = 0; j < linear.in_bits(ir::LinearLayout::kWarp); ++j) {
        if (next < end && linear.basis(ir::LinearLayout::kWarp, j) == int64_t{1} << next) warps_next = true;
      }
      if (warps_next) {
        totals_lane = reverse ? 0 : lanes;
        totals_lane_mask = lanes;
        total = inclusive;
      } else if (next < end) {
        llvm::Value* source = b_.CreateAnd(tid, b_.getInt32(31u & ~lanes));
        if (!reverse) source = b_.CreateOr(source, b_.getInt32(lanes));
        for (int r = 0; r < regs; ++r) {
          if (!exchanged(r)) continue;
          total[r].clear();
          for (llvm::Value* v : inclusive[r]) {
            total[r].push_back(shuffle_lanes(v, llvm::Intrinsic::nvvm_shfl_sync_idx_i32, source, 0x1f));
          }
        }
        for (int r = 0; r < regs; ++r) {
          if (!exchanged(r)) total[r] = total[r & ~low_reg_bits];
        }
      }
      level += k - 1;
      continue;
    } else if (thread_bit >= 0 && thread_bit < 5) {
      for (int r = 0; r < regs; ++r) {
        if (!exchanged(r)) continue;
        for (llvm::Value* v : total[r]) partner[r].push_back(shuffle_xor(v, 1 << thread_bit));
      }
      share();
      upper = b_.CreateICmpNE(b_.CreateAnd(tid, b_.getInt32(1u << thread_bit)), b_.getInt32(0));
    } else if (thread_bit >= 0) {
      // Across warps: this level and the next ones across warps at once (they are
      // consecutive: the flat index gives the warp bits consecutive bits). Each thread's run
      // totals go to slot (register, thread), the thread index with those warp bits lowest,
      // in one round; each thread then reads its group's G totals (the threads differing
      // only in those bits: consecutive slots, vector loads) and, in scan order, combines
      // the totals of the warps before its own (its carry's part from these levels) and
      // all of them (its run's total after them).
      std::vector<int> warp_bits{thread_bit};
      while (level + static_cast<int>(warp_bits.size()) < axis.inner_bits + axis.axis_bits) {
        int next = -1;
        for (int j = 0; j < linear.in_bits(ir::LinearLayout::kWarp); ++j) {
          if (linear.basis(ir::LinearLayout::kWarp, j) == int64_t{1} << (level + static_cast<int>(warp_bits.size()))) {
            next = 5 + j;
          }
        }
        if (next < 0 || next <= warp_bits.back()) break;
        warp_bits.push_back(next);
      }
      const int m = static_cast<int>(warp_bits.size());
      const int group = 1 << m;
      uint32_t warp_mask = 0;
      for (int bit : warp_bits) warp_mask |= 1u << bit;
      const int64_t threads = layout.threads();
      const uint32_t other_mask = static_cast<uint32_t>(threads - 1) & ~warp_mask;
      // The thread's position in its group, in scan order's bits (the levels low to high).
      llvm::Value* position = compress_bits(b_, tid, warp_mask);
      llvm::Value* column = b_.CreateOr(b_.CreateShl(compress_bits(b_, tid, other_mask), m), position);
      // Where the levels before were across lanes by shfl.up, one lane of each group holds
      // the totals: read its slots.
      llvm::Value* totals_tid = tid;
      if (totals_lane >= 0) {
        totals_tid = b_.CreateOr(b_.CreateAnd(tid, b_.getInt32(~totals_lane_mask)),
                                 b_.getInt32(static_cast<uint32_t>(totals_lane)));
        totals_lane = -1;
      }
      llvm::Value* group_column = b_.CreateShl(compress_bits(b_, totals_tid, other_mask), m);
      int64_t per_reg = 0;
      for (size_t i = 0; i < n; ++i) per_reg += (type_bytes(types[i]) + 15) / 16 * 16 * threads;
      int chunk = static_cast<int>(std::max<int64_t>(1, kScratchBytes / per_reg));
      std::vector<int> reps;  // the exchanged registers, each with its slot column
      for (int r = 0; r < regs; ++r) {
        if (exchanged(r)) reps.push_back(r);
      }
      // Whether some warp of the group comes before this thread's in scan order.
      llvm::Value* takes = reverse ? b_.CreateICmpNE(position, b_.getInt32(static_cast<uint32_t>(group - 1)))
                                   : b_.CreateICmpNE(position, b_.getInt32(0));
      std::vector<std::vector<llvm::Value*>> group_total(regs);
      const int count = static_cast<int>(reps.size());
      const int64_t start = round_trip_start();
      for (int first = 0; first < count; first += chunk) {
        int last = std::min(count, first + chunk);
        int64_t slots = int64_t{last - first} * threads;
        std::vector<int64_t> offsets;
        int64_t at = 0;
        for (size_t i = 0; i < n; ++i) {
          offsets.push_back(at);
          at += (slots * type_bytes(types[i]) + 15) / 16 * 16;
        }
        const int64_t area = scratch(op, 0, at);
        for (int64_t& offset : offsets) offset += area;
        if (scratch_used) barrier();
        scratch_used = true;
        auto slot = [&](size_t i, int k, llvm::Value* col) {
          llvm::Value* index = b_.CreateAdd(b_.getInt32(static_cast<uint32_t>((k - first) * threads)), col);
          return shared_element_at(offsets[i], types[i], index, slots);
        };
        for (int k = first; k < last; ++k) {
          for (size_t i = 0; i < n; ++i) b_.CreateStore(to_storage(total[reps[k]][i]), slot(i, k, column));
        }
        barrier();
        for (int k = first; k < last; ++k) {
          // totals[j]: the run total of the group's warp at position j.
          std::vector<std::vector<llvm::Value*>> totals(static_cast<size_t>(group));
          for (size_t i = 0; i < n; ++i) {
            llvm::Type* element = element_type(op.operand(static_cast<int>(i))->type());
            const int64_t bytes = type_bytes(types[i]);
            int64_t vec = 1;
            if ((bytes == 4 || bytes == 8) && (start + offsets[i]) % 16 == 0)
              vec = std::min<int64_t>(group, 16 / bytes);
            read_shared_run(types[i], element, group, vec, [&](int64_t j) {
              return slot(i, k, b_.CreateAdd(group_column, b_.getInt32(static_cast<uint32_t>(j))));
            }, totals);
          }
          // before[j]: the totals of the warps before position j, in scan order (none for
          // the first: its slot holds any value, `takes` is false there).
          std::vector<std::vector<llvm::Value*>> before(static_cast<size_t>(group));
          if (!reverse) {
            before[0] = totals[0];
            if (group > 1) before[1] = totals[0];
            for (int j = 2; j < group; ++j) before[j] = combine(op, before[j - 1], totals[j - 1]);
            group_total[reps[k]] = group > 1 ? combine(op, before[group - 1], totals[group - 1]) : totals[0];
          } else {
            before[group - 1] = totals[group - 1];
            if (group > 1) before[group - 2] = totals[group - 1];
            for (int j = group - 3; j >= 0; --j) before[j] = combine(op, before[j + 1], totals[j + 1]);
            group_total[reps[k]] = group > 1 ? combine(op, before[0], totals[0]) : totals[0];
          }
          // This thread's: before[position], by a tree of selects on the position's bits.
          for (int bit = 0; (1 << bit) < group; ++bit) {
            llvm::Value* set = b_.CreateICmpNE(b_.CreateAnd(position, b_.getInt32(1u << bit)), b_.getInt32(0));
            std::vector<std::vector<llvm::Value*>> next;
            for (size_t j = 0; j + 1 < before.size(); j += 2) {
              std::vector<llvm::Value*> pick(n);
              for (size_t i = 0; i < n; ++i) pick[i] = b_.CreateSelect(set, before[j + 1][i], before[j][i]);
              next.push_back(std::move(pick));
            }
            before = std::move(next);
          }
          partner[reps[k]] = before[0];
        }
      }
      share();
      for (int r = 0; r < regs; ++r) {
        if (!exchanged(r)) group_total[r] = group_total[r & ~low_reg_bits];
      }
      // The carry takes the warps' part (its left operand: it comes first); the run's total
      // is the group's.
      for (int r = 0; r < regs; ++r) {
        take_into_carry(r, takes);
        total[r] = group_total[r];
      }
      level += m - 1;
      continue;
    } else {
      internal_error("nvptx", "no register or thread bit for bit " + std::to_string(level) + " of a scan", op.loc());
    }
    // The lower half of a run comes first: forward, the upper half takes the lower total;
    // reversed, the lower half takes the upper total. What a register takes is gathered in
    // its carry (the same value for every register of the thread's run, so computed once per
    // run, not once per register), which joins the prefix at the end.
    for (int r = 0; r < regs; ++r) {
      llvm::Value* is_upper = upper ? upper : b_.getInt1(reg_upper[r]);
      llvm::Value* takes = reverse ? b_.CreateNot(is_upper) : is_upper;
      // A register level takes for some registers only (a constant).
      if (upper || (reverse ? !reg_upper[r] : reg_upper[r])) take_into_carry(r, takes);
      std::vector<llvm::Value*> lower(n), higher(n);
      for (size_t i = 0; i < n; ++i) {
        lower[i] = b_.CreateSelect(is_upper, partner[r][i], total[r][i]);
        higher[i] = b_.CreateSelect(is_upper, total[r][i], partner[r][i]);
      }
      // The run's total: lower then upper forward, upper then lower reversed.
      total[r] = reverse ? combine(op, higher, lower) : combine(op, lower, higher);
    }
  }
  for (int r = 0; r < regs; ++r) {
    if (carry[r].empty()) continue;
    std::vector<llvm::Value*> with_carry = combine(op, carry[r], prefix[r]);
    for (size_t i = 0; i < n; ++i) prefix[r][i] = b_.CreateSelect(has_carry[r], with_carry[i], prefix[r][i]);
  }
  for (size_t i = 0; i < n; ++i) {
    Regs out;
    for (int r = 0; r < regs; ++r) out.values.push_back(prefix[r][i]);
    set(op.result(static_cast<int>(i)), std::move(out));
  }
}

}  // namespace tritium::nvptx

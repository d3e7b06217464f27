// convert_layout (gpu/conversion.h's plan: nothing, a register permutation, recomputation
// at the new elements, or one round trip through the op's padded shared-memory buffer), and
// loads and stores whose layout slot is not the flat rule (gpu/coalesce.h): V consecutive
// registers of the slot's layout are V consecutive elements along its fastest axis, which
// the axis facts say are consecutive and aligned in memory: one vector access each.
#include <algorithm>
#include <map>

#include <llvm/IR/Constants.h>

#include "gpu/conversion.h"
#include "ir/layout.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::LinearLayout;

llvm::Value* Emitter::slot_thread_part(const LinearLayout& l) {
  llvm::Value* tid = thread_id();
  llvm::Value* e = b_.getInt32(0);
  auto add_bits = [&](LinearLayout::InDim dim, int first_tid_bit) {
    for (int b = 0; b < l.in_bits(dim); ++b) {
      int64_t basis = l.basis(dim, b);
      if (basis == 0) continue;  // replicated along this bit
      llvm::Value* bit = b_.CreateAnd(b_.CreateLShr(tid, b_.getInt32(static_cast<uint32_t>(first_tid_bit + b))), b_.getInt32(1));
      e = b_.CreateXor(e, b_.CreateMul(bit, b_.getInt32(static_cast<uint32_t>(basis))));
    }
  };
  add_bits(LinearLayout::kLane, 0);
  add_bits(LinearLayout::kWarp, 5);
  return e;
}

int Emitter::slot_vector(const ir::Layout* layout) {
  if (layout == nullptr || layout->kind() != ir::Layout::Kind::Blocked) return 1;
  return layout->size_per_thread()[layout->order()[0]];
}

const Regs& Emitter::slot_operand(const ir::Op& op, const ir::Value* value, const LinearLayout& l) {
  const Regs& regs = get(value);
  if (regs.uniform || !value->type()->is_block()) return regs;
  if (!(gpu::held_layout(value, widths_, threads_) == l)) {
    internal_error("nvptx", std::string("an operand of '") + op.name() + "' is not in the access's layout", op.loc());
  }
  return regs;
}

bool Emitter::staged_by_dots(const ir::Op& convert) const {
  // The fragment plan and the asynchronous copies never hold such a conversion (its source
  // is a load's chain, its readers dots): allocate_shared gave it no buffer.
  const ir::Value* result = convert.result();
  if (!gpu::staged_by_dots(convert, widths_, threads_)) return false;
  if (frags_.layout(result) != nullptr || async_.carried.count(result) != 0) {
    internal_error("nvptx", "a dot operand staged from a slot is held elsewhere", convert.loc());
  }
  return true;
}

bool Emitter::slot_runs_down(const ir::Value* operand) const {
  const ir::Op* def = operand->def();
  if (def == nullptr || def->kind() != ir::OpKind::ConvertLayout || operand->type()->rank() != 2 ||
      !staged_by_dots(*def)) {
    return false;
  }
  const LinearLayout l = gpu::held_layout(def->operand(0), widths_, threads_);
  return l.in_bits(LinearLayout::kRegister) > 0 && l.basis(LinearLayout::kRegister, 0) == operand->type()->shape().back();
}

void Emitter::stage_slot(const ir::Value* value, int64_t byte_offset, const SharedTile& tile, llvm::Type* stored,
                         const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed) {
  const ir::Value* source = value->def()->operand(0);
  stage_held(source, get(source), byte_offset, tile, stored, convert, transposed);
}

void Emitter::stage_held(const ir::Value* source, const Regs& regs, int64_t byte_offset, const SharedTile& tile,
                         llvm::Type* stored, const std::function<llvm::Value*(llvm::Value*)>& convert, bool transposed) {
  // Element e of the block goes to row e / cols, column e % cols of the tile (stage_rows'
  // rows, batches one after another; `transposed`: row e % cols, column e / cols); the
  // registers (of the layout `source` is held in: a slot, or the flat one) are elements of
  // any axis, each stored where it goes. A replicated element is written by each of its
  // holders, the same bits.
  const LinearLayout l = gpu::held_layout(source, widths_, threads_);
  const int64_t cols = source->type()->shape().back();
  const int64_t count = l.in_size(LinearLayout::kRegister);
  // Where the register bits and the lane and warp bits of the flat index are disjoint (a
  // blocked slot), e = thread part | register part, and with power-of-two sides a tile's
  // byte offset is the thread part's combined with the register part's: their sum in a
  // padded tile (row and column each a sum), their exclusive or in a swizzled one (its
  // offset is linear over the index bits, SharedTile::offset). So each store is one
  // per-thread base plus a constant ([base+offset]) instead of an address of its own (which
  // LLVM hoists out of a loop, one live register pair per element: a 1-warp dot's 16 x 64
  // operand held ~50 registers of addresses). In a swizzled tile, the register part's bits
  // that some thread part may also have are folded into the base (one base per value of
  // them, few: the swizzle's 3 bits at most), the rest added. Runs of registers at
  // consecutive, aligned bytes are one vector store (a swizzle keeps 16-byte chunks whole).
  int64_t reg_bits = 0, thread_bits = 0;
  for (int b = 0; b < l.in_bits(LinearLayout::kRegister); ++b) reg_bits |= l.basis(LinearLayout::kRegister, b);
  std::vector<int64_t> thread_bases;
  for (auto dim : {LinearLayout::kLane, LinearLayout::kWarp}) {
    for (int b = 0; b < l.in_bits(dim); ++b) {
      thread_bits |= l.basis(dim, b);
      if (l.basis(dim, b) != 0) thread_bases.push_back(l.basis(dim, b));
    }
  }
  auto pow2 = [](int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  const bool swizzled = tile.swizzle != 0;
  if (!pow2(cols) || !pow2(source->type()->num_elements()) || (reg_bits & thread_bits) != 0 ||
      (swizzled && !pow2(tile.rows))) {
    llvm::Value* part = slot_thread_part(l);
    for (int64_t r = 0; r < count; ++r) {
      llvm::Value* e = b_.CreateXor(part, b_.getInt32(static_cast<uint32_t>(l.apply(r, 0, 0))));
      llvm::Value* row = b_.CreateUDiv(e, b_.getInt32(static_cast<uint32_t>(cols)));
      llvm::Value* col = b_.CreateURem(e, b_.getInt32(static_cast<uint32_t>(cols)));
      if (transposed) std::swap(row, col);
      b_.CreateStore(convert(regs.at(static_cast<int>(r))), tile_element(byte_offset, tile, stored, row, col));
    }
    return;
  }
  const int shift = log2_exact(cols);
  const int64_t bytes = type_bytes(stored);
  // The tile byte offset of a flat index, as a constant.
  auto offset_of = [&](int64_t e) {
    int64_t row = e >> shift, col = e & (cols - 1);
    if (transposed) std::swap(row, col);
    return tile.offset(row, col);
  };
  // The bits a thread part's offset may have, and the alignment every one has.
  int64_t thread_mask = 0, thread_align = 16;
  for (int64_t basis : thread_bases) {
    const int64_t o = offset_of(basis);
    thread_mask |= o;
    while (thread_align > bytes && o % thread_align != 0) thread_align /= 2;
  }
  while (thread_align > bytes && byte_offset % thread_align != 0) thread_align /= 2;
  llvm::Value* part = slot_thread_part(l);
  llvm::Value* row = b_.CreateLShr(part, b_.getInt32(static_cast<uint32_t>(shift)));
  llvm::Value* col = b_.CreateAnd(part, b_.getInt32(static_cast<uint32_t>(cols - 1)));
  if (transposed) std::swap(row, col);
  llvm::Value* thread_offset = tile_offset(tile, row, col);
  // Register r's byte: base(hi) + lo, hi the bits shared with thread parts (swizzled only).
  auto split = [&](int64_t r) {
    const int64_t o = offset_of(l.apply(r, 0, 0));
    return swizzled ? std::pair<int64_t, int64_t>{o & thread_mask, o & ~thread_mask} : std::pair<int64_t, int64_t>{0, o};
  };
  std::map<int64_t, llvm::Value*> bases;
  auto base_of = [&](int64_t hi) {
    auto it = bases.find(hi);
    if (it != bases.end()) return it->second;
    llvm::Value* v = hi == 0 ? thread_offset : b_.CreateXor(thread_offset, b_.getInt32(static_cast<uint32_t>(hi)));
    return bases[hi] = v;
  };
  // Registers by where they go: a run is `group` registers (any of them, in any order: a
  // slot holding a few elements along each axis) at consecutive bytes from an aligned one.
  std::map<std::pair<int64_t, int64_t>, int64_t> at_byte;  // (base, byte) -> register
  for (int64_t r = 0; r < count; ++r) at_byte.emplace(split(r), r);
  std::vector<bool> stored_yet(static_cast<size_t>(count), false);
  for (int64_t r = 0; r < count; ++r) {
    if (stored_yet[static_cast<size_t>(r)]) continue;
    const auto [hi, lo] = split(r);
    int64_t group = thread_align / bytes;
    std::vector<int64_t> run;
    for (; group > 1; group /= 2) {
      run.clear();
      const int64_t first = lo / (group * bytes) * (group * bytes);
      for (int64_t i = 0; i < group; ++i) {
        auto it = at_byte.find({hi, first + i * bytes});
        if (it == at_byte.end() || stored_yet[static_cast<size_t>(it->second)]) break;
        run.push_back(it->second);
      }
      if (static_cast<int64_t>(run.size()) == group) break;
    }
    if (group == 1) run = {r};
    const int64_t start = split(run[0]).second;
    llvm::Value* at = b_.CreateAdd(base_of(hi), b_.getInt32(static_cast<uint32_t>(start)));
    llvm::Value* ptr = shared_element_at(byte_offset, b_.getInt8Ty(), at, tile.bytes());
    for (int64_t reg : run) stored_yet[static_cast<size_t>(reg)] = true;
    if (group == 1) {
      b_.CreateAlignedStore(convert(regs.at(static_cast<int>(r))), ptr, llvm::Align(static_cast<uint64_t>(bytes)));
      continue;
    }
    llvm::Value* vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(stored, static_cast<unsigned>(group)));
    for (int64_t i = 0; i < group; ++i) {
      llvm::Value* v = convert(regs.at(static_cast<int>(run[static_cast<size_t>(i)])));
      vec = b_.CreateInsertElement(vec, v, b_.getInt32(static_cast<uint32_t>(i)));
    }
    b_.CreateAlignedStore(vec, ptr, llvm::Align(static_cast<uint64_t>(group * bytes)));
  }
}

void Emitter::emit_convert_layout(const ir::Op& op) {
  // A copied load made in its slot: its value is the stage buffer's offset (async_copy.h).
  if (async_.passes_handle(op)) return set(op.result(), get(op.operand(0)));
  if (staged_by_dots(op)) return;  // the dot stages the source (stage_slot)
  const ir::Value* in = op.operand(0);
  const ir::Type* type = in->type();
  gpu::ConvertPlan plan = gpu::plan_convert(op, widths_, threads_);
  const bool planned = has_scratch(op);
  // A source in fragments (a dot's result stored column-major: coalesce.cpp) is read as
  // fragments (FragmentPlan: a conversion reads them): each register written to its
  // element's slot of the round trip; where the plan has none, the flat rule's copy.
  const FragmentLayout* fragments = frags_.layout(in);
  const bool from_fragments = fragments != nullptr && !fragments->rows && plan.kind == gpu::ConvertPlan::Kind::kShared && planned;
  if (fragments != nullptr && !from_fragments && values_.count(in) == 0) {
    set(in, fragment_to_flat(in, *fragments, fragment_operand(in, *fragments, op)));
  }
  const Regs& source = from_fragments ? fragment_operand(in, *fragments, op) : get(in);
  if (!planned && (plan.kind == gpu::ConvertPlan::Kind::kIdentity || plan.kind == gpu::ConvertPlan::Kind::kUniform || source.uniform)) {
    set(op.result(), source);
    return;
  }
  const bool from_slot = gpu::held_in_slot(in, widths_, threads_);
  const bool to_slot = gpu::held_in_slot(op.result(), widths_, threads_);
  const LinearLayout to = gpu::held_layout(op.result(), widths_, threads_);
  if (plan.kind == gpu::ConvertPlan::Kind::kRegisters) {
    Regs out;
    for (int r : plan.source_reg) out.values.push_back(source.at(r));
    set(op.result(), std::move(out));
    return;
  }
  if (plan.kind == gpu::ConvertPlan::Kind::kRecompute) {
    // Only into a slot layout (conversion.cpp): every register holds an element.
    llvm::Value* part = slot_thread_part(to);
    Regs out;
    for (int64_t r = 0; r < to.in_size(LinearLayout::kRegister); ++r) {
      std::unordered_map<const ir::Value*, llvm::Value*> memo;
      llvm::Value* e = b_.CreateXor(part, b_.getInt32(static_cast<uint32_t>(to.apply(r, 0, 0))));
      out.values.push_back(recompute(in, e, memo));
    }
    set(op.result(), std::move(out));
    return;
  }
  if (plan.kind != gpu::ConvertPlan::Kind::kShared || !planned) {
    internal_error("nvptx", "a conversion allocate_shared and the emitter plan differently", op.loc());
  }
  // The round trip: every source register to its element's slot, a barrier, every result
  // register from its element's slot (the flat rule's unowned registers skip both).
  llvm::Type* element = element_type(type);
  llvm::Type* stored = stored_type(element);
  const int64_t n = type->num_elements();
  const int64_t slots = n + (n / plan.row) * plan.pad;
  const int64_t base = scratch(op, 0, slots * type_bytes(stored));
  const int row_bits = log2_exact(plan.row);
  auto slot_of = [&](llvm::Value* e) -> llvm::Value* {
    if (plan.pad == 0) return e;
    llvm::Value* rows = b_.CreateLShr(e, b_.getInt32(static_cast<uint32_t>(row_bits)));
    return b_.CreateAdd(e, b_.CreateMul(rows, b_.getInt32(static_cast<uint32_t>(plan.pad))));
  };
  // Each side: (element index, ownership) per register.
  auto each_register = [&](bool slot, const LinearLayout& l, const std::function<void(int, llvm::Value*, llvm::Value*)>& fn) {
    if (slot) {
      llvm::Value* part = slot_thread_part(l);
      for (int64_t r = 0; r < l.in_size(LinearLayout::kRegister); ++r) {
        fn(static_cast<int>(r), b_.CreateXor(part, b_.getInt32(static_cast<uint32_t>(l.apply(r, 0, 0)))), nullptr);
      }
      return;
    }
    Layout flat = layout_of(type);
    for (int r = 0; r < flat.num_regs(); ++r) fn(r, element_index(flat, r), owns(flat, r));
  };
  auto write = [&](int r, llvm::Value* e, llvm::Value* owned) {
    llvm::Value* value = source.at(r);
    guarded(owned, [&]() -> llvm::Value* {
      b_.CreateStore(to_storage(value), shared_element_at(base, stored, slot_of(e), slots));
      return nullptr;
    });
  };
  if (from_fragments && plan.read_run > 1) {
    // Rows padded by 16 bytes (plan_convert): the slots of a row are a padded tile's, which
    // takes a fragment's column pairs as one store each.
    store_fragment_rows(*fragments, source, base, plan.row + plan.pad, stored);
  } else if (from_fragments) {
    for (int r = 0; r < fragments->num_regs(); ++r) write(r, fragment_element(*fragments, r), nullptr);
  } else {
    each_register(from_slot, gpu::held_layout(in, widths_, threads_), write);
  }
  barrier();
  Regs out;
  if (to_slot && plan.read_run > 1) {
    // Runs of consecutive elements of a row (gpu/conversion.cpp's row_run), each one vector.
    const int64_t g = plan.read_run;
    auto* run_type = llvm::FixedVectorType::get(stored, static_cast<unsigned>(g));
    llvm::Value* part = slot_thread_part(to);
    for (int64_t r = 0; r < to.in_size(LinearLayout::kRegister); r += g) {
      llvm::Value* e = b_.CreateXor(part, b_.getInt32(static_cast<uint32_t>(to.apply(r, 0, 0))));
      llvm::Value* run = b_.CreateAlignedLoad(run_type, shared_element_at(base, stored, slot_of(e), slots),
                                              llvm::Align(static_cast<uint64_t>(g * type_bytes(stored))));
      for (int64_t i = 0; i < g; ++i) out.values.push_back(from_storage(b_.CreateExtractElement(run, static_cast<uint64_t>(i)), element));
    }
    set(op.result(), std::move(out));
    return;
  }
  each_register(to_slot, to, [&](int, llvm::Value* e, llvm::Value* owned) {
    out.values.push_back(guarded(owned, [&]() -> llvm::Value* {
      return from_storage(b_.CreateLoad(stored, shared_element_at(base, stored, slot_of(e), slots)), element);
    }));
  });
  set(op.result(), std::move(out));
}

void Emitter::emit_slot_load(const ir::Op& op) {
  const ir::Type* type = op.result()->type();
  const LinearLayout& l = type->layout()->linear();
  const ir::Type* pointee = op.operand(0)->type()->element()->pointee();
  llvm::Type* element = element_type(type);
  llvm::Type* stored = memory_type(pointee);
  llvm::Align align(module_.getDataLayout().getTypeAllocSize(stored));
  const Regs& ptr = slot_operand(op, op.operand(0), l);
  ir::Value* mask_value = ir::LoadOp(op).mask();
  ir::Value* other_value = ir::LoadOp(op).other();
  const Regs* mask = mask_value ? &slot_operand(op, mask_value, l) : nullptr;
  const Regs* other = other_value ? &slot_operand(op, other_value, l) : nullptr;
  const int w = slot_vector(type->layout());
  const int regs = static_cast<int>(l.in_size(LinearLayout::kRegister));
  // Registers whose elements share an aligned run over which the pointer and the mask are
  // constant (the same page's block-table entry) load once: their slot bases differ only
  // below the run.
  const int64_t run = line_slot_ && w == 1 && (other == nullptr || other->uniform) ? widths_.constant_load_width(op) : 1;
  Regs out;
  for (int r = 0; r < regs; r += w) {
    // The group's first element's mask bit holds for all of it (coalesce.cpp's width).
    llvm::Value* pred = mask ? mask->at(r) : nullptr;
    if (run > 1) {
      int same = -1;
      for (int p = 0; p < r && same < 0; ++p) {
        if ((l.apply(r, 0, 0) ^ l.apply(p, 0, 0)) < run) same = p;
      }
      if (same >= 0) {
        out.values.push_back(out.values[static_cast<size_t>(same)]);
        continue;
      }
    }
    if (w == 1) {
      llvm::Value* fallback = other ? to_storage(other->at(r)) : llvm::Constant::getNullValue(stored);
      out.values.push_back(from_storage(global_load(op, stored, ptr.at(r), pred, fallback, align), element));
      continue;
    }
    load_vector(op, stored, element, ptr.at(r), pred, other, r, w, align, out);
  }
  set(op.result(), std::move(out));
}

void Emitter::emit_slot_store(const ir::Op& op) {
  const ir::Type* ptr_type = op.operand(0)->type();
  const ir::Layout* layout = ptr_type->layout();
  const LinearLayout& l = layout->linear();
  llvm::Type* stored = memory_type(ptr_type->element()->pointee());
  llvm::Align align(module_.getDataLayout().getTypeAllocSize(stored));
  const Regs& ptr = slot_operand(op, op.operand(0), l);
  const Regs& value = slot_operand(op, ir::StoreOp(op).value(), l);
  ir::Value* mask_value = ir::StoreOp(op).mask();
  const Regs* mask = mask_value ? &slot_operand(op, mask_value, l) : nullptr;
  const int w = slot_vector(layout);
  const int regs = static_cast<int>(l.in_size(LinearLayout::kRegister));
  for (int r = 0; r < regs; r += w) {
    llvm::Value* pred = mask ? mask->at(r) : nullptr;
    if (w == 1) {
      global_store(op, ptr.at(r), pred, to_storage(value.at(r)), align);
      continue;
    }
    global_store(op, ptr.at(r), pred, pack(value, r, w), llvm::Align(align.value() * w));
  }
}

}  // namespace tritium::nvptx

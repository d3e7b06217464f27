// Memory ops: addptr, loads and stores (each element by the thread that owns it, under
// its mask: masked-off and unowned elements never touch memory; w consecutive registers
// at a time as one vector access where vector_widths.h allows it), and atomics with the
// requested semantics and scope (inline `atom` PTX, as LLVM's NVPTX backend drops the
// ordering of atomicrmw): once per owned element of a block, or by thread 0 for a scalar
// pointer with the old value broadcast to every thread.
#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>

#include <cstdint>
#include <cstdio>
#include <utility>

#include "gpu/conversion.h"
#include "gpu/vector_widths.h"
#include "gpu/version_on_signs.h"
#include "ir/op_views.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

llvm::Value* Emitter::addptr(const ir::Op& op, llvm::Value* ptr, llvm::Value* offset) {
  const ir::Type* pointee = op.operand(0)->type()->element()->pointee();
  ScalarKind offset_kind = op.operand(1)->type()->element()->scalar_kind();
  // GEP would sign-extend a narrower index; unsigned offsets (and i1) must zero-extend.
  llvm::Value* index = ir::is_signed(offset_kind) ? b_.CreateSExtOrTrunc(offset, b_.getInt64Ty())
                                                  : b_.CreateZExtOrTrunc(offset, b_.getInt64Ty());
  // No `inbounds`: masked-off lanes may point anywhere.
  return b_.CreateGEP(memory_type(pointee), ptr, index);
}

Regs Emitter::load_fragment(const ir::Op& load, const FragmentLayout& l) {
  const ir::Type* type = load.result()->type();
  const std::vector<int64_t>& shape = type->shape();
  llvm::Type* stored = memory_type(load.operand(0)->type()->element()->pointee());
  llvm::Type* element = element_type(type);
  const int64_t bytes = module_.getDataLayout().getTypeAllocSize(stored);
  const ir::Value* mask = ir::LoadOp(load).mask();
  const ir::Value* other = ir::LoadOp(load).other();
  const bool paired = !l.rows && gpu::access_width(load, axis_info()) >= 2;
  Regs out;
  out.uniform = false;
  out.values.resize(static_cast<size_t>(l.num_regs()));
  // Registers 2j and 2j + 1 hold columns c and c + 1 (c even) of one row (FragmentLayout).
  for (int r = 0; r < l.num_regs(); r += paired ? 2 : 1) {
    const int count = paired ? 2 : 1;
    std::vector<std::unordered_map<const ir::Value*, llvm::Value*>> memos(static_cast<size_t>(count));
    std::vector<std::vector<llvm::Value*>> coords;
    for (int i = 0; i < count; ++i) coords.push_back(fragment_coords(l, r + i, shape));
    if (coords[0].empty()) internal_error("nvptx", "a fragment load of an unsupported shape", load.loc());
    llvm::Value* ptr = recompute_at(load.operand(0), coords[0], memos[0]);
    llvm::Value* pred = mask != nullptr ? recompute_at(mask, coords[0], memos[0]) : nullptr;
    if (!paired) {
      llvm::Value* fallback = other != nullptr ? to_storage(recompute_at(other, coords[0], memos[0])) : llvm::Constant::getNullValue(stored);
      out.values[static_cast<size_t>(r)] =
          from_storage(global_load(load, stored, ptr, pred, fallback, llvm::Align(static_cast<uint64_t>(bytes))), element);
      continue;
    }
    // The facts give both columns one mask bit and consecutive, 2-element aligned addresses.
    auto* pair = llvm::FixedVectorType::get(stored, 2);
    llvm::Value* fallback = llvm::Constant::getNullValue(pair);
    if (other != nullptr) {
      for (unsigned i = 0; i < 2; ++i) {
        fallback = b_.CreateInsertElement(fallback, to_storage(recompute_at(other, coords[i], memos[i])), i);
      }
    }
    llvm::Value* loaded = global_load(load, pair, ptr, pred, fallback, llvm::Align(static_cast<uint64_t>(2 * bytes)));
    for (unsigned i = 0; i < 2; ++i) {
      out.values[static_cast<size_t>(r) + i] = from_storage(b_.CreateExtractElement(loaded, i), element);
    }
  }
  return out;
}

void Emitter::emit_load(const ir::Op& op) {
  if (const FragmentLayout* l = frags_.layout(op.result()); l != nullptr && frags_.loads_fragment(op)) {
    const std::vector<ir::Use> uses = op.result()->uses();
    if (late_fragment_loads_ && uses.size() == 1 && uses[0].user->kind() == OpKind::For && uses[0].user->parent() == op.parent()) {
      late_fragment_loads_pending_.push_back(&op);
      return;
    }
    return set_fragment(op.result(), load_fragment(op, *l));
  }
  auto copy = async_.loads.find(op.result());
  if (copy != async_.loads.end()) return emit_async_load(op, *copy->second);
  auto tma = async_.tma_loads.find(&op);
  if (tma != async_.tma_loads.end()) return emit_tma_load(op, tma->second);
  if (gpu::access_in_slot(op, widths_, threads_)) return emit_slot_load(op);
  const ir::Type* type = op.result()->type();
  const ir::Type* pointee = op.operand(0)->type()->element()->pointee();
  llvm::Type* element = element_type(type);
  llvm::Type* stored = memory_type(pointee);
  llvm::Align align(module_.getDataLayout().getTypeAllocSize(stored));
  ir::Value* mask_value = ir::LoadOp(op).mask();
  ir::Value* other_value = ir::LoadOp(op).other();
  // A cold load inside a loop whose groups the facts leave unproven (a versioned copy's
  // `% N` columns, gpu::loads_at_cold_addresses): its addresses computed here, per element,
  // as a cold dot operand's copy computes them (emit_async.cpp), rather than one pointer per
  // element held across the loop; one element at a time, untested (a run-time test needs a
  // group's addresses at once).
  Regs cold_ptr;
  const bool cold = gpu::loads_at_cold_addresses(op, widths_.width(op));
  if (cold) cold_ptr = cold_addresses(op.operand(0), layout_of(type));
  const Regs& ptr = cold ? cold_ptr : get(op.operand(0));
  const Regs* mask = mask_value ? &get(mask_value) : nullptr;
  const Regs* other = other_value ? &get(other_value) : nullptr;
  // volatile=True (spin-waiting on a flag): every access is made, none hoisted or merged.
  bool is_volatile = ir::is_volatile(op);
  auto load = [&](int r, llvm::Value* pred, llvm::Value* address) {
    // No `other`: 0, also when the mask folds to false here (prefetch_loads' loads before
    // a loop that runs zero times): global_load() then returns the fallback alone.
    llvm::Value* fallback = other ? to_storage(other->at(r)) : llvm::Constant::getNullValue(stored);
    return from_storage(global_load(op, stored, address, pred, fallback, align), element);
  };
  bool one = !type->is_block() ||
             (ptr.uniform && (!mask || mask->uniform) && (!other || other->uniform));
  if (one) {
    // A scalar, or a block whose elements all read one address under one mask: every
    // thread loads it once (a block of equal elements stays uniform).
    set(op.result(), Regs::one(load(0, mask ? mask->at(0) : nullptr, ptr.at(0)), type->is_block()));
    return;
  }
  Layout layout = layout_of(type);
  int w = widths_.width(op);
  Regs out;
  const bool test = w == 1 && !is_volatile && !cold && widths_.tests_at_run_time(op);
  int checked = test ? runtime_vector_width(type, layout, stored) : 1;
  for (int r = 0; r < layout.num_regs(); r += w) {
    // A group of w registers is w consecutive, aligned elements under one mask bit and one
    // owner (vector_widths.cpp): its first element's predicate guards all of it.
    llvm::Value* pred = and_pred(owns(layout, r), mask ? mask->at(r) : nullptr);
    if (w == 1 && checked > 1) {
      if (r % checked == 0) {
        std::vector<llvm::Value*> group = load_checked_group(op, ptr, mask, other, layout, r, checked, stored, align);
        for (llvm::Value* v : group) out.values.push_back(from_storage(v, element));
      }
      continue;
    }
    llvm::Value* address = cold ? ptr.at(r) : flat_address(op.operand(0), ptr, layout, r);
    if (w == 1) {
      out.values.push_back(load(r, pred, address));
      continue;
    }
    load_vector(op, stored, element, address, pred, other, r, w, align, out);
  }
  set(op.result(), std::move(out));
}

llvm::Value* Emitter::flat_address(const ir::Value* ptr_value, const Regs& ptr, const Layout& layout, int r) {
  if (!flat_base_ || r == 0 || ptr.uniform || !ptr_value->type()->is_block() || !layout.full()) return ptr.at(r);
  // Register r holds element reg_base(r) + t * V of thread t, register 0 element t * V: the
  // coordinates' difference, where it is the same for every thread (no thread's row-major
  // carry differs from thread 0's).
  const std::vector<int64_t>& shape = ptr_value->type()->shape();
  auto coords = [&shape](int64_t e) {
    std::vector<int64_t> c(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = e % shape[d];
      e /= shape[d];
    }
    return c;
  };
  const int64_t shift_elements = layout.reg_base(r) - layout.reg_base(0);
  std::vector<int64_t> shift;
  for (int t = 0; t < layout.threads(); ++t) {
    const int64_t e = layout.element(t, 0);
    std::vector<int64_t> from = coords(e), to = coords(e + shift_elements), s(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) s[d] = to[d] - from[d];
    if (t == 0) {
      shift = s;
    } else if (s != shift) {
      return ptr.at(r);
    }
  }
  std::unordered_map<const ir::Value*, llvm::Value*> deltas;
  auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(shift_delta(ptr_value, shift, deltas));
  if (c == nullptr || c->getSExtValue() > INT32_MAX || c->getSExtValue() < INT32_MIN) return ptr.at(r);
  return b_.CreateGEP(b_.getInt8Ty(), ptr.at(0), c);
}

void Emitter::load_vector(const ir::Op& op, llvm::Type* stored, llvm::Type* element, llvm::Value* address,
                          llvm::Value* pred, const Regs* other, int r, int w, llvm::Align align, Regs& out) {
  auto* vector = llvm::FixedVectorType::get(stored, static_cast<unsigned>(w));
  llvm::Value* fallback = other ? pack(*other, r, w) : llvm::Constant::getNullValue(vector);
  llvm::Value* loaded = global_load(op, vector, address, pred, fallback, llvm::Align(align.value() * w));
  for (int i = 0; i < w; ++i) out.values.push_back(from_storage(b_.CreateExtractElement(loaded, i), element));
}

int Emitter::runtime_vector_width(const ir::Type* type, const Layout& layout, llvm::Type* stored) const {
  return gpu::tested_width(type, layout.vector(), type_bytes(stored));
}

llvm::Value* Emitter::group_is_vector(const Regs& ptr, const Regs* mask, int first, int g, int64_t bytes) {
  llvm::Value* base = b_.CreatePtrToInt(ptr.at(first), b_.getInt64Ty());
  llvm::Value* fast = b_.CreateICmpEQ(b_.CreateAnd(base, b_.getInt64(static_cast<uint64_t>(g * bytes - 1))), b_.getInt64(0));
  for (int i = 1; i < g; ++i) {
    llvm::Value* p = b_.CreatePtrToInt(ptr.at(first + i), b_.getInt64Ty());
    fast = b_.CreateAnd(fast, b_.CreateICmpEQ(b_.CreateSub(p, base), b_.getInt64(static_cast<uint64_t>(i * bytes))));
    if (mask != nullptr && !mask->uniform) fast = b_.CreateAnd(fast, b_.CreateICmpEQ(mask->at(first + i), mask->at(first)));
  }
  return fast;
}

std::vector<llvm::Value*> Emitter::load_checked_group(const ir::Op& op, const Regs& ptr, const Regs* mask,
                                                      const Regs* other, const Layout& layout, int first, int g,
                                                      llvm::Type* stored, llvm::Align align) {
  // The axis facts could not prove these g elements contiguous, aligned and under one mask
  // bit, so test it here: one vector load when so, else one load per element.
  llvm::Value* fast = group_is_vector(ptr, mask, first, g, type_bytes(stored));
  auto* vector = llvm::FixedVectorType::get(stored, static_cast<unsigned>(g));
  llvm::Value* fallback = other ? pack(*other, first, g) : llvm::Constant::getNullValue(vector);
  llvm::BasicBlock* fast_block = llvm::BasicBlock::Create(context_, "load.vector", kernel_);
  llvm::BasicBlock* slow_block = llvm::BasicBlock::Create(context_, "load.scalar", kernel_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(context_, "load.join", kernel_);
  b_.CreateCondBr(fast, fast_block, slow_block);
  b_.SetInsertPoint(fast_block);
  llvm::Value* pred = and_pred(owns(layout, first), mask ? mask->at(first) : nullptr);
  llvm::Value* fast_value = global_load(op, vector, ptr.at(first), pred, fallback, llvm::Align(align.value() * g));
  llvm::BasicBlock* fast_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(slow_block);
  llvm::Value* slow_value = llvm::PoisonValue::get(vector);
  for (int i = 0; i < g; ++i) {
    llvm::Value* p = and_pred(owns(layout, first + i), mask ? mask->at(first + i) : nullptr);
    llvm::Value* v = global_load(op, stored, ptr.at(first + i), p,
                                 other ? to_storage(other->at(first + i)) : llvm::Constant::getNullValue(stored), align);
    slow_value = b_.CreateInsertElement(slow_value, v, i);
  }
  llvm::BasicBlock* slow_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  llvm::PHINode* phi = b_.CreatePHI(vector, 2);
  phi->addIncoming(fast_value, fast_end);
  phi->addIncoming(slow_value, slow_end);
  std::vector<llvm::Value*> out;
  for (int i = 0; i < g; ++i) out.push_back(b_.CreateExtractElement(phi, i));
  return out;
}

llvm::Value* Emitter::pack(const Regs& regs, int first, int w) {
  llvm::Value* v = nullptr;
  for (int i = 0; i < w; ++i) {
    llvm::Value* element = to_storage(regs.at(first + i));
    if (v == nullptr) v = llvm::PoisonValue::get(llvm::FixedVectorType::get(element->getType(), static_cast<unsigned>(w)));
    v = b_.CreateInsertElement(v, element, i);
  }
  return v;
}

void Emitter::emit_store(const ir::Op& op) {
  auto tma = async_.tma_stores.find(&op);
  if (tma != async_.tma_stores.end()) return emit_tma_store(op, tma->second);
  const ir::Type* ptr_type = op.operand(0)->type();
  llvm::Type* stored = memory_type(ptr_type->element()->pointee());
  llvm::Align align(module_.getDataLayout().getTypeAllocSize(stored));
  const Regs& ptr = get(op.operand(0));
  if (gpu::access_in_slot(op, widths_, threads_)) return emit_slot_store(op);
  const Regs& value = get(ir::StoreOp(op).value());
  ir::Value* mask_value = ir::StoreOp(op).mask();
  const Regs* mask = mask_value ? &get(mask_value) : nullptr;
  auto store = [&](int r, llvm::Value* pred, llvm::Value* address) {
    global_store(op, address, pred, to_storage(value.at(r)), align);
  };
  if (!ptr_type->is_block()) {
    // A scalar store is one store of the program: thread 0 makes it.
    llvm::Value* thread0 = b_.CreateICmpEQ(thread_id(), b_.getInt32(0));
    store(0, and_pred(thread0, mask ? mask->at(0) : nullptr), ptr.at(0));
    return;
  }
  Layout layout = layout_of(ptr_type);
  int w = widths_.width(op);
  for (int r = 0; r < layout.num_regs(); r += w) {
    llvm::Value* pred = and_pred(owns(layout, r), mask ? mask->at(r) : nullptr);  // as in emit_load
    llvm::Value* address = flat_address(op.operand(0), ptr, layout, r);
    if (w == 1) {
      store(r, pred, address);
      continue;
    }
    global_store(op, address, pred, pack(value, r, w), llvm::Align(align.value() * w));
  }
}

namespace {

// The PTX words an access of `type` moves as: `count` registers of `bits` each (1, 2 or 4;
// 16, 32 or 64). 64-bit elements stay whole; narrower ones pack into 32-bit words, or one
// 16-bit word for two bytes. None (count 0) for a single byte or pointers: no PTX register
// form to move those through.
struct PtxWords {
  int count = 0;
  int bits = 0;
};

PtxWords ptx_words(llvm::Type* type) {
  llvm::Type* element = type->getScalarType();
  if (!element->isIntegerTy() && !element->isFloatingPointTy()) return {};
  int total = static_cast<int>(type->getPrimitiveSizeInBits().getFixedValue());
  int element_bits = static_cast<int>(element->getPrimitiveSizeInBits().getFixedValue());
  if (total == 16) return {1, 16};
  if (total < 32 || total > 128 || total % 32 != 0) return {};
  int bits = element_bits == 64 ? 64 : 32;
  return {total / bits, bits};
}

// ".ca" ... for loads, ".wb" ... for stores; else ".L1::evict_first"/"_last". PTX has the
// two as alternative forms of ld/st (ptxas refuses both at once): the cache modifier wins.
// The eviction priorities need PTX ISA 7.4, which every PTX for sm_87 and later has; below
// that the hint is dropped (the sm_80 PTX is 7.0).
std::string ptx_hints(const ir::Op& op, int sm) {
  if (auto cache = ir::find_enum_attr<ir::CacheModifier>(op)) return ir::enum_text(*cache);
  auto eviction = ir::find_enum_attr<ir::EvictionPolicy>(op);
  if (eviction && sm >= 87) return std::string(".L1::") + ir::enum_text(*eviction);
  return "";
}

// "{$1, $2}" for words first.., or "$1" for one.
std::string ptx_register_list(int first, int count) {
  if (count == 1) return "$" + std::to_string(first);
  std::string out = "{";
  for (int i = 0; i < count; ++i) out += (i ? ", $" : "$") + std::to_string(first + i);
  return out + "}";
}

std::string ptx_access_type(const PtxWords& w) {
  return (w.count > 1 ? ".v" + std::to_string(w.count) : std::string()) + ".b" + std::to_string(w.bits);
}

const char* ptx_constraint(int bits) { return bits == 64 ? "l" : bits == 32 ? "r" : "h"; }

// `ptr` as a base register and a constant byte offset for `[$k+offset]`, so accesses at
// fixed distances from one pointer share its register as LLVM's own loads do. PTX writes a
// negative offset after the plus (`[%rd1+-256]`, as LLVM prints it): `[%rd1-256]` is a
// syntax error to ptxas.
std::pair<llvm::Value*, std::string> ptx_address(llvm::Value* ptr, const llvm::DataLayout& layout) {
  llvm::APInt offset(64, 0);
  llvm::Value* base = ptr->stripAndAccumulateConstantOffsets(layout, offset, /*AllowNonInbounds=*/true);
  int64_t bytes = offset.getSExtValue();
  if (base == ptr || bytes == 0 || bytes > INT32_MAX || bytes < INT32_MIN) return {ptr, ""};
  return {base, "+" + std::to_string(bytes)};
}

}  // namespace

llvm::Value* Emitter::global_load(const ir::Op& op, llvm::Type* type, llvm::Value* ptr, llvm::Value* pred,
                                  llvm::Value* fallback, llvm::Align align) {
  if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(pred)) {
    if (c->isZero()) return fallback;
    pred = nullptr;
  }
  bool is_volatile = ir::is_volatile(op);
  if (pred != nullptr || !ptx_hints(op, sm_).empty()) {
    if (llvm::Value* v = ptx_load(op, type, ptr, pred, fallback)) return v;
  }
  return guarded(pred, [&]() -> llvm::Value* { return b_.CreateAlignedLoad(type, ptr, align, is_volatile); }, fallback);
}

void Emitter::global_store(const ir::Op& op, llvm::Value* ptr, llvm::Value* pred, llvm::Value* value, llvm::Align align) {
  if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(pred)) {
    if (c->isZero()) return;
    pred = nullptr;
  }
  if ((pred != nullptr || !ptx_hints(op, sm_).empty()) && ptx_store(op, ptr, pred, value)) return;
  guarded(pred, [&]() -> llvm::Value* {
    b_.CreateAlignedStore(value, ptr, align);
    return nullptr;
  });
}

llvm::Value* Emitter::ptx_load(const ir::Op& op, llvm::Type* type, llvm::Value* ptr, llvm::Value* pred,
                               llvm::Value* fallback) {
  PtxWords w = ptx_words(type);
  if (w.count == 0) return nullptr;
  bool is_volatile = ir::is_volatile(op);
  llvm::Type* word = b_.getIntNTy(static_cast<unsigned>(w.bits));
  llvm::Type* words = w.count == 1 ? word : llvm::FixedVectorType::get(word, static_cast<unsigned>(w.count));
  // Operands: the destinations $0.., the address, the predicate, then the fallback words
  // that are not constants (constants are written into the text).
  std::string text;
  std::string constraints;
  auto [base, offset] = ptx_address(ptr, module_.getDataLayout());
  std::vector<llvm::Value*> args = {base};
  for (int i = 0; i < w.count; ++i) constraints += std::string(i ? "," : "") + "=" + ptx_constraint(w.bits);
  constraints += ",l";
  if (pred != nullptr) {
    constraints += ",b";
    args.push_back(pred);
    llvm::Value* fallback_words = b_.CreateBitCast(fallback, words);
    for (int i = 0; i < w.count; ++i) {
      llvm::Value* f = w.count == 1 ? fallback_words : b_.CreateExtractElement(fallback_words, static_cast<uint64_t>(i));
      std::string source;
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(f)) {
        char hex[24];
        std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(c->getZExtValue()));
        source = hex;
      } else {
        source = "$" + std::to_string(w.count + static_cast<int>(args.size()));
        constraints += std::string(",") + ptx_constraint(w.bits);
        args.push_back(f);
      }
      text += "mov.b" + std::to_string(w.bits) + " $" + std::to_string(i) + ", " + source + ";\n\t";
    }
    text += "@$" + std::to_string(w.count + 1) + " ";
  }
  text += std::string(is_volatile ? "ld.volatile.global" : "ld.global" + ptx_hints(op, sm_)) + ptx_access_type(w) + " " +
          ptx_register_list(0, w.count) + ", [$" + std::to_string(w.count) + offset + "];";
  // Ordered with the other memory accesses like a load (reads memory, no other effect); a
  // volatile one is never removed or merged.
  constraints += ",~{memory}";
  std::vector<llvm::Type*> arg_types;
  for (llvm::Value* v : args) arg_types.push_back(v->getType());
  llvm::Type* result = word;
  if (w.count > 1) result = llvm::StructType::get(context_, std::vector<llvm::Type*>(static_cast<size_t>(w.count), word));
  auto* fn_type = llvm::FunctionType::get(result, arg_types, false);
  llvm::CallInst* call = b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, is_volatile), args);
  if (!is_volatile) {  // removable where its result is unused (a line loaded again at its fragments)
    call->setOnlyReadsMemory();
    call->setDoesNotThrow();
    call->addFnAttr(llvm::Attribute::WillReturn);
  }
  llvm::Value* out = call;
  if (w.count > 1) {
    out = llvm::PoisonValue::get(words);
    for (int i = 0; i < w.count; ++i) {
      out = b_.CreateInsertElement(out, b_.CreateExtractValue(call, {static_cast<unsigned>(i)}), static_cast<uint64_t>(i));
    }
  }
  return b_.CreateBitCast(out, type);
}

void Emitter::shared_stores_if(llvm::Value* pred, const std::vector<llvm::Value*>& ptrs,
                               const std::vector<llvm::Value*>& values) {
  if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(pred)) {
    if (c->isZero()) return;
    pred = nullptr;
  }
  std::vector<size_t> branched;
  for (size_t i = 0; i < values.size(); ++i) {
    PtxWords w = ptx_words(values[i]->getType());
    if (pred == nullptr) {
      b_.CreateStore(values[i], ptrs[i]);
      continue;
    }
    if (w.count == 0) {
      branched.push_back(i);
      continue;
    }
    llvm::Type* word = b_.getIntNTy(static_cast<unsigned>(w.bits));
    llvm::Type* words = w.count == 1 ? word : llvm::FixedVectorType::get(word, static_cast<unsigned>(w.count));
    llvm::Value* value_words = b_.CreateBitCast(values[i], words);
    // Operands: the address $0, the predicate $1, then the words.
    auto [base, offset] = ptx_address(ptrs[i], module_.getDataLayout());
    std::vector<llvm::Value*> args = {base, pred};
    std::string constraints = "l,b";
    for (int k = 0; k < w.count; ++k) {
      args.push_back(w.count == 1 ? value_words : b_.CreateExtractElement(value_words, static_cast<uint64_t>(k)));
      constraints += std::string(",") + ptx_constraint(w.bits);
    }
    std::string text = "@$1 st.shared" + ptx_access_type(w) + " [$0" + offset + "], " + ptx_register_list(2, w.count) + ";";
    constraints += ",~{memory}";
    std::vector<llvm::Type*> arg_types;
    for (llvm::Value* v : args) arg_types.push_back(v->getType());
    auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), arg_types, false);
    b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), args);
  }
  if (branched.empty()) return;
  guarded(pred, [&]() -> llvm::Value* {
    for (size_t i : branched) b_.CreateStore(values[i], ptrs[i]);
    return nullptr;
  });
}

bool Emitter::ptx_store(const ir::Op& op, llvm::Value* ptr, llvm::Value* pred, llvm::Value* value) {
  PtxWords w = ptx_words(value->getType());
  if (w.count == 0) return false;
  llvm::Type* word = b_.getIntNTy(static_cast<unsigned>(w.bits));
  llvm::Type* words = w.count == 1 ? word : llvm::FixedVectorType::get(word, static_cast<unsigned>(w.count));
  llvm::Value* value_words = b_.CreateBitCast(value, words);
  // Operands: the address $0, the predicate $1 (if any), then the words.
  auto [base, offset] = ptx_address(ptr, module_.getDataLayout());
  std::vector<llvm::Value*> args = {base};
  std::string constraints = "l";
  std::string text;
  if (pred != nullptr) {
    args.push_back(pred);
    constraints += ",b";
    text = "@$1 ";
  }
  int first = static_cast<int>(args.size());
  for (int i = 0; i < w.count; ++i) {
    args.push_back(w.count == 1 ? value_words : b_.CreateExtractElement(value_words, static_cast<uint64_t>(i)));
    constraints += std::string(",") + ptx_constraint(w.bits);
  }
  text += std::string(ir::is_volatile(op) ? "st.volatile.global" : "st.global" + ptx_hints(op, sm_)) + ptx_access_type(w) +
          " [$0" + offset + "], " + ptx_register_list(first, w.count) + ";";
  constraints += ",~{memory}";
  std::vector<llvm::Type*> arg_types;
  for (llvm::Value* v : args) arg_types.push_back(v->getType());
  auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), arg_types, false);
  b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), args);
  return true;
}

void Emitter::emit_atomic(const ir::Op& op) {
  bool cas = op.kind() == OpKind::AtomicCAS;
  const ir::Type* ptr_type = op.operand(0)->type();
  ScalarKind kind = ptr_type->element()->pointee()->scalar_kind();
  const Regs& ptr = get(op.operand(0));  // ptr, then (value) or (compare, value): ops.def
  const Regs& a = get(op.operand(1));
  const Regs* b = cas ? &get(ir::AtomicCASOp(op).value()) : nullptr;
  ir::Value* mask_value = cas ? nullptr : ir::AtomicRMWOp(op).mask();
  const Regs* mask = mask_value ? &get(mask_value) : nullptr;
  auto one = [&](int r, llvm::Value* pred) {
    // Masked-off elements read as 0, as in the interpreter (also when the mask folds to false).
    llvm::Value* zero = llvm::Constant::getNullValue(a.at(r)->getType());
    if (!cas) {
      if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(pred)) {
        if (c->isZero()) return zero;
        pred = nullptr;
      }
      return atomic_rmw(op, kind, ptr.at(r), a.at(r), pred);
    }
    return guarded(pred, [&]() { return atomic_cas(op, kind, ptr.at(r), a.at(r), b->at(r)); }, zero);
  };
  if (!ptr_type->is_block()) {
    llvm::Value* thread0 = b_.CreateICmpEQ(thread_id(), b_.getInt32(0));
    llvm::Value* old = one(0, and_pred(thread0, mask ? mask->at(0) : nullptr));
    // Must match op_syncs (uniformity.cpp): broadcast only when someone reads the result.
    if (facts_.is_used(op.result())) old = from_thread0({old})[0];
    set(op.result(), Regs::one(old));
    return;
  }
  // Once per element: each element has exactly one owner (layout.h), even when the block
  // of pointers is uniform.
  Layout layout = layout_of(ptr_type);
  Regs out;
  for (int r = 0; r < layout.num_regs(); ++r) out.values.push_back(one(r, and_pred(owns(layout, r), mask ? mask->at(r) : nullptr)));
  set(op.result(), std::move(out));
}

namespace {

// PTX spells the orderings as the IR does (.acq_rel, .gpu); absent: acq_rel at gpu scope.
std::string ptx_sem(const ir::Op& op) {
  return std::string(".") + ir::enum_text(ir::find_enum_attr<ir::MemSem>(op).value_or(ir::MemSem::AcqRel));
}

std::string ptx_scope(const ir::Op& op) {
  return std::string(".") + ir::enum_text(ir::find_enum_attr<ir::MemScope>(op).value_or(ir::MemScope::Gpu));
}

}  // namespace

llvm::Value* Emitter::atom_asm(const std::string& op_and_type, llvm::Type* type, const std::string& constraint,
                               const std::vector<llvm::Value*>& args, const ir::Op& op, llvm::Value* pred) {
  // atom.global{.scope}{.sem}.op.type d, [a], b[, c] for read-modify-writes and
  // atom.global{.sem}{.scope}.cas.type for compare-and-swap: ptxas takes the qualifiers in
  // any order, and these are Triton's, which its tests search the PTX for. "~{memory}" keeps
  // LLVM from moving other memory accesses across it.
  const bool cas = op_and_type.rfind("cas.", 0) == 0;
  // Under a predicate: `mov.bN $0, 0; @$p atom...` (the predicate last), 0 where it is false.
  std::string text = "atom.global" + (cas ? ptx_sem(op) + ptx_scope(op) : ptx_scope(op) + ptx_sem(op)) + "." +
                     op_and_type + " $0, [$1], $2";
  if (args.size() == 3) text += ", $3";
  text += ";";
  std::vector<llvm::Value*> operands = args;
  if (pred != nullptr) {
    const unsigned bits = static_cast<unsigned>(type->getPrimitiveSizeInBits().getFixedValue());
    text = "mov.b" + std::to_string(bits) + " $0, 0;\n\t@$" + std::to_string(args.size() + 1) + " " + text;
    operands.push_back(pred);
  }
  std::vector<llvm::Type*> arg_types;
  for (llvm::Value* v : operands) arg_types.push_back(v->getType());
  std::string constraints = "=" + constraint + ",l";
  for (size_t i = 1; i < args.size(); ++i) constraints += "," + constraint;
  if (pred != nullptr) constraints += ",b";
  constraints += ",~{memory}";
  auto* fn_type = llvm::FunctionType::get(type, arg_types, false);
  return b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), operands);
}

namespace {

// Whether atomics.def gives kind `k` PTX on integers / floats; a row without the PTX its
// rule needs does not build.
constexpr bool has_int_ptx(ir::AtomicKind k) {
#define TRITIUM_ATOMIC_EMIT_INT(kind, ...) \
  if (k == ir::AtomicKind::kind) return true;
#include "ir/atomics.def"
  return false;
}

constexpr bool has_float_ptx(ir::AtomicKind k) {
#define TRITIUM_ATOMIC_EMIT_FLOAT(kind, ...) \
  if (k == ir::AtomicKind::kind) return true;
#include "ir/atomics.def"
  return false;
}

constexpr bool every_atomic_kind_has_ptx() {
  for (size_t i = 0; i < ir::enum_count<ir::AtomicKind>(); ++i) {
    auto k = static_cast<ir::AtomicKind>(i);
    if (!has_int_ptx(k)) return false;
    if (ir::atomic_rule(k) != ir::AtomicRule::Int && !has_float_ptx(k)) return false;
  }
  return true;
}
static_assert(every_atomic_kind_has_ptx(), "a row of ir/atomics.def lacks the TRITIUM_ATOMIC_EMIT_INT/_FLOAT its rule needs");

}  // namespace

llvm::Value* Emitter::atomic_rmw(const ir::Op& op, ScalarKind kind, llvm::Value* ptr, llvm::Value* value,
                                 llvm::Value* pred) {
  const ir::AtomicKind what = ir::AtomicRMWOp(op).kind();
  llvm::Type* type = value->getType();
  int bits = ir::bit_width(kind);
  llvm::Type* int_type = b_.getIntNTy(static_cast<unsigned>(bits));
  std::string constraint = bits == 64 ? "l" : bits == 32 ? "r" : "h";
  // The names atomics.def's PTX uses.
  [[maybe_unused]] std::string b = ".b" + std::to_string(bits);
  [[maybe_unused]] std::string u = ".u" + std::to_string(bits);
  [[maybe_unused]] std::string s = ".s" + std::to_string(bits);
  [[maybe_unused]] std::string f = ".f" + std::to_string(bits);
  [[maybe_unused]] bool half = kind == ScalarKind::F16 || kind == ScalarKind::BF16;  // 16-bit floats
  [[maybe_unused]] bool is_signed = ir::is_signed(kind);
  llvm::Value* address = b_.CreatePtrToInt(ptr, b_.getInt64Ty());
  llvm::Value* v = b_.CreateBitCast(value, int_type);  // floats travel as their bits
  auto atom = [&](const std::string& text) { return atom_asm(text, int_type, constraint, {address, v}, op, pred); };
  // A compare-and-swap loop runs in a branch where `pred` holds.
  auto guard_loop = [&](const std::function<llvm::Value*()>& loop) {
    return guarded(pred, loop, int_const(int_type, 0));
  };
  [[maybe_unused]] auto exchange16 = [&]() { return guard_loop([&]() -> llvm::Value* {
    // No 16-bit exch: a compare-and-swap loop until the swap happens on what was read.
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::Value* first = b_.CreateAlignedLoad(int_type, ptr, llvm::Align(2));
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, "xchg16", kernel_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "xchg16.done", kernel_);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode* expected = b_.CreatePHI(int_type, 2);
    expected->addIncoming(first, from);
    llvm::Value* seen = atom_asm("cas.b16", int_type, "h", {address, expected, v}, op);
    expected->addIncoming(seen, loop);
    b_.CreateCondBr(b_.CreateICmpEQ(seen, expected), done, loop);
    b_.SetInsertPoint(done);
    return seen;
  }); };
  // bf16 add: native from sm_90 (PTX's atom.add.noftz.bf16), else a compare-and-swap loop of
  // the rounded fp32 sum (as LLVM expands it for Triton).
  [[maybe_unused]] auto bf16_add = [&]() -> llvm::Value* {
    if (sm_ >= 90) return atom("add.noftz.bf16");
    return guard_loop([&]() -> llvm::Value* {
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::Value* first = b_.CreateAlignedLoad(int_type, ptr, llvm::Align(2));
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, "add.bf16", kernel_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "add.bf16.done", kernel_);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode* expected = b_.CreatePHI(int_type, 2);
    expected->addIncoming(first, from);
    llvm::Value* sum = b_.CreateFAdd(b_.CreateFPExt(b_.CreateBitCast(expected, type), b_.getFloatTy()),
                                     b_.CreateFPExt(value, b_.getFloatTy()));
    llvm::Value* next = b_.CreateBitCast(b_.CreateFPTrunc(sum, type), int_type);
    llvm::Value* seen = atom_asm("cas.b16", int_type, "h", {address, expected, next}, op);
    expected->addIncoming(seen, loop);
    b_.CreateCondBr(b_.CreateICmpEQ(seen, expected), done, loop);
    b_.SetInsertPoint(done);
    return seen;
    });
  };
  // fp16/bf16 max/min (tensor descriptors' reductions; Triton uses the TMA's, so sm_90 and
  // newer): PTX has no scalar atom.max.f16/bf16 (only the .v2/.v4/.v8 forms, on aligned
  // pairs), so a compare-and-swap loop of PTX's max/min (.f16 and .bf16 from sm_80): a NaN
  // operand yields the other; two zeros are ordered -0.0 < +0.0 here explicitly. The
  // interpreter computes the same (interp/memory.cpp).
  [[maybe_unused]] auto half_max_min = [&](bool is_max) -> llvm::Value* {
    if (sm_ < 90) {
      error_at(op.loc(), std::string("16-bit float types require native tma support (a tensor descriptor's atomic_") +
                             (is_max ? "max" : "min") + " of " + ir::triton_dtype_name(kind) + " needs sm_90 or newer; the target is sm_" +
                             std::to_string(sm_) + ")");
    }
    const std::string combine = std::string(is_max ? "max" : "min") + (kind == ScalarKind::BF16 ? ".bf16" : ".f16") + " $0, $1, $2;";
    llvm::InlineAsm* arithmetic =
        llvm::InlineAsm::get(llvm::FunctionType::get(int_type, {int_type, int_type}, false), combine, "=h,h,h", false);
    return guard_loop([&]() -> llvm::Value* {
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::Value* first = b_.CreateAlignedLoad(int_type, ptr, llvm::Align(2));
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, is_max ? "max16" : "min16", kernel_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, is_max ? "max16.done" : "min16.done", kernel_);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode* expected = b_.CreatePHI(int_type, 2);
    expected->addIncoming(first, from);
    llvm::Value* next = b_.CreateCall(arithmetic, {expected, v});
    // Two zeros: -0.0 is the max only when both are, the min when either is (the bits' and /
    // or), whichever zero the hardware's max/min picks for equal operands.
    llvm::Value* both_zero = b_.CreateICmpEQ(b_.CreateAnd(b_.CreateOr(expected, v), int_const(int_type, 0x7fff)),
                                             int_const(int_type, 0));
    next = b_.CreateSelect(both_zero, is_max ? b_.CreateAnd(expected, v) : b_.CreateOr(expected, v), next);
    llvm::Value* seen = atom_asm("cas.b16", int_type, "h", {address, expected, next}, op);
    expected->addIncoming(seen, loop);
    b_.CreateCondBr(b_.CreateICmpEQ(seen, expected), done, loop);
    b_.SetInsertPoint(done);
    return seen;
    });
  };
  [[maybe_unused]] auto float_max_min = [&](bool is_max) -> llvm::Value* {
    if (half) return half_max_min(is_max);
    // Float max/min on the bits (Triton's emulation, as the interpreter defines it): with the
    // sign bit clear a signed integer max (min) orders like the floats; with it set an
    // unsigned min (max) does. Exactly one of the two atomics runs.
    // The sign test of a constant value folds, and the guard that cannot run yields `zero`.
    llvm::Value* negative = b_.CreateICmpSLT(v, int_const(int_type, 0));
    llvm::Value* zero = int_const(int_type, 0);
    llvm::Value* if_negative = guarded(negative, [&]() { return atom(std::string(is_max ? "min" : "max") + u); }, zero);
    llvm::Value* if_positive =
        guarded(b_.CreateNot(negative), [&]() { return atom(std::string(is_max ? "max" : "min") + s); }, zero);
    return b_.CreateSelect(negative, if_negative, if_positive);
  };
  if (bits != 32 && bits != 64 && !(half && ir::atomic_ir_admits(what, kind))) {
    error_at(op.loc(), std::string("atomic '") + ir::enum_text(what) + "' on " + ir::scalar_name(kind) + " is not supported on the GPU");
  }
  llvm::Value* old = nullptr;
  if (ir::is_float(kind)) {
    switch (what) {
#define TRITIUM_ATOMIC_EMIT_FLOAT(kind, ...) \
  case ir::AtomicKind::kind: old = __VA_ARGS__; break;
#include "ir/atomics.def"
      default: break;  // integer-only kinds on floats: the verifier rejects them
    }
  } else {
    switch (what) {
#define TRITIUM_ATOMIC_EMIT_INT(kind, ...) \
  case ir::AtomicKind::kind: old = __VA_ARGS__; break;
#include "ir/atomics.def"
    }
  }
  if (old == nullptr) internal_error("nvptx", std::string("atomic '") + ir::enum_text(what) + "' on " + ir::scalar_name(kind), op.loc());
  return b_.CreateBitCast(old, type);
}

llvm::Value* Emitter::atomic_cas(const ir::Op& op, ScalarKind kind, llvm::Value* ptr, llvm::Value* compare,
                                 llvm::Value* value) {
  int bits = ir::bit_width(kind);
  if (bits != 16 && bits != 32 && bits != 64) {
    error_at(op.loc(), std::string("atomic_cas on ") + ir::scalar_name(kind) + " is not supported on the GPU");
  }
  llvm::Type* int_type = b_.getIntNTy(static_cast<unsigned>(bits));
  std::string constraint = bits == 64 ? "l" : bits == 32 ? "r" : "h";
  // Compared as bit patterns, as atom.cas does (so -0.0 != 0.0 and a NaN can match).
  llvm::Value* old = atom_asm("cas.b" + std::to_string(bits), int_type, constraint,
                              {b_.CreatePtrToInt(ptr, b_.getInt64Ty()), b_.CreateBitCast(compare, int_type),
                               b_.CreateBitCast(value, int_type)},
                              op);
  return b_.CreateBitCast(old, value->getType());
}

}  // namespace tritium::nvptx

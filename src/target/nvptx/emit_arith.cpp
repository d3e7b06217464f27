// Elementwise ops to LLVM IR: constants, the ops of ir/elementwise.def (arithmetic and math
// in every dtype) and their helpers, compares, casts and select, with the exact semantics of
// ops.def (the interpreter's): integer division never traps, fp->int saturates.
#include <cmath>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "support/diagnostics.h"
#include "ir/op_views.h"
#include "ir/float_format.h"
#include "gpu/conversion.h"
#include "gpu/default_layout.h"
#include "target/nvptx/emitter.h"
#include "target/nvptx/libdevice.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

namespace {

bool is_half_kind(ScalarKind k) { return k == ScalarKind::F16 || k == ScalarKind::BF16; }

bool is_bitcast(const ir::Op& op) {
  const ir::AttrValue* bitcast = op.find_attr("bitcast");
  return bitcast && std::holds_alternative<int64_t>(*bitcast) && std::get<int64_t>(*bitcast) != 0;
}

}  // namespace

void Emitter::emit_constant(const ir::Op& op) {
  const ir::Type* type = op.result()->type();
  llvm::Type* element = element_type(type);
  const ir::AttrValue* value = op.find_attr("value");
  if (value == nullptr) internal_error("nvptx", "constant without a value", op.loc());
  llvm::Value* v = nullptr;
  if (std::holds_alternative<double>(*value) && ir::is_fp8(type->element()->scalar_kind())) {
    // fp8 lives as its bits: the value rounded once, as the interpreter rounds it.
    ScalarKind k = type->element()->scalar_kind();
    v = int_const(element, static_cast<int64_t>(ir::encode_float(std::get<double>(*value), k)));
  } else if (std::holds_alternative<double>(*value)) {
    double d = std::get<double>(*value);
    if (!element->isFloatingPointTy()) internal_error("nvptx", "a float value for an integer constant", op.loc());
    // Rounded from the double once, to nearest even, as the interpreter does.
    llvm::APFloat f(d);
    bool lost = false;
    f.convert(element->getFltSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    v = llvm::ConstantFP::get(context_, f);
  } else if (std::holds_alternative<int64_t>(*value)) {
    int64_t i = std::get<int64_t>(*value);
    if (element->isPointerTy()) {
      v = llvm::ConstantExpr::getIntToPtr(llvm::ConstantInt::get(b_.getInt64Ty(), static_cast<uint64_t>(i)), element);
    } else if (element->isIntegerTy()) {
      v = int_const(element, i);  // truncated to the width: the bit pattern of the value
    } else {
      internal_error("nvptx", "an integer value for a float constant", op.loc());
    }
  } else {
    internal_error("nvptx", "a constant with a non-numeric value", op.loc());
  }
  set(op.result(), Regs::one(v, type->is_block()));
}

void Emitter::emit_elementwise(const ir::Op& op) {
  if (op.kind() == OpKind::ExternElementwise && op.find_attr("pack") != nullptr) return emit_packed_asm(op);
  if (const FragmentLayout* l = frags_.layout(op.result())) return emit_fragment_elementwise(op, *l);
  if (op.kind() == OpKind::Cmp && row_bound_elementwise_ && emit_row_bound_compare(op)) return;
  std::vector<const Regs*> inputs;
  for (const ir::Value* v : op.operands()) inputs.push_back(&get(v));
  if (op.kind() == OpKind::Cast) {
    if (std::optional<Regs> widened = fp8_widened_in_pairs(op, *inputs[0])) return set(op.result(), std::move(*widened));
    if (std::optional<Regs> halves = bytes_to_f16_in_pairs(op, *inputs[0])) return set(op.result(), std::move(*halves));
  }
  // A line held in its broadcasts' slot (gpu/coalesce.cpp's lines_in_slot): the slot's
  // registers, which may be more than the flat rule's (a line of 32 over 128 threads).
  if (op.has_attr(gpu::kSlotAttr) && gpu::held_in_slot(op.result(), widths_, threads_)) {
    const int64_t n = gpu::held_layout(op.result(), widths_, threads_).in_size(ir::LinearLayout::kRegister);
    bool uniform = true;
    for (const Regs* in : inputs) uniform = uniform && in->uniform;
    if (!uniform && n != layout_of(op.result()->type()).num_regs()) {
      ElementFn fn = element_fn(op);
      Regs out;
      std::vector<llvm::Value*> args(inputs.size());
      for (int r = 0; r < static_cast<int>(n); ++r) {
        for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i]->at(r);
        out.values.push_back(fn(args));
      }
      return set(op.result(), std::move(out));
    }
  }
  // A comparison the facts say is constant over aligned runs of w along the last dimension
  // (`cols < N` with N divisible by 16): in the flat layout registers r .. r + w - 1 (w | r,
  // w | V) hold such a run, so only each run's first register is compared.
  const ir::Type* type = op.result()->type();
  const int w = op.kind() == OpKind::Cmp ? widths_.constant_width(op) : 1;
  if (w > 1 && type->layout() == gpu::flat_blocked(type->shape(), threads_, widths_.vector(type->num_elements()))) {
    bool uniform = true;
    for (const Regs* in : inputs) uniform = uniform && in->uniform;
    if (!uniform) {
      ElementFn fn = element_fn(op);
      Regs out;
      std::vector<llvm::Value*> args(inputs.size());
      for (int r = 0; r < layout_of(type).num_regs(); ++r) {
        if (r % w != 0) {
          out.values.push_back(out.values[static_cast<size_t>(r - r % w)]);
          continue;
        }
        for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i]->at(r);
        out.values.push_back(fn(args));
      }
      return set(op.result(), std::move(out));
    }
  }
  set(op.result(), map_elements(op.result()->type(), inputs, element_fn(op)));
}

// tl.map_elementwise: the region once per register the thread holds (once when every input
// is uniform), its arguments that register of each input; branches and loops in it are the
// thread's own (no barrier can be inside). With pack = P, once per P registers (consecutive
// elements: vector_widths asks for V >= P), input i's P registers its arguments i * P ...,
// output r's P registers its yields r * P ... (never the uniform shortcut: a call's P results
// may differ on equal inputs); a thread whose registers do not fill its last group (the
// layout makes V >= P, so none should) repeats its last register there and drops those
// results, so the extra calls see real elements (a loop in the function ends as for them).
void Emitter::emit_map_elementwise(const ir::Op& op) {
  const ir::Region& region = *op.region(0);
  const ir::Type* type = op.result(0)->type();
  const int pack = op.find_attr("pack") != nullptr ? static_cast<int>(op.int_attr("pack")) : 1;
  std::vector<Regs> inputs;
  bool uniform = true;
  for (const ir::Value* v : op.operands()) {
    inputs.push_back(get(v));
    uniform = uniform && inputs.back().uniform && pack == 1;
  }
  if (!uniform) {
    for (Regs& in : inputs) in = materialize(in, type);
  }
  const int n = uniform ? 1 : layout_of(type).num_regs();
  std::vector<Regs> outs(static_cast<size_t>(op.num_results()));
  for (int g = 0; g < n; g += pack) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      for (int k = 0; k < pack; ++k) {
        set(region.arg(static_cast<int>(i) * pack + k), Regs::one(inputs[i].at(std::min(g + k, n - 1))));
      }
    }
    emit_region(region);
    for (int j = 0; j < op.num_results(); ++j) {
      for (int k = 0; k < pack && g + k < n; ++k) {
        outs[static_cast<size_t>(j)].values.push_back(get(region.terminator()->operand(j * pack + k)).at(0));
      }
    }
  }
  for (int j = 0; j < op.num_results(); ++j) {
    outs[static_cast<size_t>(j)].uniform = uniform;
    set(op.result(j), std::move(outs[static_cast<size_t>(j)]));
  }
}

// 8-bit integers to fp16 two registers at a time, as `cast` does one (0x64 above the byte,
// its sign bit flipped when signed, minus 1152 or 1024): both in one 32-bit word, one xor and
// one packed subtraction (HADD2) for the pair.
std::optional<Regs> Emitter::bytes_to_f16_in_pairs(const ir::Op& cast, const Regs& in) {
  const ir::Type* type = cast.result()->type();
  const ScalarKind from = cast.operand(0)->type()->element()->scalar_kind();
  if (!type->is_block() || in.uniform || type->element()->scalar_kind() != ScalarKind::F16 ||
      (from != ScalarKind::I8 && from != ScalarKind::U8) || is_bitcast(cast)) {
    return std::nullopt;
  }
  const int n = layout_of(type).num_regs();
  if (n < 2 || n % 2 != 0) return std::nullopt;
  const bool is_signed = from == ScalarKind::I8;
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* half2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
  llvm::Value* bias = llvm::ConstantFP::get(half2, is_signed ? 1152.0 : 1024.0);
  Regs out;
  for (int r = 0; r < n; r += 2) {
    llvm::Value* word = b_.CreateOr(b_.CreateZExt(in.at(r), i32), b_.CreateShl(b_.CreateZExt(in.at(r + 1), i32), 16));
    word = b_.CreateXor(word, b_.getInt32(is_signed ? 0x64806480u : 0x64006400u));
    llvm::Value* pair = b_.CreateFSub(b_.CreateBitCast(word, half2), bias);
    out.values.push_back(b_.CreateExtractElement(pair, uint64_t{0}));
    out.values.push_back(b_.CreateExtractElement(pair, uint64_t{1}));
  }
  return out;
}

// f32 to f16 / bf16 (round to nearest) two registers at a time: one cvt.rn.{f16,bf16}x2.f32 a
// pair, as Triton converts, where the elementwise ops after the cast (fla dqkwg's `-b_dw.to(..)`)
// would otherwise leave each conversion alone (F2FP with a zero half, then a PRMT to pair them).
// Any two registers are a valid pair (independent elements); a fragment's r, r + 1 are adjacent
// columns, so the pair is also the word its stores and packed ops read. Experiment "nopaircvt".
std::optional<Regs> Emitter::f32_to_half_in_pairs(const ir::Op& cast, const Regs& in, int n) {
  if (!pair_cvt_ || sm_ < 80 || cast.kind() != OpKind::Cast || in.uniform || n < 2 || n % 2 != 0 ||
      is_bitcast(cast) || !cast.result()->type()->is_block()) {
    return std::nullopt;
  }
  const ScalarKind from = cast.operand(0)->type()->element()->scalar_kind();
  const ScalarKind to = cast.result()->type()->element()->scalar_kind();
  const ir::AttrValue* rounding = cast.find_attr("rounding");
  const bool toward_zero = rounding && std::holds_alternative<int64_t>(*rounding) && std::get<int64_t>(*rounding) == 1;
  if (from != ScalarKind::F32 || !is_half_kind(to) || toward_zero) return std::nullopt;
  // Only where an op on the 16-bit values reads the cast (dqkwg's negation): stores and
  // staging read the pairs as words already (store_fragment_rows' two-element vectors, one cvt
  // of the pair), and converting ahead of them would keep the halves live longer.
  bool op_reads = false;
  for (const ir::Op* user : cast.result()->users()) {
    op_reads = op_reads || (ir::has_trait(user->kind(), ir::kElementwise) && user->kind() != OpKind::Cast);
  }
  if (!op_reads) return std::nullopt;
  const bool bf16 = to == ScalarKind::BF16;
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* f32 = b_.getFloatTy();
  auto* cvt = llvm::InlineAsm::get(llvm::FunctionType::get(i32, {f32, f32}, false),
                                   bf16 ? "cvt.rn.bf16x2.f32 $0, $1, $2;" : "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f",
                                   /*hasSideEffects=*/false);
  llvm::Type* half2 = llvm::FixedVectorType::get(element_type(cast.result()->type()), 2);
  Regs out;
  for (int r = 0; r < n; r += 2) {
    // cvt's first source is the upper half: register r is the low element.
    llvm::Value* pair = b_.CreateBitCast(b_.CreateCall(cvt, {in.at(r + 1), in.at(r)}), half2);
    out.values.push_back(b_.CreateExtractElement(pair, uint64_t{0}));
    out.values.push_back(b_.CreateExtractElement(pair, uint64_t{1}));
  }
  return out;
}

Emitter::ElementFn Emitter::element_fn(const ir::Op& op) {
  const ir::Type* result = op.result()->type();
  const ir::Type* first = op.operand(0)->type();
  switch (op.kind()) {
    case OpKind::Cmp:
      return [this, &op, first](const std::vector<llvm::Value*>& a) { return compare(op, first, a[0], a[1]); };
    case OpKind::Select:
      return [this](const std::vector<llvm::Value*>& a) { return b_.CreateSelect(a[0], a[1], a[2]); };
    case OpKind::Cast:
      return [this, &op, first, result](const std::vector<llvm::Value*>& a) { return cast(op, first, result, a[0]); };
    case OpKind::AddPtr:
      return [this, &op](const std::vector<llvm::Value*>& a) { return addptr(op, a[0], a[1]); };
    case OpKind::ExternElementwise: return extern_fn(op);
    default: break;
  }
  ScalarKind kind = first->element()->scalar_kind();
  return [this, &op, kind](const std::vector<llvm::Value*>& a) { return lane(op, kind, a); };
}

// ---- the elementwise ops of ir/elementwise.def ----

llvm::Value* Emitter::lane(const ir::Op& op, ScalarKind kind, const std::vector<llvm::Value*>& args) {
  [[maybe_unused]] llvm::Value* a = args[0];
  [[maybe_unused]] llvm::Value* b = args.size() > 1 ? args[1] : nullptr;
  [[maybe_unused]] llvm::Value* c = args.size() > 2 ? args[2] : nullptr;
  if (ir::is_float(kind)) {
    switch (op.kind()) {
#define TRITIUM_EMIT_FLOAT(OP, ...) \
  case OpKind::OP: return __VA_ARGS__;
#include "ir/elementwise.def"
      default: break;
    }
    internal_error("nvptx", std::string("'") + op.name() + "' on floats", op.loc());
  }
  [[maybe_unused]] bool is_signed = ir::is_signed(kind);
  switch (op.kind()) {
#define TRITIUM_EMIT_INT(OP, ...) \
  case OpKind::OP: return __VA_ARGS__;
#include "ir/elementwise.def"
    default: break;
  }
  internal_error("nvptx", std::string("'") + op.name() + "' on integers", op.loc());
}

llvm::Value* Emitter::int_division(const ir::Op& op, bool is_signed, llvm::Value* a, llvm::Value* b) {
  bool rem = op.kind() == OpKind::Rem;
  llvm::Type* type = a->getType();
  // Division by zero (and the signed minimum / -1) is immediate UB in LLVM; masked-off
  // lanes divide garbage, so a divisor that is not a known safe constant is replaced by 1
  // there (the lane's result is then unused, or defined as the interpreter defines it).
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b)) {
    if (!c->isZero() && !(is_signed && c->isMinusOne())) {
      if (is_signed) return rem ? b_.CreateSRem(a, b) : b_.CreateSDiv(a, b);
      return rem ? b_.CreateURem(a, b) : b_.CreateUDiv(a, b);
    }
  }
  llvm::Value* zero = b_.CreateICmpEQ(b, int_const(type, 0));
  if (!is_signed) {
    llvm::Value* safe = b_.CreateSelect(zero, int_const(type, 1), b);
    return rem ? b_.CreateURem(a, safe) : b_.CreateUDiv(a, safe);
  }
  llvm::Value* minus_one = b_.CreateICmpEQ(b, int_const(type, -1));
  llvm::Value* safe = b_.CreateSelect(b_.CreateOr(zero, minus_one), int_const(type, 1), b);
  // x / -1 = 0 - x (wrapping) and x % -1 = 0, without the overflowing instruction.
  if (rem) return b_.CreateSelect(minus_one, int_const(type, 0), b_.CreateSRem(a, safe));
  return b_.CreateSelect(minus_one, b_.CreateSub(int_const(type, 0), a), b_.CreateSDiv(a, safe));
}

llvm::Value* Emitter::shift(const ir::Op& op, bool is_signed, llvm::Value* a, llvm::Value* b) {
  // LLVM makes an amount >= the width poison; the tile IR defines it as PTX does: the
  // amount (read unsigned) clamps, giving 0, or the sign fill for an arithmetic shift.
  unsigned width = a->getType()->getIntegerBitWidth();
  llvm::Value* too_far = b_.CreateICmpUGE(b, int_const(a->getType(), width));
  if (op.kind() == OpKind::Shr && is_signed) {
    llvm::Value* amount = b_.CreateSelect(too_far, int_const(a->getType(), width - 1), b);
    return b_.CreateAShr(a, amount);
  }
  llvm::Value* shifted = op.kind() == OpKind::Shl ? b_.CreateShl(a, b) : b_.CreateLShr(a, b);
  return b_.CreateSelect(too_far, int_const(a->getType(), 0), shifted);
}

llvm::Value* Emitter::float_rem(llvm::Value* a, llvm::Value* b) {
  // fmod. LLVM expands frem as x - trunc(x / y) * y, which is off by one y whenever x / y
  // rounds up to an integer. fp16/bf16/fp32 go through fp64, whose quotient is exact enough
  // for every quotient below 2^24; one correction step fixes the sign case in any format.
  llvm::Type* type = a->getType();
  bool widen = !type->isDoubleTy();
  llvm::Value* x = widen ? b_.CreateFPExt(a, b_.getDoubleTy()) : a;
  llvm::Value* y = widen ? b_.CreateFPExt(b, b_.getDoubleTy()) : b;
  llvm::Value* r = b_.CreateFRem(x, y);
  // The exact fmod has the sign of x and |r| < |y|: a result of the other sign means the
  // quotient was one too large in magnitude; add |y| back towards x's sign.
  llvm::Value* zero = llvm::ConstantFP::get(b_.getDoubleTy(), 0.0);
  llvm::Value* x_negative = b_.CreateFCmpOLT(x, zero);
  llvm::Value* wrong_sign = b_.CreateSelect(x_negative, b_.CreateFCmpOGT(r, zero), b_.CreateFCmpOLT(r, zero));
  llvm::Value* abs_y = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  llvm::Value* step = b_.CreateSelect(x_negative, b_.CreateFNeg(abs_y), abs_y);
  r = b_.CreateSelect(wrong_sign, b_.CreateFAdd(r, step), r);
  return widen ? b_.CreateFPTrunc(r, type) : r;
}

// ---- math ----

llvm::Value* Emitter::math_via_f32(const ir::Op& op, ScalarKind kind, llvm::Value* a,
                                   const std::function<llvm::Value*(llvm::Value*)>& f32) {
  if (kind == ScalarKind::F64) error_at(op.loc(), std::string("tl.") + op.name() + " on fp64 is not supported on the GPU yet");
  // fp16/bf16 compute in fp32 and round once: exact for sqrt, floor and ceil, and as good
  // as the fp32 approximation for the rest.
  if (is_half_kind(kind)) return b_.CreateFPTrunc(f32(b_.CreateFPExt(a, b_.getFloatTy())), a->getType());
  return f32(a);
}

llvm::Value* Emitter::math_libdevice(const ir::Op& op, ScalarKind kind, llvm::Value* a, const char* f32_symbol,
                                     const char* f64_symbol, const std::function<llvm::Value*(llvm::Value*)>& fallback) {
  static const bool installed = !libdevice_path().empty();
  if (kind == ScalarKind::F64) {
    if (!installed) {
      error_at(op.loc(), std::string("tl.") + op.name() + " on fp64 calls libdevice's " + f64_symbol +
                             " (as Triton does), and libdevice was not found; looked in " + libdevice_search_text());
    }
    return libdevice_call(f64_symbol, a);
  }
  return math_via_f32(op, kind, a, [&](llvm::Value* v) { return installed ? libdevice_call(f32_symbol, v) : fallback(v); });
}

llvm::Value* Emitter::reduce_two_pi(llvm::Value* a) {
  // sin/cos.approx are accurate on [-pi, pi] only: reduce by 2*pi first (Cody-Waite, a
  // two-part 2*pi), which keeps the absolute error near 1e-6 for |x| up to ~1e5.
  auto f = [&](double v) { return llvm::ConstantFP::get(b_.getFloatTy(), v); };
  llvm::Value* k = b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, b_.CreateFMul(a, f(0.5 / M_PI)));
  const float hi = 6.28125f;  // 2*pi's leading bits, exact in k * hi
  const float lo = static_cast<float>(2.0 * M_PI - 6.28125);
  llvm::Value* r = b_.CreateIntrinsic(llvm::Intrinsic::fma, {b_.getFloatTy()}, {b_.CreateFNeg(k), f(hi), a});
  return b_.CreateIntrinsic(llvm::Intrinsic::fma, {b_.getFloatTy()}, {b_.CreateFNeg(k), f(lo), r});
}

// ---- compares and casts ----

llvm::Value* Emitter::compare(const ir::Op& op, const ir::Type* operand, llvm::Value* a, llvm::Value* b) {
  using C = ir::CmpPredicate;
  const C p = ir::CmpOp(op).predicate();
  const ir::Type* e = operand->element();
  using P = llvm::CmpInst::Predicate;
  if (e->is_scalar() && ir::is_float(e->scalar_kind())) {
    // Ordered, except "ne" (true when either side is NaN), as in C.
    P pred = p == C::Eq ? P::FCMP_OEQ : p == C::Ne ? P::FCMP_UNE : p == C::Lt ? P::FCMP_OLT
           : p == C::Le ? P::FCMP_OLE : p == C::Gt ? P::FCMP_OGT : P::FCMP_OGE;
    return b_.CreateFCmp(pred, a, b);
  }
  // Pointers and i1 compare unsigned, like the u* kinds.
  bool is_signed = e->is_scalar() && ir::is_signed(e->scalar_kind());
  P pred = p == C::Eq ? P::ICMP_EQ : p == C::Ne ? P::ICMP_NE
         : p == C::Lt ? (is_signed ? P::ICMP_SLT : P::ICMP_ULT) : p == C::Le ? (is_signed ? P::ICMP_SLE : P::ICMP_ULE)
         : p == C::Gt ? (is_signed ? P::ICMP_SGT : P::ICMP_UGT) : (is_signed ? P::ICMP_SGE : P::ICMP_UGE);
  return b_.CreateICmp(pred, a, b);
}

// Saturating, NaN -> 0: what the interpreter defines. LLVM's fptosi.sat lowers to cvt plus
// max/min or compares and selects (five or six instructions); for fp16/bf16/fp32 sources and
// results of at most 32 bits PTX's cvt.rzi does it alone (it clamps to the destination's
// range and gives 0 for NaN; 8-bit results in a 16-bit register), measured on the H200 over
// the edge values of tests/gpu/test_gpu_float_to_int.py. 64-bit results did not match there
// (f16/f32 to i64/u64 failed; which values was not recorded) and fp64 sources were not run:
// both keep LLVM's sequence. bf16 goes through fp32 (exact).
llvm::Value* Emitter::float_to_int(llvm::Value* a, ScalarKind fk, ScalarKind tk, llvm::Type* target) {
  const int bits = ir::bit_width(tk);
  if (fk == ScalarKind::F64 || bits > 32) {
    auto id = ir::is_signed(tk) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {target, a->getType()}, {a});
  }
  if (fk == ScalarKind::BF16) {
    a = b_.CreateFPExt(a, b_.getFloatTy());
    fk = ScalarKind::F32;
  }
  const bool half = fk == ScalarKind::F16;
  if (half) a = b_.CreateBitCast(a, b_.getInt16Ty());  // "h" takes i16
  llvm::Type* reg = bits == 32 ? b_.getInt32Ty() : b_.getInt16Ty();
  std::string text = std::string("cvt.rzi.") + (ir::is_signed(tk) ? "s" : "u") + std::to_string(bits) +
                     (half ? ".f16" : ".f32") + " $0, $1;";
  llvm::Value* v = ptx_unary(text, bits == 32 ? (half ? "=r,h" : "=r,f") : (half ? "=h,h" : "=h,f"), reg, {a});
  return reg == target ? v : b_.CreateTrunc(v, target);
}

llvm::Value* Emitter::cast(const ir::Op& op, const ir::Type* from_type, const ir::Type* to_type, llvm::Value* a) {
  const ir::Type* from = from_type->element();
  const ir::Type* to = to_type->element();
  llvm::Type* target = element_type(to_type);
  if (from == to) return a;
  if (is_bitcast(op)) {
    if (from->is_pointer() && to->is_pointer()) return a;
    if (from->is_pointer()) return b_.CreatePtrToInt(a, target);
    if (to->is_pointer()) return b_.CreateIntToPtr(a, target);
    if (is_half_kind(from->scalar_kind()) && is_half_kind(to->scalar_kind()) && !llvm::isa<llvm::Constant>(a)) {
      // fp16 <-> bf16 through an opaque 16-bit move: LLVM 22's InstCombine rewrites
      // `fcmp oeq/une (bitcast half %x to bfloat), 0` as `and half %x, 0x7fff` (invalid IR,
      // "Cannot select: f16 = and" later; llvm-project PR 198389). ptxas drops the mov.
      auto* move = llvm::InlineAsm::get(llvm::FunctionType::get(b_.getInt16Ty(), {b_.getInt16Ty()}, false),
                                        "mov.b16 $0, $1;", "=h,h", /*hasSideEffects=*/false);
      return b_.CreateBitCast(b_.CreateCall(move, {b_.CreateBitCast(a, b_.getInt16Ty())}), target);
    }
    return b_.CreateBitCast(a, target);
  }
  if (to->is_pointer()) {
    if (from->is_pointer()) return a;
    // inttoptr of a narrower integer zero-extends it (the interpreter's rule).
    return b_.CreateIntToPtr(b_.CreateZExtOrTrunc(a, b_.getInt64Ty()), target);
  }
  ScalarKind tk = to->scalar_kind();
  if (from->is_pointer()) {
    llvm::Value* bits = b_.CreatePtrToInt(a, b_.getInt64Ty());
    if (tk == ScalarKind::I1) return b_.CreateICmpNE(bits, b_.getInt64(0));
    if (ir::is_float(tk)) internal_error("nvptx", "cast from a pointer to a float", op.loc());
    return b_.CreateZExtOrTrunc(bits, target);
  }
  ScalarKind fk = from->scalar_kind();
  bool from_float = ir::is_float(fk);
  bool to_float = ir::is_float(tk);
  const ir::AttrValue* rounding = op.find_attr("rounding");
  bool toward_zero = rounding && std::holds_alternative<int64_t>(*rounding) && std::get<int64_t>(*rounding) == 1;
  if (ir::is_fp8(fk) || ir::is_fp8(tk)) {
    // Through fp32, exactly (fp8 values fit fp16, bf16 and fp32) except from fp64.
    llvm::Value* wide = a;
    if (ir::is_fp8(fk)) {
      wide = fp8_to_f32(a, fk);
    } else if (fk == ScalarKind::F64) {
      wide = toward_zero ? float_cast_toward_zero(a, fk, ScalarKind::F32) : b_.CreateFPTrunc(a, b_.getFloatTy());
    } else if (from_float) {
      wide = b_.CreateFPExt(a, b_.getFloatTy());
    } else {
      wide = ir::is_signed(fk) ? b_.CreateSIToFP(a, b_.getFloatTy()) : b_.CreateUIToFP(a, b_.getFloatTy());
    }
    if (ir::is_fp8(tk)) return f32_to_fp8(wide, tk, toward_zero);
    if (tk == ScalarKind::F32) return wide;
    if (to_float) return ir::bit_width(tk) > 32 ? b_.CreateFPExt(wide, target) : b_.CreateFPTrunc(wide, target);
    if (tk == ScalarKind::I1) return b_.CreateFCmpUNE(wide, llvm::ConstantFP::get(wide->getType(), 0.0));
    return float_to_int(wide, ScalarKind::F32, tk, target);
  }
  if (from_float && to_float && toward_zero && ir::bit_width(tk) < ir::bit_width(fk)) {
    return float_cast_toward_zero(a, fk, tk);
  }
  if (from_float && to_float) {
    // fp16 <-> bf16 through fp32: exact widening, then one rounding.
    if (is_half_kind(fk) && is_half_kind(tk)) return b_.CreateFPTrunc(b_.CreateFPExt(a, b_.getFloatTy()), target);
    return ir::bit_width(tk) > ir::bit_width(fk) ? b_.CreateFPExt(a, target) : b_.CreateFPTrunc(a, target);
  }
  if (from_float) {
    if (tk == ScalarKind::I1) return b_.CreateFCmpUNE(a, llvm::ConstantFP::get(a->getType(), 0.0));
    return float_to_int(a, fk, tk, target);
  }
  if (to_float && tk == ScalarKind::F16 && a->getType()->isIntegerTy(8)) {
    // 8-bit integers to f16 without cvt (a quarter-rate conversion): the byte u (x + 128
    // for a signed x) as the mantissa of 1024 (0x6400 | u is 1024 + u exactly), minus 1024
    // + the bias: exact, as sitofp / uitofp (+0 for 0). A dequantizing matmul converts every
    // weight so (w8a16: 32 cvt per thread and iteration against 4 wgmma).
    const bool is_signed = ir::is_signed(fk);
    // One xor makes both: the byte's high bit flipped (signed) and 0x64 above it.
    llvm::Value* bits = b_.CreateXor(b_.CreateZExt(a, b_.getInt16Ty()), b_.getInt16(is_signed ? 0x6480 : 0x6400));
    return b_.CreateFSub(b_.CreateBitCast(bits, b_.getHalfTy()),
                         llvm::ConstantFP::get(b_.getHalfTy(), is_signed ? 1152.0 : 1024.0));
  }
  if (to_float) return ir::is_signed(fk) ? b_.CreateSIToFP(a, target) : b_.CreateUIToFP(a, target);
  if (tk == ScalarKind::I1) return b_.CreateICmpNE(a, int_const(a->getType(), 0));
  return ir::is_signed(fk) ? b_.CreateSExtOrTrunc(a, target) : b_.CreateZExtOrTrunc(a, target);
}

}  // namespace tritium::nvptx

// fp8 on the GPU: values travel as their 8 bits (i8) and are converted through fp32. On
// sm_90 the OCP formats (fp8e4nv, fp8e5) use PTX's cvt (what Triton emits: rn.satfinite
// towards fp8); every other format, target or rounding uses the bit arithmetic below, which
// implements the same rules as ir/float_format.cpp (the interpreter's).
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <optional>

#include "ir/float_format.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

using ir::FloatSpecials;
using ir::ScalarKind;

namespace {

bool hardware_fp8(int sm, ScalarKind kind) {
  return sm >= 90 && (kind == ScalarKind::F8E4NV || kind == ScalarKind::F8E5);
}

}  // namespace

llvm::Value* Emitter::ptx_unary(const std::string& text, const char* constraints, llvm::Type* result,
                                std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args) types.push_back(a->getType());
  auto* fn_type = llvm::FunctionType::get(result, types, false);
  return b_.CreateCall(llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/false), args);
}

llvm::Value* Emitter::float_cast_toward_zero(llvm::Value* a, ScalarKind from, ScalarKind to) {
  if (from == ScalarKind::F64) {
    a = ptx_unary("cvt.rz.f32.f64 $0, $1;", "=f,d", b_.getFloatTy(), {a});
    if (to == ScalarKind::F32) return a;
    from = ScalarKind::F32;  // then f32 -> to: rz twice is rz once
  }
  if (from != ScalarKind::F32) internal_error("nvptx", "rtz cast from a narrow float");
  switch (to) {
    case ScalarKind::F16:
      return b_.CreateBitCast(ptx_unary("cvt.rz.f16.f32 $0, $1;", "=h,f", b_.getInt16Ty(), {a}),
                              b_.getHalfTy());
    case ScalarKind::BF16:
      return b_.CreateBitCast(ptx_unary("cvt.rz.bf16.f32 $0, $1;", "=h,f", b_.getInt16Ty(), {a}),
                              b_.getBFloatTy());
    default: break;
  }
  internal_error("nvptx", "rtz cast to " + std::string(ir::scalar_name(to)));
}

std::optional<Regs> Emitter::fp8_widened_in_pairs(const ir::Op& cast, const Regs& in) {
  const ir::Type* type = cast.result()->type();
  const ScalarKind from = cast.operand(0)->type()->element()->scalar_kind();
  const ScalarKind to = type->element()->scalar_kind();
  if (!type->is_block() || in.uniform || !hardware_fp8(sm_, from) ||
      (to != ScalarKind::F16 && to != ScalarKind::BF16 && to != ScalarKind::F32)) {
    return std::nullopt;
  }
  const int n = layout_of(type).num_regs();
  if (n < 2) return std::nullopt;
  // The instruction converts the two bytes of its operand independently (the low byte to
  // the low half), so any two registers of a thread share one.
  const char* text = from == ScalarKind::F8E4NV ? "cvt.rn.f16x2.e4m3x2 $0, $1;" : "cvt.rn.f16x2.e5m2x2 $0, $1;";
  llvm::Type* i16 = b_.getInt16Ty();
  Regs out;
  for (int r = 0; r < n; r += 2) {
    llvm::Value* bits = b_.CreateZExt(in.at(r), i16);
    if (r + 1 < n) bits = b_.CreateOr(bits, b_.CreateShl(b_.CreateZExt(in.at(r + 1), i16), 8));
    llvm::Value* pair = ptx_unary(text, "=r,h", b_.getInt32Ty(), {bits});
    for (int k = 0; k < 2 && r + k < n; ++k) {
      llvm::Value* word = k == 0 ? pair : b_.CreateLShr(pair, 16);
      llvm::Value* half = b_.CreateBitCast(b_.CreateTrunc(word, i16), b_.getHalfTy());
      if (to == ScalarKind::F16) {
        out.values.push_back(half);
        continue;
      }
      if (to == ScalarKind::BF16) {  // exact: fp8 values fit bf16; one cvt (f32 in between: two)
        llvm::Value* bits16 = ptx_unary("cvt.rn.bf16.f16 $0, $1;", "=h,h", i16, {b_.CreateBitCast(half, i16)});
        out.values.push_back(b_.CreateBitCast(bits16, b_.getBFloatTy()));
        continue;
      }
      out.values.push_back(b_.CreateFPExt(half, b_.getFloatTy()));  // exact
    }
  }
  return out;
}

llvm::Value* Emitter::fp8_to_f32(llvm::Value* bits, ScalarKind kind) {
  llvm::Type* f32 = b_.getFloatTy();
  if (hardware_fp8(sm_, kind)) {
    const char* text = kind == ScalarKind::F8E4NV ? "cvt.rn.f16x2.e4m3x2 $0, $1;"
                                                  : "cvt.rn.f16x2.e5m2x2 $0, $1;";
    llvm::Value* pair = ptx_unary(text, "=r,h", b_.getInt32Ty(), {b_.CreateZExt(bits, b_.getInt16Ty())});
    llvm::Value* half = b_.CreateBitCast(b_.CreateTrunc(pair, b_.getInt16Ty()), b_.getHalfTy());
    return b_.CreateFPExt(half, f32);
  }
  const int m = ir::fp_mantissa_width(kind);
  const int bias = ir::exponent_bias(kind);
  const int all_ones = (1 << ir::fp_exponent_width(kind)) - 1;
  llvm::Value* b = b_.CreateZExt(bits, b_.getInt32Ty());
  llvm::Value* magnitude = b_.CreateAnd(b, 0x7f);
  llvm::Value* field = b_.CreateLShr(magnitude, m);
  llvm::Value* mantissa = b_.CreateAnd(magnitude, (1 << m) - 1);
  // Normal: re-biased exponent and the mantissa at the top of fp32's.
  llvm::Value* normal_bits =
      b_.CreateOr(b_.CreateShl(b_.CreateAdd(field, b_.getInt32(127 - bias)), 23),
                  b_.CreateShl(mantissa, 23 - m));
  llvm::Value* normal = b_.CreateBitCast(normal_bits, f32);
  // Subnormal (and zero): mantissa units of 2^(1 - bias - m), exact in fp32.
  llvm::Value* subnormal =
      b_.CreateFMul(b_.CreateUIToFP(mantissa, f32),
                    llvm::ConstantFP::get(f32, std::ldexp(1.0, 1 - bias - m)));
  llvm::Value* value = b_.CreateSelect(b_.CreateICmpEQ(field, b_.getInt32(0)), subnormal, normal);
  llvm::Value* nan = llvm::ConstantFP::getNaN(f32);
  switch (ir::float_specials(kind)) {
    case FloatSpecials::Ieee: {
      llvm::Value* top = b_.CreateICmpEQ(field, b_.getInt32(all_ones));
      llvm::Value* special = b_.CreateSelect(b_.CreateICmpEQ(mantissa, b_.getInt32(0)),
                                             llvm::ConstantFP::getInfinity(f32), nan);
      value = b_.CreateSelect(top, special, value);
      break;
    }
    case FloatSpecials::Fn:
      value = b_.CreateSelect(b_.CreateICmpEQ(magnitude, b_.getInt32(0x7f)), nan, value);
      break;
    case FloatSpecials::Fnuz:
      value = b_.CreateSelect(b_.CreateICmpEQ(b, b_.getInt32(0x80)), nan, value);
      break;
    case FloatSpecials::Finite:
    case FloatSpecials::None:
      break;
  }
  llvm::Value* negative = b_.CreateICmpNE(b_.CreateAnd(b, 0x80), b_.getInt32(0));
  return b_.CreateSelect(negative, b_.CreateFNeg(value), value);
}

llvm::Value* Emitter::f32_to_fp8(llvm::Value* x, ScalarKind kind, bool toward_zero) {
  llvm::Type* f32 = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  if (hardware_fp8(sm_, kind) && !toward_zero) {
    // d = {cvt(a) high byte, cvt(b) low byte}: the value goes in b, zero in a.
    const char* text = kind == ScalarKind::F8E4NV ? "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;"
                                                  : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;";
    llvm::Value* pair = ptx_unary(text, "=h,f,f", b_.getInt16Ty(), {llvm::ConstantFP::get(f32, 0.0), x});
    return b_.CreateTrunc(pair, b_.getInt8Ty());
  }
  const int m = ir::fp_mantissa_width(kind);
  const int bias = ir::exponent_bias(kind);
  const int all_ones = (1 << ir::fp_exponent_width(kind)) - 1;
  const FloatSpecials specials = ir::float_specials(kind);
  const auto top_bits = static_cast<int64_t>(ir::encode_float(ir::max_finite(kind), kind));
  llvm::Value* a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Saturate to the largest finite value (cvt.rn.satfinite's rule), NaN handled below.
  llvm::Value* clamped = b_.CreateSelect(
      b_.CreateFCmpOGT(a, llvm::ConstantFP::get(f32, ir::max_finite(kind))),
      llvm::ConstantFP::get(f32, ir::max_finite(kind)), a);
  // Subnormal range: count units of 2^(1 - bias - m) and round the count.
  llvm::Value* units = b_.CreateFMul(clamped, llvm::ConstantFP::get(f32, std::ldexp(1.0, bias - 1 + m)));
  units = b_.CreateUnaryIntrinsic(toward_zero ? llvm::Intrinsic::trunc : llvm::Intrinsic::rint, units);
  llvm::Value* sub_bits = b_.CreateFPToUI(units, i32);
  // Normal range: round fp32's mantissa to m bits (nearest-even or truncation), re-bias.
  llvm::Value* ab = b_.CreateBitCast(clamped, i32);
  const int shift = 23 - m;
  llvm::Value* rounded = ab;
  if (!toward_zero) {
    llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(ab, shift), 1);
    rounded = b_.CreateAdd(b_.CreateAdd(ab, b_.getInt32((1 << (shift - 1)) - 1)), odd);
  }
  llvm::Value* norm_bits = b_.CreateSub(b_.CreateLShr(rounded, shift), b_.getInt32((127 - bias) << m));
  llvm::Value* is_sub = b_.CreateFCmpOLT(clamped, llvm::ConstantFP::get(f32, std::ldexp(1.0, 1 - bias)));
  llvm::Value* bits = b_.CreateSelect(is_sub, sub_bits, norm_bits);
  bits = b_.CreateSelect(b_.CreateICmpUGT(bits, b_.getInt32(top_bits)), b_.getInt32(top_bits), bits);
  if (specials == FloatSpecials::Ieee && toward_zero) {  // rz keeps infinities infinite
    llvm::Value* inf = b_.CreateFCmpOEQ(a, llvm::ConstantFP::getInfinity(f32));
    bits = b_.CreateSelect(inf, b_.getInt32(all_ones << m), bits);
  }
  llvm::Value* sign = b_.CreateAnd(b_.CreateLShr(b_.CreateBitCast(x, i32), 24), 0x80);
  llvm::Value* with_sign = b_.CreateOr(bits, sign);
  if (specials == FloatSpecials::Fnuz) {  // no negative zero
    with_sign = b_.CreateSelect(b_.CreateICmpEQ(bits, b_.getInt32(0)), b_.getInt32(0), with_sign);
  }
  const auto nan_pattern = static_cast<int64_t>(ir::encode_float(std::nan(""), kind));
  llvm::Value* nan_bits = b_.getInt32(static_cast<uint32_t>(nan_pattern));
  if (specials == FloatSpecials::Fn || specials == FloatSpecials::Finite) {
    nan_bits = b_.CreateOr(b_.getInt32(static_cast<uint32_t>(nan_pattern & 0x7f)), sign);
  }
  llvm::Value* result = b_.CreateSelect(b_.CreateFCmpUNO(x, x), nan_bits, with_sign);
  return b_.CreateTrunc(result, b_.getInt8Ty());
}

}  // namespace tritium::nvptx

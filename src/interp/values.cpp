// Scalar semantics shared by the interpreter's op families: integer wrapping, rounding
// to the float formats, int<->float conversion, and the memory bit formats.
#include "interp/values.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tritium::interp {

using ir::ScalarKind;

namespace {

// Round-to-nearest-even of a finite double to a binary format with `mantissa` stored
// bits and normal exponents [emin, emax]. Scaling by powers of two is exact, and
// nearbyint rounds ties to even in the default rounding mode.
double round_to_format(double x, int mantissa, int emin, int emax) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  int quantum = std::max(e - 1, emin) - mantissa;  // exponent of one unit in the last place
  double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
  if (std::fabs(r) >= std::ldexp(1.0, emax + 1)) return std::copysign(INFINITY, x);
  return r;
}

uint16_t half_bits(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  double a = std::fabs(round_to_format(x, 10, -14, 15));
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  if (e - 1 < -14) return sign | static_cast<uint16_t>(std::ldexp(a, 24));  // subnormal
  auto mantissa = static_cast<uint16_t>(std::ldexp(a, 11 - e) - 1024);
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10) | mantissa;
}

double half_value(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(mantissa | 0x400, exponent - 25);
  }
  return (bits & 0x8000) ? -value : value;
}

uint16_t bf16_bits(double x) {
  if (std::isnan(x)) return std::signbit(x) ? 0xffc0 : 0x7fc0;
  // After rounding to bf16 the value is exact in fp32, so its top 16 bits are the bf16.
  auto f = static_cast<float>(round_to_format(x, 7, -126, 127));
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16);
}

double bf16_value(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

}  // namespace

Buffer make_buffer(const ir::Type* type) {
  Buffer buffer;
  buffer.type = type;
  const ir::Type* element = type->element();
  buffer.is_ptr = element->is_pointer();
  buffer.kind = buffer.is_ptr ? ScalarKind::I64 : element->scalar_kind();
  buffer.is_float = !buffer.is_ptr && ir::is_float(buffer.kind);
  buffer.slots.assign(static_cast<size_t>(type->num_elements()), Slot{0});
  return buffer;
}

void copy_buffer(const Buffer& from, Buffer& to) {
  std::memcpy(to.data(), from.data(), sizeof(Slot) * static_cast<size_t>(to.size()));
  to.poison_origin = from.poison_origin;
  to.poison_reason = from.poison_reason;
  if (from.poisoned()) to.poison = from.poison;
}

double round_float(double value, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F16: return round_to_format(value, 10, -14, 15);
    case ScalarKind::BF16: return round_to_format(value, 7, -126, 127);
    case ScalarKind::F32: return static_cast<double>(static_cast<float>(value));
    case ScalarKind::F64: return value;
    default:
      if (ir::is_fp8(kind)) return ir::decode_float(ir::encode_float(value, kind), kind);
      return value;
  }
}

double round_float(double value, ScalarKind kind, ir::Rounding rounding) {
  if (rounding == ir::Rounding::NearestEven || kind == ScalarKind::F64) {
    return round_float(value, kind);
  }
  return ir::decode_float(ir::encode_float(value, kind, rounding), kind);
}

double fp8_from_float(double value, ScalarKind from, ScalarKind to, ir::Rounding rounding) {
  if (from == ScalarKind::F64) value = round_float(value, ScalarKind::F32, rounding);
  return ir::decode_float(ir::encode_float(value, to, rounding), to);
}

void wrap_all(Slot* slots, int64_t n, ScalarKind kind) {
  // One switch per op, a tight loop per kind.
  switch (kind) {
    case ScalarKind::I64:
    case ScalarKind::U64: return;
    case ScalarKind::I1: for (int64_t i = 0; i < n; ++i) slots[i].i &= 1; return;
    case ScalarKind::I8: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<int8_t>(slots[i].i); return;
    case ScalarKind::I16: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<int16_t>(slots[i].i); return;
    case ScalarKind::I32: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<int32_t>(slots[i].i); return;
    case ScalarKind::U8: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<uint8_t>(slots[i].i); return;
    case ScalarKind::U16: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<uint16_t>(slots[i].i); return;
    case ScalarKind::U32: for (int64_t i = 0; i < n; ++i) slots[i].i = static_cast<uint32_t>(slots[i].i); return;
    default: return;
  }
}

void round_all(Slot* slots, int64_t n, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F32:
      for (int64_t i = 0; i < n; ++i) slots[i].f = static_cast<float>(slots[i].f);
      return;
    case ScalarKind::F16:
    case ScalarKind::BF16:
      for (int64_t i = 0; i < n; ++i) slots[i].f = round_float(slots[i].f, kind);
      return;
    default:
      if (ir::is_fp8(kind)) {
        for (int64_t i = 0; i < n; ++i) slots[i].f = round_float(slots[i].f, kind);
      }
      return;
  }
}

double int_to_float(int64_t value, bool is_unsigned, ScalarKind to) {
  // fp64 and fp32: the C++ conversions round once, correctly.
  if (to == ScalarKind::F64) return is_unsigned ? static_cast<double>(static_cast<uint64_t>(value)) : static_cast<double>(value);
  if (to == ScalarKind::F32) {
    return is_unsigned ? static_cast<float>(static_cast<uint64_t>(value)) : static_cast<float>(value);
  }
  // fp16/bf16: first to 53 bits rounding to odd (truncate, set the lowest bit when
  // inexact), which makes the second rounding to <= 51 bits exact as one rounding.
  bool negative = !is_unsigned && value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int shift = 0;
  if (magnitude >> 53) {
    shift = 64 - std::countl_zero(magnitude) - 53;
    uint64_t lost = magnitude & ((uint64_t{1} << shift) - 1);
    magnitude = (magnitude >> shift) | (lost ? 1 : 0);
  }
  double exact = std::ldexp(static_cast<double>(magnitude), shift);
  return round_float(negative ? -exact : exact, to);
}

namespace {
std::atomic<uint64_t> saturated_count{0};

int64_t saturated(int64_t limit) {
  saturated_count.fetch_add(1, std::memory_order_relaxed);
  return limit;
}
}  // namespace

uint64_t saturated_conversions() { return saturated_count.load(std::memory_order_relaxed); }

namespace {
std::atomic<uint64_t> wide_shift_count{0};
}  // namespace

int64_t wide_shift(int64_t result) {
  wide_shift_count.fetch_add(1, std::memory_order_relaxed);
  return result;
}

uint64_t wide_shifts() { return wide_shift_count.load(std::memory_order_relaxed); }

int64_t float_to_int(double value, ScalarKind to) {
  if (to == ScalarKind::I1) return value != 0 ? 1 : 0;
  if (std::isnan(value)) return saturated(0);
  double t = std::trunc(value);
  int bits = ir::bit_width(to);
  if (ir::is_signed(to)) {
    double high = std::ldexp(1.0, bits - 1);  // 2^(bits-1): first value out of range
    if (t >= high) return saturated(static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1));
    if (t < -high) return saturated(bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)));
    return static_cast<int64_t>(t);
  }
  if (t < 0) return saturated(0);
  if (t == 0) return 0;
  if (t >= std::ldexp(1.0, bits)) return saturated(bits == 64 ? -1 : static_cast<int64_t>((uint64_t{1} << bits) - 1));
  return static_cast<int64_t>(static_cast<uint64_t>(t));
}

uint64_t to_bits(Slot slot, ScalarKind kind, bool is_ptr) {
  if (is_ptr) return static_cast<uint64_t>(slot.i);
  switch (kind) {
    case ScalarKind::F16: return half_bits(slot.f);
    case ScalarKind::BF16: return bf16_bits(slot.f);
    case ScalarKind::F32: return std::bit_cast<uint32_t>(static_cast<float>(slot.f));
    case ScalarKind::F64: return std::bit_cast<uint64_t>(slot.f);
    default: {
      // The slot holds a value of the format already; toward-zero keeps an infinity.
      if (ir::is_fp8(kind)) return ir::encode_float(slot.f, kind, ir::Rounding::TowardZero);
      int bits = ir::bit_width(kind);
      uint64_t value = static_cast<uint64_t>(slot.i);
      return bits == 64 ? value : value & ((uint64_t{1} << bits) - 1);
    }
  }
}

Slot from_bits(uint64_t bits, ScalarKind kind, bool is_ptr) {
  Slot slot;
  if (is_ptr) {
    slot.i = static_cast<int64_t>(bits);
    return slot;
  }
  switch (kind) {
    case ScalarKind::F16: slot.f = half_value(static_cast<uint16_t>(bits)); break;
    case ScalarKind::BF16: slot.f = bf16_value(static_cast<uint16_t>(bits)); break;
    case ScalarKind::F32: slot.f = std::bit_cast<float>(static_cast<uint32_t>(bits)); break;
    case ScalarKind::F64: slot.f = std::bit_cast<double>(bits); break;
    default:
      if (ir::is_fp8(kind)) {
        slot.f = ir::decode_float(bits & 0xff, kind);
        break;
      }
      slot.i = wrap_int(static_cast<int64_t>(bits), kind); break;
  }
  return slot;
}

int memory_bytes(ScalarKind kind) {
  int bits = ir::bit_width(kind);
  return bits < 8 ? 1 : bits / 8;
}

}  // namespace tritium::interp

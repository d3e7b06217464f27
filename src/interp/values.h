// How the interpreter holds runtime values: one flat row-major array of 64-bit slots per
// SSA value, plus the scalar arithmetic every op family shares (integer wrapping to a
// type's width, float rounding to fp16/bf16/fp32, the bit formats of memory).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/float_format.h"
#include "ir/ir.h"

namespace tritium::interp {

using ir::wrap_int;

// One element. Integers and pointers use `i` (sign- or zero-extended per the type, so
// u64 values above 2^63 look negative and must be compared as uint64); floats use `f`,
// always holding a value exactly representable in the element's format.
union Slot {
  int64_t i;
  double f;
};

// The storage of one SSA value. Sized once when the interpreter is set up: types are
// static, so no op allocates while the kernel runs.
struct Buffer {
  const ir::Type* type = nullptr;
  ir::ScalarKind kind = ir::ScalarKind::I64;  // element kind; I64 for pointers
  bool is_ptr = false;
  bool is_float = false;  // the element is a float (slots use `f`)
  std::vector<Slot> slots;
  // Lanes holding the result of an operation with no defined result (an integer division
  // by zero): an error only once such a lane is observed (poison.h). `poison` is sized like
  // `slots` while `poison_origin` is set, and stale otherwise.
  std::vector<uint8_t> poison;
  const ir::Op* poison_origin = nullptr;
  const char* poison_reason = nullptr;

  int64_t size() const { return static_cast<int64_t>(slots.size()); }
  bool poisoned() const { return poison_origin != nullptr; }
  Slot* data() { return slots.data(); }
  const Slot* data() const { return slots.data(); }
};

// A buffer for a value of `type` (zero-filled).
Buffer make_buffer(const ir::Type* type);
// Copies the values and the poison of `from` into `to` (of the same type).
void copy_buffer(const Buffer& from, Buffer& to);


// `value` rounded to nearest-even in the format of `kind` (fp16, bf16, fp32; fp64 as is),
// with subnormals, overflow to infinity, and NaN handled as IEEE 754 does.
double round_float(double value, ir::ScalarKind kind);
// The same with a rounding mode (Triton's fp_downcast_rounding); fp8 saturates as
// ir/float_format.h says.
double round_float(double value, ir::ScalarKind kind, ir::Rounding rounding);
// A float of kind `from` converted to the fp8 kind `to` as the GPU does: through fp32.
double fp8_from_float(double value, ir::ScalarKind from, ir::ScalarKind to, ir::Rounding rounding);

// In place over n slots: the same, for a whole result after one op.
void wrap_all(Slot* slots, int64_t n, ir::ScalarKind kind);
void round_all(Slot* slots, int64_t n, ir::ScalarKind kind);

// Integer to float with one correct rounding to `to` (no double rounding through fp64
// for 64-bit sources).
double int_to_float(int64_t value, bool is_unsigned, ir::ScalarKind to);
// Float to integer: toward zero; NaN gives 0 and out-of-range values saturate to the
// type's limits (what PTX's cvt.rzi does; Triton calls this undefined). To i1: != 0.
int64_t float_to_int(double value, ir::ScalarKind to);
// How many float -> int conversions this process saturated (out of range or NaN; not to
// i1): Triton's result for those is undefined, so the differential harness reads it to tag
// a Triton mismatch that follows one. Masked lanes convert garbage too: a hint, not an error.
uint64_t saturated_conversions();
// The same for shifts by >= the bit width (LLVM poison in Triton; 0 or the sign fill here):
// the shift lanes of ir/elementwise.def return wide_shift(result), which counts it.
int64_t wide_shift(int64_t result);
uint64_t wide_shifts();

// The bit pattern of an element as memory holds it (the low bit_width bits; pointers are
// 64 bits), and back.
uint64_t to_bits(Slot slot, ir::ScalarKind kind, bool is_ptr);
Slot from_bits(uint64_t bits, ir::ScalarKind kind, bool is_ptr);

// The number of bytes one element of `kind` takes in memory (i1: one byte).
int memory_bytes(ir::ScalarKind kind);

}  // namespace tritium::interp

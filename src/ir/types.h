// The types of the tile IR: scalars, pointers to scalars, and blocks (a static shape of
// scalars or pointers, with a layout slot that the GPU passes fill). Types are interned and
// immutable: equality is a pointer compare, and the layout takes part in it (two blocks of
// one shape and element with different layouts are different types); same_ignoring_layout
// and without_layout compare shapes and elements alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritium::ir {

class Layout;

// The scalar kinds, from the one dtype table (include/tritium/dtypes.def).
enum class ScalarKind : uint8_t {
#define TRITIUM_DTYPE(kind, ...) kind,
#include "tritium/dtypes.def"
#undef TRITIUM_DTYPE
};
constexpr int kNumScalarKinds = 0
#define TRITIUM_DTYPE(...) +1
#include "tritium/dtypes.def"
#undef TRITIUM_DTYPE
    ;

// How a float format encodes infinities and NaN (the table's `special` column).
enum class FloatSpecials : uint8_t {
  None,    // not a float
  Ieee,    // IEEE 754: all-ones exponent is infinity (mantissa 0) or NaN
  Fn,      // no infinities; NaN is all-ones exponent and mantissa (OCP E4M3)
  Fnuz,    // no infinities, no negative zero; NaN is the bit pattern of -0
  Finite,  // every pattern is a finite number (Triton's fp8e4b15)
};

// Properties of a scalar kind (all read from the table).
int bit_width(ScalarKind k);
bool is_integer(ScalarKind k);  // i1 counts as an integer (unsigned, one bit)
bool is_signed(ScalarKind k);   // i8..i64; i1 and the u* kinds are unsigned
bool is_float(ScalarKind k);
bool is_fp8(ScalarKind k);
int fp_mantissa_width(ScalarKind k);  // floats: stored mantissa bits; 0 for integers
int fp_exponent_width(ScalarKind k);
int exponent_bias(ScalarKind k);
FloatSpecials float_specials(ScalarKind k);
// Triton's spelling: "i1", "i32", "u64", "fp16", "bf16", "fp32", "fp8e4nv", ...
const char* scalar_name(ScalarKind k);
// tritium.language's attribute name: "int1", "int32", "float16", "float8e4nv", ...
const char* scalar_long_name(ScalarKind k);
// Triton's str(dtype), for messages that quote Triton's: "int32", "uint8", "fp16", "bf16", ...
std::string triton_dtype_name(ScalarKind k);
// The torch dtype name (torch.<name>) and the numpy/ml_dtypes name; "" when there is none.
const char* torch_name(ScalarKind k);
const char* numpy_name(ScalarKind k);
// The inverse of scalar_name; also accepts the long names, torch's and numpy's names
// ("float8_e4m3fn"), "bool" and "u1". Returns false when `name` is none of them.
bool parse_scalar_name(const std::string& name, ScalarKind* out);

// `value` truncated to the width of `kind` and sign- or zero-extended (i1: the low bit):
// how IR constants and the interpreter hold integers of every type in 64 bits.
inline int64_t wrap_int(int64_t value, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I1: return value & 1;
    case ScalarKind::I8: return static_cast<int8_t>(value);
    case ScalarKind::I16: return static_cast<int16_t>(value);
    case ScalarKind::I32: return static_cast<int32_t>(value);
    case ScalarKind::U8: return static_cast<uint8_t>(value);
    case ScalarKind::U16: return static_cast<uint16_t>(value);
    case ScalarKind::U32: return static_cast<uint32_t>(value);
    default: return value;
  }
}

class Type {
 public:
  enum class Kind : uint8_t { Scalar, Pointer, Block };

  // Interned constructors; thread-safe; the returned pointers live for the whole process.
  static const Type* scalar(ScalarKind k);
  static const Type* pointer(const Type* pointee);  // pointee must be a scalar
  // element: scalar or pointer; layout: null (no layout yet) or one of `shape`.
  static const Type* block(const Type* element, const std::vector<int64_t>& shape, const Layout* layout = nullptr);

  Kind kind() const { return kind_; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_pointer() const { return kind_ == Kind::Pointer; }
  bool is_block() const { return kind_ == Kind::Block; }

  // Scalar kind of a scalar type. Only valid when is_scalar().
  ScalarKind scalar_kind() const { return scalar_; }
  // Pointee of a pointer type (a scalar type). Only valid when is_pointer().
  const Type* pointee() const { return inner_; }
  // Element of a block (scalar or pointer), or the type itself for non-blocks.
  const Type* element() const { return is_block() ? inner_ : this; }
  // Shape of a block; empty for scalars and pointers.
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t num_elements() const;

  // The same shape (and layout) with another element type (a scalar result for a non-block).
  const Type* with_element(const Type* element) const;

  // A block's layout; null when none has been assigned (always for scalars and pointers).
  const Layout* layout() const { return layout_; }
  // The same block with `layout` (null: none); non-blocks are returned as they are.
  const Type* with_layout(const Layout* layout) const;
  const Type* without_layout() const { return with_layout(nullptr); }
  // Equal shape and element, whatever the layouts (the tile IR's type rules).
  static bool same_ignoring_layout(const Type* a, const Type* b) { return a->without_layout() == b->without_layout(); }

  // Convenience on the element type.
  bool is_int() const;    // element is an integer scalar (i1 included)
  bool is_float() const;  // element is a float scalar
  bool is_ptr() const;    // element is a pointer
  bool is_bool() const;   // element is i1

  // Printed form: i32, ptr<fp32>, block<128x64xfp16>, block<128xptr<fp32>>; a layout
  // follows the element: block<128xfp32, blocked<spt = [4], ...>> (layout.h).
  std::string str() const;

 private:
  Type(Kind kind, ScalarKind scalar, const Type* inner, std::vector<int64_t> shape, const Layout* layout = nullptr)
      : kind_(kind), scalar_(scalar), inner_(inner), shape_(std::move(shape)), layout_(layout) {}

  Kind kind_;
  ScalarKind scalar_;
  const Type* inner_;
  std::vector<int64_t> shape_;
  const Layout* layout_;

  friend class TypeTable;
};

}  // namespace tritium::ir

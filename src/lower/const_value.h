// Compile-time values: what a `tl.constexpr` parameter, a Python literal or a folded
// argument holds during lowering (Python semantics: unbounded ints within 128 bits).
#pragma once

#include <string>

#include "ir/types.h"

namespace tritium {

struct ConstValue {
  enum class Kind { None, Bool, Int, Float, Str, DType };

  Kind kind = Kind::None;
  bool b = false;
  __int128 i = 0;
  double f = 0;
  std::string s;                              // Str
  ir::ScalarKind dtype = ir::ScalarKind::I32;  // DType (the pointee when `pointer`)
  bool pointer = false;                        // DType: tl.pointer_type(dtype)

  static ConstValue none() { return {}; }
  static ConstValue boolean(bool v) { ConstValue c; c.kind = Kind::Bool; c.b = v; return c; }
  static ConstValue integer(__int128 v) { ConstValue c; c.kind = Kind::Int; c.i = v; return c; }
  static ConstValue floating(double v) { ConstValue c; c.kind = Kind::Float; c.f = v; return c; }
  static ConstValue string(std::string v) { ConstValue c; c.kind = Kind::Str; c.s = std::move(v); return c; }
  static ConstValue type(ir::ScalarKind k) { ConstValue c; c.kind = Kind::DType; c.dtype = k; return c; }
  static ConstValue pointer_type(ir::ScalarKind k) { ConstValue c = type(k); c.pointer = true; return c; }

  // Python's repr-like text: None, True, 42, 1.5, 'relu', fp16. Canonical: the cache key
  // and the signature text use it.
  std::string str() const;
  bool operator==(const ConstValue& other) const;
};

// Decimal text of a 128-bit integer.
std::string int128_to_string(__int128 value);

}  // namespace tritium

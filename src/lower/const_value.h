// Compile-time values: what a `tl.constexpr` parameter, a Python literal or a folded
// argument holds during lowering (Python semantics: unbounded ints within 128 bits).
#pragma once

#include <memory>
#include <string>

#include "ir/types.h"

namespace tritium {

struct ConstValue {
  enum class Kind { None, Bool, Int, Float, Str, DType, Object };

  // Object: any other Python object given to a tl.constexpr parameter (Triton specializes
  // on it and a kernel can pass it around, compare it and static_print it): its type name
  // and str(); `s` holds its repr, which keys it (as Triton's cache key text does).
  struct ObjectInfo {
    std::string type, text;
    bool truth = true;  // bool(obj), asked when it was given
  };

  Kind kind = Kind::None;
  bool b = false;
  __int128 i = 0;
  double f = 0;
  std::string s;                              // Str
  ir::ScalarKind dtype = ir::ScalarKind::I32;  // DType (the pointee when `pointer`)
  bool pointer = false;                        // DType: tl.pointer_type(dtype)
  std::shared_ptr<const ObjectInfo> object;    // Object (`s`: the repr)

  static ConstValue none() { return {}; }
  static ConstValue boolean(bool v) { ConstValue c; c.kind = Kind::Bool; c.b = v; return c; }
  static ConstValue integer(__int128 v) { ConstValue c; c.kind = Kind::Int; c.i = v; return c; }
  static ConstValue floating(double v) { ConstValue c; c.kind = Kind::Float; c.f = v; return c; }
  static ConstValue string(std::string v) { ConstValue c; c.kind = Kind::Str; c.s = std::move(v); return c; }
  static ConstValue type(ir::ScalarKind k) { ConstValue c; c.kind = Kind::DType; c.dtype = k; return c; }
  static ConstValue pointer_type(ir::ScalarKind k) { ConstValue c = type(k); c.pointer = true; return c; }
  static ConstValue python_object(std::string type, std::string repr, std::string text, bool truth) {
    ConstValue c;
    c.kind = Kind::Object;
    c.s = std::move(repr);
    c.object = std::make_shared<const ObjectInfo>(ObjectInfo{std::move(type), std::move(text), truth});
    return c;
  }
  const std::string& object_type() const { return object->type; }
  const std::string& object_text() const { return object->text; }

  // Python's repr-like text: None, True, 42, 1.5, 'relu', fp16, object(UUID('...')).
  // Canonical: the cache key and the signature text use it.
  std::string str() const;
  bool operator==(const ConstValue& other) const;
};

// Decimal text of a 128-bit integer.
std::string int128_to_string(__int128 value);

}  // namespace tritium

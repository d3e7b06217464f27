// The specialization signature of one call (DESIGN: Specialization): for each parameter,
// its type and the facts the runtime proved, or the constant it was folded to. Its text
// form (`*fp32:16, *fp32:16, i32:16, 1, BLOCK=1024`) is used by the CLI, the cache key and
// error messages.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/types.h"
#include "lower/const_value.h"

namespace tritium {

struct GlobalBinding;  // lower/lower.h

struct ParamSig {
  enum class Kind {
    Pointer,   // `*fp32` / `*fp32:16`: pointer to `dtype`; divisibility 16 = 16-byte aligned
    Scalar,    // `i32` / `i32:16` / `i64` / `u64` / `fp32` / `i1`; divisibility for ints
    Constant,  // folded: an int equal to 1 (`1`), None (`None`), a constexpr (`NAME=value`)
    // A tensor descriptor made on the host: `tensordesc<fp16[64, 64]>` (Triton's type
    // string), `tensordesc<fp32[16, 32],padding=nan>` with NaN padding. `dtype` is the
    // element, `block_shape` the tile; the base, shape and strides are runtime values (the
    // launcher checked the base's 16-byte alignment, the strides' multiples of 16 bytes and
    // the last stride of 1, so those hold for every launch; and which shapes are
    // multiples of 16).
    Descriptor,
    // A tuple passed as one parameter (Triton 3.x): `(*fp32:16, i32, constexpr(4))`, one
    // entry per element in `elements`, each specialized as a parameter would be (a
    // constexpr element, a tl.constexpr in the tuple, prints as `constexpr(value)`).
    Tuple,
    // A @jit function (or tl.constexpr_function) passed as an argument: a compile-time value
    // the kernel may call, written `jit(KEY)` (`NAME=jit(KEY)` for a constexpr parameter),
    // KEY its name and a digest of its source and globals (Arg::function). `function` is
    // what the kernel calls; equality compares the key.
    Function,
  };

  Kind kind = Kind::Scalar;
  ir::ScalarKind dtype = ir::ScalarKind::I32;  // Pointer: the pointee; Scalar: the type
  int divisibility = 1;                        // 1 or 16
  ConstValue value;                            // Constant only
  bool is_constexpr = false;  // the parameter is annotated tl.constexpr (value printed NAME=v)
  std::vector<int64_t> block_shape;  // Descriptor only
  bool padding_nan = false;          // Descriptor only
  // Descriptor only: per dimension, 16 when the launcher saw its shape divisible by 16, else
  // 1 (`,shape_div=[16, 16]` in the text, printed when some entry is 16). A shape divisible
  // by 16 keeps the bounds masks constant over 16-element runs: vector and cp.async copies.
  std::vector<int> shape_divisibility;
  std::vector<ParamSig> elements;  // Tuple only
  // Tuple only: a named tuple's type name and field names (both empty for a plain tuple),
  // written `Point(x=i32, y=*fp32:16)`; a kernel reads its items by field name too.
  std::string tuple_type;
  std::vector<std::string> fields;
  std::string function_key;                        // Function only
  std::shared_ptr<const GlobalBinding> function;   // Function only

  // Tuple only: the elements that are not tuples, depth first (the order a tuple's entry
  // arguments take; ir::Param::dim of an ArgPart::TupleLeaf entry indexes it).
  void leaves(std::vector<const ParamSig*>* out) const;

  bool operator==(const ParamSig& other) const;
};

// The number of kernel entry arguments a descriptor of `rank` dimensions becomes: its base
// pointer, its shape (i32 each) and its strides but the last (i64 each; the last is 1).
inline size_t descriptor_entry_args(size_t rank) { return 2 * rank; }

struct Signature {
  std::vector<ParamSig> params;

  // Canonical text; `names` are the parameter names (used for constexpr entries).
  std::string str(const std::vector<std::string>& names) const;
  bool operator==(const Signature& other) const { return params == other.params; }
};

// Parses the text form against the kernel's parameter names and which of them are
// constexpr. Entries are positional, one per parameter; `NAME=value` may name any
// parameter (constexpr ones usually), and positional constexpr entries are bare values.
// Values: ints, floats, True/False, None, 'strings', dtypes (fp16, tl.float16).
// Errors (unknown name, missing parameter, bad type) throw CompileError without location,
// naming the entry.
// `jit(KEY)` entries are looked up with `resolve` (null or returning null: an error naming
// the entry; the kernel knows the functions its launches were given).
using FunctionResolver = std::function<std::shared_ptr<const GlobalBinding>(const std::string& key)>;
Signature parse_signature(const std::string& text, const std::vector<std::string>& names,
                          const std::vector<bool>& is_constexpr, const FunctionResolver* resolve = nullptr);

}  // namespace tritium

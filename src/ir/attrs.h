// Typed views of the IR's string attributes: one enum per vocabulary of attr_enums.def, with
// parse/print and getters on an Op. The IR keeps the spelling as a string attribute, so the
// text format is unchanged; code compares enums instead of strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/ir.h"

namespace tritium::ir {

#define V(name, text) name,
#define TRITIUM_ATTR_ENUM(Type, attr_name, values) enum class Type : uint8_t { values };
#include "ir/attr_enums.def"
#undef TRITIUM_ATTR_ENUM
#undef V

// EnumInfo<E>::attr is the attribute's name, names[] the spellings in enumerator order.
template <class E>
struct EnumInfo;

#define V(name, text) text,
#define TRITIUM_ATTR_ENUM(Type, attr_name, values)  \
  template <>                                         \
  struct EnumInfo<Type> {                             \
    static constexpr const char* attr = attr_name;    \
    static constexpr const char* names[] = {values};  \
  };
#include "ir/attr_enums.def"
#undef TRITIUM_ATTR_ENUM
#undef V

// AtomicKind: the rows of atomics.def. AtomicRule: which elements a kind takes besides 32-
// and 64-bit integers (none, fp32/fp64, and fp16 too).
enum class AtomicKind : uint8_t {
#define TRITIUM_ATOMIC(kind, text, rule) kind,
#include "ir/atomics.def"
};

template <>
struct EnumInfo<AtomicKind> {
  static constexpr const char* attr = "kind";
  static constexpr const char* names[] = {
#define TRITIUM_ATOMIC(kind, text, rule) text,
#include "ir/atomics.def"
  };
};

enum class AtomicRule : uint8_t { Int, Float, Half };

constexpr AtomicRule atomic_rule(AtomicKind k) {
  switch (k) {
#define TRITIUM_ATOMIC(kind, text, rule) \
  case AtomicKind::kind: return AtomicRule::rule;
#include "ir/atomics.def"
  }
  return AtomicRule::Int;
}

template <class E>
constexpr size_t enum_count() {
  return sizeof(EnumInfo<E>::names) / sizeof(EnumInfo<E>::names[0]);
}

// The spelling ("acq_rel") of an enumerator.
template <class E>
const char* enum_text(E value) {
  return EnumInfo<E>::names[static_cast<size_t>(value)];
}

// The enumerator spelled `text`; nullopt for any other text.
template <class E>
std::optional<E> parse_enum(std::string_view text) {
  for (size_t i = 0; i < enum_count<E>(); ++i) {
    if (text == EnumInfo<E>::names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

// "eq, ne, lt, le, gt, ge": the spellings for error messages.
template <class E>
std::string enum_choices() {
  std::string out;
  for (size_t i = 0; i < enum_count<E>(); ++i) out += (i ? ", " : "") + std::string(EnumInfo<E>::names[i]);
  return out;
}

// The op's attribute EnumInfo<E>::attr as an enumerator: nullopt when absent, not a string
// or not a known spelling (the verifier reports those).
template <class E>
std::optional<E> find_enum_attr(const Op& op) {
  const AttrValue* value = op.find_attr(EnumInfo<E>::attr);
  if (value == nullptr || !std::holds_alternative<std::string>(*value)) return std::nullopt;
  return parse_enum<E>(std::get<std::string>(*value));
}

// As find_enum_attr for an attribute the op must have (verified IR): otherwise an InternalError.
[[noreturn]] void unknown_enum_attr(const Op& op, const char* attr);

template <class E>
E enum_attr(const Op& op) {
  std::optional<E> value = parse_enum<E>(op.str_attr(EnumInfo<E>::attr));
  if (!value) unknown_enum_attr(op, EnumInfo<E>::attr);
  return *value;
}

template <class E>
void set_enum_attr(Op& op, E value) {
  op.set_attr(EnumInfo<E>::attr, std::string(enum_text(value)));
}

bool is_load_cache(CacheModifier c);
bool is_store_cache(CacheModifier c);
// Whether atomic `k` takes elements of `element` (Triton's rules, atomics.def's rule column:
// 32- and 64-bit integers always, fp32/fp64 for Float and Half, fp16 for Half).
bool atomic_admits(AtomicKind k, ScalarKind element);
// What an atomic_rmw op of the IR takes: atomic_admits, and fp16/bf16 for max and min (made
// by tensor descriptors' desc.atomic_max/min, which Triton allows on them from sm_90) and
// for an exchange (tl.atomic_store of fp16; tl.atomic_xchg refuses them, as Triton 3.6).
bool atomic_ir_admits(AtomicKind k, ScalarKind element);
// A load with volatile=True (a nonzero "volatile" attribute): never removed, hoisted or merged.
bool is_volatile(const Op& op);
// Whether `op` has no side effects (ops.def's kPure), so passes may remove it when unused,
// merge it with an equal op or compute it again elsewhere: kPure ops are, except the inline
// asm of tl.inline_asm_elementwise(..., is_pure=False) (ExternElementwise {pure = 0}).
bool is_pure(const Op& op);
// The "value" attribute of a constant, or of the constant a splat spreads; null otherwise.
const AttrValue* constant_value(const Value* v);
// Whether `v` is a constant (or a splat of one) whose bits are all zero: integer 0 or +0.0
// (not -0.0), what cp.async writes for masked-off bytes and what a fresh accumulator holds.
bool is_zero_constant(const Value* v);

}  // namespace tritium::ir

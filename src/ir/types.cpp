// Interned tile IR types: scalar kinds and their names, pointers and blocks. One table per
// process hands out immutable Type objects, so type equality is a pointer compare.
#include "ir/types.h"

#include <map>
#include <mutex>
#include <utility>

#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

constexpr int kNumScalarKinds = static_cast<int>(ScalarKind::F64) + 1;

struct ScalarInfo {
  const char* name;
  int bits;
  bool integer;
  bool is_signed;
};

// Indexed by ScalarKind.
constexpr ScalarInfo kScalarInfo[kNumScalarKinds] = {
    {"i1", 1, true, false},     {"i8", 8, true, true},      {"i16", 16, true, true},
    {"i32", 32, true, true},    {"i64", 64, true, true},    {"u8", 8, true, false},
    {"u16", 16, true, false},   {"u32", 32, true, false},   {"u64", 64, true, false},
    {"fp16", 16, false, true},  {"bf16", 16, false, true},  {"fp32", 32, false, true},
    {"fp64", 64, false, true},
};

const ScalarInfo& info(ScalarKind k) { return kScalarInfo[static_cast<int>(k)]; }

}  // namespace

int bit_width(ScalarKind k) { return info(k).bits; }
bool is_integer(ScalarKind k) { return info(k).integer; }
bool is_signed(ScalarKind k) { return info(k).integer && info(k).is_signed; }
bool is_float(ScalarKind k) { return !info(k).integer; }
const char* scalar_name(ScalarKind k) { return info(k).name; }

bool parse_scalar_name(const std::string& name, ScalarKind* out) {
  static const std::map<std::string, ScalarKind> aliases = {
      // Triton's long names and the spellings that appear in signatures and dtype reprs.
      {"int1", ScalarKind::I1},      {"bool", ScalarKind::I1},     {"u1", ScalarKind::I1},
      {"int8", ScalarKind::I8},      {"int16", ScalarKind::I16},   {"int32", ScalarKind::I32},
      {"int64", ScalarKind::I64},    {"uint8", ScalarKind::U8},    {"uint16", ScalarKind::U16},
      {"uint32", ScalarKind::U32},   {"uint64", ScalarKind::U64},  {"float16", ScalarKind::F16},
      {"bfloat16", ScalarKind::BF16}, {"float32", ScalarKind::F32}, {"float64", ScalarKind::F64},
  };
  for (int i = 0; i < kNumScalarKinds; ++i) {
    if (name == kScalarInfo[i].name) {
      *out = static_cast<ScalarKind>(i);
      return true;
    }
  }
  auto it = aliases.find(name);
  if (it == aliases.end()) return false;
  *out = it->second;
  return true;
}

// The process-wide intern table. Types are never freed: IR from any thread may hold them
// for the life of the process (the memory cache keeps functions around).
class TypeTable {
 public:
  static TypeTable& get() {
    static TypeTable* table = new TypeTable();  // leaked on purpose: no destruction order issues
    return *table;
  }

  const Type* scalar(ScalarKind k) const { return scalars_[static_cast<int>(k)]; }

  const Type* pointer(const Type* pointee) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Type*& slot = pointers_[pointee];
    if (!slot) slot = new Type(Type::Kind::Pointer, ScalarKind::I64, pointee, {});
    return slot;
  }

  const Type* block(const Type* element, const std::vector<int64_t>& shape) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Type*& slot = blocks_[{element, shape}];
    if (!slot) slot = new Type(Type::Kind::Block, ScalarKind::I64, element, shape);
    return slot;
  }

 private:
  TypeTable() {
    for (int i = 0; i < kNumScalarKinds; ++i) {
      scalars_[i] = new Type(Type::Kind::Scalar, static_cast<ScalarKind>(i), nullptr, {});
    }
  }

  const Type* scalars_[kNumScalarKinds];
  std::mutex mutex_;
  // Keyed by pointers, but only looked up, never iterated, so output stays deterministic.
  std::map<const Type*, const Type*> pointers_;
  std::map<std::pair<const Type*, std::vector<int64_t>>, const Type*> blocks_;
};

const Type* Type::scalar(ScalarKind k) { return TypeTable::get().scalar(k); }

const Type* Type::pointer(const Type* pointee) {
  if (pointee == nullptr || !pointee->is_scalar()) {
    internal_error("ir types", "pointer to a non-scalar type " +
                                   (pointee ? pointee->str() : std::string("null")));
  }
  return TypeTable::get().pointer(pointee);
}

const Type* Type::block(const Type* element, const std::vector<int64_t>& shape) {
  if (element == nullptr || element->is_block()) {
    internal_error("ir types", "block of a non-scalar, non-pointer element " +
                                   (element ? element->str() : std::string("null")));
  }
  if (shape.empty()) internal_error("ir types", "block with an empty shape (0-d blocks are scalars)");
  for (int64_t d : shape) {
    if (d <= 0) internal_error("ir types", "block with a non-positive dimension");
  }
  return TypeTable::get().block(element, shape);
}

int64_t Type::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

const Type* Type::with_element(const Type* element) const {
  return is_block() ? block(element, shape_) : element;
}

bool Type::is_int() const { return element()->is_scalar() && is_integer(element()->scalar_kind()); }
bool Type::is_float() const {
  return element()->is_scalar() && ir::is_float(element()->scalar_kind());
}
bool Type::is_ptr() const { return element()->is_pointer(); }
bool Type::is_bool() const {
  return element()->is_scalar() && element()->scalar_kind() == ScalarKind::I1;
}

std::string Type::str() const {
  switch (kind_) {
    case Kind::Scalar:
      return scalar_name(scalar_);
    case Kind::Pointer:
      return "ptr<" + inner_->str() + ">";
    case Kind::Block: {
      std::string out = "block<";
      for (int64_t d : shape_) out += std::to_string(d) + "x";
      return out + inner_->str() + ">";
    }
  }
  return "?";
}

}  // namespace tritium::ir

// Interned tile IR types: scalar kinds and their names, pointers and blocks. One table per
// process hands out immutable Type objects, so type equality is a pointer compare.
#include "ir/types.h"

#include "ir/layout.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

struct ScalarInfo {
  const char* name;
  const char* long_name;
  int bits;
  bool is_float;
  bool is_signed;
  int mantissa;
  int exponent;
  int bias;
  FloatSpecials special;
  const char* torch;
  const char* numpy;
};

// Indexed by ScalarKind: the rows of include/tritium/dtypes.def.
constexpr ScalarInfo kScalarInfo[kNumScalarKinds] = {
#define TRITIUM_DTYPE(kind, dtype, name, long_name, bits, is_float, is_signed, mantissa,     \
                      exponent, bias, special, torch, numpy)                                  \
  {name, long_name, bits, is_float, is_signed, mantissa, exponent, bias, FloatSpecials::special, \
   torch, numpy},
#include "tritium/dtypes.def"
#undef TRITIUM_DTYPE
};

const ScalarInfo& info(ScalarKind k) { return kScalarInfo[static_cast<int>(k)]; }

}  // namespace

int bit_width(ScalarKind k) { return info(k).bits; }
bool is_integer(ScalarKind k) { return !info(k).is_float; }
bool is_signed(ScalarKind k) { return !info(k).is_float && info(k).is_signed; }
bool is_float(ScalarKind k) { return info(k).is_float; }
bool is_fp8(ScalarKind k) { return info(k).is_float && info(k).bits == 8; }
int fp_mantissa_width(ScalarKind k) { return info(k).mantissa; }
int fp_exponent_width(ScalarKind k) { return info(k).exponent; }
int exponent_bias(ScalarKind k) { return info(k).bias; }
FloatSpecials float_specials(ScalarKind k) { return info(k).special; }
const char* scalar_name(ScalarKind k) { return info(k).name; }
std::string triton_dtype_name(ScalarKind k) {
  switch (k) {
    case ScalarKind::I1: return "int1";
    case ScalarKind::I8: return "int8";
    case ScalarKind::I16: return "int16";
    case ScalarKind::I32: return "int32";
    case ScalarKind::I64: return "int64";
    case ScalarKind::U8: return "uint8";
    case ScalarKind::U16: return "uint16";
    case ScalarKind::U32: return "uint32";
    case ScalarKind::U64: return "uint64";
    case ScalarKind::F16: return "fp16";
    case ScalarKind::BF16: return "bf16";
    case ScalarKind::F32: return "fp32";
    case ScalarKind::F64: return "fp64";
    default: return scalar_name(k);
  }
}
const char* scalar_long_name(ScalarKind k) { return info(k).long_name; }
const char* torch_name(ScalarKind k) { return info(k).torch; }
const char* numpy_name(ScalarKind k) { return info(k).numpy; }

bool parse_scalar_name(const std::string& name, ScalarKind* out) {
  if (name.empty()) return false;
  if (name == "bool" || name == "u1") {
    *out = ScalarKind::I1;
    return true;
  }
  for (int i = 0; i < kNumScalarKinds; ++i) {
    const ScalarInfo& row = kScalarInfo[i];
    if (name == row.name || name == row.long_name || name == row.torch || name == row.numpy) {
      *out = static_cast<ScalarKind>(i);
      return true;
    }
  }
  return false;
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

  const Type* block(const Type* element, const std::vector<int64_t>& shape, const Layout* layout) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Type*& slot = blocks_[{{element, layout}, shape}];
    if (!slot) slot = new Type(Type::Kind::Block, ScalarKind::I64, element, shape, layout);
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
  std::map<std::pair<std::pair<const Type*, const Layout*>, std::vector<int64_t>>, const Type*> blocks_;
};

const Type* Type::scalar(ScalarKind k) { return TypeTable::get().scalar(k); }

const Type* Type::pointer(const Type* pointee) {
  if (pointee == nullptr || !pointee->is_scalar()) {
    internal_error("ir types", "pointer to a non-scalar type " +
                                   (pointee ? pointee->str() : std::string("null")));
  }
  return TypeTable::get().pointer(pointee);
}

const Type* Type::block(const Type* element, const std::vector<int64_t>& shape, const Layout* layout) {
  if (element == nullptr || element->is_block()) {
    internal_error("ir types", "block of a non-scalar, non-pointer element " +
                                   (element ? element->str() : std::string("null")));
  }
  if (shape.empty()) internal_error("ir types", "block with an empty shape (0-d blocks are scalars)");
  for (int64_t d : shape) {
    if (d <= 0) internal_error("ir types", "block with a non-positive dimension");
  }
  if (layout != nullptr && layout->shape() != shape) {
    internal_error("ir types", "a layout of another shape on a block (" + layout->str() + ")");
  }
  return TypeTable::get().block(element, shape, layout);
}

int64_t Type::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

const Type* Type::with_element(const Type* element) const {
  return is_block() ? block(element, shape_, layout_) : element;
}

const Type* Type::with_layout(const Layout* layout) const {
  return is_block() && layout != layout_ ? block(inner_, shape_, layout) : this;
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
      out += inner_->str();
      if (layout_ != nullptr) out += ", " + layout_->str();
      return out + ">";
    }
  }
  return "?";
}

}  // namespace tritium::ir

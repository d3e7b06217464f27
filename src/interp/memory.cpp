// Loads, stores and atomics of the interpreter on host memory, with bounds checks that
// point at the kernel line. Memory holds elements in their real formats (fp16 as 2 bytes,
// i1 as one byte), little-endian as on every host tritium runs on.
#include "interp/memory.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "interp/poison.h"
#include "support/diagnostics.h"

namespace tritium::interp {

using ir::ScalarKind;

namespace {

uint64_t read_bits(uint64_t address, int bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, reinterpret_cast<const void*>(address), static_cast<size_t>(bytes));
  return bits;
}

void write_bits(uint64_t address, int bytes, uint64_t bits) {
  std::memcpy(reinterpret_cast<void*>(address), &bits, static_cast<size_t>(bytes));
}

// An element of `kind` read from memory: i1 is a byte, any non-zero byte reads as true.
Slot read_element(uint64_t address, ScalarKind kind, int bytes) {
  uint64_t bits = read_bits(address, bytes);
  if (kind == ScalarKind::I1) bits = bits != 0;
  return from_bits(bits, kind, false);
}

void write_element(uint64_t address, ScalarKind kind, int bytes, Slot value) {
  write_bits(address, bytes, to_bits(value, kind, false));
}

std::string hex(uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// The bits of a float as a signed and as an unsigned integer of its width, for the
// integer emulation of float atomic max/min.
int64_t signed_bits(uint64_t bits, int width) {
  return width == 64 ? static_cast<int64_t>(bits) : wrap_int(static_cast<int64_t>(bits),
                                                              width == 32 ? ScalarKind::I32 : ScalarKind::I16);
}

// Float atomic max/min as Triton emulates them with integer atomics (pitfall 23): a value
// with the sign bit clear uses a signed max (min) of the bit patterns, a negative one an
// unsigned min (max). This orders -0.0 below 0.0 and NaNs like the GPU does.
uint64_t float_max_min(uint64_t old_bits, uint64_t value_bits, int width, bool is_max) {
  bool negative = (value_bits >> (width - 1)) & 1;
  if (!negative) {
    bool value_wins = is_max ? signed_bits(value_bits, width) > signed_bits(old_bits, width)
                             : signed_bits(value_bits, width) < signed_bits(old_bits, width);
    return value_wins ? value_bits : old_bits;
  }
  bool value_wins = is_max ? value_bits < old_bits : value_bits > old_bits;
  return value_wins ? value_bits : old_bits;
}

// fp16/bf16 max/min (tensor descriptors' reductions): PTX's max/min arithmetic, which the
// GPU runs in a compare-and-swap loop: a NaN operand yields the other operand, two NaNs a
// NaN (PTX's canonical 0x7fff on the GPU; the interpreter stores NaNs as 0x7e00/0x7fc0),
// and +0.0 is above -0.0.
double half_max_min(double old, double value, bool is_max) {
  const bool old_nan = std::isnan(old), value_nan = std::isnan(value);
  if (old_nan) return value;  // a NaN when both are
  if (value_nan) return old;
  if (old == value) {
    if (old != 0) return old;
    // Zeros: the max is -0.0 only when both are, the min whenever one is.
    const bool negative = is_max ? std::signbit(old) && std::signbit(value) : std::signbit(old) || std::signbit(value);
    return negative ? -0.0 : 0.0;
  }
  return (is_max ? value > old : value < old) ? value : old;
}

// Float max/min of atomics.def on values: fp32/fp64 by the bits of `old` and `value` ordered
// as above (Triton's emulation), fp16/bf16 by half_max_min.
double float_max_min(double old, double value, ScalarKind type, bool is_max) {
  if (type == ScalarKind::F16 || type == ScalarKind::BF16) return half_max_min(old, value, is_max);
  Slot a, b;
  a.f = old;
  b.f = value;
  return from_bits(float_max_min(to_bits(a, type, false), to_bits(b, type, false), ir::bit_width(type), is_max),
                   type, false)
      .f;
}

// Whether atomics.def gives kind `k` interpreter semantics on integers / floats.
constexpr bool has_int_semantics(AtomicKind k) {
#define TRITIUM_ATOMIC_EVAL_INT(kind, ...) \
  if (k == AtomicKind::kind) return true;
#include "ir/atomics.def"
  return false;
}

constexpr bool has_float_semantics(AtomicKind k) {
#define TRITIUM_ATOMIC_EVAL_FLOAT(kind, ...) \
  if (k == AtomicKind::kind) return true;
#include "ir/atomics.def"
  return false;
}

constexpr bool every_atomic_kind_has_semantics() {
  for (size_t i = 0; i < ir::enum_count<AtomicKind>(); ++i) {
    auto k = static_cast<AtomicKind>(i);
    if (!has_int_semantics(k)) return false;
    if (ir::atomic_rule(k) != ir::AtomicRule::Int && !has_float_semantics(k)) return false;
  }
  return true;
}
static_assert(every_atomic_kind_has_semantics(),
              "a row of ir/atomics.def lacks the TRITIUM_ATOMIC_EVAL_INT/_FLOAT its rule needs");

// The new memory contents of one atomic read-modify-write (atomics.def).
Slot combine(AtomicKind kind, ScalarKind type, Slot old_slot, Slot value_slot) {
  Slot out = old_slot;
  if (ir::is_float(type)) {
    [[maybe_unused]] double old = old_slot.f;
    [[maybe_unused]] double value = value_slot.f;
    switch (kind) {
#define TRITIUM_ATOMIC_EVAL_FLOAT(kind, ...) \
  case AtomicKind::kind: out.f = __VA_ARGS__; return out;
#include "ir/atomics.def"
      default: break;  // integer-only kinds on floats: the verifier rejects them
    }
    return out;
  }
  [[maybe_unused]] bool is_signed = ir::is_signed(type);
  [[maybe_unused]] auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  [[maybe_unused]] auto s = [](uint64_t v) { return static_cast<int64_t>(v); };
  int64_t old = old_slot.i;
  int64_t value = value_slot.i;
  switch (kind) {
#define TRITIUM_ATOMIC_EVAL_INT(kind, ...) \
  case AtomicKind::kind: out.i = __VA_ARGS__; break;
#include "ir/atomics.def"
  }
  out.i = wrap_int(out.i, type);
  return out;
}

// A poisoned mask lane, or a poisoned address in an active lane, decides which memory is
// touched: the deferred error is due.
void check_poisoned_access(const ir::Op& op, const Buffer& ptr, const Buffer* mask, const char* role) {
  if (mask) check_poison(*mask, nullptr, op, "the mask");
  check_poison(ptr, mask, op, role);
}

}  // namespace

void Memory::check_slow(const ir::Op& op, const char* access, const Buffer& ptr, uint64_t address,
                        int bytes, int64_t lane) {
  const char* type = ir::scalar_name(ptr.type->element()->pointee()->scalar_kind());
  // A range holding the whole element: remember it for the next access.
  for (size_t i = 0; i < ranges_.size(); ++i) {
    const MemoryRange& r = ranges_[i];
    if (address >= r.begin && r.size >= static_cast<uint64_t>(bytes) && address - r.begin <= r.size - bytes) {
      if (address % bytes != 0) {
        error_at(op.loc(), std::string("misaligned ") + access + " of " + type + " at address " + hex(address) +
                               " (byte offset " + std::to_string(address - r.begin) + " of argument '" + r.name +
                               "' is not a multiple of " + std::to_string(bytes) + ")");
      }
      last_ = i;
      return;
    }
  }
  std::string where;
  if (address == 0) {
    where = "a null pointer";
  } else if (ranges_.empty()) {
    where = "no memory is known to the interpreter";
  } else {
    // Name the nearest range.
    const MemoryRange* nearest = nullptr;
    uint64_t best = UINT64_MAX;
    for (const MemoryRange& r : ranges_) {
      uint64_t end = r.begin + r.size;
      uint64_t distance = address >= end ? address - end : address < r.begin ? r.begin - address : 0;
      if (distance < best) {
        best = distance;
        nearest = &r;
      }
    }
    uint64_t end = nearest->begin + nearest->size;
    if (address >= end) {
      where = std::to_string(address - end) + " bytes past the end of argument '" + nearest->name + "'";
    } else if (address < nearest->begin) {
      where = std::to_string(nearest->begin - address) + " bytes before the start of argument '" + nearest->name + "'";
    } else {
      where = "the last element overruns the end of argument '" + nearest->name + "'";
    }
    where += ", which is " + std::to_string(nearest->size) + " bytes long";
    // Far from every argument: most likely a pointer made from an integer address.
    if (best >= (uint64_t{1} << 16)) {
      where += "; an address taken on the host (a pointer made from an integer) is known to the interpreter "
               "only once its array is given to tritium.register_host_memory()";
    }
  }
  std::string element = ptr.type->is_block() ? "element " + std::to_string(lane) + " of the block, " : "";
  error_at(op.loc(), std::string("out-of-bounds ") + access + " of " + type + " at address " + hex(address) + " (" +
                         where + "; " + element + "program (" + std::to_string(program_[0]) + ", " +
                         std::to_string(program_[1]) + ", " + std::to_string(program_[2]) + "))");
}

void Memory::load(const ir::Op& op, const Buffer& ptr, const Buffer* mask, const Buffer* other, Buffer& result) {
  ScalarKind kind = result.kind;
  int bytes = memory_bytes(kind);
  const Slot* p = ptr.data();
  const Slot* m = mask ? mask->data() : nullptr;
  Slot* r = result.data();
  check_poisoned_access(op, ptr, mask, "the address");
  // Loaded lanes are defined; masked-off lanes carry the poison of `other`.
  result.poison_origin = nullptr;
  if (other && other->poisoned() && mask) {
    for (int64_t i = 0; i < result.size(); ++i) {
      if (!m[i].i && other->poison[i]) poison_lane(result, i, *other->poison_origin, other->poison_reason);
    }
  }
  for (int64_t i = 0; i < result.size(); ++i) {
    if (m && !m[i].i) {
      if (other) {
        r[i] = other->data()[i];
      } else {
        r[i].i = 0;  // also 0.0
      }
      continue;
    }
    auto address = static_cast<uint64_t>(p[i].i);
    check(op, "load", ptr, address, bytes, i);
    r[i] = read_element(address, kind, bytes);
  }
}

void Memory::store(const ir::Op& op, const Buffer& ptr, const Buffer& value, const Buffer* mask) {
  ScalarKind kind = value.kind;
  int bytes = memory_bytes(kind);
  const Slot* p = ptr.data();
  const Slot* m = mask ? mask->data() : nullptr;
  const Slot* v = value.data();
  check_poisoned_access(op, ptr, mask, "the address");
  check_poison(value, mask, op, "the stored value");
  for (int64_t i = 0; i < value.size(); ++i) {
    if (m && !m[i].i) continue;
    auto address = static_cast<uint64_t>(p[i].i);
    check(op, "store", ptr, address, bytes, i);
    write_element(address, kind, bytes, v[i]);
  }
}

void Memory::atomic_rmw(const ir::Op& op, AtomicKind kind, const Buffer& ptr, const Buffer& value,
                        const Buffer* mask, Buffer& result) {
  ScalarKind type = value.kind;
  int bytes = memory_bytes(type);
  const Slot* p = ptr.data();
  const Slot* m = mask ? mask->data() : nullptr;
  const Slot* v = value.data();
  Slot* r = result.data();
  check_poisoned_access(op, ptr, mask, "the address");
  check_poison(value, mask, op, "the value");
  result.poison_origin = nullptr;
  for (int64_t i = 0; i < value.size(); ++i) {
    if (m && !m[i].i) {
      r[i].i = 0;  // also 0.0
      continue;
    }
    auto address = static_cast<uint64_t>(p[i].i);
    check(op, "atomic", ptr, address, bytes, i);
    Slot old = read_element(address, type, bytes);
    write_element(address, type, bytes, combine(kind, type, old, v[i]));
    r[i] = old;
  }
}

void Memory::atomic_cas(const ir::Op& op, const Buffer& ptr, const Buffer& compare, const Buffer& value,
                        Buffer& result) {
  ScalarKind type = value.kind;
  int bytes = memory_bytes(type);
  const Slot* p = ptr.data();
  check_poisoned_access(op, ptr, nullptr, "the address");
  check_poison(compare, nullptr, op, "the compared value");
  check_poison(value, nullptr, op, "the value");
  result.poison_origin = nullptr;
  for (int64_t i = 0; i < value.size(); ++i) {
    auto address = static_cast<uint64_t>(p[i].i);
    check(op, "atomic", ptr, address, bytes, i);
    Slot old = read_element(address, type, bytes);
    // Compared as bit patterns, as atom.cas does (so -0.0 != 0.0 and a NaN can match).
    if (to_bits(old, type, false) == to_bits(compare.data()[i], type, false)) {
      write_element(address, type, bytes, value.data()[i]);
    }
    result.data()[i] = old;
  }
}

}  // namespace tritium::interp

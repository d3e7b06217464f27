// The interpreter's memory ops: masked loads and stores and atomics on host memory, every
// element access checked against the known ranges (whole element inside one range, and
// aligned to its size as the GPU requires), masked-off lanes never touching memory.
#pragma once

#include <array>
#include <vector>

#include "interp/interpreter.h"
#include "interp/values.h"
#include "ir/attrs.h"

namespace tritium::interp {

using AtomicKind = ir::AtomicKind;  // ir/attr_enums.def

class Memory {
 public:
  explicit Memory(std::vector<MemoryRange> ranges) : ranges_(std::move(ranges)) {}

  // The program whose accesses follow, for messages.
  void set_program(const std::array<uint32_t, 3>& program) { program_ = program; }

  // Masked-off lanes take `other`, or 0 without it (Triton's interpreter gives zeros too).
  void load(const ir::Op& op, const Buffer& ptr, const Buffer* mask, const Buffer* other, Buffer& result);
  void store(const ir::Op& op, const Buffer& ptr, const Buffer& value, const Buffer* mask);
  // Element by element in row-major order, one program at a time: the old values come
  // back in `result` (0 in masked-off lanes).
  void atomic_rmw(const ir::Op& op, AtomicKind kind, const Buffer& ptr, const Buffer& value,
                  const Buffer* mask, Buffer& result);
  void atomic_cas(const ir::Op& op, const Buffer& ptr, const Buffer& compare, const Buffer& value,
                  Buffer& result);

 private:
  // Throws the located report unless [address, address + bytes) lies in one range.
  void check(const ir::Op& op, const char* access, const Buffer& ptr, uint64_t address, int bytes,
             int64_t lane) {
    if (!ranges_.empty()) {
      const MemoryRange& r = ranges_[last_];
      if (address >= r.begin && address - r.begin + bytes <= r.size && address % bytes == 0) return;
    }
    check_slow(op, access, ptr, address, bytes, lane);
  }
  void check_slow(const ir::Op& op, const char* access, const Buffer& ptr, uint64_t address,
                  int bytes, int64_t lane);

  std::vector<MemoryRange> ranges_;
  size_t last_ = 0;  // the range of the last access: most accesses hit it again
  std::array<uint32_t, 3> program_{0, 0, 0};
};

}  // namespace tritium::interp

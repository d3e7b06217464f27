// The CPU reference interpreter: runs a specialized kernel (tile IR) over a 1-3-D grid on
// host memory, one program after another, with exact integer semantics and fp16/bf16
// rounding. Every load, store and atomic is bounds-checked against the known buffers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritium::interp {

// The runtime value of one entry argument, in the order of Function::body().args().
struct ArgValue {
  enum class Kind { Pointer, Int, Float };
  Kind kind = Kind::Int;
  uint64_t address = 0;  // Pointer
  int64_t int_bits = 0;  // Int: the value's bits, sign- or zero-extended per its type
  double float_value = 0;
};

// A block of host memory the kernel may touch. An access outside every range is a
// CompileError-style report pointing at the kernel line ("out-of-bounds load ...").
struct MemoryRange {
  uint64_t begin = 0;
  uint64_t size = 0;  // bytes
  std::string name;   // the argument it came from, for messages
};

struct Grid {
  std::array<uint32_t, 3> dims{1, 1, 1};
};

// Called with the elements of every integer and pointer value as the interpreter computes
// it (op results, region and entry arguments), in 64-bit slots as wrap_int leaves them.
// The soundness oracle checks the axis analysis's claims with it.
using ValueObserver = std::function<void(const ir::Value& value, const int64_t* elements, int64_t count)>;

// Runs every program of `grid`. Throws tritium::CompileError (located at the op) for
// out-of-bounds accesses and tritium::InternalError for malformed IR.
// Also: CompileError at the dividing op for an integer division by zero (or INT_MIN / -1)
// once its result is observed (stored, used as an address, a mask or a condition; masked
// lanes may divide garbage freely), and at the loop for a `for` step of 0; LaunchError when
// `args` do not match the entry arguments in number or kind. Semantics choices where
// Triton leaves results undefined: float -> int saturates (NaN -> 0), shifts by >= the
// width give 0 (sign fill for an arithmetic shr), masked-off loads without `other` give 0.
// Also LaunchError when TRITIUM_INTERPRET_MAX_STEPS=N is set and the launch takes more than
// N steps (loop iterations and programs): a kernel that never ends stops with a message.
void run(const ir::Function& function, const Grid& grid, const std::vector<ArgValue>& args,
         const std::vector<MemoryRange>& memory, const ValueObserver* observer = nullptr);

// Called every few hundred steps on the thread running a kernel; it may throw to stop it.
// The Python module installs one that raises KeyboardInterrupt on Ctrl-C (the interpreter
// runs without the GIL, so Python's own signal handling cannot run meanwhile). Null: none.
using InterruptCheck = void (*)();
void set_interrupt_check(InterruptCheck check);

}  // namespace tritium::interp

// device_print and device_assert in the interpreter (ops.def's debugging group).
#include "interp/eval_debug.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "support/diagnostics.h"

namespace tritium::interp {

namespace {

// The row-major index of element `flat` of `type`, as Triton prints it: each field padded
// to ceil(log10(dim)) characters.
std::string index_text(const ir::Type* type, int64_t flat) {
  const auto& shape = type->shape();
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string out = "idx (";
  for (size_t d = 0; d < shape.size(); ++d) {
    int width = static_cast<int>(std::ceil(std::log10(static_cast<double>(shape[d]))));
    char field[32];
    std::snprintf(field, sizeof(field), "%*" PRId64, width, index[d]);
    out += (d ? ", " : "") + std::string(field);
  }
  return out + ")";
}

std::string pid_text(const std::array<uint32_t, 3>& program) {
  return "pid (" + std::to_string(program[0]) + ", " + std::to_string(program[1]) + ", " + std::to_string(program[2]) +
         ")";
}

// One element as printf would write it on the GPU (%f, %i, %lli, %u, %llu, %p, 0x%0Nx).
std::string value_text(const Buffer& buffer, int64_t i, bool hex) {
  char text[64];
  Slot slot = buffer.data()[i];
  if (hex) {
    int bits = buffer.is_ptr ? 64 : ir::bit_width(buffer.kind);
    uint64_t raw = to_bits(slot, buffer.kind, buffer.is_ptr);
    std::snprintf(text, sizeof(text), "0x%0*" PRIx64, std::max(bits / 4, 1), raw);
  } else if (buffer.is_ptr) {
    std::snprintf(text, sizeof(text), "0x%" PRIx64, static_cast<uint64_t>(slot.i));
  } else if (buffer.is_float) {
    std::snprintf(text, sizeof(text), "%f", slot.f);
  } else if (ir::is_signed(buffer.kind)) {
    std::snprintf(text, sizeof(text), "%" PRId64, slot.i);
  } else {
    uint64_t mask = ir::bit_width(buffer.kind) == 64 ? ~uint64_t{0} : (uint64_t{1} << ir::bit_width(buffer.kind)) - 1;
    std::snprintf(text, sizeof(text), "%" PRIu64, static_cast<uint64_t>(slot.i) & mask);
  }
  return text;
}

}  // namespace

void exec_print(const ir::Op& op, const std::vector<const Buffer*>& operands, const std::array<uint32_t, 3>& program) {
  const std::string& prefix = op.str_attr("prefix");
  bool hex = op.int_attr("hex") != 0;
  std::string out;
  if (operands.empty()) out = pid_text(program) + prefix + "\n";
  for (size_t n = 0; n < operands.size(); ++n) {
    const Buffer& buffer = *operands[n];
    std::string operand = operands.size() > 1 ? "(operand " + std::to_string(n) + ") " : "";
    for (int64_t i = 0; i < buffer.size(); ++i) {
      out +=
          pid_text(program) + " " + index_text(buffer.type, i) + prefix + operand + value_text(buffer, i, hex) + "\n";
    }
  }
  // Straight to the C stream (what the GPU's printf reaches too), flushed so the lines keep
  // their order with the host program's own output.
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

void exec_assert(const ir::Op& op, const Buffer& cond, const std::array<uint32_t, 3>& program) {
  for (int64_t i = 0; i < cond.size(); ++i) {
    if (cond.data()[i].i != 0) continue;
    const std::string& msg = op.str_attr("msg");
    std::string where = pid_text(program) + (cond.type->is_block() ? " " + index_text(cond.type, i) : "");
    error_at(op.loc(), "device_assert failed" + (msg.empty() ? std::string() : ": " + msg) + " (" + where + ")");
  }
}

}  // namespace tritium::interp

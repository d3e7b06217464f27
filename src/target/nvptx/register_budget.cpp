// check_register_budget (see register_budget.h): each block value's elements are spread over
// 32 * num_warps threads; an element takes one 32-bit register, a 64-bit one two.
#include "target/nvptx/register_budget.h"

#include <string>

#include "support/diagnostics.h"

namespace tritium::nvptx {

namespace {

void check_region(const ir::Region& region, int64_t threads, int num_warps) {
  for (const auto& op : region.ops()) {
    for (const auto& result : op->results()) {
      const ir::Type* type = result->type();
      if (!type->is_block()) continue;
      const ir::Type* element = type->element();
      int64_t words = element->is_pointer() || ir::bit_width(element->scalar_kind()) > 32 ? 2 : 1;
      int64_t registers = (type->num_elements() + threads - 1) / threads * words;
      if (registers > kRegisterBudget) {
        error_at(op->loc(), type->str() + " needs " + std::to_string(registers) + " registers per thread with " +
                                std::to_string(num_warps) + " warps, more than the budget of " +
                                std::to_string(kRegisterBudget) + " per value; use a smaller block or more warps");
      }
    }
    for (const auto& inner : op->regions()) check_region(*inner, threads, num_warps);
  }
}

}  // namespace

void check_register_budget(const ir::Function& function, int num_warps) {
  check_region(function.body(), int64_t{32} * num_warps, num_warps);
}

}  // namespace tritium::nvptx

// Checks axis-info claims against concrete values (see the invariant at the top of
// axis_info.cpp): aligned groups of `contiguity` elements increase by one (modulo 2^width,
// addresses by the element size), aligned groups of `constancy` elements are equal, and the
// first element of each contiguity group is a multiple of `divisibility`.
#include "analysis/axis_check.h"

#include <vector>

namespace tritium::analysis {

namespace {

std::string show(const int64_t* elements, const std::vector<int64_t>& positions) {
  std::string s;
  for (size_t i = 0; i < positions.size() && i < 8; ++i) {
    if (i) s += ", ";
    s += std::to_string(elements[positions[i]]);
  }
  if (positions.size() > 8) s += ", ...";
  return s;
}

}  // namespace

std::optional<std::string> check_axis_claims(const AxisInfo& info, const ir::Type* type, const int64_t* elements) {
  std::vector<int64_t> shape = type->is_block() ? type->shape() : std::vector<int64_t>{1};
  const ir::Type* element = type->element();
  bool is_pointer = element->is_pointer();
  int64_t unit = is_pointer ? std::max(1, ir::bit_width(element->pointee()->scalar_kind()) / 8) : 1;
  int width = is_pointer ? 64 : ir::bit_width(element->scalar_kind());
  uint64_t width_mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  int rank = static_cast<int>(shape.size());
  int64_t total = 1;
  for (int64_t d : shape) total *= d;

  if (info.constant) {
    for (int64_t i = 0; i < total; ++i) {
      if (elements[i] != *info.constant) {
        return "constant " + std::to_string(*info.constant) + " fails at element " + std::to_string(i) + ": " +
               std::to_string(elements[i]);
      }
    }
  }
  if (info.non_negative && !is_pointer && ir::is_signed(element->scalar_kind())) {
    for (int64_t i = 0; i < total; ++i) {
      if (elements[i] < 0) return "non_negative fails at element " + std::to_string(i) + ": " + std::to_string(elements[i]);
    }
  }
  // Visit every line along each dimension d: all positions that differ only in index d.
  for (int d = 0; d < rank; ++d) {
    int64_t stride = 1;
    for (int k = d + 1; k < rank; ++k) stride *= shape[k];
    int64_t length = shape[d];
    int64_t contiguity = info.contiguity[d], constancy = info.constancy[d], divisibility = info.divisibility[d];
    for (int64_t base = 0; base < total; ++base) {
      if ((base / stride) % length != 0) continue;  // not the start of a line along d
      for (int64_t group = 0; group < length; group += contiguity) {
        std::vector<int64_t> positions;
        for (int64_t j = 0; j < contiguity && group + j < length; ++j) positions.push_back(base + (group + j) * stride);
        for (size_t j = 1; j < positions.size(); ++j) {
          uint64_t expected = (static_cast<uint64_t>(elements[positions[0]]) + j * unit) & width_mask;
          if ((static_cast<uint64_t>(elements[positions[j]]) & width_mask) != expected) {
            return "contiguity " + std::to_string(contiguity) + " along dim " + std::to_string(d) +
                   " fails in the group at index " + std::to_string(group) + ": " + show(elements, positions);
          }
        }
        if (divisibility > 1 && divisibility < kMaxDivisor) {
          uint64_t first = static_cast<uint64_t>(elements[positions[0]]) & width_mask;
          if (first % static_cast<uint64_t>(divisibility) != 0 && elements[positions[0]] % divisibility != 0) {
            return "divisibility " + std::to_string(divisibility) + " along dim " + std::to_string(d) +
                   " fails at index " + std::to_string(group) + ": " + std::to_string(elements[positions[0]]);
          }
        } else if (divisibility == kMaxDivisor && elements[positions[0]] != 0) {
          return "divisibility max (only 0) along dim " + std::to_string(d) + " fails at index " +
                 std::to_string(group) + ": " + std::to_string(elements[positions[0]]);
        }
      }
      for (int64_t group = 0; group < length; group += constancy) {
        int64_t first = elements[base + group * stride];
        for (int64_t j = 1; j < constancy && group + j < length; ++j) {
          if (elements[base + (group + j) * stride] != first) {
            return "constancy " + std::to_string(constancy) + " along dim " + std::to_string(d) +
                   " fails in the group at index " + std::to_string(group) + ": " + std::to_string(first) +
                   " then " + std::to_string(elements[base + (group + j) * stride]);
          }
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_range_claims(const ValueRange& range, const ir::Type* type, const int64_t* elements) {
  int64_t total = type->is_block() ? type->num_elements() : 1;
  for (int64_t i = 0; i < total; ++i) {
    if ((range.lower && elements[i] < *range.lower) || (range.upper && elements[i] > *range.upper)) {
      return "range " + range.str() + " fails at element " + std::to_string(i) + ": " + std::to_string(elements[i]);
    }
  }
  return std::nullopt;
}

}  // namespace tritium::analysis

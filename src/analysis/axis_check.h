// The soundness oracle's check: does a concrete value (its elements, as the interpreter
// computed them) satisfy every claim the axis analysis made about it?
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/axis_info.h"
#include "analysis/value_range.h"
#include "ir/types.h"

namespace tritium::analysis {

// Null when every claim of `info` holds for `elements` (row-major, `type`'s shape, integers
// and addresses as 64-bit slots); otherwise the first claim that fails and a counterexample,
// e.g. "contiguity 4 along dim 0 fails at elements 4..7: 16, 17, 19, 20".
std::optional<std::string> check_axis_claims(const AxisInfo& info, const ir::Type* type, const int64_t* elements);

// The same for a value range: every element lies within the bounds.
std::optional<std::string> check_range_claims(const ValueRange& range, const ir::Type* type, const int64_t* elements);

}  // namespace tritium::analysis

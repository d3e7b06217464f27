// Value ranges: for every integer value, bounds [lower, upper] that hold for all of its
// elements in every program (signed 64-bit view of the type's values). Mask folding uses
// them to prove a comparison true or false everywhere; the soundness oracle checks them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace tritium::analysis {

struct ValueRange {
  std::optional<int64_t> lower;
  std::optional<int64_t> upper;

  bool known() const { return lower || upper; }
  bool operator==(const ValueRange& other) const { return lower == other.lower && upper == other.upper; }
  std::string str() const;  // "[0, 1023]", "[0, ?]", "[?, ?]"
};

class ValueRangeAnalysis {
 public:
  explicit ValueRangeAnalysis(const ir::Function& function);

  // The bounds of `value` (unknown for values without a rule).
  ValueRange get(const ir::Value* value) const;

  // Whether `cmp`-produced or boolean `mask` is true (or false) for every element.
  bool always_true(const ir::Value* mask) const;
  bool always_false(const ir::Value* mask) const;

 private:
  void visit_region(const ir::Region& region);
  void visit_op(const ir::Op& op);
  // Decides a comparison from the operands' ranges: 1 true, 0 false, -1 unknown.
  int decide(const ir::Op& cmp) const;

  std::unordered_map<const ir::Value*, ValueRange> ranges_;
};

}  // namespace tritium::analysis

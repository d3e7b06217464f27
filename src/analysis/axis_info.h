// Axis info: for every integer or pointer value and each of its dimensions, how long its
// runs of consecutive values are (contiguity), what power of two divides the first element
// of each run (divisibility; bytes for pointers), and how long its runs of equal values are
// (constancy). Loads, stores and masks are vectorized and folded from these facts, so every
// rule claims only what always holds (DESIGN law 3); the soundness oracle checks each claim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace tritium::analysis {

// The "nothing known yet" value of a field (the top of the lattice) and the largest
// divisor tracked; the divisor of 0.
inline constexpr int64_t kMaxDivisor = int64_t{1} << 62;

struct AxisInfo {
  // One entry per dimension; scalars have one dimension of size 1.
  std::vector<int64_t> contiguity;
  std::vector<int64_t> divisibility;
  std::vector<int64_t> constancy;
  std::optional<int64_t> constant;  // the value, when the whole value is one known integer
  bool non_negative = false;        // every element is >= 0 (as a signed number)

  int rank() const { return static_cast<int>(contiguity.size()); }
  bool operator==(const AxisInfo& other) const;
  std::string str() const;  // "contiguity = [128], divisibility = [16], constancy = [1]"
};

// The largest power of two dividing `value` (kMaxDivisor for 0).
int64_t highest_power_of_two_divisor(int64_t value);

class AxisInfoAnalysis {
 public:
  // Runs to a fixed point over the whole function (loops and branches included).
  explicit AxisInfoAnalysis(const ir::Function& function);
  // The same, as if every value of `assumed_non_negative` were known to be >= 0: what the
  // facts would be in code guarded by that test (gpu/version_on_signs.h asks).
  AxisInfoAnalysis(const ir::Function& function, std::unordered_set<const ir::Value*> assumed_non_negative);

  // The facts of `value`; values without a rule (floats) get the all-1 facts.
  const AxisInfo& get(const ir::Value* value) const;
  bool has(const ir::Value* value) const { return info_.count(value) != 0; }

  // How many elements of a pointer block, along its last dimension, are consecutive in
  // memory and aligned to their size: the widest safe vector, capped at 16 bytes.
  int vector_width(const ir::Value* pointer) const;
  // How many consecutive elements along the last dimension share one mask bit.
  int64_t mask_constancy(const ir::Value* mask) const;

 private:
  void visit_region(const ir::Region& region);
  void visit_op(const ir::Op& op);
  // Joins `info` into the facts of `value`; true when they changed.
  bool join_into(const ir::Value* value, const AxisInfo& info);
  void set(const ir::Value* value, AxisInfo info);

  const ir::Function& function_;
  std::unordered_set<const ir::Value*> assumed_non_negative_;
  std::unordered_map<const ir::Value*, AxisInfo> info_;
  mutable std::unordered_map<const ir::Value*, AxisInfo> fallback_;
};

// `--emit axis-info`: the function's IR with each integer or pointer value's facts as a
// trailing comment, for golden tests.
std::string print_axis_info(const ir::Function& function);

}  // namespace tritium::analysis

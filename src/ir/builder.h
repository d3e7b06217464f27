// Creates ops at the end of a region. Lowering and the rewriting passes build IR with it;
// it checks nothing beyond what it must to construct (the verifier checks the rest).
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tritium::ir {

class Builder {
 public:
  explicit Builder(Region* region) : region_(region) {}

  Region* region() const { return region_; }
  void set_region(Region* region) { region_ = region; }

  // Appends an op with results of `result_types` and the given operands.
  Op* create(OpKind kind, const std::vector<const Type*>& result_types,
             const std::vector<Value*>& operands, const Loc& loc);
  // The same, for an op with exactly one result; returns that result.
  Value* create_value(OpKind kind, const Type* result_type, const std::vector<Value*>& operands,
                      const Loc& loc);

  // Constants: `type` is a scalar or a block (a uniform block constant).
  Value* int_constant(const Type* type, int64_t value, const Loc& loc);
  Value* float_constant(const Type* type, double value, const Loc& loc);

 private:
  Region* region_;
};

}  // namespace tritium::ir

// Creates ops at an insertion point: the end of a region, or before/after a given op.
// Lowering and the rewriting passes build IR with it; it checks nothing beyond what it must
// to construct (the verifier checks the rest).
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tritium::ir {

class Builder {
 public:
  // Appends to the end of `region`.
  explicit Builder(Region* region) : region_(region) {}
  // Inserts just before `op`, or just after it (ops created one after another stay in
  // creation order), in the region that holds `op`.
  static Builder before(Op* op);
  static Builder after(Op* op);

  Region* region() const { return region_; }
  // Moves the insertion point to the end of `region`.
  void set_region(Region* region) {
    region_ = region;
    anchor_ = nullptr;
  }
  void set_insertion_point_before(Op* op);
  void set_insertion_point_after(Op* op);

  // Creates an op with results of `result_types` and the given operands at the insertion point.
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
  Op* anchor_ = nullptr;  // new ops go just before this op; null: at the end of region_
};

}  // namespace tritium::ir

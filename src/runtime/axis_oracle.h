// The soundness oracle as a runtime mode: with TRITIUM_CHECK_AXIS=1, every interpreter run
// checks each claim of the axis and value-range analyses against the values it computes
// and raises an InternalError naming the op, its line, the claim and the counterexample.
#pragma once

#include <memory>

#include "interp/interpreter.h"
#include "ir/ir.h"

namespace tritium {

// Whether TRITIUM_CHECK_AXIS is set (read once).
bool axis_oracle_enabled();

// An observer for interp::run that checks `function`'s claims; it keeps the analyses alive.
class AxisOracle {
 public:
  explicit AxisOracle(const ir::Function& function);
  ~AxisOracle();
  const interp::ValueObserver& observer() const { return observer_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  interp::ValueObserver observer_;
};

}  // namespace tritium

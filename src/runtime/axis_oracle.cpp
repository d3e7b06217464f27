// TRITIUM_CHECK_AXIS=1: the analyses' claims checked on every value the interpreter computes.
#include "runtime/axis_oracle.h"

#include <cstdlib>
#include <cstring>

#include "analysis/axis_check.h"
#include "analysis/axis_info.h"
#include "analysis/value_range.h"
#include "ir/printer.h"
#include "tritium/errors.h"

namespace tritium {

bool axis_oracle_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TRITIUM_CHECK_AXIS");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

struct AxisOracle::State {
  explicit State(const ir::Function& f) : function(f), axis(f), ranges(f) {}
  const ir::Function& function;
  analysis::AxisInfoAnalysis axis;
  analysis::ValueRangeAnalysis ranges;
};

AxisOracle::AxisOracle(const ir::Function& function) : state_(std::make_unique<State>(function)) {
  State* state = state_.get();
  observer_ = [state](const ir::Value& value, const int64_t* elements, int64_t) {
    auto failure = analysis::check_axis_claims(state->axis.get(&value), value.type(), elements);
    if (!failure) failure = analysis::check_range_claims(state->ranges.get(&value), value.type(), elements);
    if (!failure) return;
    std::string where = value.def() ? "'" + ir::print(*value.def(), &state->function) + "' at line " +
                                          std::to_string(value.def()->loc().line)
                                    : std::string("a region argument");
    throw InternalError("unsound analysis claim in kernel '" + state->function.name() + "': " + where +
                        " claimed " + state->axis.get(&value).str() + ", range " +
                        state->ranges.get(&value).str() + "; " + *failure + " (this is a bug in tritium)");
  };
}

AxisOracle::~AxisOracle() = default;

}  // namespace tritium

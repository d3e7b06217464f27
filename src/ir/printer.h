// The stable text form of the tile IR (golden tests and `--emit ir` read it): values
// numbered in definition order, entry arguments by parameter name, attributes sorted.
#pragma once

#include <functional>
#include <string>

#include "ir/ir.h"

namespace tritium::ir {

// The whole function. With `with_locs`, each op line ends in `  loc(line:col)` (or
// `  loc(unknown)`).
std::string print(const Function& function, bool with_locs = false);
// The same, each op line followed by `  // <note>` where `note(op)` is not empty (the GPU
// code generator's decisions, `--emit gpu-ir`; not read back by the parser).
std::string print(const Function& function, const std::function<std::string(const Op&)>& note);

// One op on one line, for messages: numbered as in print(function) (entry arguments by
// name when `function` is given, else `%argN`); ops with regions print `{...}` for their
// bodies.
std::string print(const Op& op, const Function* function = nullptr);

// An attribute value as the printer writes it: 42, 1.5, 1e-06, 2.0, inf, "lt", [1, 2].
std::string format_attr(const AttrValue& value);

// The shortest text that reads back as exactly `value`, always recognizable as a float
// ("2.0", not "2"): 1.5, 1e-06, 0.1, inf, -inf, nan.
std::string format_float(double value);

}  // namespace tritium::ir

// Reads the printer's text back into a Function: print(parse(print(f))) == print(f). Used by
// `tritium opt` and the round-trip tests; generic over the op table (ops.def keywords).
#pragma once

#include <memory>
#include <string>

#include "ir/ir.h"

namespace tritium::ir {

// Parses one function in the text form of print(function). `path` names the text in
// errors and in the locations of its ops: an op without a `loc(line:col)` suffix is located
// at its own line:col of the text. Bad text throws a CompileError at the offending line:col.
// The result is not verified (the caller runs ir::verify).
std::unique_ptr<Function> parse(const std::string& text, const std::string& path = "<ir>");

}  // namespace tritium::ir

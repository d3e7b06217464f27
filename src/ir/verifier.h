// Checks the invariants of the tile IR (operand counts, types and shapes per op kind,
// region structure, terminators, definition before use). The pass manager runs it after
// every pass in tests and debug builds; tests/unit/test_ir.cpp tests it.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tritium::ir {

// Throws tritium::InternalError naming `after_pass`, the op (printed) and its location
// at the first broken invariant.
void verify(const Function& function, const std::string& after_pass);

// The same checks on IR read from text (`tritium opt`'s input): a broken rule is the text's
// fault, a CompileError at the op's line:col.
void verify_input(const Function& function);

}  // namespace tritium::ir

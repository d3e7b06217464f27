// Raising located user errors and internal errors (DESIGN law 1). Every stage reports a
// user mistake through error_at, which builds a tritium::CompileError with an excerpt.
#pragma once

#include <string>

#include "support/source.h"
#include "tritium/errors.h"

namespace tritium {

// The CompileError for `message` at `loc`, with the source line and a caret.
CompileError make_error(const Loc& loc, const std::string& message);

// Throws make_error(loc, message).
[[noreturn]] void error_at(const Loc& loc, const std::string& message);

// Throws an InternalError naming the stage that found the broken invariant.
[[noreturn]] void internal_error(const std::string& stage, const std::string& message,
                                 const Loc& loc = {});

}  // namespace tritium

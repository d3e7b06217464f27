// Raising located user errors and internal errors (DESIGN law 1). Every stage reports a
// user mistake through error_at, which builds a tritium::CompileError with an excerpt.
#pragma once

#include <string>
#include <vector>

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

// A warning met while compiling (Triton's UserWarnings, such as tl.where of a non-boolean
// condition): the compile goes on. Kept for the thread that compiles until its caller takes
// them (the Python binding issues each with warnings.warn_explicit after the call); at most
// 64 are kept.
struct CompileWarning {
  std::string file;
  int line = 0;
  int col = 0;
  std::string message;
};
void warn_at(const Loc& loc, const std::string& message);
// The warnings of this thread since the last call, oldest first; clears them.
std::vector<CompileWarning> take_warnings();

}  // namespace tritium

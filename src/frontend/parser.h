// The parser: tokens -> AST (ast.h), the second stage of the frontend. Recursive descent
// over Python's grammar; everything kernels cannot use is a located CompileError.
#pragma once

#include <memory>

#include "frontend/ast.h"
#include "support/source.h"

namespace tritium {

// Parses a whole source file (or a piece cut out of one; SourceFile::first_line gives its
// real line numbers). Module level keeps only what kernels need (see ast::Module): other
// top-level statements are skipped unparsed, and a function without a jit decorator that
// kernels could not use is listed in skipped_functions instead of failing the parse.
// Throws CompileError for bad syntax anywhere in a kept statement or a jit function.
std::shared_ptr<ast::Module> parse_module(std::shared_ptr<SourceFile> file);

}  // namespace tritium

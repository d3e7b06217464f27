// A stable, indented text form of the AST with line:col on every node: what
// `tritium compile --emit ast` prints and what golden tests CHECK.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace tritium {

// One node per line, children indented by two spaces. Names, literals and attribute chains
// over them print inline (`Attribute(Name(tl).constexpr)`); every other node prints its
// kind, its location `@line:col` and its children under role labels:
//   FunctionDef add_kernel @3:1
//     Param BLOCK @3:40 annotation=Attribute(Name(tl).constexpr)
//     Assign @4:5
//       target Name(pid) @4:5
//       value Call @4:11
//         func Attribute(Name(tl).program_id) @4:11
//         arg Int(0) @4:26
std::string dump_ast(const ast::FunctionDef& fn);
// The kept statements of a module, then its skipped functions.
std::string dump_ast(const ast::Module& module);
// One expression, as it would print under a statement.
std::string dump_ast(const ast::Expr& expr);

}  // namespace tritium

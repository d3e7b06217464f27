// The recursive-descent parser behind parse_module (parser.h), shared by its source files:
// parser.cpp (token cursor, module level), stmt_parser.cpp, expr_parser.cpp.
// Internal to the frontend; other stages call parse_module.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/lexer.h"
#include "support/diagnostics.h"

namespace tritium {

class Parser {
 public:
  explicit Parser(std::shared_ptr<SourceFile> file);

  std::shared_ptr<ast::Module> parse_module();

 private:
  // Bounds the parser's recursion, so that absurdly nested input is a located error rather
  // than a stack overflow.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, const Loc& loc);
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  // Token cursor (parser.cpp). Tokens never change after lexing, so references stay valid.
  const Token& peek(size_t ahead = 0) const;
  const Token& next();
  bool at_op(const char* op) const { return peek().is_op(op); }
  bool at_keyword(const char* keyword) const { return peek().is_keyword(keyword); }
  bool at_kind(TokenKind kind) const { return peek().kind == kind; }
  bool accept_op(const char* op);
  bool accept_keyword(const char* keyword);
  const Token& expect_op(const char* op, const char* context);
  const Token& expect_keyword(const char* keyword, const char* context);
  const Token& expect_name(const char* what);
  void expect_newline();
  // "invalid syntax: expected <what>, found <the next token>", at the next token.
  [[noreturn]] void fail_expected(const std::string& what) const;
  // "unsupported syntax: <what> are not supported in kernels".
  [[noreturn]] static void unsupported(const Loc& loc, const std::string& what);

  // Module level (parser.cpp).
  void parse_top_level_def(ast::Module& module);
  void parse_top_level_simple(ast::Module& module);
  bool decorators_name_jit(size_t first_token, bool first_only = false) const;
  // The jit decorator at `decorator_at` with the keyword arguments that parse (a lambda in
  // another is Python only); leaves the cursor anywhere (the caller rewinds).
  ast::ExprPtr salvage_jit_decorator(size_t decorator_at, const Loc& loc);
  void skip_statement();
  std::string skip_def();
  void rewind(size_t token);

  // Statements (stmt_parser.cpp).
  ast::StmtPtr parse_function_def(std::vector<ast::ExprPtr> decorators, size_t first_token);
  void parse_params(ast::FunctionDef& fn);
  ast::Body parse_block();
  void parse_statement(ast::Body& body);
  void parse_simple_statements(ast::Body& body);
  void parse_simple_statement(ast::Body& body);
  ast::StmtPtr parse_assignment_or_expression();
  void parse_import(ast::Body& body);
  void parse_from_import(ast::Body& body);
  std::string parse_dotted_name();
  ast::StmtPtr parse_if();
  ast::StmtPtr parse_for();
  ast::StmtPtr parse_while();
  bool at_match_statement() const;
  bool at_statement_end() const;

  // Expressions (expr_parser.cpp), from the loosest binding to the tightest.
  ast::ExprPtr parse_expression_list();  // `a, b` without parentheses is a Tuple
  ast::ExprPtr parse_target_list();      // the same for `for` targets, which stop before `in`
  ast::ExprPtr parse_list_of(ast::ExprPtr (Parser::*item)());
  ast::ExprPtr parse_expression();  // ternary; also where lambda and := are caught
  ast::ExprPtr parse_disjunction();
  ast::ExprPtr parse_bool_op(ast::BoolOp op);
  ast::ExprPtr parse_inversion();
  ast::ExprPtr parse_comparison();
  std::optional<ast::CompareOp> accept_comparison_operator();
  ast::ExprPtr parse_bitwise_or();
  ast::ExprPtr parse_binary(int level);
  ast::ExprPtr parse_factor();
  ast::ExprPtr parse_power();
  ast::ExprPtr parse_primary();
  ast::ExprPtr parse_call(ast::ExprPtr callee, const Loc& loc);
  ast::ExprPtr parse_subscript(ast::ExprPtr value, const Loc& loc);
  ast::ExprPtr parse_slice_item();
  ast::ExprPtr parse_atom();
  ast::ExprPtr parse_strings();
  // One replacement field of an f-string (`expr`, `expr!r`, `expr:spec`, `expr=`) into
  // `fstring`; `expr=` also writes its text into the literal before it.
  void parse_fstring_field(ast::Expr& fstring, const std::string& text, const Loc& loc, std::string& literal);
  ast::ExprPtr parse_parenthesized();
  ast::ExprPtr parse_list();
  [[noreturn]] void reject_braces();
  int grow_chain(const ast::Expr& link, int depth) const;

  std::shared_ptr<SourceFile> file_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace tritium

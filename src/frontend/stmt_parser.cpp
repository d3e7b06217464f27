// Statement parsing: function definitions, blocks, simple and compound statements. What
// kernels cannot use (try, with, class, nested def, ...) is rejected here with its location.
#include <cstring>

#include "frontend/parser_impl.h"

namespace tritium {

namespace {

// Each elif nests one level deeper in the AST, and every pass after us recurses over it.
constexpr int kMaxElifClauses = 250;

struct AugmentedOperator {
  const char* spelling;
  ast::BinaryOp op;
};

const AugmentedOperator kAugmentedOperators[] = {
    {"+=", ast::BinaryOp::Add},    {"-=", ast::BinaryOp::Sub},       {"*=", ast::BinaryOp::Mul},
    {"/=", ast::BinaryOp::Div},    {"//=", ast::BinaryOp::FloorDiv}, {"%=", ast::BinaryOp::Mod},
    {"**=", ast::BinaryOp::Pow},   {"<<=", ast::BinaryOp::LShift},   {">>=", ast::BinaryOp::RShift},
    {"&=", ast::BinaryOp::BitAnd}, {"|=", ast::BinaryOp::BitOr},     {"^=", ast::BinaryOp::BitXor},
    {"@=", ast::BinaryOp::MatMul},
};

// Statements kernels cannot contain, by their leading keyword.
struct RejectedStatement {
  const char* keyword;
  const char* what;
};

const RejectedStatement kRejectedStatements[] = {
    {"class", "class definitions"},  {"try", "try statements"},
    {"with", "with statements"},     {"async", "async functions and statements"},
    {"global", "global statements"}, {"nonlocal", "nonlocal statements"},
    {"del", "del statements"},
};

ast::StmtPtr make_stmt(ast::StmtKind kind, const Loc& loc) {
  return std::make_unique<ast::Stmt>(kind, loc);
}

bool is_simple_target(const ast::Expr& e) {
  return e.kind == ast::ExprKind::Name || e.kind == ast::ExprKind::Attribute ||
         e.kind == ast::ExprKind::Subscript;
}

// Assignment targets: names, attributes, subscripts, and tuples or lists of them.
void check_assignable(const ast::Expr& target) {
  if (is_simple_target(target)) return;
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) {
    for (const ast::ExprPtr& item : target.items) check_assignable(*item);
    return;
  }
  const char* what = "an expression";
  switch (target.kind) {
    case ast::ExprKind::Call: what = "a function call"; break;
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Bool:
    case ast::ExprKind::None:
    case ast::ExprKind::Str: what = "a literal"; break;
    case ast::ExprKind::Compare: what = "a comparison"; break;
    case ast::ExprKind::Ternary: what = "a conditional expression"; break;
    default: break;
  }
  error_at(target.loc, std::string("invalid syntax: cannot assign to ") + what);
}

}  // namespace

// Called at `def` (or `async`), after the decorators; `first_token` is where the definition
// starts (its first decorator), for source_text.
ast::StmtPtr Parser::parse_function_def(std::vector<ast::ExprPtr> decorators, size_t first_token) {
  if (at_keyword("async")) unsupported(peek().loc, "async functions");
  const Token& def = expect_keyword("def", nullptr);
  auto fn = std::make_unique<ast::FunctionDef>();
  fn->loc = def.loc;
  fn->decorators = std::move(decorators);
  fn->name = expect_name("a function name").text;
  expect_op("(", "after the function name");
  parse_params(*fn);
  expect_op(")", "to close the parameter list");
  if (accept_op("->")) fn->returns = parse_expression();
  expect_op(":", "after the function signature");
  fn->body = parse_block();

  // The source text is made of whole lines, from the first decorator to the last line of
  // the body, so that it parses again on its own (the whole-source indentation is allowed).
  size_t last = pos_ - 1;
  while (last > first_token &&
         (tokens_[last].kind == TokenKind::Newline || tokens_[last].kind == TokenKind::Dedent ||
          tokens_[last].kind == TokenKind::Indent || tokens_[last].kind == TokenKind::End)) {
    --last;
  }
  const std::string& text = file_->text();
  size_t begin = tokens_[first_token].offset;
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  size_t end = text.find('\n', tokens_[last].end);
  end = end == std::string::npos ? text.size() : end + 1;
  fn->source_text = text.substr(begin, end - begin);
  fn->first_line = tokens_[first_token].loc.line;

  auto stmt = make_stmt(ast::StmtKind::FunctionDef, def.loc);
  stmt->function = std::move(fn);
  return stmt;
}

void Parser::parse_params(ast::FunctionDef& fn) {
  bool seen_default = false;
  bool keyword_only = false;
  while (!at_op(")")) {
    const Token& token = peek();
    if (token.is_op("*")) {
      if (!peek(1).is_op(",") && !peek(1).is_op(")")) unsupported(token.loc, "star parameters (*args)");
      // A bare `*`: the parameters after it are keyword-only, and need not follow the
      // defaults' order (Python's rule).
      if (keyword_only) error_at(token.loc, "invalid syntax: * argument may appear only once");
      if (peek(1).is_op(")") || peek(2).is_op(")")) error_at(token.loc, "invalid syntax: named arguments must follow bare *");
      next();
      next();
      keyword_only = true;
      continue;
    }
    if (token.is_op("**")) unsupported(token.loc, "star parameters (**kwargs)");
    if (token.is_op("/")) unsupported(token.loc, "positional-only parameter markers ('/')");
    const Token& name = expect_name("a parameter name");
    for (const ast::Param& param : fn.params) {
      if (param.name == name.text) {
        error_at(name.loc, "duplicate parameter '" + name.text + "' in function definition");
      }
    }
    ast::Param param;
    param.name = name.text;
    param.loc = name.loc;
    param.keyword_only = keyword_only;
    if (accept_op(":")) param.annotation = parse_expression();
    if (accept_op("=")) {
      param.default_value = parse_expression();
      seen_default = true;
    } else if (seen_default && !keyword_only) {
      error_at(name.loc,
               "invalid syntax: parameter without a default follows parameter with a "
               "default");
    }
    fn.params.push_back(std::move(param));
    if (!accept_op(",")) break;
  }
}

// After a `:`: an indented block, or simple statements on the same line.
ast::Body Parser::parse_block() {
  ast::Body body;
  if (!at_kind(TokenKind::Newline)) {
    parse_simple_statements(body);
    return body;
  }
  next();
  if (!at_kind(TokenKind::Indent)) fail_expected("an indented block");
  next();
  while (!at_kind(TokenKind::Dedent) && !at_kind(TokenKind::End)) parse_statement(body);
  if (at_kind(TokenKind::Dedent)) next();
  return body;
}

// One statement inside a function body.
void Parser::parse_statement(ast::Body& body) {
  const Token& token = peek();
  if (token.is_keyword("if")) {
    body.push_back(parse_if());
  } else if (token.is_keyword("for")) {
    body.push_back(parse_for());
  } else if (token.is_keyword("while")) {
    body.push_back(parse_while());
  } else if (token.is_keyword("def")) {
    error_at(token.loc, "unsupported syntax: nested function definition is not supported");
  } else if (token.is_op("@")) {
    error_at(token.loc, "unsupported syntax: decorators are not supported inside a function");
  } else if (token.kind == TokenKind::Indent) {
    error_at(token.loc, "unexpected indent");
  } else if (at_match_statement()) {
    unsupported(token.loc, "match statements");
  } else {
    parse_simple_statements(body);
  }
}

// `match` is a soft keyword: a statement starting with the name `match` is a match statement
// when its logical line ends with `:` (no simple statement can).
bool Parser::at_match_statement() const {
  if (peek().kind != TokenKind::Name || peek().text != "match" || peek(1).is_op(":")) return false;
  size_t i = pos_;
  while (i + 1 < tokens_.size() && tokens_[i + 1].kind != TokenKind::Newline &&
         tokens_[i + 1].kind != TokenKind::End) {
    ++i;
  }
  return tokens_[i].is_op(":");
}

bool Parser::at_statement_end() const {
  return at_kind(TokenKind::Newline) || at_kind(TokenKind::End) || at_op(";");
}

// Simple statements separated by `;`, up to the end of the line.
void Parser::parse_simple_statements(ast::Body& body) {
  do {
    parse_simple_statement(body);
  } while (accept_op(";") && !at_kind(TokenKind::Newline));
  expect_newline();
}

void Parser::parse_simple_statement(ast::Body& body) {
  const Token& token = peek();
  if (token.kind != TokenKind::Keyword) {
    body.push_back(parse_assignment_or_expression());
    return;
  }
  for (const RejectedStatement& rejected : kRejectedStatements) {
    if (token.text == rejected.keyword) unsupported(token.loc, rejected.what);
  }
  const std::string& keyword = token.text;
  if (keyword == "pass" || keyword == "break" || keyword == "continue") {
    next();
    ast::StmtKind kind = keyword == "pass"    ? ast::StmtKind::Pass
                         : keyword == "break" ? ast::StmtKind::Break
                                              : ast::StmtKind::Continue;
    body.push_back(make_stmt(kind, token.loc));
  } else if (keyword == "return") {
    next();
    auto stmt = make_stmt(ast::StmtKind::Return, token.loc);
    if (!at_statement_end()) stmt->value = parse_expression_list();
    body.push_back(std::move(stmt));
  } else if (keyword == "assert") {
    next();
    auto stmt = make_stmt(ast::StmtKind::Assert, token.loc);
    stmt->cond = parse_expression();
    if (accept_op(",")) stmt->value = parse_expression();
    body.push_back(std::move(stmt));
  } else if (keyword == "raise") {
    // Parsed, not rejected: a raise in a branch that a compile-time condition skips is
    // never lowered (Triton visits only the taken branch); lowering one is the error.
    next();
    auto stmt = make_stmt(ast::StmtKind::Raise, token.loc);
    if (!at_statement_end()) {
      stmt->value = parse_expression();
      if (accept_keyword("from")) stmt->cond = parse_expression();
    }
    body.push_back(std::move(stmt));
  } else if (keyword == "import") {
    parse_import(body);
  } else if (keyword == "from") {
    parse_from_import(body);
  } else {
    // Keywords that start expressions (not, None, lambda, ...) and misplaced ones (else, in).
    body.push_back(parse_assignment_or_expression());
  }
}

// Expression statements and the three kinds of assignment, told apart by what follows the
// first expression list.
ast::StmtPtr Parser::parse_assignment_or_expression() {
  Loc loc = peek().loc;
  ast::ExprPtr first = parse_expression_list();
  if (at_op("=")) {
    auto stmt = make_stmt(ast::StmtKind::Assign, loc);
    stmt->targets.push_back(std::move(first));
    while (accept_op("=")) {
      ast::ExprPtr value = parse_expression_list();
      if (at_op("="))
        stmt->targets.push_back(std::move(value));
      else
        stmt->value = std::move(value);
    }
    for (const ast::ExprPtr& target : stmt->targets) check_assignable(*target);
    return stmt;
  }
  if (at_op(":")) {
    if (first->kind == ast::ExprKind::Tuple || first->kind == ast::ExprKind::List) {
      error_at(first->loc,
               "invalid syntax: only a single target (not a tuple or list) can be "
               "annotated");
    }
    check_assignable(*first);
    next();
    auto stmt = make_stmt(ast::StmtKind::AnnAssign, loc);
    stmt->target = std::move(first);
    stmt->annotation = parse_expression();
    if (accept_op("=")) stmt->value = parse_expression_list();
    return stmt;
  }
  for (const AugmentedOperator& augmented : kAugmentedOperators) {
    if (!at_op(augmented.spelling)) continue;
    if (!is_simple_target(*first)) {
      error_at(first->loc, "invalid syntax: illegal target for augmented assignment");
    }
    next();
    auto stmt = make_stmt(ast::StmtKind::AugAssign, loc);
    stmt->target = std::move(first);
    stmt->binary_op = augmented.op;
    stmt->value = parse_expression_list();
    return stmt;
  }
  auto stmt = make_stmt(ast::StmtKind::ExprStmt, loc);
  stmt->value = std::move(first);
  return stmt;
}

std::string Parser::parse_dotted_name() {
  std::string name = expect_name("a module name").text;
  while (accept_op(".")) name += "." + expect_name("a module name").text;
  return name;
}

// `import a.b as c, d`: one Import per module, located at its name.
void Parser::parse_import(ast::Body& body) {
  next();
  do {
    Loc loc = peek().loc;
    auto stmt = make_stmt(ast::StmtKind::Import, loc);
    stmt->module = parse_dotted_name();
    // Without `as` the alias stays empty: `import a.b` binds `a` to package a (see ast.h).
    if (accept_keyword("as")) stmt->alias = expect_name("a name after 'as'").text;
    body.push_back(std::move(stmt));
  } while (accept_op(","));
}

// `from a.b import c as d, e` and `from . import x`: one ImportFrom per name, at the name.
void Parser::parse_from_import(ast::Body& body) {
  next();
  std::string module;
  while (at_op(".") || at_op("...")) module += next().text;  // a relative import
  if (module.empty() || !at_keyword("import")) module += parse_dotted_name();
  expect_keyword("import", "after the module name");
  if (at_op("*")) unsupported(peek().loc, "star imports ('from m import *')");
  bool parenthesized = accept_op("(");
  do {
    if (parenthesized && at_op(")")) break;  // a trailing comma
    const Token& name = expect_name("a name to import");
    auto stmt = make_stmt(ast::StmtKind::ImportFrom, name.loc);
    stmt->module = module;
    stmt->name = name.text;
    stmt->alias = accept_keyword("as") ? expect_name("a name after 'as'").text : name.text;
    body.push_back(std::move(stmt));
  } while (accept_op(","));
  if (parenthesized) expect_op(")", "to close the import list");
}

// `if` with its elif / else clauses: an elif is an If alone in the orelse of the clause
// before it. The chain is built in a loop, not by recursion, and its length is bounded.
ast::StmtPtr Parser::parse_if() {
  auto parse_clause = [&] {
    const Token& keyword = next();  // `if` or `elif`
    auto clause = make_stmt(ast::StmtKind::If, keyword.loc);
    clause->cond = parse_expression();
    expect_op(":", "after the condition");
    clause->body = parse_block();
    return clause;
  };
  ast::StmtPtr head = parse_clause();
  ast::Stmt* tail = head.get();
  for (int elifs = 1; at_keyword("elif"); ++elifs) {
    if (elifs > kMaxElifClauses) error_at(peek().loc, "too many elif clauses in one if statement");
    tail->orelse.push_back(parse_clause());
    tail = tail->orelse.back().get();
  }
  if (accept_keyword("else")) {
    expect_op(":", "after 'else'");
    tail->orelse = parse_block();
  }
  return head;
}

ast::StmtPtr Parser::parse_for() {
  const Token& keyword = next();
  auto stmt = make_stmt(ast::StmtKind::For, keyword.loc);
  stmt->target = parse_target_list();
  check_assignable(*stmt->target);
  expect_keyword("in", "after the loop variable");
  stmt->cond = parse_expression_list();
  expect_op(":", "after the loop header");
  stmt->body = parse_block();
  if (accept_keyword("else")) {
    expect_op(":", "after 'else'");
    stmt->orelse = parse_block();
  }
  return stmt;
}

ast::StmtPtr Parser::parse_while() {
  const Token& keyword = next();
  auto stmt = make_stmt(ast::StmtKind::While, keyword.loc);
  stmt->cond = parse_expression();
  expect_op(":", "after the condition");
  stmt->body = parse_block();
  if (accept_keyword("else")) {
    expect_op(":", "after 'else'");
    stmt->orelse = parse_block();
  }
  return stmt;
}

}  // namespace tritium

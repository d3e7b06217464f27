// parse_module: the token cursor and the module level, where only defs, imports and simple
// constant assignments are kept and everything else is skipped without being parsed.
#include "frontend/parser.h"

#include <cstring>

#include "frontend/parser_impl.h"

namespace tritium {

namespace {

// Past this many nested expressions or unary operators the parser stops:
// legitimate kernels come nowhere near, and the C++ stack must not overflow.
constexpr int kMaxNesting = 250;

// Keywords that open a compound statement: skipping one skips its whole block, even when
// its body follows on the same line after `;`-separated statements.
const char* const kCompoundKeywords[] = {"if",     "elif",    "else", "for",   "while", "try",
                                         "except", "finally", "with", "class", "def",   "async"};

}  // namespace

Parser::DepthGuard::DepthGuard(Parser& parser, const Loc& loc) : parser_(parser) {
  if (parser.depth_ >= kMaxNesting) error_at(loc, "expression nested too deeply");
  ++parser.depth_;
}

Parser::Parser(std::shared_ptr<SourceFile> file)
    : file_(std::move(file)), tokens_(tokenize(*file_)) {}

const Token& Parser::peek(size_t ahead) const {
  // The token list always ends with End, which the cursor never moves past.
  return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

const Token& Parser::next() {
  const Token& token = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

bool Parser::accept_op(const char* op) {
  if (!at_op(op)) return false;
  next();
  return true;
}

bool Parser::accept_keyword(const char* keyword) {
  if (!at_keyword(keyword)) return false;
  next();
  return true;
}

const Token& Parser::expect_op(const char* op, const char* context) {
  if (!at_op(op)) {
    fail_expected(std::string("'") + op + "'" + (context ? std::string(" ") + context : ""));
  }
  return next();
}

const Token& Parser::expect_keyword(const char* keyword, const char* context) {
  if (!at_keyword(keyword)) {
    fail_expected(std::string("'") + keyword + "'" + (context ? std::string(" ") + context : ""));
  }
  return next();
}

const Token& Parser::expect_name(const char* what) {
  if (!at_kind(TokenKind::Name)) fail_expected(what);
  return next();
}

void Parser::expect_newline() {
  if (!at_kind(TokenKind::Newline)) fail_expected("end of line");
  next();
}

void Parser::fail_expected(const std::string& what) const {
  const Token& token = peek();
  if (token.kind == TokenKind::Indent) error_at(token.loc, "unexpected indent");
  error_at(token.loc, "invalid syntax: expected " + what + ", found " + describe(token));
}

void Parser::unsupported(const Loc& loc, const std::string& what) {
  error_at(loc, "unsupported syntax: " + what + " are not supported in kernels");
}

void Parser::rewind(size_t token) {
  pos_ = token;
  depth_ = 0;  // a failed parse unwinds its DepthGuards only partly (guards that threw)
}

std::shared_ptr<ast::Module> Parser::parse_module() {
  auto module = std::make_shared<ast::Module>();
  module->file = file_;
  while (!at_kind(TokenKind::End)) {
    const Token& token = peek();
    if (token.kind == TokenKind::Newline) {  // after a trailing `;`
      next();
    } else if (token.kind == TokenKind::Indent || token.kind == TokenKind::Dedent) {
      error_at(token.loc,
               token.kind == TokenKind::Indent ? "unexpected indent" : "unexpected dedent");
    } else if (token.is_op("@") || token.is_keyword("def") ||
               (token.is_keyword("async") && peek(1).is_keyword("def"))) {
      parse_top_level_def(*module);
    } else if (token.is_keyword("import") || token.is_keyword("from") ||
               (token.kind == TokenKind::Name && (peek(1).is_op("=") || peek(1).is_op(":")))) {
      parse_top_level_simple(*module);
    } else {
      skip_statement();
    }
  }
  return module;
}

// A top-level def: a jit function must parse; any other function is kept when it parses
// and otherwise only recorded by name, since it may use Python that kernels cannot.
void Parser::parse_top_level_def(ast::Module& module) {
  size_t start = pos_;
  std::vector<ast::ExprPtr> decorators;
  try {
    while (at_op("@")) {
      size_t decorator_at = pos_;
      next();
      try {
        decorators.push_back(parse_expression());
        expect_newline();
      } catch (const CompileError&) {
        // A decorator that is not a jit one runs only in Python (autotune or heuristics
        // with lambdas, ...): tritium skips its line rather than reject the kernel.
        const bool jit = decorators_name_jit(decorator_at, /*first_only=*/true);
        const Loc loc = tokens_[decorator_at].loc;
        rewind(decorator_at);
        skip_statement();
        if (jit) {
          // A jit decorator whose arguments hold Python a kernel cannot (`repr=lambda ...`,
          // `launch_metadata=lambda ...`): Python applied it; the compiler keeps the
          // keyword arguments that parse (do_not_specialize, noinline, ...).
          size_t after = pos_;
          decorators.push_back(salvage_jit_decorator(decorator_at, loc));
          rewind(after);
        }
      }
    }
  } catch (const CompileError&) {
    if (decorators_name_jit(start)) throw;
    rewind(start);
    std::string name = skip_def();
    if (!name.empty()) module.skipped_functions.push_back(name);
    return;
  }
  bool jit = false;
  for (const ast::ExprPtr& decorator : decorators) jit = jit || ast::is_jit_decorator(*decorator);
  if (!at_keyword("def") && !at_keyword("async")) {
    if (jit) fail_expected("'def' after a jit decorator");
    skip_statement();  // a decorated class
    return;
  }
  if (jit) {
    module.statements.push_back(parse_function_def(std::move(decorators), start));
    return;
  }
  try {
    module.statements.push_back(parse_function_def(std::move(decorators), start));
  } catch (const CompileError&) {
    rewind(start);
    std::string name = skip_def();
    if (!name.empty()) module.skipped_functions.push_back(name);
  }
}

// Whether a decorator line from `first_token` on (only that line when `first_only`) starts
// with a dotted name ending in `jit`; decides whether a decorator that failed to parse fails
// the whole module.
ast::ExprPtr Parser::salvage_jit_decorator(size_t decorator_at, const Loc& loc) {
  auto call = std::make_unique<ast::Expr>(ast::ExprKind::Call, loc);
  call->lhs = std::make_unique<ast::Expr>(ast::ExprKind::Name, loc);
  call->lhs->name = "jit";
  rewind(decorator_at);
  next();  // @
  while (peek().kind == TokenKind::Name || at_op(".")) next();  // triton.jit
  if (!accept_op("(")) return call;
  // Skips one argument: to the next comma or the closing parenthesis at this depth.
  auto skip_argument = [&] {
    int depth = 0;
    while (peek().kind != TokenKind::End) {
      if (depth == 0 && (at_op(",") || at_op(")"))) return;
      if (at_op("(") || at_op("[") || at_op("{")) ++depth;
      if (at_op(")") || at_op("]") || at_op("}")) --depth;
      next();
    }
  };
  while (!at_op(")") && peek().kind != TokenKind::End) {
    const Token& token = peek();
    if (token.kind == TokenKind::Name && peek(1).is_op("=")) {
      next();
      next();
      size_t value_at = pos_;
      try {
        ast::ExprPtr value = parse_expression();
        if (at_op(",") || at_op(")")) {
          call->keywords.push_back(ast::Keyword{token.text, std::move(value), token.loc});
        } else {
          skip_argument();
        }
      } catch (const CompileError&) {
        rewind(value_at);
        skip_argument();
      }
    } else {
      skip_argument();
    }
    if (!accept_op(",")) break;
  }
  return call;
}

bool Parser::decorators_name_jit(size_t first_token, bool first_only) const {
  for (size_t i = first_token; i < tokens_.size() && tokens_[i].is_op("@");) {
    if (first_only && i != first_token) break;
    size_t j = i + 1;
    std::string last;
    while (j < tokens_.size() && tokens_[j].kind == TokenKind::Name) {
      last = tokens_[j++].text;
      if (j < tokens_.size() && tokens_[j].is_op("."))
        ++j;
      else
        break;
    }
    if (last.size() >= 3 && last.compare(last.size() - 3, 3, "jit") == 0) return true;
    while (j < tokens_.size() && tokens_[j].kind != TokenKind::Newline &&
           tokens_[j].kind != TokenKind::End) {
      ++j;
    }
    i = j + 1;
  }
  return false;
}

// `import ...`, `from ... import ...` and `NAME = expr` / `NAME: ann = expr`: kept when they
// parse and are that simple; other assignments, and any that fail to parse, are skipped.
void Parser::parse_top_level_simple(ast::Module& module) {
  size_t start = pos_;
  ast::Body parsed;
  try {
    parse_simple_statement(parsed);
    if (!at_op(";") && !at_kind(TokenKind::Newline)) fail_expected("end of line");
  } catch (const CompileError&) {
    rewind(start);
    skip_statement();
    return;
  }
  for (ast::StmtPtr& stmt : parsed) {
    bool keep = stmt->kind == ast::StmtKind::Import || stmt->kind == ast::StmtKind::ImportFrom;
    if (stmt->kind == ast::StmtKind::Assign) {
      keep = stmt->targets.size() == 1 && stmt->targets[0]->kind == ast::ExprKind::Name;
    } else if (stmt->kind == ast::StmtKind::AnnAssign) {
      keep = stmt->target->kind == ast::ExprKind::Name && stmt->value != nullptr;
    }
    if (keep) module.statements.push_back(std::move(stmt));
  }
  next();  // the `;` or the end of the line
}

// Skips one statement unparsed: a simple statement up to its `;` or the end of its line, a
// compound statement with everything on its line and the indented block that follows.
void Parser::skip_statement() {
  const Token& first = peek();
  bool compound = first.is_op("@") || (first.kind == TokenKind::Name &&
                                       (first.text == "match" || first.text == "case"));
  for (const char* keyword : kCompoundKeywords) compound = compound || first.is_keyword(keyword);
  while (!at_kind(TokenKind::Newline) && !at_kind(TokenKind::End) && !(!compound && at_op(";"))) {
    next();
  }
  if (accept_op(";")) return;
  if (at_kind(TokenKind::Newline)) next();
  if (!at_kind(TokenKind::Indent)) return;
  int level = 0;
  do {
    if (at_kind(TokenKind::Indent)) ++level;
    if (at_kind(TokenKind::Dedent)) --level;
    next();
  } while (level > 0 && !at_kind(TokenKind::End));
}

// Skips a function definition with its decorators; returns the function's name.
std::string Parser::skip_def() {
  while (at_op("@")) skip_statement();
  size_t def_at = at_keyword("async") ? 1 : 0;
  std::string name;
  if (peek(def_at).is_keyword("def") && peek(def_at + 1).kind == TokenKind::Name) {
    name = peek(def_at + 1).text;
  }
  skip_statement();
  return name;
}

std::shared_ptr<ast::Module> parse_module(std::shared_ptr<SourceFile> file) {
  return Parser(std::move(file)).parse_module();
}

}  // namespace tritium

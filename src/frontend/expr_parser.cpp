// Expression parsing with Python's precedence, loosest first: ternary, or, and, not,
// comparisons (a chain stays one Compare), | ^ & << >> + - * / // % @, unary - + ~, ** (right
// associative, tighter than a unary operator on its left), then calls, attributes, subscripts.
#include <algorithm>
#include <functional>
#include <utility>

#include "frontend/parser_impl.h"

namespace tritium {

namespace {

// A chain such as a + b + c or f(x)(y)[z] deepens the tree without recursing in the parser,
// so its depth is measured; past this the tree would strain every recursive pass after us.
constexpr int kMaxTreeDepth = 1000;

struct BinaryOperator {
  const char* spelling;
  ast::BinaryOp op;
  int level;  // 0 binds loosest
};

const BinaryOperator kBinaryOperators[] = {
    {"|", ast::BinaryOp::BitOr, 0},   {"^", ast::BinaryOp::BitXor, 1},
    {"&", ast::BinaryOp::BitAnd, 2},  {"<<", ast::BinaryOp::LShift, 3},
    {">>", ast::BinaryOp::RShift, 3}, {"+", ast::BinaryOp::Add, 4},
    {"-", ast::BinaryOp::Sub, 4},     {"*", ast::BinaryOp::Mul, 5},
    {"/", ast::BinaryOp::Div, 5},     {"//", ast::BinaryOp::FloorDiv, 5},
    {"%", ast::BinaryOp::Mod, 5},     {"@", ast::BinaryOp::MatMul, 5},
};
constexpr int kBinaryLevels = 6;

const std::pair<const char*, ast::CompareOp> kComparisonOperators[] = {
    {"==", ast::CompareOp::Eq},  {"!=", ast::CompareOp::NotEq}, {"<", ast::CompareOp::Lt},
    {"<=", ast::CompareOp::LtE}, {">", ast::CompareOp::Gt},     {">=", ast::CompareOp::GtE},
};

const std::pair<const char*, ast::UnaryOp> kUnaryOperators[] = {
    {"-", ast::UnaryOp::Neg}, {"+", ast::UnaryOp::Pos}, {"~", ast::UnaryOp::Invert}};

ast::ExprPtr make_expr(ast::ExprKind kind, const Loc& loc) {
  return std::make_unique<ast::Expr>(kind, loc);
}

// Whether `token` can begin an expression: a trailing comma is told from a next item by it.
bool starts_expression(const Token& token) {
  switch (token.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String: return true;
    case TokenKind::Keyword:
      for (const char* keyword : {"True", "False", "None", "not", "lambda", "await", "yield"}) {
        if (token.text == keyword) return true;
      }
      return false;
    case TokenKind::Op:
      for (const char* op : {"(", "[", "{", "-", "+", "~", "*", "..."}) {
        if (token.text == op) return true;
      }
      return false;
    default: return false;
  }
}

// The depth of the tree under `root`, without recursion (that is the point of measuring).
int tree_depth(const ast::Expr& root) {
  int deepest = 0;
  std::vector<std::pair<const ast::Expr*, int>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [expr, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    for (const ast::ExprPtr* child : {&expr->lhs, &expr->rhs, &expr->third}) {
      if (*child) stack.push_back({child->get(), depth + 1});
    }
    for (const ast::ExprPtr& item : expr->items) stack.push_back({item.get(), depth + 1});
    for (const ast::Keyword& keyword : expr->keywords) {
      if (keyword.value) stack.push_back({keyword.value.get(), depth + 1});
    }
  }
  return deepest;
}

}  // namespace

// `link` is the newest node of a chain and its lhs the previous one, `depth` deep (0: not yet
// measured). Returns the depth of `link`; a located error past kMaxTreeDepth.
int Parser::grow_chain(const ast::Expr& link, int depth) const {
  if (depth == 0) depth = tree_depth(*link.lhs);
  int children = 0;
  for (const ast::ExprPtr* child : {&link.rhs, &link.third}) {
    if (*child) children = std::max(children, tree_depth(**child));
  }
  for (const ast::ExprPtr& item : link.items) children = std::max(children, tree_depth(*item));
  for (const ast::Keyword& keyword : link.keywords) {
    children = std::max(children, tree_depth(*keyword.value));
  }
  depth = 1 + std::max(depth, children);
  if (depth > kMaxTreeDepth) error_at(link.loc, "expression nested too deeply");
  return depth;
}

ast::ExprPtr Parser::parse_expression_list() { return parse_list_of(&Parser::parse_expression); }

ast::ExprPtr Parser::parse_target_list() { return parse_list_of(&Parser::parse_bitwise_or); }

// `item, item, ...` with an optional trailing comma; more than one item (or a comma) is a
// Tuple located at its first item.
ast::ExprPtr Parser::parse_list_of(ast::ExprPtr (Parser::*item)()) {
  Loc loc = peek().loc;
  ast::ExprPtr first = (this->*item)();
  if (!at_op(",")) return first;
  auto tuple = make_expr(ast::ExprKind::Tuple, loc);
  tuple->items.push_back(std::move(first));
  while (accept_op(",") && starts_expression(peek())) tuple->items.push_back((this->*item)());
  return tuple;
}

ast::ExprPtr Parser::parse_expression() {
  Loc loc = peek().loc;
  DepthGuard guard(*this, loc);
  ast::ExprPtr value = parse_disjunction();
  if (at_op(":=")) unsupported(loc, "assignment expressions (:=)");
  if (!accept_keyword("if")) return value;
  auto ternary = make_expr(ast::ExprKind::Ternary, loc);
  ternary->lhs = std::move(value);
  ternary->rhs = parse_disjunction();
  expect_keyword("else", "in the conditional expression");
  ternary->third = parse_expression();
  return ternary;
}

ast::ExprPtr Parser::parse_disjunction() { return parse_bool_op(ast::BoolOp::Or); }

// `a or b or c` is one BoolOp with three items, as in Python's ast.
ast::ExprPtr Parser::parse_bool_op(ast::BoolOp op) {
  const char* keyword = ast::spelling(op);
  auto operand = [&] {
    return op == ast::BoolOp::Or ? parse_bool_op(ast::BoolOp::And) : parse_inversion();
  };
  Loc loc = peek().loc;
  ast::ExprPtr first = operand();
  if (!at_keyword(keyword)) return first;
  auto bool_op = make_expr(ast::ExprKind::BoolOp, loc);
  bool_op->bool_op = op;
  bool_op->items.push_back(std::move(first));
  while (accept_keyword(keyword)) bool_op->items.push_back(operand());
  return bool_op;
}

ast::ExprPtr Parser::parse_inversion() {
  if (!at_keyword("not")) return parse_comparison();
  const Token& keyword = next();
  DepthGuard guard(*this, keyword.loc);
  auto unary = make_expr(ast::ExprKind::Unary, keyword.loc);
  unary->unary_op = ast::UnaryOp::Not;
  unary->lhs = parse_inversion();
  return unary;
}

// A chain a < b <= c stays one Compare; lowering decides what it may mean.
ast::ExprPtr Parser::parse_comparison() {
  Loc loc = peek().loc;
  ast::ExprPtr first = parse_bitwise_or();
  ast::ExprPtr compare;
  while (std::optional<ast::CompareOp> op = accept_comparison_operator()) {
    if (!compare) {
      compare = make_expr(ast::ExprKind::Compare, loc);
      compare->items.push_back(std::move(first));
    }
    compare->compare_ops.push_back(*op);
    compare->items.push_back(parse_bitwise_or());
  }
  return compare ? std::move(compare) : std::move(first);
}

std::optional<ast::CompareOp> Parser::accept_comparison_operator() {
  for (const auto& [spelling, op] : kComparisonOperators) {
    if (accept_op(spelling)) return op;
  }
  if (accept_keyword("in")) return ast::CompareOp::In;
  if (at_keyword("not") && peek(1).is_keyword("in")) {
    next();
    next();
    return ast::CompareOp::NotIn;
  }
  if (accept_keyword("is")) {
    return accept_keyword("not") ? ast::CompareOp::IsNot : ast::CompareOp::Is;
  }
  return std::nullopt;
}

ast::ExprPtr Parser::parse_bitwise_or() { return parse_binary(0); }

// The left-associative binary levels of kBinaryOperators, one recursion per level.
ast::ExprPtr Parser::parse_binary(int level) {
  if (level == kBinaryLevels) return parse_factor();
  Loc loc = peek().loc;
  ast::ExprPtr lhs = parse_binary(level + 1);
  int depth = 0;
  while (true) {
    const BinaryOperator* found = nullptr;
    for (const BinaryOperator& candidate : kBinaryOperators) {
      if (candidate.level == level && at_op(candidate.spelling)) found = &candidate;
    }
    if (found == nullptr) return lhs;
    next();
    auto binary = make_expr(ast::ExprKind::Binary, loc);
    binary->binary_op = found->op;
    binary->lhs = std::move(lhs);
    binary->rhs = parse_binary(level + 1);
    depth = grow_chain(*binary, depth);
    lhs = std::move(binary);
  }
}

ast::ExprPtr Parser::parse_factor() {
  const Token& token = peek();
  for (const auto& [spelling, op] : kUnaryOperators) {
    if (!token.is_op(spelling)) continue;
    next();
    DepthGuard guard(*this, token.loc);
    auto unary = make_expr(ast::ExprKind::Unary, token.loc);
    unary->unary_op = op;
    unary->lhs = parse_factor();
    return unary;
  }
  return parse_power();
}

// `a ** b`: the exponent is a factor, so 2 ** -1 parses and 2 ** 3 ** 2 is 2 ** (3 ** 2);
// -2 ** 2 is -(2 ** 2) because the unary minus was taken by parse_factor first.
ast::ExprPtr Parser::parse_power() {
  Loc loc = peek().loc;
  ast::ExprPtr base = parse_primary();
  if (!at_op("**")) return base;
  DepthGuard guard(*this, peek().loc);
  next();
  auto power = make_expr(ast::ExprKind::Binary, loc);
  power->binary_op = ast::BinaryOp::Pow;
  power->lhs = std::move(base);
  power->rhs = parse_factor();
  return power;
}

// An atom followed by any number of `.name`, `(args)` and `[index]`.
ast::ExprPtr Parser::parse_primary() {
  Loc loc = peek().loc;
  ast::ExprPtr expr = parse_atom();
  int depth = 0;
  while (true) {
    if (accept_op(".")) {
      const Token& name = expect_name("an attribute name after '.'");
      auto attribute = make_expr(ast::ExprKind::Attribute, loc);
      attribute->name = name.text;
      attribute->lhs = std::move(expr);
      expr = std::move(attribute);
    } else if (at_op("(")) {
      expr = parse_call(std::move(expr), loc);
    } else if (at_op("[")) {
      expr = parse_subscript(std::move(expr), loc);
    } else {
      return expr;
    }
    depth = grow_chain(*expr, depth);
  }
}

ast::ExprPtr Parser::parse_call(ast::ExprPtr callee, const Loc& loc) {
  next();  // (
  auto call = make_expr(ast::ExprKind::Call, loc);
  call->lhs = std::move(callee);
  while (!at_op(")")) {
    const Token& token = peek();
    if (token.is_op("*")) {
      // f(a, *t): the items of a tuple as positional arguments.
      next();
      auto starred = make_expr(ast::ExprKind::Starred, token.loc);
      starred->lhs = parse_expression();
      call->items.push_back(std::move(starred));
      if (!accept_op(",")) break;
      continue;
    }
    if (token.is_op("**")) unsupported(token.loc, "star arguments (**kwargs)");
    if (token.kind == TokenKind::Name && peek(1).is_op("=")) {
      next();
      next();
      for (const ast::Keyword& keyword : call->keywords) {
        if (keyword.name == token.text)
          error_at(token.loc, "keyword argument repeated: " + token.text);
      }
      call->keywords.push_back(ast::Keyword{token.text, parse_expression(), token.loc});
    } else {
      ast::ExprPtr arg = parse_expression();
      if (at_keyword("for") || at_keyword("async")) unsupported(arg->loc, "generator expressions");
      if (!call->keywords.empty()) {
        error_at(arg->loc, "invalid syntax: positional argument follows keyword argument");
      }
      call->items.push_back(std::move(arg));
    }
    if (!accept_op(",")) break;
  }
  expect_op(")", "to close the call");
  return call;
}

// x[i], x[:, None], a[1:2:3]: one item per comma-separated index (a trailing comma adds none).
ast::ExprPtr Parser::parse_subscript(ast::ExprPtr value, const Loc& loc) {
  next();  // [
  auto subscript = make_expr(ast::ExprKind::Subscript, loc);
  subscript->lhs = std::move(value);
  do {
    if (at_op("]") && !subscript->items.empty()) break;
    subscript->items.push_back(parse_slice_item());
  } while (accept_op(","));
  expect_op("]", "to close the subscript");
  return subscript;
}

// An index, or a slice lower:upper:step with each part optional (located at its first token).
ast::ExprPtr Parser::parse_slice_item() {
  Loc loc = peek().loc;
  ast::ExprPtr lower;
  if (!at_op(":")) {
    lower = parse_expression();
    if (!at_op(":")) return lower;
  }
  next();  // :
  auto ends_part = [&] { return at_op(":") || at_op(",") || at_op("]"); };
  auto slice = make_expr(ast::ExprKind::Slice, loc);
  slice->lhs = std::move(lower);
  if (!ends_part()) slice->rhs = parse_expression();
  if (accept_op(":") && !ends_part()) slice->third = parse_expression();
  return slice;
}

ast::ExprPtr Parser::parse_atom() {
  const Token& token = peek();
  switch (token.kind) {
    case TokenKind::Name: {
      next();
      auto name = make_expr(ast::ExprKind::Name, token.loc);
      name->name = token.text;
      return name;
    }
    case TokenKind::Int: {
      next();
      auto literal = make_expr(ast::ExprKind::Int, token.loc);
      literal->int_value = token.int_value;
      return literal;
    }
    case TokenKind::Float: {
      if (token.is_imaginary) unsupported(token.loc, "complex literals");
      next();
      auto literal = make_expr(ast::ExprKind::Float, token.loc);
      literal->float_value = token.float_value;
      return literal;
    }
    case TokenKind::String: return parse_strings();
    case TokenKind::Keyword:
      if (token.text == "True" || token.text == "False") {
        next();
        auto literal = make_expr(ast::ExprKind::Bool, token.loc);
        literal->bool_value = token.text == "True";
        return literal;
      }
      if (token.text == "None") {
        next();
        return make_expr(ast::ExprKind::None, token.loc);
      }
      if (token.text == "lambda") unsupported(token.loc, "lambda expressions");
      if (token.text == "yield") unsupported(token.loc, "yield expressions");
      if (token.text == "await") unsupported(token.loc, "await expressions");
      break;
    case TokenKind::Op:
      if (token.text == "(") return parse_parenthesized();
      if (token.text == "[") return parse_list();
      if (token.text == "{") reject_braces();
      if (token.text == "...") unsupported(token.loc, "Ellipsis ('...') expressions");
      if (token.text == "*") unsupported(token.loc, "starred expressions (*x)");
      break;
    default: break;
  }
  fail_expected("an expression");
}

// Adjacent string literals concatenate, as in Python; with an f-string among them the
// result is an FString (its literal text around each field's expression).
ast::ExprPtr Parser::parse_strings() {
  auto str = make_expr(ast::ExprKind::Str, peek().loc);
  std::vector<std::string> parts(1);
  while (at_kind(TokenKind::String)) {
    const Token& token = next();
    if (token.is_bytes) unsupported(token.loc, "bytes literals");
    str->str_value += token.str_value;
    if (!token.is_fstring) {
      parts.back() += token.str_value;
      continue;
    }
    str->kind = ast::ExprKind::FString;
    const std::vector<std::string>& pieces = token.fstring_pieces;
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (i % 2 == 0) {
        parts.back() += pieces[i];
      } else {
        parse_fstring_field(*str, pieces[i], token.fstring_field_locs[i / 2], parts.back());
        parts.emplace_back();
      }
    }
  }
  if (str->kind == ast::ExprKind::FString) {
    str->fstring_parts = std::move(parts);
    str->str_value.clear();
  }
  return str;
}

// The field's expression is parsed from its own text, placed at the field's line and column
// (so its locations point at the field); the conversion is kept, a format spec is not used
// (Triton formats each value with "{}" or "{!r}", the spec ignored).
void Parser::parse_fstring_field(ast::Expr& fstring, const std::string& text, const Loc& loc,
                                 std::string& literal) {
  size_t end = text.size();
  char conversion = 0;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && c == '!' && i + 1 < text.size() && text[i + 1] != '=') {
      conversion = text[i + 1];
      if ((conversion != 'r' && conversion != 's' && conversion != 'a') ||
          (i + 2 < text.size() && text[i + 2] != ':')) {
        error_at(loc, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      }
      end = i;
      break;
    } else if (depth == 0 && c == ':') {
      end = i;
      break;
    }
  }
  std::string expression = text.substr(0, end);
  // `{x=}` (Python 3.8) writes "x=" then the value, by repr unless a conversion or spec is given
  const size_t last = expression.find_last_not_of(" \t\r\n");
  if (last != std::string::npos && expression[last] == '=' &&
      (last == 0 || std::string("=!<>").find(expression[last - 1]) == std::string::npos)) {
    literal += expression;
    if (conversion == 0 && end == text.size()) conversion = 'r';
    expression = expression.substr(0, last);
  }
  if (expression.find_first_not_of(" \t\r\n") == std::string::npos) {
    error_at(loc, "f-string: valid expression required before '}'");
  }
  // The field's text, parenthesized, with its first character at the field's column of its
  // line (a multi-line field keeps its line breaks).
  auto source = std::make_shared<SourceFile>(loc.file ? loc.file->path() : std::string(),
                                             std::string(static_cast<size_t>(std::max(loc.col - 2, 0)), ' ') +
                                                 "(" + expression + ")",
                                             loc.line);
  Parser field(source);
  ast::ExprPtr parsed = field.parse_expression();
  if (!field.at_kind(TokenKind::Newline) && !field.at_kind(TokenKind::End)) {
    field.fail_expected("the end of the f-string field");
  }
  // The field's text stands at its real line and column, so its nodes are placed in the
  // kernel's own file (errors show the real line).
  std::function<void(ast::Expr&)> relocate = [&](ast::Expr& e) {
    e.loc.file = loc.file;
    for (ast::ExprPtr* part : {&e.lhs, &e.rhs, &e.third}) {
      if (*part) relocate(**part);
    }
    for (ast::ExprPtr& item : e.items) relocate(*item);
    for (ast::Keyword& keyword : e.keywords) {
      keyword.loc.file = loc.file;
      relocate(*keyword.value);
    }
  };
  if (loc.file != nullptr) relocate(*parsed);
  fstring.items.push_back(std::move(parsed));
  fstring.fstring_conversions.push_back(conversion);
}

// `()` is an empty tuple, `(a)` is just a (keeping a's location), `(a,)` a one-item tuple.
ast::ExprPtr Parser::parse_parenthesized() {
  const Token& open = next();
  if (accept_op(")")) return make_expr(ast::ExprKind::Tuple, open.loc);
  ast::ExprPtr first = parse_expression();
  if (at_keyword("for") || at_keyword("async")) unsupported(open.loc, "generator expressions");
  if (!at_op(",")) {
    expect_op(")", "to close the parenthesis");
    return first;
  }
  auto tuple = make_expr(ast::ExprKind::Tuple, open.loc);
  tuple->items.push_back(std::move(first));
  while (accept_op(",") && !at_op(")")) tuple->items.push_back(parse_expression());
  expect_op(")", "to close the tuple");
  return tuple;
}

ast::ExprPtr Parser::parse_list() {
  const Token& open = next();
  auto list = make_expr(ast::ExprKind::List, open.loc);
  if (accept_op("]")) return list;
  list->items.push_back(parse_expression());
  if (at_keyword("async")) unsupported(open.loc, "async comprehensions");
  if (accept_keyword("for")) {
    // [elt for target in iterable if cond ...]: one `for` clause, as Triton supports.
    auto comp = make_expr(ast::ExprKind::ListComp, open.loc);
    comp->lhs = std::move(list->items[0]);
    comp->third = parse_target_list();
    expect_keyword("in", "after the comprehension's variable");
    comp->rhs = parse_disjunction();
    while (accept_keyword("if")) comp->items.push_back(parse_disjunction());
    if (at_keyword("for") || at_keyword("async")) unsupported(peek().loc, "nested comprehensions");
    expect_op("]", "to close the list comprehension");
    return comp;
  }
  while (accept_op(",") && !at_op("]")) list->items.push_back(parse_expression());
  expect_op("]", "to close the list");
  return list;
}

// Braces only make dicts and sets, which kernels cannot use; the first item tells which
// one the message names.
void Parser::reject_braces() {
  const Token& open = next();
  if (at_op("}") || at_op("**")) unsupported(open.loc, "dict literals");
  parse_expression();
  if (accept_op(":")) {
    parse_expression();
    if (at_keyword("for") || at_keyword("async")) unsupported(open.loc, "dict comprehensions");
    unsupported(open.loc, "dict literals");
  }
  if (at_keyword("for") || at_keyword("async")) unsupported(open.loc, "set comprehensions");
  unsupported(open.loc, "set literals");
}

}  // namespace tritium

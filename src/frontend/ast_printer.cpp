// The AST dumper (ast_printer.h). Output must stay stable: golden tests CHECK its lines.
#include "frontend/ast_printer.h"

#include <charconv>
#include <cstdio>

namespace tritium {

namespace {

std::string location(const Loc& loc) {
  return "@" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

std::string int_text(unsigned __int128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

// The shortest text that reads back as the same double, always with a '.' or exponent.
std::string float_text(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned char>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Leaves and attribute chains over them print on one line with their parent.
bool is_inline(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::Name:
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Bool:
    case ast::ExprKind::None:
    case ast::ExprKind::Str: return true;
    case ast::ExprKind::Attribute: return e.lhs && is_inline(*e.lhs);
    default: return false;
  }
}

std::string inline_text(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::Name: return "Name(" + e.name + ")";
    case ast::ExprKind::Int: return "Int(" + int_text(e.int_value) + ")";
    case ast::ExprKind::Float: return "Float(" + float_text(e.float_value) + ")";
    case ast::ExprKind::Bool: return e.bool_value ? "Bool(True)" : "Bool(False)";
    case ast::ExprKind::None: return "None";
    case ast::ExprKind::Str: return "Str(" + quoted(e.str_value) + ")";
    case ast::ExprKind::Attribute: return "Attribute(" + inline_text(*e.lhs) + "." + e.name + ")";
    default: return ast::kind_name(e.kind);
  }
}

class Printer {
 public:
  std::string take() { return std::move(out_); }

  void function(int indent, const ast::FunctionDef& fn);
  void stmt(int indent, const ast::Stmt& s);
  // `role` labels the expression's place in its parent ("value", "arg"); a role ending in
  // '=' (a keyword argument) is printed without the separating space.
  void expr(int indent, const std::string& role, const ast::Expr& e);

 private:
  void line(int indent, const std::string& text) {
    out_.append(2 * indent, ' ');
    out_ += text;
    out_ += '\n';
  }
  void optional_expr(int indent, const char* role, const ast::ExprPtr& e) {
    if (e) expr(indent, role, *e);
  }
  void body(int indent, const char* label, const ast::Body& statements) {
    if (statements.empty()) return;
    line(indent, label);
    for (const ast::StmtPtr& s : statements) stmt(indent + 1, *s);
  }

  std::string out_;
};

void Printer::function(int indent, const ast::FunctionDef& fn) {
  line(indent, "FunctionDef " + fn.name + " " + location(fn.loc));
  for (const ast::ExprPtr& decorator : fn.decorators) expr(indent + 1, "decorator", *decorator);
  for (const ast::Param& param : fn.params) {
    std::string text = "Param " + param.name + " " + location(param.loc) + (param.keyword_only ? " keyword-only" : "");
    if (param.annotation && is_inline(*param.annotation)) {
      text += " annotation=" + inline_text(*param.annotation);
    }
    if (param.default_value && is_inline(*param.default_value)) {
      text += " default=" + inline_text(*param.default_value);
    }
    line(indent + 1, text);
    if (param.annotation && !is_inline(*param.annotation)) {
      expr(indent + 2, "annotation", *param.annotation);
    }
    if (param.default_value && !is_inline(*param.default_value)) {
      expr(indent + 2, "default", *param.default_value);
    }
  }
  optional_expr(indent + 1, "returns", fn.returns);
  for (const ast::StmtPtr& s : fn.body) stmt(indent + 1, *s);
}

void Printer::stmt(int indent, const ast::Stmt& s) {
  std::string head = ast::kind_name(s.kind);
  std::string at = " " + location(s.loc);
  switch (s.kind) {
    case ast::StmtKind::FunctionDef: function(indent, *s.function); return;
    case ast::StmtKind::Assign:
      line(indent, head + at);
      for (const ast::ExprPtr& target : s.targets) expr(indent + 1, "target", *target);
      optional_expr(indent + 1, "value", s.value);
      return;
    case ast::StmtKind::AugAssign:
      line(indent, head + " " + ast::spelling(s.binary_op) + "=" + at);
      optional_expr(indent + 1, "target", s.target);
      optional_expr(indent + 1, "value", s.value);
      return;
    case ast::StmtKind::AnnAssign:
      line(indent, head + at);
      optional_expr(indent + 1, "target", s.target);
      optional_expr(indent + 1, "annotation", s.annotation);
      optional_expr(indent + 1, "value", s.value);
      return;
    case ast::StmtKind::If:
    case ast::StmtKind::While:
      line(indent, head + at);
      optional_expr(indent + 1, "cond", s.cond);
      body(indent + 1, "body", s.body);
      body(indent + 1, "orelse", s.orelse);
      return;
    case ast::StmtKind::For:
      line(indent, head + at);
      optional_expr(indent + 1, "target", s.target);
      optional_expr(indent + 1, "iter", s.cond);
      body(indent + 1, "body", s.body);
      body(indent + 1, "orelse", s.orelse);
      return;
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue:
    case ast::StmtKind::Pass: line(indent, head + at); return;
    case ast::StmtKind::Return:
    case ast::StmtKind::ExprStmt:
      line(indent, head + at);
      optional_expr(indent + 1, "value", s.value);
      return;
    case ast::StmtKind::Raise:
      line(indent, head + at);
      optional_expr(indent + 1, "exc", s.value);
      optional_expr(indent + 1, "cause", s.cond);
      return;
    case ast::StmtKind::Assert:
      line(indent, head + at);
      optional_expr(indent + 1, "cond", s.cond);
      optional_expr(indent + 1, "msg", s.value);
      return;
    case ast::StmtKind::Import:
      line(indent, head + " " + s.module + (s.alias.empty() ? "" : " as " + s.alias) + at);
      return;
    case ast::StmtKind::ImportFrom:
      line(indent, head + " " + s.module + " import " + s.name + " as " + s.alias + at);
      return;
  }
}

void Printer::expr(int indent, const std::string& role, const ast::Expr& e) {
  std::string prefix = role.empty() || role.back() == '=' ? role : role + " ";
  std::string at = " " + location(e.loc);
  if (is_inline(e)) {
    line(indent, prefix + inline_text(e) + at);
    return;
  }
  std::string head = prefix + ast::kind_name(e.kind);
  switch (e.kind) {
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List:
      line(indent, head + at);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "item", *item);
      return;
    case ast::ExprKind::Attribute:
      line(indent, head + " ." + e.name + at);
      optional_expr(indent + 1, "value", e.lhs);
      return;
    case ast::ExprKind::Subscript:
      line(indent, head + at);
      optional_expr(indent + 1, "value", e.lhs);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "index", *item);
      return;
    case ast::ExprKind::Slice:
      line(indent, head + at);
      optional_expr(indent + 1, "lower", e.lhs);
      optional_expr(indent + 1, "upper", e.rhs);
      optional_expr(indent + 1, "step", e.third);
      return;
    case ast::ExprKind::Call:
      line(indent, head + at);
      optional_expr(indent + 1, "func", e.lhs);
      for (const ast::ExprPtr& arg : e.items) expr(indent + 1, "arg", *arg);
      for (const ast::Keyword& keyword : e.keywords) {
        expr(indent + 1, "keyword " + keyword.name + "=", *keyword.value);
      }
      return;
    case ast::ExprKind::Unary:
      line(indent, head + " " + ast::spelling(e.unary_op) + at);
      optional_expr(indent + 1, "operand", e.lhs);
      return;
    case ast::ExprKind::Binary:
      line(indent, head + " " + ast::spelling(e.binary_op) + at);
      optional_expr(indent + 1, "lhs", e.lhs);
      optional_expr(indent + 1, "rhs", e.rhs);
      return;
    case ast::ExprKind::BoolOp:
      line(indent, head + " " + ast::spelling(e.bool_op) + at);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "operand", *item);
      return;
    case ast::ExprKind::Compare: {
      std::string ops;
      for (ast::CompareOp op : e.compare_ops)
        ops += (ops.empty() ? "" : ", ") + std::string(ast::spelling(op));
      line(indent, head + " [" + ops + "]" + at);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "operand", *item);
      return;
    }
    case ast::ExprKind::Ternary:
      line(indent, head + at);
      optional_expr(indent + 1, "then", e.lhs);
      optional_expr(indent + 1, "cond", e.rhs);
      optional_expr(indent + 1, "else", e.third);
      return;
    case ast::ExprKind::ListComp:
      line(indent, head + at);
      optional_expr(indent + 1, "elt", e.lhs);
      optional_expr(indent + 1, "target", e.third);
      optional_expr(indent + 1, "iter", e.rhs);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "if", *item);
      return;
    case ast::ExprKind::Starred:
      line(indent, head + at);
      optional_expr(indent + 1, "value", e.lhs);
      return;
    case ast::ExprKind::FString:
      line(indent, head + at);
      for (const ast::ExprPtr& item : e.items) expr(indent + 1, "field", *item);
      return;
    default: line(indent, head + at); return;  // leaves are inline above
  }
}

}  // namespace

std::string dump_ast(const ast::FunctionDef& fn) {
  Printer printer;
  printer.function(0, fn);
  return printer.take();
}

std::string dump_ast(const ast::Module& module) {
  Printer printer;
  std::string out = "Module\n";
  for (const ast::StmtPtr& s : module.statements) printer.stmt(1, *s);
  out += printer.take();
  for (const std::string& name : module.skipped_functions)
    out += "  skipped function " + name + "\n";
  return out;
}

std::string dump_ast(const ast::Expr& expr) {
  Printer printer;
  printer.expr(0, "", expr);
  return printer.take();
}

}  // namespace tritium

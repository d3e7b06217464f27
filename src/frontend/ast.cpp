// Small queries on the AST (ast.h): operator spellings, kind names, jit decorators, and
// function lookup in a Module. The dumper lives in ast_printer.cpp.
#include "frontend/ast.h"

namespace tritium::ast {

const char* spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::LShift: return "<<";
    case BinaryOp::RShift: return ">>";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::MatMul: return "@";
  }
  return "?";
}

const char* spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Pos: return "+";
    case UnaryOp::Invert: return "~";
    case UnaryOp::Not: return "not";
  }
  return "?";
}

const char* spelling(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::NotEq: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::LtE: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::GtE: return ">=";
    case CompareOp::Is: return "is";
    case CompareOp::IsNot: return "is not";
    case CompareOp::In: return "in";
    case CompareOp::NotIn: return "not in";
  }
  return "?";
}

const char* spelling(BoolOp op) { return op == BoolOp::And ? "and" : "or"; }

const char* kind_name(ExprKind kind) {
  switch (kind) {
    case ExprKind::Name: return "Name";
    case ExprKind::Int: return "Int";
    case ExprKind::Float: return "Float";
    case ExprKind::Bool: return "Bool";
    case ExprKind::None: return "None";
    case ExprKind::Str: return "Str";
    case ExprKind::Tuple: return "Tuple";
    case ExprKind::List: return "List";
    case ExprKind::Attribute: return "Attribute";
    case ExprKind::Subscript: return "Subscript";
    case ExprKind::Slice: return "Slice";
    case ExprKind::Call: return "Call";
    case ExprKind::Unary: return "Unary";
    case ExprKind::Binary: return "Binary";
    case ExprKind::BoolOp: return "BoolOp";
    case ExprKind::Compare: return "Compare";
    case ExprKind::Ternary: return "Ternary";
    case ExprKind::ListComp: return "ListComp";
    case ExprKind::Starred: return "Starred";
    case ExprKind::FString: return "FString";
  }
  return "?";
}

const char* kind_name(StmtKind kind) {
  switch (kind) {
    case StmtKind::FunctionDef: return "FunctionDef";
    case StmtKind::Assign: return "Assign";
    case StmtKind::AugAssign: return "AugAssign";
    case StmtKind::AnnAssign: return "AnnAssign";
    case StmtKind::If: return "If";
    case StmtKind::For: return "For";
    case StmtKind::While: return "While";
    case StmtKind::Break: return "Break";
    case StmtKind::Continue: return "Continue";
    case StmtKind::Return: return "Return";
    case StmtKind::Assert: return "Assert";
    case StmtKind::Raise: return "Raise";
    case StmtKind::Pass: return "Pass";
    case StmtKind::ExprStmt: return "ExprStmt";
    case StmtKind::Import: return "Import";
    case StmtKind::ImportFrom: return "ImportFrom";
  }
  return "?";
}

bool is_jit_decorator(const Expr& decorator) {
  const Expr* callee = &decorator;
  if (callee->kind == ExprKind::Call && callee->lhs) callee = callee->lhs.get();
  if (callee->kind != ExprKind::Name && callee->kind != ExprKind::Attribute) return false;
  const std::string& name = callee->name;
  return name.size() >= 3 && name.compare(name.size() - 3, 3, "jit") == 0;
}

bool is_jit(const FunctionDef& fn) {
  for (const ExprPtr& decorator : fn.decorators) {
    if (decorator && is_jit_decorator(*decorator)) return true;
  }
  return false;
}

const FunctionDef* Module::find_function(const std::string& name) const {
  // A later definition rebinds the name, as it does when Python runs the module.
  const FunctionDef* found = nullptr;
  for (const StmtPtr& stmt : statements) {
    if (stmt->kind == StmtKind::FunctionDef && stmt->function && stmt->function->name == name) {
      found = stmt->function.get();
    }
  }
  return found;
}

}  // namespace tritium::ast

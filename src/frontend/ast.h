// The AST of the Python subset that Triton kernels are written in. The parser builds it;
// lowering (src/lower) reads it. Every node carries the Loc of its first token.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/source.h"

namespace tritium::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor, MatMul };
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class CompareOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
enum class BoolOp { And, Or };

// Python spelling of an operator, for messages ("+", "//", "not", "is not", ...).
const char* spelling(BinaryOp op);
const char* spelling(UnaryOp op);
const char* spelling(CompareOp op);
const char* spelling(BoolOp op);

enum class ExprKind {
  Name,       // name
  Int,        // int_value (a Python int; literals beyond 2^64-1 are a parse error)
  Float,      // float_value
  Bool,       // bool_value
  None,
  Str,        // str_value
  Tuple,      // items
  List,       // items
  Attribute,  // lhs.name
  Subscript,  // lhs[items...]  (x[:, None] has two items: a Slice and a None)
  Slice,      // lhs:rhs:third, each optional (null when absent)
  Call,       // lhs(items..., keywords...)
  Unary,      // unary_op lhs
  Binary,     // lhs binary_op rhs
  BoolOp,     // bool_op over items (a and b and c keeps all three, as Python does)
  Compare,    // items[0] compare_ops[0] items[1] compare_ops[1] items[2] ...
  Ternary,    // lhs if rhs else third   (lhs: value if true, rhs: condition, third: value if false)
  ListComp,   // [lhs for third in rhs if items...]  (one `for` clause)
  Starred,    // *lhs, as a call argument
  FString,    // f"..": fstring_parts[0] items[0] fstring_parts[1] items[1] .. (the literal text
              // around each field's expression); fstring_conversions[i]: 'r', 's', 'a' or 0
};

struct Keyword {
  std::string name;
  ExprPtr value;
  Loc loc;
};

struct Expr {
  ExprKind kind;
  Loc loc;

  std::string name;       // Name: the identifier; Attribute: the attribute name
  unsigned __int128 int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string str_value;

  BinaryOp binary_op = BinaryOp::Add;
  UnaryOp unary_op = UnaryOp::Neg;
  BoolOp bool_op = BoolOp::And;
  std::vector<CompareOp> compare_ops;

  ExprPtr lhs, rhs, third;
  std::vector<ExprPtr> items;
  std::vector<Keyword> keywords;

  // FString: the literals around the fields (items), each field's conversion.
  std::vector<std::string> fstring_parts;
  std::string fstring_conversions;

  Expr(ExprKind kind, Loc loc) : kind(kind), loc(loc) {}
};

enum class StmtKind {
  FunctionDef,  // function
  Assign,       // targets (more than one: a = b = e) = value
  AugAssign,    // target binary_op= value
  AnnAssign,    // target: annotation [= value]
  If,           // if cond: body else: orelse (elif is an If alone in orelse)
  For,          // for target in iter: body [else: orelse]
  While,        // while cond: body [else: orelse]
  Break,
  Continue,
  Return,       // value may be null
  Assert,       // assert cond [, msg]
  Raise,        // raise [value [from cond]]: an error if lowering reaches it
  Pass,
  ExprStmt,     // value
  Import,       // import module [as alias]     (one Stmt per imported name)
  ImportFrom,   // from module import name [as alias]  (one Stmt per imported name)
};

struct Param {
  std::string name;
  ExprPtr annotation;  // null when absent
  ExprPtr default_value;  // null when absent
  Loc loc;
  bool keyword_only = false;  // after a bare `*`: bound by name only
};

struct FunctionDef {
  std::string name;
  std::vector<ExprPtr> decorators;  // as written: `triton.jit`, `jit(do_not_specialize=[1])`
  std::vector<Param> params;
  ExprPtr returns;                  // the `-> T` annotation, null when absent
  Body body;
  Loc loc;                          // of the `def` keyword
  // The exact source text of the definition (decorators included) and its first real line:
  // the cache key hashes it (DESIGN: cache) and callees are found by name.
  std::string source_text;
  int first_line = 0;
};

struct Stmt {
  StmtKind kind;
  Loc loc;

  std::vector<ExprPtr> targets;  // Assign
  ExprPtr target;                // AugAssign, AnnAssign, For
  ExprPtr annotation;            // AnnAssign
  ExprPtr value;                 // Assign, AugAssign, AnnAssign, Return, ExprStmt, Assert message
  ExprPtr cond;                  // If, While, Assert; For: the iterable
  BinaryOp binary_op = BinaryOp::Add;  // AugAssign
  Body body, orelse;             // If, For, While
  std::unique_ptr<FunctionDef> function;  // FunctionDef

  std::string module;  // Import / ImportFrom: dotted module name
  std::string name;    // ImportFrom: imported name
  // Import: the name after `as`, or empty: `import a.b` binds `a` to package a, while
  // `import a.b as a` binds `a` to a.b, so no default could tell them apart.
  // ImportFrom: the bound name (the name after `as`, else `name`).
  std::string alias;

  Stmt(StmtKind kind, Loc loc) : kind(kind), loc(loc) {}
};

// A whole source text. Only `def`, `import`, `from ... import` and simple `NAME = expr`
// (or `NAME: annotation = expr`) statements are kept at module level; any other top-level
// statement (classes, calls, code of a test harness) is skipped without being parsed, so a
// kernel can live in an ordinary Python file. A function whose decorators include none ending in `jit` is parsed
// when it can be; when it cannot (it uses Python that kernels may not), it is recorded in
// `skipped_functions` by name only. A jit-decorated function must parse.
struct Module {
  std::shared_ptr<SourceFile> file;
  Body statements;                 // the kept statements, in source order
  std::vector<std::string> skipped_functions;

  // The kept FunctionDef named `name`, or null.
  const FunctionDef* find_function(const std::string& name) const;
};

// The enumerator's name ("Name", "Call", "AugAssign", ...), for dumps and for messages
// such as "unsupported statement: Break".
const char* kind_name(ExprKind kind);
const char* kind_name(StmtKind kind);

// A decorator marks a jit function when the name it calls or is ends in `jit`:
// `triton.jit`, `jit`, `tritium.jit(do_not_specialize=[0])`.
bool is_jit_decorator(const Expr& decorator);
// True when any decorator of `fn` is a jit decorator.
bool is_jit(const FunctionDef& fn);

}  // namespace tritium::ast

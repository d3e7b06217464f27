// Returns: the body of a function lowered with Triton's checks first (check_like_triton),
// and the type rule its returns follow there. The continuation that lowers a return inside
// a runtime `if` is in lower_stmt.cpp (lower_stmts, lower_if).
#include <memory>
#include <string>

#include "lower/aggregate.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

const ast::Stmt* find_return(const ast::Body& body) {
  for (const auto& stmt : body) {
    if (stmt->kind == ast::StmtKind::Return) return stmt.get();
    if (stmt->kind == ast::StmtKind::If || stmt->kind == ast::StmtKind::For || stmt->kind == ast::StmtKind::While) {
      if (const ast::Stmt* r = find_return(stmt->body)) return r;
      if (const ast::Stmt* r = find_return(stmt->orelse)) return r;
    }
  }
  return nullptr;
}

namespace {

// A `return` inside a branch (at any depth), or inside a loop: what makes Triton lower the
// function with jumps.
bool has_nested_return(const ast::Body& body) {
  for (const auto& stmt : body) {
    if (stmt->kind == ast::StmtKind::If || stmt->kind == ast::StmtKind::For || stmt->kind == ast::StmtKind::While) {
      if (find_return(stmt->body) || find_return(stmt->orelse)) return true;
    }
  }
  return false;
}

}  // namespace

LValue Lowerer::lower_function_body(const ast::Body& body) {
  if (checking_) {
    lower_stmts(body, 0, Continuation{});
    return context_->has_checked_return ? context_->checked_return : LValue::constant(ConstValue::none());
  }
  if (has_nested_return(body)) check_like_triton(body);
  Continuation cont;
  cont.at_function_end = true;
  lower_stmts(body, 0, cont);
  return scope_.count(kReturnSlot) ? scope_[kReturnSlot] : LValue::constant(ConstValue::none());
}

void Lowerer::check_like_triton(const ast::Body& body) {
  // The IR goes into a region of an op that belongs to no function; destroying the op drops
  // the uses its ops made of the function's values. Everything else is restored.
  auto holder = std::make_unique<ir::Op>(ir::OpKind::If, Loc{});
  ir::Region* region = holder->add_region();
  struct Restore {
    Lowerer& L;
    Scope scope;
    ir::Region* region;
    ~Restore() {
      L.scope_ = std::move(scope);
      L.builder_.set_region(region);
      L.checking_ = false;
      L.context_->has_checked_return = false;
      L.context_->checked_return = LValue();
    }
  } restore{*this, scope_, builder_.region()};
  checking_ = true;
  builder_.set_region(region);
  lower_stmts(body, 0, Continuation{});
}

namespace {

// What Triton 3.6 compares when a function returns twice: the type of the returned value,
// a number being the tensor of its literal type (its `return` makes one of it).
std::string return_type_key(Lowerer& L, const LValue& v, const Loc& loc) {
  if (v.is_const()) {
    switch (v.c.kind) {
      case ConstValue::Kind::Int:
      case ConstValue::Kind::Float:
      case ConstValue::Kind::Bool: return ir::Type::scalar(L.literal_type(v.c, loc))->str();
      case ConstValue::Kind::None: return "None";
      case ConstValue::Kind::Str: return "a string";
      case ConstValue::Kind::DType: return "a dtype";
      case ConstValue::Kind::Object: return "a " + v.c.object_type();
    }
  }
  if (v.kind == LValue::Kind::Tuple) {
    std::string out = "(";
    for (size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + return_type_key(L, v.items[i], loc);
    return out + (v.items.size() == 1 ? ",)" : ")");
  }
  return type_string(v);
}

}  // namespace

void Lowerer::check_return(const LValue& value, const Loc& loc) {
  if (!context_->has_checked_return) {
    context_->has_checked_return = true;
    context_->checked_return = value;
    return;
  }
  std::string first = return_type_key(*this, context_->checked_return, loc);
  std::string now = return_type_key(*this, value, loc);
  if (first != now) {
    error_at(loc, "inconsistent return types: " + first + " and " + now +
                      " (every return of a @jit function must give the same type, also one after a "
                      "compile-time if that returns)");
  }
}

}  // namespace tritium::lower

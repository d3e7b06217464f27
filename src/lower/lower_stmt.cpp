// Lowering of statements: scopes and assignment (DESIGN law 2), static and dynamic `if`
// with branch merges, `for`/`while` with loop-carried values, `return` by continuation, and
// the inlining of @jit callees.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>

#include "lower/builtin_registry.h"
#include "lower/aggregate.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::Type;
using ir::Value;

namespace {

// Names a statement list may (re)bind, including inside nested control flow.
// Whether a `for` iterates over tl.static_range (spelled `tl.static_range`, `static_range`,
// `triton.language.static_range`): its target is rebound per unrolled copy, not assigned.
bool iterates_static_range(const ast::Stmt& stmt) {
  const ast::Expr* iter = stmt.cond.get();
  if (iter == nullptr || iter->kind != ast::ExprKind::Call || !iter->lhs) return false;
  const ast::Expr& callee = *iter->lhs;
  return (callee.kind == ast::ExprKind::Attribute || callee.kind == ast::ExprKind::Name) &&
         callee.name == "static_range";
}

// The names a body assigns. With `skip_static_targets`, the target of a `for` over
// tl.static_range is not counted (Triton binds it without recording a definition, so a
// dynamic loop around it does not carry it).
void collect_assigned(const ast::Body& body, std::set<std::string>* names, bool skip_static_targets = false) {
  std::function<void(const ast::Expr&)> targets = [&](const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Name) names->insert(e.name);
    if (e.kind == ast::ExprKind::Tuple || e.kind == ast::ExprKind::List) {
      for (const auto& item : e.items) targets(*item);
    }
  };
  for (const auto& stmt : body) {
    switch (stmt->kind) {
      case ast::StmtKind::Assign:
        for (const auto& t : stmt->targets) targets(*t);
        break;
      case ast::StmtKind::AugAssign:
      case ast::StmtKind::AnnAssign:
        targets(*stmt->target);
        break;
      case ast::StmtKind::For:
        if (!skip_static_targets || !iterates_static_range(*stmt)) targets(*stmt->target);
        collect_assigned(stmt->body, names, skip_static_targets);
        collect_assigned(stmt->orelse, names, skip_static_targets);
        break;
      case ast::StmtKind::If:
      case ast::StmtKind::While:
        collect_assigned(stmt->body, names, skip_static_targets);
        collect_assigned(stmt->orelse, names, skip_static_targets);
        break;
      default: break;
    }
  }
}

const ast::Body kNoStatements;


std::string normalize_module(const std::string& name) {
  if (name == "tritium") return "triton";
  if (name.rfind("tritium.", 0) == 0) return "triton." + name.substr(8);
  return name;
}

bool is_number(const LValue& v) {
  return v.is_const() && (v.c.kind == ConstValue::Kind::Int || v.c.kind == ConstValue::Kind::Float ||
                          v.c.kind == ConstValue::Kind::Bool);
}

bool same_value(const LValue& a, const LValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case LValue::Kind::Const: return a.c.kind == b.c.kind && a.c == b.c;
    case LValue::Kind::Tensor: return a.value == b.value;
    case LValue::Kind::Module:
    case LValue::Kind::Builtin: return a.name == b.name && a.items.size() == b.items.size();
    case LValue::Kind::Function: return a.function && b.function && a.function->def == b.function->def;
    case LValue::Kind::Tuple:
    case LValue::Kind::Aggregate:
      if (a.name != b.name || a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (!same_value(a.items[i], b.items[i])) return false;
      }
      return true;
  }
  return false;
}

LValue binding_value(const GlobalBinding& binding) {
  switch (binding.kind) {
    case GlobalBinding::Kind::Module: return LValue::module(normalize_module(binding.module));
    case GlobalBinding::Kind::Constant: return LValue::constant(binding.value);
    case GlobalBinding::Kind::Function: {
      auto ref = std::make_shared<FunctionRef>();
      ref->module = binding.module_ast;
      ref->def = binding.module_ast ? binding.module_ast->find_function(binding.function) : nullptr;
      ref->globals = binding.function_globals;
      ref->must_use_result = binding.must_use_result;
      LValue v;
      v.kind = LValue::Kind::Function;
      v.function = std::move(ref);
      return v;
    }
    case GlobalBinding::Kind::HostFunction: {
      LValue v = LValue::builtin("host." + binding.function);
      v.host = binding.host;
      v.host_builtin = binding.host_builtin;
      return v;
    }
    case GlobalBinding::Kind::TupleType: {
      LValue v = LValue::builtin("namedtuple." + binding.function);
      v.fields = std::make_shared<const std::vector<std::string>>(binding.fields);
      for (const ConstValue& d : binding.field_defaults) v.items.push_back(LValue::constant(d));
      return v;
    }
  }
  return LValue::constant(ConstValue::none());
}

const char* kPythonBuiltins[] = {"range", "min", "max", "len", "int", "float", "bool", "abs", "print", "isinstance",
                                 "getattr"};

}  // namespace

Lowerer::Lowerer(ir::Function& function, const Globals& kernel_globals)
    : function_(function), scratch_("$scratch", Loc{}), builder_(&function.body()),
      kernel_globals_(kernel_globals) {}

// ---- names ----

LValue binding_to_value(const GlobalBinding& binding) { return binding_value(binding); }

LValue function_value(const ParamSig& sig, const Loc& loc) {
  if (!sig.function) error_at(loc, "internal: the function argument " + sig.function_key + " has no binding");
  LValue value = binding_value(*sig.function);
  if (value.kind == LValue::Kind::Function && (!value.function || !value.function->def)) {
    error_at(loc, "the function argument " + sig.function_key + " has no definition in its source");
  }
  return value;
}

void name_tuple(LValue& tuple, const std::string& type, const std::vector<std::string>& fields) {
  if (fields.empty() || fields.size() != tuple.items.size()) {
    tuple.fields.reset();
    return;
  }
  tuple.name = type;
  tuple.fields = std::make_shared<const std::vector<std::string>>(fields);
}

LValue Lowerer::lookup(const std::string& name, const Loc& loc) {
  auto local = scope_.find(name);
  if (local != scope_.end()) return local->second;
  if (context_->globals) {
    auto it = context_->globals->find(name);
    if (it != context_->globals->end()) {
      LValue value = binding_value(it->second);
      // `from triton.language.extra.libdevice import tanh`: Python names the function as
      // "<module>.<name>"; it is that module's attribute.
      size_t dot = value.kind == LValue::Kind::Module ? value.name.rfind('.') : std::string::npos;
      LValue attribute;
      if (dot != std::string::npos && value.name.rfind("triton.", 0) == 0 &&
          module_attribute(value.name.substr(0, dot), value.name.substr(dot + 1), &attribute)) {
        return attribute;
      }
      return value;
    }
  }
  if (context_->module_scope) {
    auto it = context_->module_scope->find(name);
    if (it != context_->module_scope->end()) return it->second;
  }
  for (const char* builtin : kPythonBuiltins) {
    if (name == builtin) return LValue::builtin(std::string("py.") + builtin);
  }
  error_at(loc, "undefined name '" + name + "'");
}

void Lowerer::bind(const std::string& name, LValue value) { scope_[name] = std::move(value); }

bool Lowerer::eval_module_constant(const ast::Expr& expr, LValue* out) {
  ir::Region* saved = builder_.region();
  builder_.set_region(&scratch_.body());
  bool ok = true;
  try {
    *out = eval(expr);
    ok = out->kind != LValue::Kind::Tensor;
  } catch (const CompileError&) {
    ok = false;
  }
  builder_.set_region(saved);
  return ok;
}

const Scope& Lowerer::module_scope(const std::shared_ptr<const ast::Module>& module,
                                   const std::shared_ptr<const Globals>& globals) {
  auto found = module_scopes_.find(module.get());
  if (found != module_scopes_.end()) return *found->second;
  auto scope = std::make_unique<Scope>();
  Scope* result = scope.get();
  module_scopes_[module.get()] = std::move(scope);
  // Evaluate assignments in a context that sees the bindings made so far.
  FunctionContext context;
  context.module = module;
  context.globals = globals;
  context.module_scope = result;
  FunctionContext* saved_context = context_;
  Scope saved_scope;
  std::swap(saved_scope, scope_);
  context_ = &context;
  for (const auto& stmt : module->statements) {
    switch (stmt->kind) {
      case ast::StmtKind::Import: {
        if (!stmt->alias.empty()) {
          (*result)[stmt->alias] = LValue::module(normalize_module(stmt->module));
        } else {
          std::string top = stmt->module.substr(0, stmt->module.find('.'));
          (*result)[top] = LValue::module(normalize_module(top));
        }
        break;
      }
      case ast::StmtKind::ImportFrom: {
        std::string bound = stmt->alias.empty() ? stmt->name : stmt->alias;
        LValue value;
        if (module_attribute(normalize_module(stmt->module), stmt->name, &value)) {
          (*result)[bound] = value;
        } else {
          (*result)[bound] = LValue::module(normalize_module(stmt->module + "." + stmt->name));
        }
        break;
      }
      case ast::StmtKind::FunctionDef: {
        auto ref = std::make_shared<FunctionRef>();
        ref->module = module;
        ref->def = stmt->function.get();
        ref->globals = globals;
        ref->jit = ast::is_jit(*stmt->function);
        LValue v;
        v.kind = LValue::Kind::Function;
        v.function = std::move(ref);
        (*result)[stmt->function->name] = v;
        break;
      }
      case ast::StmtKind::Assign:
      case ast::StmtKind::AnnAssign: {
        const ast::Expr* target = stmt->kind == ast::StmtKind::Assign
                                      ? (stmt->targets.size() == 1 ? stmt->targets[0].get() : nullptr)
                                      : stmt->target.get();
        if (!target || target->kind != ast::ExprKind::Name || !stmt->value) break;
        LValue value;
        if (eval_module_constant(*stmt->value, &value)) {
          (*result)[target->name] = value;
        } else {
          result->erase(target->name);
        }
        break;
      }
      default: break;
    }
  }
  context_ = saved_context;
  std::swap(saved_scope, scope_);
  return *result;
}

// ---- statements ----

void Lowerer::lower_stmts(const ast::Body& body, size_t first, Continuation cont) {
  for (size_t i = first; i < body.size(); ++i) {
    if (lower_stmt(*body[i], body, i, cont)) {
      // A return ends every enclosing branch on this path.
      if (body[i]->kind == ast::StmtKind::Return) {
        for (BranchEnd* end : cont.branch_ends) end->scopes.push_back(scope_);
      }
      return;
    }
  }
  for (auto it = cont.branch_ends.begin(); it != cont.branch_ends.end();) {
    if ((*it)->depth != cont.pending.size()) {
      ++it;
      continue;
    }
    (*it)->scopes.push_back(scope_);  // this branch's own statements end here
    it = cont.branch_ends.erase(it);
  }
  if (!cont.pending.empty()) {
    Pending next = cont.pending.front();
    cont.pending.erase(cont.pending.begin());
    if (next.loop != nullptr) {
      lower_static_iterations(next, std::move(cont));
    } else {
      lower_stmts(*next.body, next.index, std::move(cont));
    }
    return;
  }
  if (cont.at_function_end && !scope_.count(kReturnSlot)) {
    bind(kReturnSlot, fell_off_end());
  }
}

bool Lowerer::lower_stmt(const ast::Stmt& stmt, const ast::Body& body, size_t index,
                         const Continuation& cont) {
  const Loc& loc = stmt.loc;
  switch (stmt.kind) {
    case ast::StmtKind::Assign: {
      if (stmt.targets.size() != 1) error_at(loc, "simultaneous multiple assignment (a = b = ...) is not supported in kernels");
      LValue value = eval(*stmt.value);
      lower_assign(*stmt.targets[0], std::move(value), loc);
      return false;
    }
    case ast::StmtKind::AugAssign: {
      if (stmt.target->kind != ast::ExprKind::Name) error_at(stmt.target->loc, "augmented assignment needs a plain name as its target");
      LValue current = lookup(stmt.target->name, stmt.target->loc);
      LValue rhs = eval(*stmt.value);
      lower_assign(*stmt.target, binary(stmt.binary_op, current, rhs, loc), loc);
      return false;
    }
    case ast::StmtKind::AnnAssign: {
      bool is_constexpr = false;
      const ast::Expr& ann = *stmt.annotation;
      if ((ann.kind == ast::ExprKind::Name || ann.kind == ast::ExprKind::Attribute) && ann.name == "constexpr") is_constexpr = true;
      if (!stmt.value) return false;
      LValue value = eval(*stmt.value);
      if (!is_constexpr) {
        lower_assign(*stmt.target, std::move(value), loc);
        return false;
      }
      if (stmt.target->kind != ast::ExprKind::Name) error_at(stmt.target->loc, "a constexpr assignment needs a plain name");
      if (scope_.count(stmt.target->name)) {
        error_at(stmt.target->loc, "constexpr '" + stmt.target->name + "' cannot be reassigned");
      }
      if (value.is_tensor()) {
        // Triton wraps whatever the value is in a constexpr, and a constexpr around a run-time
        // value computes as that value (FlagGems' radix sort: `CTA_TILE_N: tl.constexpr =
        // TILE_N * tiles_n_per_cta` with an int argument): the name holds the value, as a
        // plain assignment would, but cannot be reassigned.
        lower_assign(*stmt.target, std::move(value), loc);
        return false;
      }
      bind(stmt.target->name, std::move(value));
      return false;
    }
    case ast::StmtKind::If: return lower_if(stmt, body, index, cont);
    case ast::StmtKind::For:
      if (!stmt.orelse.empty()) error_at(loc, "for ... else is not supported in kernels");
      return lower_for(stmt, body, index, cont);
    case ast::StmtKind::While:
      if (!stmt.orelse.empty()) error_at(loc, "while ... else is not supported in kernels");
      lower_while(stmt);
      return false;
    case ast::StmtKind::Break:
      error_at(loc, "`break` is not supported in kernels (Triton rejects it too); put the exit test in a `while` condition");
    case ast::StmtKind::Continue:
      error_at(loc, "`continue` is not supported in kernels (Triton rejects it too); guard the rest of the body with an `if`");
    case ast::StmtKind::Return: {
      if (context_->loop_depth > 0) error_at(loc, "cannot have return statements inside while or for loops in kernels");
      LValue value = stmt.value ? eval(*stmt.value) : LValue::constant(ConstValue::none());
      if (checking_) {
        check_return(value, loc);
      } else {
        bind(kReturnSlot, std::move(value));
      }
      return true;
    }
    case ast::StmtKind::Assert: {
      // Triton compiles `assert` only with debug=True; without it the statement is dropped.
      if (!debug) return false;
      std::string msg;
      if (stmt.value) {
        LValue text = eval(*stmt.value);
        msg = text.is_const() && text.c.kind == ConstValue::Kind::Str ? text.c.s : text.describe();
      }
      lower_device_assert(*this, eval(*stmt.cond), nullptr, msg, loc);
      return false;
    }
    case ast::StmtKind::Raise:
      // Reached: the branch holding it is compiled. A raise can only sit where a
      // compile-time condition skips it (`else: raise ValueError(...)` after constexpr tests).
      error_at(loc, "unsupported syntax: raise statements are not supported in kernels (a raise is "
                    "allowed only in a branch that a compile-time condition skips)");
    case ast::StmtKind::Pass: return false;
    case ast::StmtKind::ExprStmt:
      check_result_used(*stmt.value);
      eval(*stmt.value);
      return false;
    case ast::StmtKind::Import:
    case ast::StmtKind::ImportFrom: error_at(loc, "import statements are not allowed inside a kernel");
    case ast::StmtKind::FunctionDef: error_at(loc, "nested function definition is not supported");
  }
  return false;
}

void Lowerer::lower_assign(const ast::Expr& target, LValue value, const Loc& loc) {
  if (target.kind == ast::ExprKind::Name) {
    // Triton turns a number assigned to a name into a runtime value (`c = 2.0` is an fp32
    // tensor); only `c: tl.constexpr = 2.0` keeps it a compile-time constant.
    if (value.is_const() && (value.c.kind == ConstValue::Kind::Int || value.c.kind == ConstValue::Kind::Float ||
                             value.c.kind == ConstValue::Kind::Bool)) {
      value = LValue::tensor(to_tensor(value, loc));
    }
    bind(target.name, std::move(value));
    return;
  }
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) {
    if (value.kind != LValue::Kind::Tuple) error_at(loc, "cannot unpack " + value.describe() + " into several names");
    if (value.items.size() != target.items.size()) {
      error_at(loc, "cannot unpack " + std::to_string(value.items.size()) + " values into " +
                        std::to_string(target.items.size()) + " names");
    }
    for (size_t i = 0; i < target.items.size(); ++i) lower_assign(*target.items[i], value.items[i], loc);
    return;
  }
  if (target.kind == ast::ExprKind::Subscript) {
    error_at(target.loc, "item assignment (x[...] = v) is not supported in kernels; use tl.store");
  }
  error_at(target.loc, "this assignment target is not supported in kernels");
}

bool Lowerer::lower_if(const ast::Stmt& stmt, const ast::Body& body, size_t index, const Continuation& cont) {
  const Loc& loc = stmt.loc;
  LValue cond = eval(*stmt.cond);
  bool has_return = find_return(stmt.body) || find_return(stmt.orelse);
  if (has_return && cond.is_tensor() && context_->loop_depth > 0) {
    const ast::Stmt* r = find_return(stmt.body);
    if (!r) r = find_return(stmt.orelse);
    error_at(r->loc, "cannot have return statements inside while or for loops in kernels");
  }
  // Triton's order: a return ends its own statement list only; the statements after this
  // `if` follow, and its branches merge as any other's.
  if (checking_) has_return = false;
  Continuation branch_cont;
  BranchEnd then_end, else_end;
  if (has_return) {
    branch_cont = cont;
    branch_cont.pending.insert(branch_cont.pending.begin(), {&body, index + 1});
    then_end.depth = else_end.depth = branch_cont.pending.size();
  }
  if (!cond.is_tensor()) {
    // A compile-time condition lowers only the branch taken (the other may not even type-check).
    lower_stmts(const_truth(cond, stmt.cond->loc) ? stmt.body : stmt.orelse, 0, branch_cont);
    return has_return;
  }
  Value* c = to_bool_scalar(cond, stmt.cond->loc, "the if");
  ir::Op* op = builder_.create(ir::OpKind::If, {}, {c}, loc);
  ir::Region* then_region = op->add_region();
  ir::Region* else_region = op->add_region();
  ir::Region* outer = builder_.region();
  Scope before = scope_;

  builder_.set_region(then_region);
  if (has_return) branch_cont.branch_ends.push_back(&then_end);
  lower_stmts(stmt.body, 0, branch_cont);
  Scope then_scope = std::move(scope_);

  scope_ = before;
  builder_.set_region(else_region);
  if (has_return) branch_cont.branch_ends.back() = &else_end;  // replaces then_end
  lower_stmts(stmt.orelse, 0, branch_cont);
  Scope else_scope = std::move(scope_);

  builder_.set_region(outer);
  scope_ = before;
  if (has_return) {
    // The branches' scopes hold the continuation too: check what each branch itself left.
    check_if_types(before, then_end.scopes, else_end.scopes, loc);
  } else {
    check_if_types(before, {then_scope}, {else_scope}, loc);
  }
  if (has_return) {
    // The rest of the function was lowered inside both branches (the continuation), so
    // nothing after this if reads a variable: only the return value merges (the branches'
    // own types were checked above).
    for (auto it = else_scope.begin(); it != else_scope.end();) {
      it = it->first == kReturnSlot ? std::next(it) : else_scope.erase(it);
    }
  }
  merge_branches(op, before, std::move(then_scope), std::move(else_scope), loc);
  return has_return;
}

namespace {

// True when `a` and `b` have the same runtime types: tensors of one type, compounds of the same
// kind and length with such leaves. Compile-time leaves are not compared (merge_into words
// their difference).
bool same_runtime_types(const LValue& a, const LValue& b) {
  if (a.is_tensor() || b.is_tensor()) return a.is_tensor() && b.is_tensor() && a.value->type() == b.value->type();
  if (is_compound(a) || is_compound(b)) {
    if (a.kind != b.kind || a.name != b.name || a.items.size() != b.items.size()) return false;
    for (size_t i = 0; i < a.items.size(); ++i) {
      if (!same_runtime_types(a.items[i], b.items[i])) return false;
    }
  }
  return true;
}

}  // namespace

void Lowerer::check_if_types(const Scope& before, const std::vector<Scope>& then_ends,
                             const std::vector<Scope>& else_ends, const Loc& loc) {
  // Triton 3.6 (code_generator.py, visit_then_else_blocks): every runtime value live into the
  // `if` that the branches leave different must have its old type at the end of the then
  // block and of the else block (an absent else keeps the old value). Compile-time values
  // and leaves are not checked here (merge_into says what tritium does with them).
  auto value_in = [](const Scope& scope, const std::string& name) -> const LValue* {
    auto it = scope.find(name);
    return it == scope.end() ? nullptr : &it->second;
  };
  for (const auto& [name, prior] : before) {
    if (name == kReturnSlot || !(prior.is_tensor() || is_compound(prior))) continue;
    if (then_ends.size() == 1 && else_ends.size() == 1) {
      const LValue* a = value_in(then_ends[0], name);
      const LValue* b = value_in(else_ends[0], name);
      if (a && b && same_value(*a, *b)) continue;  // both branches leave the same value
    }
    for (const char* branch : {"then", "else"}) {
      for (const Scope& end : branch[0] == 't' ? then_ends : else_ends) {
        const LValue* now = value_in(end, name);
        if (now == nullptr || same_runtime_types(prior, *now)) continue;
        error_at(loc, "initial value for '" + name + "' is of type " + type_string(prior) + ", but the " + branch +
                          " block redefines it as " + type_string(*now) + "; a variable must keep its type across a dynamic if");
      }
    }
  }
}

void Lowerer::merge_into(LValue& dest, const std::string& name, const LValue* before, const LValue& a, const LValue& b,
                         std::vector<Value*>* then_yields, std::vector<Value*>* else_yields,
                         std::vector<std::pair<LValue*, size_t>>* fixups, const Loc& loc) {
  if (same_value(a, b)) return;
  if (name == kReturnSlot && merging_if_ != nullptr && is_fell_off_end(a) != is_fell_off_end(b)) {
    // One branch returns a number or a (non-pointer) tensor, the other reaches the end of the
    // function: that path returns a zero of the same type (Triton's poison: any value will
    // do, and nothing may rely on it).
    const bool then_returns = is_fell_off_end(b);
    const LValue& returned = then_returns ? a : b;
    if ((returned.is_tensor() && !returned.value->type()->is_ptr()) || is_number(returned)) {
      ir::Region* saved = builder_.region();
      builder_.set_region(merging_if_->region(then_returns ? 0 : 1));
      LValue value = returned.is_tensor() ? returned : LValue::tensor(to_tensor(returned, loc));
      builder_.set_region(merging_if_->region(then_returns ? 1 : 0));
      const ir::Type* type = value.value->type();
      ir::Value* zero = constant(type->element()->scalar_kind(), ConstValue::integer(0), loc);
      if (type->is_block()) zero = broadcast_to(zero, type->shape(), loc);
      builder_.set_region(saved);
      LValue stand_in = LValue::tensor(zero);
      dest = value;
      merge_into(dest, name, before, then_returns ? value : stand_in, then_returns ? stand_in : value, then_yields,
                 else_yields, fixups, loc);
      return;
    }
  }
  if (name == kReturnSlot && merging_if_ != nullptr && (is_number(a) || is_number(b)) &&
      (a.is_tensor() || is_number(a)) && (b.is_tensor() || is_number(b))) {
    // Returns that differ at compile time become runtime values (Triton: a constexpr is
    // returned as such only when every path returns the same one), each made in its branch.
    auto materialize = [&](const LValue& v, int region) {
      if (v.is_tensor()) return v;
      ir::Region* saved = builder_.region();
      builder_.set_region(merging_if_->region(region));
      LValue t = LValue::tensor(to_tensor(v, loc));
      builder_.set_region(saved);
      return t;
    };
    LValue ta = materialize(a, 0), tb = materialize(b, 1);
    dest = ta;
    merge_into(dest, name, before, ta, tb, then_yields, else_yields, fixups, loc);
    return;
  }
  if (a.is_tensor() && b.is_tensor()) {
    if (a.value->type() != b.value->type()) {
      if (name == kReturnSlot) {
        error_at(loc, "inconsistent return types: " + a.value->type()->str() + " and " + b.value->type()->str());
      }
      if (before && before->is_tensor()) {
        const ir::Type* initial = before->value->type();
        bool then_differs = a.value->type() != initial;
        error_at(loc, "initial value for '" + name + "' is of type " + initial->str() + ", but the " +
                          (then_differs ? "then" : "else") + " block redefines it as " +
                          (then_differs ? a.value->type() : b.value->type())->str() +
                          "; a variable must keep its type across a dynamic if");
      }
      error_at(loc, "mismatched type for '" + name + "' between the then block (" + a.value->type()->str() +
                        ") and the else block (" + b.value->type()->str() + ")");
    }
    if (is_const_pointer(a.value) != is_const_pointer(b.value)) {
      // Same IR type, but one points to constant data (tl.const): Triton's types differ.
      auto kind = [&](const Value* v) {
        return std::string(is_const_pointer(v) ? "const " : "") + v->type()->str();
      };
      if (name == kReturnSlot) error_at(loc, "Inconsistent return types: " + kind(a.value) + " and " + kind(b.value));
      error_at(loc, "Mismatched type for " + name + " between then block (" + kind(a.value) + ") and else block (" +
                        kind(b.value) + ")");
    }
    then_yields->push_back(a.value);
    else_yields->push_back(b.value);
    fixups->emplace_back(&dest, then_yields->size() - 1);
    return;
  }
  if (is_compound(a) && b.kind == a.kind && a.name == b.name && a.items.size() == b.items.size()) {
    // Tuples and aggregates merge leaf by leaf: only tensor leaves that differ become results.
    for (size_t i = 0; i < a.items.size(); ++i) {
      merge_into(dest.items[i], name, before && before->kind == a.kind && i < before->items.size() ? &before->items[i] : nullptr,
                 a.items[i], b.items[i], then_yields, else_yields, fixups, loc);
    }
    return;
  }
  if (name == kReturnSlot) {
    error_at(loc, "inconsistent return types: " + a.describe() + " and " + b.describe());
  }
  error_at(loc, "'" + name + "' is " + a.describe() + " in one branch of this dynamic if and " + b.describe() +
                    " in the other; a value known at compile time cannot differ between runtime branches");
}

void Lowerer::merge_branches(ir::Op* if_op, const Scope& before, Scope then_scope, Scope else_scope, const Loc& loc) {
  std::vector<Value*> then_yields, else_yields;
  std::vector<std::pair<LValue*, size_t>> fixups;
  merging_if_ = if_op;
  // std::map iterates names in sorted order, so the results are numbered deterministically.
  for (auto& [name, then_value] : then_scope) {
    auto other = else_scope.find(name);
    if (other == else_scope.end()) continue;  // defined in one branch only: not visible after
    auto prior = before.find(name);
    LValue& dest = scope_[name];
    dest = then_value;
    merge_into(dest, name, prior == before.end() ? nullptr : &prior->second, then_value, other->second,
               &then_yields, &else_yields, &fixups, loc);
  }
  merging_if_ = nullptr;
  for (size_t i = 0; i < then_yields.size(); ++i) {
    Value* r = if_op->add_result(then_yields[i]->type());
    if (is_const_pointer(then_yields[i]) && is_const_pointer(else_yields[i])) mark_const_pointer(r);
  }
  for (auto& [dest, index] : fixups) *dest = LValue::tensor(if_op->result(static_cast<int>(index)));
  builder_.set_region(if_op->region(0));
  builder_.create(ir::OpKind::Yield, {}, then_yields, loc);
  builder_.set_region(if_op->region(1));
  builder_.create(ir::OpKind::Yield, {}, else_yields, loc);
  builder_.set_region(if_op->parent());
}

void Lowerer::collect_carried(const ast::Body& body, const std::string& loop_variable, const Loc& loc,
                              std::vector<std::string>* carried, std::vector<LValue>* inits) {
  // Names bound before the loop and assigned in its body are carried from one iteration to
  // the next (the loop variable itself is not: each iteration binds it anew). Tuples and
  // aggregates (block pointers) are carried as their tensor leaves (aggregate.h).
  (void)loc;
  std::set<std::string> assigned, assigned_not_static;
  collect_assigned(body, &assigned);
  collect_assigned(body, &assigned_not_static, /*skip_static_targets=*/true);
  for (const std::string& name : assigned) {
    auto it = scope_.find(name);
    if (it == scope_.end() || name == loop_variable) continue;
    // A compile-time value rebound only as a tl.static_range variable inside the loop is
    // not carried, as in Triton (triton_kernels' `for i in tl.static_range(K)` inside a
    // tl.range loop after an earlier static loop over i): after the loop it has its value
    // from before the loop.
    if (!it->second.is_tensor() && !is_compound(it->second) && !assigned_not_static.count(name)) continue;
    carried->push_back(name);
    inits->push_back(it->second);
  }
}

void Lowerer::yield_carried(const std::vector<std::string>& carried, const std::vector<LValue>& inits,
                            const Loc& loc) {
  std::vector<Value*> yields;
  for (size_t i = 0; i < carried.size(); ++i) {
    LValue now = scope_[carried[i]];
    const LValue& init = inits[i];
    if (init.is_tensor() && (!now.is_tensor() || now.value->type() != init.value->type())) {
      error_at(loc, "loop-carried variable '" + carried[i] + "' has initial type " + init.value->type()->str() +
                        " but is reassigned to " + (now.is_tensor() ? now.value->type()->str() : now.describe()) +
                        " in the loop; its type must stay the same");
    }
    std::string difference = structure_difference(init, now);
    if (!difference.empty()) {
      error_at(loc, "loop-carried variable '" + carried[i] + "' " + difference);
    }
    flatten_leaves(now, &yields);
  }
  builder_.create(ir::OpKind::Yield, {}, yields, loc);
}

namespace {

// Binds the carried names to `leaves` (region arguments or loop results) in their shapes.
void bind_carried(Lowerer& lowerer, const std::vector<std::string>& carried, const std::vector<LValue>& inits,
                  const std::vector<Value*>& leaves) {
  size_t cursor = 0;
  for (size_t i = 0; i < carried.size(); ++i) lowerer.bind(carried[i], rebuild_leaves(inits[i], leaves, &cursor));
}

std::vector<Value*> add_args(ir::Region* region, const std::vector<Value*>& inits) {
  std::vector<Value*> args;
  for (Value* v : inits) args.push_back(region->add_arg(v->type()));
  return args;
}

// After the loop: kept leaves are its results, the others (never changed) their inits.
std::vector<Value*> loop_results(ir::Op* loop, const std::vector<Value*>& inits, const std::vector<bool>& kept) {
  std::vector<Value*> out;
  for (size_t i = 0; i < inits.size(); ++i) out.push_back(kept[i] ? loop->add_result(inits[i]->type()) : inits[i]);
  return out;
}

}  // namespace

bool Lowerer::lower_for(const ast::Stmt& stmt, const ast::Body& body, size_t index, const Continuation& cont) {
  const Loc& loc = stmt.loc;
  const ast::Expr& iter = *stmt.cond;
  if (iter.kind != ast::ExprKind::Call) {
    error_at(iter.loc, "only range, tl.range and tl.static_range can be iterated over in kernels");
  }
  LValue callee = eval(*iter.lhs);
  bool is_static = callee.kind == LValue::Kind::Builtin && callee.name == "tl.static_range";
  bool is_range = callee.kind == LValue::Kind::Builtin && (callee.name == "py.range" || callee.name == "tl.range");
  if (!is_static && !is_range) {
    error_at(iter.loc, "only range, tl.range and tl.static_range can be iterated over in kernels");
  }
  std::vector<LValue> args;
  for (const auto& a : iter.items) args.push_back(eval(*a));
  // tl.range and tl.static_range name their bounds (arg1, arg2, step), as Triton's do;
  // Python's range takes positional bounds only.
  bool tl_form = callee.name != "py.range";
  LValue named[3];
  bool has_named[3] = {false, false, false};
  for (const auto& kw : iter.keywords) {
    static const std::set<std::string> known = {"num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                                                "flatten", "warp_specialize", "disable_licm"};
    int slot = kw.name == "arg1" ? 0 : kw.name == "arg2" ? 1 : kw.name == "step" ? 2 : -1;
    if (slot >= 0 && tl_form) {
      if (static_cast<int>(args.size()) > slot) error_at(kw.loc, "range got multiple values for '" + kw.name + "'");
      named[slot] = eval(*kw.value);
      has_named[slot] = true;
      continue;
    }
    if (is_static || !known.count(kw.name)) error_at(kw.loc, "unexpected keyword argument '" + kw.name + "'");
  }
  for (int slot = 0; slot < 3; ++slot) {
    if (!has_named[slot]) continue;
    if (static_cast<int>(args.size()) < slot) {
      if (slot == 2 && args.size() == 1) {
        // range(end, step=s): the bounds are (0, end).
        args.insert(args.begin(), LValue::constant(ConstValue::integer(0)));
      } else {
        error_at(iter.loc, "range: '" + std::string(slot == 1 ? "arg2" : "step") + "' given without the bounds before it");
      }
    }
    args.push_back(named[slot]);
  }
  if (args.empty() || args.size() > 3) error_at(iter.loc, "range expects 1 to 3 arguments");
  // A return in the body is an error where it is lowered (as in Triton, one under a
  // compile-time `if` that is not taken is not).
  if (is_static) return lower_static_for(stmt, args, body, index, cont);
  if (stmt.target->kind != ast::ExprKind::Name) error_at(stmt.target->loc, "the loop variable must be a plain name");
  LValue lb = args.size() == 1 ? LValue::constant(ConstValue::integer(0)) : args[0];
  LValue ub = args.size() == 1 ? args[0] : args[1];
  LValue step = args.size() == 3 ? args[2] : LValue::constant(ConstValue::integer(1));
  if (step.is_const() && step.c.kind == ConstValue::Kind::Int && step.c.i == 0) error_at(iter.loc, "range() step must not be zero");
  Value* lbv = to_tensor(lb, iter.loc);
  Value* ubv = to_tensor(ub, iter.loc);
  Value* stepv = to_tensor(step, iter.loc);
  for (Value* v : {lbv, ubv, stepv}) {
    if (!v->type()->is_scalar() || !ir::is_integer(v->type()->scalar_kind()) || v->type()->is_bool()) {
      error_at(iter.loc, "range bounds must be integer scalars, got " + v->type()->str());
    }
  }
  // The induction variable's type is the integer promotion of the bounds (Triton's rule).
  auto promote = [](ir::ScalarKind a, ir::ScalarKind b) {
    int wa = ir::bit_width(a), wb = ir::bit_width(b);
    bool sa = ir::is_signed(a), sb = ir::is_signed(b);
    if (sa == sb) return wa > wb ? a : b;
    if (!sa) return wa >= wb ? a : b;
    return wb >= wa ? b : a;
  };
  ir::ScalarKind iv_kind = promote(promote(lbv->type()->scalar_kind(), ubv->type()->scalar_kind()),
                                   stepv->type()->scalar_kind());
  lbv = cast(lbv, iv_kind, iter.loc);
  ubv = cast(ubv, iv_kind, iter.loc);
  stepv = cast(stepv, iv_kind, iter.loc);

  // The loop's options: integer constants become attributes of the For op (num_stages is
  // read by the load pipelining); loop_unroll_factor is applied here.
  std::vector<std::pair<std::string, int64_t>> attrs;
  int64_t unroll_factor = 1;
  for (const auto& kw : iter.keywords) {
    if (kw.name == "arg1" || kw.name == "arg2" || kw.name == "step") continue;
    LValue v = eval(*kw.value);
    if (kw.name == "loop_unroll_factor") {
      // As Triton 3.6: an int32 (a bool counts as one), or None; at most 1 is no unrolling.
      if (v.is_none()) continue;
      bool is_int = v.is_const() && (v.c.kind == ConstValue::Kind::Int || v.c.kind == ConstValue::Kind::Bool);
      if (!is_int) error_at(kw.value->loc, "loop_unroll_factor must be an integer constant, got " + v.describe());
      __int128 n = v.c.kind == ConstValue::Kind::Bool ? (v.c.b ? 1 : 0) : v.c.i;
      if (n < INT32_MIN || n > INT32_MAX) {
        error_at(kw.value->loc, "loop_unroll_factor " + v.describe() + " does not fit in int32");
      }
      unroll_factor = static_cast<int64_t>(n);
      continue;
    }
    if (v.is_const() && v.c.kind == ConstValue::Kind::Int) attrs.emplace_back(kw.name, static_cast<int64_t>(v.c.i));
  }
  // One For op over [lo, hi) by `by`, whose body is the loop's body `copies` times, the
  // k-th with the loop variable at iv + k * step.
  auto emit_loop = [&](Value* lo, Value* hi, Value* by, int64_t copies,
                       const std::vector<std::pair<std::string, int64_t>>& op_attrs) {
    std::vector<std::string> carried;
    std::vector<LValue> init_values;
    collect_carried(stmt.body, stmt.target->name, loc, &carried, &init_values);
    std::vector<Value*> inits;
    for (const LValue& v : init_values) flatten_leaves(v, &inits);
    std::vector<Value*> operands = {lo, hi, by};
    operands.insert(operands.end(), inits.begin(), inits.end());
    ir::Op* op = builder_.create(ir::OpKind::For, {}, operands, loc);
    for (const auto& [name, value] : op_attrs) op->set_attr(name, value);
    ir::Region* region = op->add_region();
    Value* iv = region->add_arg(Type::scalar(iv_kind));
    Scope before = scope_;
    bind_carried(*this, carried, init_values, carry_const_pointers(inits, add_args(region, inits)));
    ir::Region* outer = builder_.region();
    builder_.set_region(region);
    ++context_->loop_depth;
    const int64_t outer_copies = unrolled_copies_;
    if (copies > 1 && outer_copies * copies > kMaxUnrolledCopies) {
      error_at(iter.loc, "loop_unroll_factor " + std::to_string(copies) + " makes " +
                             std::to_string(outer_copies * copies) + " copies of the loop body; tritium unrolls at most " +
                             std::to_string(kMaxUnrolledCopies));
    }
    unrolled_copies_ = outer_copies * copies;
    for (int64_t k = 0; k < copies; ++k) {
      Value* at = iv;
      if (k > 0) {
        Value* offset = arith(ir::OpKind::Mul, LValue::tensor(stepv),
                              LValue::tensor(constant(iv_kind, ConstValue::integer(k), iter.loc)), iter.loc);
        at = add(LValue::tensor(iv), LValue::tensor(offset), iter.loc);
      }
      bind(stmt.target->name, LValue::tensor(at));
      lower_stmts(stmt.body, 0, Continuation{});
    }
    unrolled_copies_ = outer_copies;
    --context_->loop_depth;
    yield_carried(carried, init_values, loc);
    builder_.set_region(outer);
    scope_ = before;
    std::vector<bool> kept;
    op = drop_invariant_carried(op, inits, &kept);
    bind_carried(*this, carried, init_values, carry_const_pointers(inits, loop_results(op, inits, kept)));
  };
  // loop_unroll_factor N > 1 (Triton's LoopUnroll pass, DESIGN.md "Loop unrolling"): a loop
  // over the first trip - trip % N iterations by N * step whose body is N copies of the
  // body, then the remaining iterations in a loop of its own, which is not pipelined
  // (num_stages 1). Only for a constant positive step (Triton assumes a positive one).
  bool constant_step = step.is_const() && step.c.kind == ConstValue::Kind::Int && step.c.i > 0 && step.c.i <= INT32_MAX;
  int64_t step_value = constant_step ? static_cast<int64_t>(step.c.i) : 0;
  __int128 big_step = static_cast<__int128>(step_value) * unroll_factor;
  bool fits = ir::is_signed(iv_kind) ? big_step < (static_cast<__int128>(1) << (ir::bit_width(iv_kind) - 1))
                                     : big_step < (static_cast<__int128>(1) << ir::bit_width(iv_kind));
  if (unroll_factor <= 1 || step_value <= 0 || !fits) {
    emit_loop(lbv, ubv, stepv, 1, attrs);
    return false;
  }
  // trip = ceil((max(ub, lb) - lb) / step); the unrolled loop ends at lb + (trip - trip % N) * step.
  auto value = [](Value* v) { return LValue::tensor(v); };
  auto number = [&](int64_t n) { return value(constant(iv_kind, ConstValue::integer(n), iter.loc)); };
  auto is_int = [](const LValue& v) { return v.is_const() && v.c.kind == ConstValue::Kind::Int; };
  if (is_int(lb) && is_int(ub)) {
    // Constant bounds: no loop that would not run.
    __int128 span = ub.c.i > lb.c.i ? ub.c.i - lb.c.i : 0;
    __int128 trip = (span + step_value - 1) / step_value;
    __int128 whole = trip - trip % unroll_factor;
    if (whole == 0) {
      emit_loop(lbv, ubv, stepv, 1, attrs);
      return false;
    }
    if (whole == trip) {
      emit_loop(lbv, ubv, constant(iv_kind, ConstValue::integer(big_step), iter.loc), unroll_factor, attrs);
      return false;
    }
  }
  Value* span = sub(value(min_max(ir::OpKind::Maximum, value(ubv), value(lbv), iter.loc)), value(lbv), iter.loc);
  Value* trip = int_div_rem(ir::OpKind::Div, value(add(value(span), number(step_value - 1), iter.loc)), number(step_value),
                            iter.loc);
  Value* whole = sub(value(trip), value(int_div_rem(ir::OpKind::Rem, value(trip), number(unroll_factor), iter.loc)),
                     iter.loc);
  Value* unrolled_end = add(value(lbv), value(arith(ir::OpKind::Mul, value(whole), value(stepv), iter.loc)), iter.loc);
  emit_loop(lbv, unrolled_end, constant(iv_kind, ConstValue::integer(static_cast<int64_t>(big_step)), iter.loc),
            unroll_factor, attrs);
  std::vector<std::pair<std::string, int64_t>> rest_attrs;
  for (const auto& attr : attrs) {
    if (attr.first != "num_stages") rest_attrs.push_back(attr);
  }
  rest_attrs.emplace_back("num_stages", 1);
  emit_loop(unrolled_end, ubv, stepv, 1, rest_attrs);
  return false;
}

bool Lowerer::lower_static_for(const ast::Stmt& stmt, const std::vector<LValue>& args, const ast::Body& body,
                               size_t index, const Continuation& cont) {
  for (const LValue& a : args) {
    if (!a.is_const() || a.c.kind != ConstValue::Kind::Int) {
      error_at(stmt.cond->loc, "tl.static_range bounds must be compile-time integers, got " + a.describe());
    }
  }
  __int128 lb = args.size() == 1 ? 0 : args[0].c.i;
  __int128 ub = args.size() == 1 ? args[0].c.i : args[1].c.i;
  __int128 step = args.size() == 3 ? args[2].c.i : 1;
  if (step == 0) error_at(stmt.cond->loc, "static_range step must not be zero");
  if ((ub - lb) / step > 4096) error_at(stmt.cond->loc, "tl.static_range would unroll more than 4096 iterations");
  if (stmt.target->kind != ast::ExprKind::Name) error_at(stmt.target->loc, "the loop variable must be a plain name");
  if (!checking_ && find_return(stmt.body)) {
    // A return in an unrolled copy leaves the function: the copies after it and the
    // statements after the loop are that copy's continuation (Triton jumps out instead).
    Continuation rest = cont;
    rest.pending.insert(rest.pending.begin(), Pending{&body, index + 1});
    Pending iterations;
    iterations.loop = &stmt;
    iterations.next = lb;
    iterations.stop = ub;
    iterations.step = step;
    lower_static_iterations(iterations, std::move(rest));
    return true;
  }
  for (__int128 i = lb; step > 0 ? i < ub : i > ub; i += step) {
    bind(stmt.target->name, LValue::constant(ConstValue::integer(i)));
    lower_stmts(stmt.body, 0, Continuation{});
  }
  return false;
}

void Lowerer::lower_static_iterations(const Pending& loop, Continuation cont) {
  if (loop.step > 0 ? loop.next >= loop.stop : loop.next <= loop.stop) {
    lower_stmts(kNoStatements, 0, std::move(cont));  // none left: on with the continuation
    return;
  }
  Pending after = loop;
  after.next += loop.step;
  cont.pending.insert(cont.pending.begin(), after);
  bind(loop.loop->target->name, LValue::constant(ConstValue::integer(loop.next)));
  lower_stmts(loop.loop->body, 0, std::move(cont));
}

void Lowerer::lower_while(const ast::Stmt& stmt) {
  const Loc& loc = stmt.loc;
  std::vector<std::string> carried;
  std::vector<LValue> init_values;
  collect_carried(stmt.body, "", loc, &carried, &init_values);
  std::vector<Value*> inits;
  for (const LValue& v : init_values) flatten_leaves(v, &inits);
  ir::Op* op = builder_.create(ir::OpKind::While, {}, inits, loc);
  ir::Region* before_region = op->add_region();
  ir::Region* after_region = op->add_region();
  ir::Region* outer = builder_.region();
  Scope before = scope_;

  builder_.set_region(before_region);
  std::vector<Value*> before_args = carry_const_pointers(inits, add_args(before_region, inits));
  bind_carried(*this, carried, init_values, before_args);
  Value* cond = to_bool_scalar(eval(*stmt.cond), stmt.cond->loc, "the while");
  std::vector<Value*> passed = {cond};
  passed.insert(passed.end(), before_args.begin(), before_args.end());
  builder_.create(ir::OpKind::Condition, {}, passed, stmt.cond->loc);

  scope_ = before;
  builder_.set_region(after_region);
  bind_carried(*this, carried, init_values, carry_const_pointers(inits, add_args(after_region, inits)));
  ++context_->loop_depth;
  lower_stmts(stmt.body, 0, Continuation{});
  --context_->loop_depth;
  yield_carried(carried, init_values, loc);
  builder_.set_region(outer);
  scope_ = before;
  std::vector<bool> kept;
  op = drop_invariant_carried(op, inits, &kept);
  bind_carried(*this, carried, init_values, carry_const_pointers(inits, loop_results(op, inits, kept)));
}

// ---- calls ----

LValue Lowerer::inline_call(const FunctionRef& function, std::vector<LValue> args,
                            std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc) {
  if (!function.def) error_at(loc, "the called function's source is not available");
  const ast::FunctionDef& def = *function.def;
  // A function is known by where it is defined: a callee described twice (Python hands a
  // cycle's second visit over without its globals) is still the same function.
  std::string identity = def.name + "@" + (def.loc.file ? def.loc.file->path() : "") + ":" + std::to_string(def.loc.line);
  if (std::find(inlining_.begin(), inlining_.end(), identity) != inlining_.end()) {
    error_at(loc, "recursion is not supported: '" + def.name + "' is called while a call of it is being inlined");
  }
  if (inline_depth_ >= 64) error_at(loc, "calls nest more than 64 deep: is '" + def.name + "' recursive?");
  if (args.size() > def.params.size()) {
    error_at(loc, def.name + "() takes " + std::to_string(def.params.size()) + " arguments but " +
                      std::to_string(args.size()) + " were given");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (def.params[i].keyword_only) {
      error_at(loc, def.name + "() takes " + std::to_string(i) + " positional argument" + (i == 1 ? "" : "s") +
                        " but " + std::to_string(args.size()) + " were given");
    }
  }
  auto context = std::make_unique<FunctionContext>();
  context->module = function.module;
  context->globals = function.globals;
  context->module_scope = &module_scope(function.module, function.globals);
  context->name = def.name;

  Scope callee_scope;
  std::vector<bool> bound(def.params.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    callee_scope[def.params[i].name] = std::move(args[i]);
    bound[i] = true;
  }
  for (auto& [name, value] : kwargs) {
    auto it = std::find_if(def.params.begin(), def.params.end(), [&](const ast::Param& p) { return p.name == name; });
    if (it == def.params.end()) error_at(loc, def.name + "() got an unexpected keyword argument '" + name + "'");
    size_t i = static_cast<size_t>(it - def.params.begin());
    if (bound[i]) error_at(loc, def.name + "() got multiple values for argument '" + name + "'");
    callee_scope[name] = std::move(value);
    bound[i] = true;
  }
  FunctionContext* saved_context = context_;
  context_ = context.get();
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::Param& p = def.params[i];
    if (!bound[i]) {
      if (!p.default_value) {
        context_ = saved_context;
        error_at(loc, def.name + "() missing required argument '" + p.name + "'");
      }
      callee_scope[p.name] = eval(*p.default_value);
    }
    // A tl.constexpr annotation on a helper's parameter asks nothing of the caller: as in
    // Triton, a tensor passed there (the fused-attention tutorial's offs_m) is bound as the
    // tensor it is, and a compile-time value stays one.
  }
  Scope saved_scope = std::move(scope_);
  scope_ = std::move(callee_scope);
  ++inline_depth_;
  inlining_.push_back(identity);
  contexts_.push_back(std::move(context));
  LValue result = lower_function_body(def.body);
  inlining_.pop_back();
  --inline_depth_;
  scope_ = std::move(saved_scope);
  context_ = saved_context;
  return result;
}

}  // namespace tritium::lower

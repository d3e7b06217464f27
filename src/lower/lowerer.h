// The state of lowering one kernel: the IR being built, the scopes that bind names to
// values (DESIGN law 2), and the semantic helpers (promotion, casts, broadcasting) that
// mirror Triton's semantic.py. Split over lower_stmt.cpp, lower_expr.cpp, semantic.cpp,
// builtins.cpp and const_eval.cpp.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "ir/attrs.h"
#include "ir/builder.h"
#include "ir/ir.h"
#include "lower/lower.h"
#include "lower/lvalue.h"

namespace tritium::lower {

using Scope = std::map<std::string, LValue>;

// One entry of a continuation: the statements body[index...], or, when `loop` is set, the
// iterations of that tl.static_range from `next` on (by `step`, before `stop`).
struct Pending {
  const ast::Body* body = nullptr;
  size_t index = 0;
  const ast::Stmt* loop = nullptr;
  __int128 next = 0, stop = 0, step = 1;
};

// Statements still to lower after the current list ends: the rest of enclosing lists. A
// `return` inside a dynamic `if` is lowered by moving this continuation into the branches
// that do not return, so every path ends in exactly one return and no CFG is needed.
struct Continuation {
  std::vector<Pending> pending;  // innermost first
  // When `pending` runs out, the function ends here (an implicit `return None`), as opposed
  // to the end of a loop body or of a branch whose merge follows.
  bool at_function_end = false;
  // The branches of enclosing dynamic `if`s with a `return` whose own statements have not
  // ended on this path yet; each records the scope where they do, for Triton's type check.
  std::vector<struct BranchEnd*> branch_ends;
};

// The scopes at the end of one branch's own statements, one per path through it: taken when
// the continuation's pending list is back to `depth` entries, or at a `return`.
struct BranchEnd {
  size_t depth = 0;
  std::vector<Scope> scopes;
};

// The first `return` in `body`, its nested ifs and loops included (lower_return.cpp).
const ast::Stmt* find_return(const ast::Body& body);

// The value a global binding stands for in a kernel (a module, a constant, a @jit function).
LValue binding_to_value(const GlobalBinding& binding);
// The value of a function argument (ParamSig::Kind::Function): the @jit function (or
// tl.constexpr_function) the kernel was given, callable in it.
LValue function_value(const ParamSig& sig, const Loc& loc);
// Makes `tuple` a named tuple of type `type` with `fields` (one per item); a plain tuple
// when `fields` is empty.
void name_tuple(LValue& tuple, const std::string& type, const std::vector<std::string>& fields);

// Where the function being lowered (the kernel or an inlined callee) finds its globals.
struct FunctionContext {
  std::shared_ptr<const ast::Module> module;
  std::shared_ptr<const Globals> globals;  // may be null
  const Scope* module_scope = nullptr;     // bindings of the module's top-level statements
  int loop_depth = 0;  // runtime loops (for, while) around the statement being lowered
  std::string name;
  // Triton's order (Lowerer::check_like_triton): the first return met, which every later
  // one must match in type.
  bool has_checked_return = false;
  LValue checked_return;
};

// The most copies of a loop body that loop_unroll_factor may make, nested unrolled loops
// multiplied (more is a located error, where Triton would spend minutes or run out of memory).
inline constexpr int64_t kMaxUnrolledCopies = 1024;

// The name the pending return value is bound to in the scope, so branch merges carry it.
inline constexpr const char* kReturnSlot = "$return";
// The return slot of a path that reaches the end of its function without a `return`: None,
// marked (LValue::name) so that a dynamic `if` whose other branch returns a value can give
// this path a stand-in of that value's type (Triton: a poison value).
inline LValue fell_off_end() {
  LValue v = LValue::constant(ConstValue::none());
  v.name = "$fell-off";
  return v;
}
inline bool is_fell_off_end(const LValue& v) { return v.is_none() && v.name == "$fell-off"; }

class Lowerer {
 public:
  Lowerer(ir::Function& function, const Globals& kernel_globals);

  ir::Builder& builder() { return builder_; }
  int num_warps = 4;  // the launch's: tl.extra.cuda.num_warps() / num_threads()
  bool debug = false;  // Triton's debug option: device_assert and assert are compiled

  // ---- names (lower_stmt.cpp) ----
  LValue lookup(const std::string& name, const Loc& loc);
  void bind(const std::string& name, LValue value);
  Scope& scope() { return scope_; }
  FunctionContext& context() { return *context_; }
  // The bindings of a module's top-level imports, constants and functions.
  const Scope& module_scope(const std::shared_ptr<const ast::Module>& module,
                            const std::shared_ptr<const Globals>& globals);

  // ---- statements (lower_stmt.cpp) ----
  // Lowers `body[first...]` then the continuation; stops at a return.
  void lower_stmts(const ast::Body& body, size_t first, Continuation cont);
  // Lowers a function's body (the kernel's or an inlined callee's, whose parameters are
  // bound); returns its return value. A body with a `return` inside a branch is first
  // checked the way Triton visits it (check_like_triton).
  LValue lower_function_body(const ast::Body& body);
  // True while check_like_triton runs: static_print stays quiet (the real lowering prints).
  bool checking() const { return checking_; }
  // A NamedTuple class called in a kernel (LValue Builtin "namedtuple.<Type>").
  LValue make_named_tuple(const LValue& type, std::vector<LValue> args,
                          std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc);
  // Inlines a call of `function` with bound arguments; returns its return value.
  LValue inline_call(const FunctionRef& function, std::vector<LValue> args,
                     std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc);

  // ---- expressions (lower_expr.cpp) ----
  LValue eval(const ast::Expr& expr);
  LValue binary(ast::BinaryOp op, const LValue& lhs, const LValue& rhs, const Loc& loc);
  LValue unary(ast::UnaryOp op, const LValue& operand, const Loc& loc);
  LValue compare(ast::CompareOp op, const LValue& lhs, const LValue& rhs, const Loc& loc);
  // Python truthiness of a compile-time value (static if, static_assert, and/or).
  bool const_truth(const LValue& value, const Loc& loc);

  // ---- builtins (builtins.cpp) ----
  LValue call_builtin(const LValue& callee, std::vector<LValue> args,
                      std::vector<std::pair<std::string, LValue>> kwargs, const Loc& loc);
  // Attribute `name` of a module (`tl.float32`, `tl.load`), or null-kind when absent.
  bool module_attribute(const std::string& module, const std::string& name, LValue* out);

  // ---- semantics (semantic.cpp) ----
  // A compile-time number or bool as an IR scalar constant of Triton's literal type
  // (int32, uint32, int64, uint64; fp32 or fp64; int1).
  ir::Value* to_tensor(const LValue& value, const Loc& loc);
  // A number as the tensor Triton's to_tensor makes of it; anything else unchanged.
  LValue as_tensor(const LValue& value, const Loc& loc);
  ir::Value* constant(ir::ScalarKind kind, const ConstValue& value, const Loc& loc);
  ir::ScalarKind literal_type(const ConstValue& value, const Loc& loc);
  // Converts `value` to element type `element` (scalar or pointer type), keeping its shape.
  ir::Value* cast(ir::Value* value, const ir::Type* element, const Loc& loc, bool bitcast = false);
  // tl.cast / .to: `rounding` is the fp_downcast_rounding argument ("rtne", "rtz", None;
  // null when absent), applied to float -> narrower float casts.
  ir::Value* cast_rounded(ir::Value* value, const ir::Type* element, const LValue* rounding,
                          const Loc& loc, bool bitcast);
  // An op on fp8 operands computed in fp32 (Triton keeps fp8 op fp8 in fp8): `result`
  // is cast back to `kind` unless it is a comparison.
  ir::Value* fp8_in_fp32(ir::Value* value, const Loc& loc);
  // A predicate method of a dtype constant (x.dtype.is_fp8(), dtype.is_int_signed(), ...).
  LValue dtype_method(const std::string& method, const ConstValue& dtype, const Loc& loc);
  ir::Value* fp8_op(ir::OpKind kind, ir::Value* a, ir::Value* b, const Loc& loc);
  ir::Value* cast(ir::Value* value, ir::ScalarKind kind, const Loc& loc) {
    return cast(value, ir::Type::scalar(kind), loc);
  }
  ir::Value* broadcast_to(ir::Value* value, const std::vector<int64_t>& shape, const Loc& loc);
  std::pair<ir::Value*, ir::Value*> broadcast(ir::Value* lhs, ir::Value* rhs, const Loc& loc);
  // Triton's binary_op_type_checking_impl: literal handling, promotion and broadcasting.
  std::pair<ir::Value*, ir::Value*> binary_operands(const LValue& lhs, const LValue& rhs,
                                                    bool allow_lhs_ptr, bool allow_rhs_ptr,
                                                    bool arithmetic_check, bool div_or_mod,
                                                    const Loc& loc);
  // Pointers to constant data (Triton's `p: tl.const` parameters) and the pointers made
  // from them: a store through one is an error, and one cannot merge with a plain pointer.
  void mark_const_pointer(const ir::Value* v) { const_pointers_.insert(v); }
  bool is_const_pointer(const ir::Value* v) const { return const_pointers_.count(v) != 0; }
  // A loop's region arguments and results carry the const-ness of their initial values.
  std::vector<ir::Value*> carry_const_pointers(const std::vector<ir::Value*>& inits, std::vector<ir::Value*> values) {
    for (size_t i = 0; i < inits.size() && i < values.size(); ++i) {
      if (is_const_pointer(inits[i])) mark_const_pointer(values[i]);
    }
    return values;
  }
  ir::Value* emit(ir::OpKind kind, const ir::Type* type, std::vector<ir::Value*> operands,
                  const Loc& loc);
  ir::Value* to_bool_scalar(const LValue& cond, const Loc& loc, const char* what);

  // Tensor ops used by operators and builtins alike.
  ir::Value* add(const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* sub(const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* arith(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* true_div(const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* int_div_rem(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* bitwise(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc);
  ir::Value* cmp(ir::CmpPredicate predicate, const LValue& lhs, const LValue& rhs, const Loc& loc);
  // propagate_nan (Triton's PropagateNan.ALL): a NaN operand makes the result NaN; else
  // the other operand wins, as C's fmax/fmin.
  ir::Value* min_max(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc, bool propagate_nan = false);
  // tl.where's promotion, then `kind` (select, or a where-like op of elementwise.def).
  ir::Value* where(const LValue& cond, const LValue& lhs, const LValue& rhs, const Loc& loc,
                   ir::OpKind kind = ir::OpKind::Select);
  ir::Value* logical(ir::OpKind kind, const LValue& lhs, const LValue& rhs, const Loc& loc);

 private:
  // Lowers one statement; returns true when it consumed the rest of the list (a return, or
  // an `if` that took the continuation into its branches).
  bool lower_stmt(const ast::Stmt& stmt, const ast::Body& body, size_t index, const Continuation& cont);
  void lower_assign(const ast::Expr& target, LValue value, const Loc& loc);
  // A call statement (its result dropped) of a function marked triton.must_use_result:
  // Triton's error (lower_expr.cpp).
  void check_result_used(const ast::Expr& statement);
  // Triton 3.6 lowers a `return` as a jump and goes on with the statements after the `if`
  // holding it (after a compile-time `if` too, into a dead block), merging that `if`'s
  // branches as any other's: names set in one branch only are not defined after it, a name
  // set in both keeps one type, and every return, reachable or not, gives one type.
  // tritium lowers the rest of the function into the branches that do not return
  // (Continuation), which sees more; so such a body is first lowered once the way Triton
  // visits it, into IR that is thrown away, for Triton's errors in Triton's order.
  void check_like_triton(const ast::Body& body);
  // A return met by check_like_triton: the first sets the function's type, later ones must
  // give the same (Triton's "inconsistent return types", at the later return).
  void check_return(const LValue& value, const Loc& loc);
  bool lower_if(const ast::Stmt& stmt, const ast::Body& body, size_t index, const Continuation& cont);
  // A loop; returns true when it took the continuation (a tl.static_range holding a return).
  bool lower_for(const ast::Stmt& stmt, const ast::Body& body, size_t index, const Continuation& cont);
  bool lower_static_for(const ast::Stmt& stmt, const std::vector<LValue>& range_args, const ast::Body& body,
                        size_t index, const Continuation& cont);
  // Lowers the iterations `loop` names, each followed by the rest of them and then `cont`.
  void lower_static_iterations(const Pending& loop, Continuation cont);
  void lower_while(const ast::Stmt& stmt);
  // The loop-carried names of a loop body and their values before the loop.
  void collect_carried(const ast::Body& body, const std::string& loop_variable, const Loc& loc,
                       std::vector<std::string>* carried, std::vector<LValue>* inits);
  // Ends a loop body: yields the carried names' tensor leaves, which must keep their types.
  void yield_carried(const std::vector<std::string>& carried, const std::vector<LValue>& inits, const Loc& loc);
  // Merges the scopes of two branches of an `if` op; appends the yields and results.
  // Triton's check of a dynamic `if`: a runtime variable from before it that either branch
  // changes must keep its type at the end of both (one scope per path through a branch).
  void check_if_types(const Scope& before, const std::vector<Scope>& then_ends, const std::vector<Scope>& else_ends,
                      const Loc& loc);
  void merge_branches(ir::Op* if_op, const Scope& before, Scope then_scope, Scope else_scope,
                      const Loc& loc);

  LValue eval_call(const ast::Expr& expr);
  LValue eval_attribute(const ast::Expr& expr);
  // `base.name` (also Python's getattr(base, "name") with a constant name); `written_base`,
  // when given, is the source of `base` for messages.
  LValue attribute_of(const LValue& base, const std::string& name, const Loc& loc,
                      const ast::Expr* written_base = nullptr);
  LValue eval_subscript(const ast::Expr& expr);
  LValue eval_ternary(const ast::Expr& expr);

  // Evaluates a module-level expression without leaving IR behind; false when it is not
  // a compile-time value.
  bool eval_module_constant(const ast::Expr& expr, LValue* out);
  // Merges one name's values from two branches into `dest` (a copy of `a` already in its
  // final place); tensors that differ become results of the `if`, recorded in `fixups`.
  void merge_into(LValue& dest, const std::string& name, const LValue* before, const LValue& a,
                  const LValue& b, std::vector<ir::Value*>* then_yields,
                  std::vector<ir::Value*>* else_yields, std::vector<std::pair<LValue*, size_t>>* fixups,
                  const Loc& loc);

  ir::Function& function_;
  ir::Function scratch_;  // module-level constant evaluation builds throwaway IR here
  ir::Builder builder_;
  const Globals& kernel_globals_;
  Scope scope_;
  FunctionContext* context_ = nullptr;
  // Copies of the statement being lowered that enclosing loop_unroll_factor loops make
  // (their product, bounded by kMaxUnrolledCopies).
  int64_t unrolled_copies_ = 1;
  std::vector<std::unique_ptr<FunctionContext>> contexts_;
  std::map<const ast::Module*, std::unique_ptr<Scope>> module_scopes_;
  int inline_depth_ = 0;
  ir::Op* merging_if_ = nullptr;  // the `if` whose branches merge_branches is merging
  std::set<const ir::Value*> const_pointers_;
  bool checking_ = false;         // inside check_like_triton
  std::vector<std::string> inlining_;  // "name@path:line" of the callees being inlined, outermost first

  friend std::unique_ptr<ir::Function> tritium::lower_kernel(
      std::shared_ptr<const ast::Module>, const std::string&, const Signature&, const Globals&, bool, int);
};

// Python semantics on compile-time values (const_eval.cpp). Errors are located at `loc`.
ConstValue const_binary(ast::BinaryOp op, const ConstValue& lhs, const ConstValue& rhs, const Loc& loc);
ConstValue const_unary(ast::UnaryOp op, const ConstValue& operand, const Loc& loc);
ConstValue const_compare(ast::CompareOp op, const ConstValue& lhs, const ConstValue& rhs, const Loc& loc);

// The scalar kind of a tl dtype name, e.g. "float32" -> F32; false when not a dtype.
bool dtype_from_name(const std::string& name, ir::ScalarKind* out);

// An atomic read-modify-write op of `kind` on operands already of one shape and of the
// pointee type (builtins_atomic.cpp): the IR's rule (atomics.def) without tl.atomic_*'s
// narrower one for pointers, for tensor descriptors' fp16/bf16 max and min.
ir::Value* create_atomic_rmw(Lowerer& L, ir::AtomicKind kind, ir::Value* ptr, ir::Value* value, ir::Value* mask,
                             ir::MemSem sem, ir::MemScope scope, const Loc& loc);

}  // namespace tritium::lower

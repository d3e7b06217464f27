// Unit tests of the parser (src/frontend/parser.h) and the AST dumper: precedence and tree
// shapes, statements, module-level skipping, locations, and one located error per construct
// kernels cannot use; the Triton-language prelude's text parses and its scan agrees.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "frontend/ast_printer.h"
#include "frontend/parser.h"
#include "lower/builtin_registry.h"
#include "lower/prelude.h"
#include "tritium/errors.h"

using tritium::CompileError;
using tritium::SourceFile;
namespace ast = tritium::ast;

namespace {

std::shared_ptr<ast::Module> parse(const std::string& text, int first_line = 1) {
  return tritium::parse_module(std::make_shared<SourceFile>("test.py", text, first_line));
}

// The body of a jit kernel `k` whose body lines are `body` (each indented by four spaces).
std::string kernel(const std::string& body) { return "@triton.jit\ndef k(x, y):\n" + body; }

const ast::FunctionDef& only_function(const ast::Module& module) {
  REQUIRE(module.statements.size() == 1);
  REQUIRE(module.statements[0]->kind == ast::StmtKind::FunctionDef);
  return *module.statements[0]->function;
}

// A Lisp-like form of an expression without locations: (op operands...), so precedence
// tests read at a glance and fail on any change of shape.
std::string shape(const ast::Expr& e) {
  auto all = [&](const std::string& head, const std::vector<ast::ExprPtr>& items) {
    std::string out = "(" + head;
    for (const ast::ExprPtr& item : items) out += " " + shape(*item);
    return out + ")";
  };
  auto optional = [&](const ast::ExprPtr& part) { return part ? shape(*part) : "_"; };
  switch (e.kind) {
    case ast::ExprKind::Name: return e.name;
    case ast::ExprKind::Int: return std::to_string(static_cast<unsigned long long>(e.int_value));
    case ast::ExprKind::Float: return std::to_string(e.float_value);
    case ast::ExprKind::Bool: return e.bool_value ? "True" : "False";
    case ast::ExprKind::None: return "None";
    case ast::ExprKind::Str: return "'" + e.str_value + "'";
    case ast::ExprKind::Tuple: return all("tuple", e.items);
    case ast::ExprKind::List: return all("list", e.items);
    case ast::ExprKind::Attribute: return "(. " + shape(*e.lhs) + " " + e.name + ")";
    case ast::ExprKind::Subscript: return all("[] " + shape(*e.lhs), e.items);
    case ast::ExprKind::Slice:
      return "(: " + optional(e.lhs) + " " + optional(e.rhs) + " " + optional(e.third) + ")";
    case ast::ExprKind::Call: {
      std::string out = all("call " + shape(*e.lhs), e.items);
      out.pop_back();
      for (const ast::Keyword& keyword : e.keywords)
        out += " " + keyword.name + "=" + shape(*keyword.value);
      return out + ")";
    }
    case ast::ExprKind::Unary:
      return std::string("(") + ast::spelling(e.unary_op) + " " + shape(*e.lhs) + ")";
    case ast::ExprKind::Binary:
      return std::string("(") + ast::spelling(e.binary_op) + " " + shape(*e.lhs) + " " +
             shape(*e.rhs) + ")";
    case ast::ExprKind::BoolOp: return all(ast::spelling(e.bool_op), e.items);
    case ast::ExprKind::Compare: {
      std::string ops;
      for (ast::CompareOp op : e.compare_ops)
        ops += std::string(ops.empty() ? "" : ",") + ast::spelling(op);
      return all("cmp " + ops, e.items);
    }
    case ast::ExprKind::Ternary:
      return "(if " + shape(*e.lhs) + " " + shape(*e.rhs) + " " + shape(*e.third) + ")";
    case ast::ExprKind::ListComp:
      return all("comp " + shape(*e.lhs) + " " + shape(*e.third) + " " + shape(*e.rhs), e.items);
    case ast::ExprKind::Starred: return "(* " + shape(*e.lhs) + ")";
    case ast::ExprKind::FString: {
      std::string out = "(f '" + e.fstring_parts[0] + "'";
      for (size_t i = 0; i < e.items.size(); ++i) {
        out += " " + shape(*e.items[i]);
        if (e.fstring_conversions[i]) out += std::string("!") + e.fstring_conversions[i];
        out += " '" + e.fstring_parts[i + 1] + "'";
      }
      return out + ")";
    }
  }
  return "?";
}

// Parses `text` as the value of `v = <text>` in a kernel; keeps the module alive in `holder`.
const ast::Expr& parse_expr(const std::string& text, std::shared_ptr<ast::Module>& holder) {
  holder = parse(kernel("    v = " + text + "\n"));
  const ast::FunctionDef& fn = only_function(*holder);
  REQUIRE(fn.body.size() == 1);
  REQUIRE(fn.body[0]->kind == ast::StmtKind::Assign);
  return *fn.body[0]->value;
}

std::string expr_shape(const std::string& text) {
  std::shared_ptr<ast::Module> holder;
  return shape(parse_expr(text, holder));
}

struct ErrorAt {
  std::string message;
  int line = 0;
  int col = 0;
};

ErrorAt parse_error(const std::string& text, int first_line = 1) {
  try {
    parse(text, first_line);
  } catch (const CompileError& e) {
    return {e.message(), e.line(), e.col()};
  }
  FAIL("no CompileError for:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("parser: operator precedence", "[parser]") {
  CHECK(expr_shape("-2**2") == "(- (** 2 2))");
  CHECK(expr_shape("2**-1") == "(** 2 (- 1))");
  CHECK(expr_shape("2**3**2") == "(** 2 (** 3 2))");
  CHECK(expr_shape("-x.y**2") == "(- (** (. x y) 2))");
  CHECK(expr_shape("a + b * c") == "(+ a (* b c))");
  CHECK(expr_shape("a - b - c") == "(- (- a b) c)");
  CHECK(expr_shape("a // b % c * d / e @ f") == "(@ (/ (* (% (// a b) c) d) e) f)");
  CHECK(expr_shape("a | b ^ c & d << e + f") == "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK(expr_shape("a >> 1 << 2") == "(<< (>> a 1) 2)");
  CHECK(expr_shape("~a * -b + +c") == "(+ (* (~ a) (- b)) (+ c))");
  CHECK(expr_shape("a if b else c if d else e") == "(if a b (if c d e))");
  CHECK(expr_shape("(a if b else c) if d else e") == "(if (if a b c) d e)");
  CHECK(expr_shape("not a == b") == "(not (cmp == a b))");
  CHECK(expr_shape("not not a") == "(not (not a))");
  CHECK(expr_shape("a < b < c") == "(cmp <,< a b c)");
  CHECK(expr_shape("a <= b != c >= d > e == f") == "(cmp <=,!=,>=,>,== a b c d e f)");
  CHECK(expr_shape("a is not b") == "(cmp is not a b)");
  CHECK(expr_shape("a not in b") == "(cmp not in a b)");
  CHECK(expr_shape("a is b in c") == "(cmp is,in a b c)");
  CHECK(expr_shape("a or b and c") == "(or a (and b c))");
  CHECK(expr_shape("a and b and c") == "(and a b c)");
  CHECK(expr_shape("a or not b and c") == "(or a (and (not b) c))");
  CHECK(expr_shape("x & 1 == 0") == "(cmp == (& x 1) 0)");
  CHECK(expr_shape("a + b if c < d else e or f") == "(if (+ a b) (cmp < c d) (or e f))");
}

TEST_CASE("parser: primaries, calls and literals", "[parser]") {
  CHECK(expr_shape("x.y.z(1)[2]") == "([] (call (. (. x y) z) 1) 2)");
  CHECK(expr_shape("f()") == "(call f)");
  CHECK(expr_shape("f(a, b=1,)") == "(call f a b=1)");
  CHECK(expr_shape("tl.load(p + o, mask=m, other=0.0)") ==
        "(call (. tl load) (+ p o) mask=m other=0.000000)");
  CHECK(expr_shape("f(g(h(1)))(2)") == "(call (call f (call g (call h 1))) 2)");
  CHECK(expr_shape("'a' \"b\" '''c'''") == "'abc'");
  CHECK(expr_shape("True") == "True");
  CHECK(expr_shape("None") == "None");
  CHECK(expr_shape("(a)") == "a");
  CHECK(expr_shape("()") == "(tuple)");
  CHECK(expr_shape("(a,)") == "(tuple a)");
  CHECK(expr_shape("(a, b,)") == "(tuple a b)");
  CHECK(expr_shape("a, b") == "(tuple a b)");
  CHECK(expr_shape("1,") == "(tuple 1)");
  CHECK(expr_shape("[]") == "(list)");
  CHECK(expr_shape("[1, [2, 3],]") == "(list 1 (list 2 3))");
  CHECK(expr_shape("(x.shape[0], 1)") == "(tuple ([] (. x shape) 0) 1)");
  // f-strings: the literal text around each field's expression (`{{` is a brace; a
  // conversion is kept, a format spec dropped, as Triton formats with "{}" or "{!r}")
  CHECK(expr_shape("f'a{x}b{{c}}{y.z!r:>8}'") == "(f 'a' x 'b{c}' (. y z)!r '')");
  CHECK(expr_shape("'p' f'{n + 1}' 'q'") == "(f 'p' (+ n 1) 'q')");
  CHECK(expr_shape("f'{a[0]:{w}}{b != c}'") == "(f '' ([] a 0) '' (cmp != b c) '')");
  CHECK(expr_shape("f'{n=}, {m = !s}'") == "(f 'n=' n!r ', m = ' m!s '')");
  std::shared_ptr<ast::Module> holder;
  const ast::Expr& field = *parse_expr("f'ab{BLOCK}'", holder).items.at(0);
  CHECK(field.loc.line == 3);
  CHECK(field.loc.col == 14);  // the field's own column
  const ast::Expr& big = parse_expr("0xffff_ffff_ffff_ffff", holder);
  CHECK(big.int_value == ~static_cast<uint64_t>(0));
  CHECK(parse_expr("1.5e-3", holder).float_value == 1.5e-3);
}

TEST_CASE("parser: subscripts, slices and None", "[parser]") {
  CHECK(expr_shape("x[:, None]") == "([] x (: _ _ _) None)");
  CHECK(expr_shape("x[None, :]") == "([] x None (: _ _ _))");
  CHECK(expr_shape("a[1:2:3]") == "([] a (: 1 2 3))");
  CHECK(expr_shape("a[::2]") == "([] a (: _ _ 2))");
  CHECK(expr_shape("a[1:]") == "([] a (: 1 _ _))");
  CHECK(expr_shape("a[:n - 1, i]") == "([] a (: _ (- n 1) _) i)");
  CHECK(expr_shape("x[i]") == "([] x i)");
  CHECK(expr_shape("x[i,]") == "([] x i)");
  CHECK(expr_shape("x[(1, 2)]") == "([] x (tuple 1 2))");
  std::shared_ptr<ast::Module> holder;
  const ast::Expr& e = parse_expr("x[:, None]", holder);
  REQUIRE(e.items.size() == 2);
  CHECK(e.items[0]->kind == ast::ExprKind::Slice);
  CHECK(e.items[0]->loc.col == 11);  // `    v = x[:` : the slice starts at its ':'
  CHECK(e.items[1]->kind == ast::ExprKind::None);
  CHECK(e.items[1]->loc.col == 14);
}

TEST_CASE("parser: every node is located at its first token", "[parser]") {
  std::shared_ptr<ast::Module> holder;
  const ast::Expr& e = parse_expr("(a + b) * c", holder);
  CHECK(e.loc.line == 3);
  CHECK(e.loc.col == 9);        // the '('
  CHECK(e.lhs->loc.col == 10);  // a + b starts at a
  CHECK(e.rhs->loc.col == 19);
  const ast::Expr& call = parse_expr("tl.load(p, mask=m)", holder);
  CHECK(call.loc.col == 9);
  CHECK(call.keywords.at(0).loc.col == 20);
  CHECK(call.keywords.at(0).value->loc.col == 25);
  const ast::Expr& tuple = parse_expr("(1, 2)", holder);
  CHECK(tuple.loc.col == 9);
  CHECK(parse_expr("x if c else y", holder).loc.col == 9);
}

TEST_CASE("parser: assignments", "[parser]") {
  auto module =
      parse(kernel("    a, (b, c) = f()\n"
                   "    p = q = 1\n"
                   "    x[i] = y.z = 0\n"
                   "    n: tl.constexpr = 3\n"
                   "    m: int\n"
                   "    acc += 1\n"
                   "    t //= 2\n"
                   "    t **= 2\n"
                   "    t >>= 1\n"
                   "    t @= w\n"
                   "    t.u[0] -= 1\n"));
  const ast::Body& body = only_function(*module).body;
  REQUIRE(body.size() == 11);
  CHECK(body[0]->kind == ast::StmtKind::Assign);
  REQUIRE(body[0]->targets.size() == 1);
  CHECK(shape(*body[0]->targets[0]) == "(tuple a (tuple b c))");
  CHECK(shape(*body[0]->value) == "(call f)");
  REQUIRE(body[1]->targets.size() == 2);
  CHECK(shape(*body[1]->targets[0]) == "p");
  CHECK(shape(*body[1]->targets[1]) == "q");
  CHECK(shape(*body[1]->value) == "1");
  CHECK(shape(*body[2]->targets[0]) == "([] x i)");
  CHECK(shape(*body[2]->targets[1]) == "(. y z)");
  CHECK(body[3]->kind == ast::StmtKind::AnnAssign);
  CHECK(shape(*body[3]->target) == "n");
  CHECK(shape(*body[3]->annotation) == "(. tl constexpr)");
  CHECK(shape(*body[3]->value) == "3");
  CHECK(body[4]->kind == ast::StmtKind::AnnAssign);
  CHECK(body[4]->value == nullptr);
  CHECK(body[5]->kind == ast::StmtKind::AugAssign);
  CHECK(body[5]->binary_op == ast::BinaryOp::Add);
  CHECK(body[6]->binary_op == ast::BinaryOp::FloorDiv);
  CHECK(body[7]->binary_op == ast::BinaryOp::Pow);
  CHECK(body[8]->binary_op == ast::BinaryOp::RShift);
  CHECK(body[9]->binary_op == ast::BinaryOp::MatMul);
  CHECK(shape(*body[10]->target) == "([] (. t u) 0)");
  CHECK(body[10]->binary_op == ast::BinaryOp::Sub);
  CHECK(body[10]->loc.line == 13);
  CHECK(body[10]->loc.col == 5);
}

TEST_CASE("parser: control flow statements", "[parser]") {
  auto module =
      parse(kernel("    if a:\n"
                   "        pass\n"
                   "    elif b:\n"
                   "        x = 1\n"
                   "    elif c:\n"
                   "        x = 2\n"
                   "    else:\n"
                   "        x = 3\n"
                   "    for i in range(0, n, 2):\n"
                   "        continue\n"
                   "    else:\n"
                   "        break\n"
                   "    for i, j in zip(a, b): pass\n"
                   "    while i < n:\n"
                   "        i += 1\n"
                   "    else:\n"
                   "        pass\n"
                   "    if a: x = 1; y = 2\n"
                   "    return\n"));
  const ast::Body& body = only_function(*module).body;
  REQUIRE(body.size() == 6);
  const ast::Stmt& chain = *body[0];
  CHECK(chain.kind == ast::StmtKind::If);
  CHECK(shape(*chain.cond) == "a");
  REQUIRE(chain.body.size() == 1);
  CHECK(chain.body[0]->kind == ast::StmtKind::Pass);
  REQUIRE(chain.orelse.size() == 1);
  const ast::Stmt& elif_b = *chain.orelse[0];
  CHECK(elif_b.kind == ast::StmtKind::If);
  CHECK(elif_b.loc.line == 5);  // located at its `elif`
  CHECK(elif_b.loc.col == 5);
  CHECK(shape(*elif_b.cond) == "b");
  REQUIRE(elif_b.orelse.size() == 1);
  const ast::Stmt& elif_c = *elif_b.orelse[0];
  CHECK(shape(*elif_c.cond) == "c");
  REQUIRE(elif_c.orelse.size() == 1);
  CHECK(shape(*elif_c.orelse[0]->value) == "3");

  const ast::Stmt& loop = *body[1];
  CHECK(loop.kind == ast::StmtKind::For);
  CHECK(shape(*loop.target) == "i");
  CHECK(shape(*loop.cond) == "(call range 0 n 2)");
  CHECK(loop.body[0]->kind == ast::StmtKind::Continue);
  REQUIRE(loop.orelse.size() == 1);
  CHECK(loop.orelse[0]->kind == ast::StmtKind::Break);
  CHECK(shape(*body[2]->target) == "(tuple i j)");
  CHECK(body[2]->body.size() == 1);

  const ast::Stmt& wloop = *body[3];
  CHECK(wloop.kind == ast::StmtKind::While);
  CHECK(shape(*wloop.cond) == "(cmp < i n)");
  CHECK(wloop.body[0]->kind == ast::StmtKind::AugAssign);
  CHECK(wloop.orelse.size() == 1);
  CHECK(body[4]->body.size() == 2);  // `if a: x = 1; y = 2`
  CHECK(body[5]->kind == ast::StmtKind::Return);
  CHECK(body[5]->value == nullptr);
}

TEST_CASE("parser: simple statements", "[parser]") {
  auto module =
      parse(kernel("    \"\"\"Docstring.\"\"\"\n"
                   "    assert x > 0, \"x must be positive\"\n"
                   "    assert y\n"
                   "    return x, y\n"
                   "    a = 1; b = 2;\n"
                   "    import triton.language as tl2\n"
                   "    from triton.language import core, math as m\n"
                   "    tl.store(p, v)\n"));
  const ast::Body& body = only_function(*module).body;
  REQUIRE(body.size() == 10);
  CHECK(body[0]->kind == ast::StmtKind::ExprStmt);
  CHECK(body[0]->value->str_value == "Docstring.");
  CHECK(body[1]->kind == ast::StmtKind::Assert);
  CHECK(shape(*body[1]->cond) == "(cmp > x 0)");
  CHECK(body[1]->value->str_value == "x must be positive");
  CHECK(body[2]->value == nullptr);
  CHECK(shape(*body[3]->value) == "(tuple x y)");
  CHECK(shape(*body[4]->targets[0]) == "a");
  CHECK(shape(*body[5]->targets[0]) == "b");
  CHECK(body[6]->kind == ast::StmtKind::Import);
  CHECK(body[6]->module == "triton.language");
  CHECK(body[6]->alias == "tl2");
  CHECK(body[7]->kind == ast::StmtKind::ImportFrom);
  CHECK(body[7]->name == "core");
  CHECK(body[7]->alias == "core");
  CHECK(body[8]->name == "math");
  CHECK(body[8]->alias == "m");
  CHECK(body[8]->loc.col == 39);
  CHECK(body[9]->kind == ast::StmtKind::ExprStmt);
}

TEST_CASE("parser: function definitions", "[parser]") {
  const std::string source =
      "import triton\n"
      "\n"
      "@triton.autotune(configs=[], key=['n'])\n"
      "@triton.jit(do_not_specialize=[0])\n"
      "def kern(x_ptr, n, BLOCK: tl.constexpr = 128, eps: float = -1e-5) -> None:\n"
      "    pass  # done\n"
      "\n"
      "x = 1\n";
  auto module = parse(source, 20);
  REQUIRE(module->statements.size() == 3);
  const ast::FunctionDef& fn = *module->statements[1]->function;
  CHECK(fn.name == "kern");
  CHECK(ast::is_jit(fn));
  REQUIRE(fn.decorators.size() == 2);
  CHECK(shape(*fn.decorators[0]) == "(call (. triton autotune) configs=(list) key=(list 'n'))");
  CHECK(shape(*fn.decorators[1]) == "(call (. triton jit) do_not_specialize=(list 0))");
  REQUIRE(fn.params.size() == 4);
  CHECK(fn.params[0].name == "x_ptr");
  CHECK(fn.params[0].annotation == nullptr);
  CHECK(fn.params[0].default_value == nullptr);
  CHECK(fn.params[0].loc.line == 24);
  CHECK(fn.params[0].loc.col == 10);
  CHECK(shape(*fn.params[2].annotation) == "(. tl constexpr)");
  CHECK(shape(*fn.params[2].default_value) == "128");
  CHECK(shape(*fn.params[3].default_value) == "(- 0.000010)");
  CHECK(shape(*fn.returns) == "None");
  CHECK(fn.loc.line == 24);
  CHECK(fn.loc.col == 1);
  CHECK(fn.first_line == 22);
  CHECK(fn.source_text ==
        "@triton.autotune(configs=[], key=['n'])\n"
        "@triton.jit(do_not_specialize=[0])\n"
        "def kern(x_ptr, n, BLOCK: tl.constexpr = 128, eps: float = -1e-5) -> None:\n"
        "    pass  # done\n");
  CHECK(module->find_function("kern") == &fn);
  CHECK(module->find_function("other") == nullptr);
}

TEST_CASE("parser: keyword-only parameters after a bare *", "[parser]") {
  // After `*` a parameter without a default may follow one with a default (Python's rule).
  auto module = parse("@triton.jit\ndef k(x, y=1, *, B: tl.constexpr, c=2.0):\n    pass\n");
  const ast::FunctionDef& fn = *module->find_function("k");
  REQUIRE(fn.params.size() == 4);
  CHECK(!fn.params[0].keyword_only);
  CHECK(!fn.params[1].keyword_only);
  CHECK(fn.params[2].keyword_only);
  CHECK(fn.params[2].name == "B");
  CHECK(fn.params[2].default_value == nullptr);
  CHECK(fn.params[3].keyword_only);
  CHECK(tritium::dump_ast(fn).find("Param B @2:18 keyword-only") != std::string::npos);
}

TEST_CASE("parser: line joins and comments", "[parser]") {
  auto module =
      parse(kernel("    z = tl.load(x +  # the base\n"
                   "                y,\n"
                   "                mask=(x <\n"
                   "                      y))\n"
                   "    w = z \\\n"
                   "        + 1  # trailing\n"
                   "    # a comment line\n"
                   "    return w\n"));
  const ast::Body& body = only_function(*module).body;
  REQUIRE(body.size() == 3);
  CHECK(shape(*body[0]->value) == "(call (. tl load) (+ x y) mask=(cmp < x y))");
  CHECK(body[0]->value->keywords[0].value->loc.line == 5);
  CHECK(shape(*body[1]->value) == "(+ z 1)");
  CHECK(body[1]->value->rhs->loc.line == 8);
  CHECK(body[2]->loc.line == 10);
}

TEST_CASE("parser: an indented kernel keeps its real lines", "[parser]") {
  // As Python's inspect.getsource returns a kernel defined inside a class or function.
  const std::string source =
      "    @triton.jit\n"
      "    def k(x_ptr, n):\n"
      "        pid = tl.program_id(0)\n"
      "        if pid < n:\n"
      "            tl.store(x_ptr + pid, 1)\n";
  auto module = parse(source, 57);
  const ast::FunctionDef& fn = only_function(*module);
  CHECK(fn.first_line == 57);
  CHECK(fn.loc.line == 58);
  CHECK(fn.loc.col == 5);
  CHECK(fn.source_text == source);
  REQUIRE(fn.body.size() == 2);
  CHECK(fn.body[0]->loc.line == 59);
  CHECK(fn.body[0]->loc.col == 9);
  CHECK(fn.body[0]->value->loc.col == 15);
  const ast::Stmt& store = *fn.body[1]->body[0];
  CHECK(store.loc.line == 61);
  CHECK(store.value->items[0]->loc.line == 61);
  CHECK(store.value->items[0]->loc.col == 22);
  // source_text parses again on its own, with the same lines.
  auto again = parse(fn.source_text, fn.first_line);
  CHECK(tritium::dump_ast(only_function(*again)) == tritium::dump_ast(fn));
}

TEST_CASE("parser: module level keeps defs, imports and simple assignments", "[parser]") {
  const std::string source =
      "\"\"\"Module docstring.\"\"\"\n"
      "import torch, triton\n"
      "import triton.language as tl\n"
      "from . import helpers\n"
      "from ..pkg.mod import (a as b,\n"
      "    c,)\n"
      "BLOCK = 128\n"
      "SCALE: tl.constexpr = tl.constexpr(2.0)\n"
      "handler = lambda e: None\n"
      "obj.attr = 3\n"
      "p, q = 1, 2\n"
      "LIMIT = 1; print(LIMIT); OTHER = 2\n"
      "class Harness:\n"
      "    def method(self):\n"
      "        return {k: v for k, v in self.items()}\n"
      "if __name__ == \"__main__\":\n"
      "    for i in range(3):\n"
      "        run(lambda: i)\n"
      "try:\n"
      "    import numpy\n"
      "except ImportError:\n"
      "    numpy = None\n"
      "benchmark(\n"
      "    1, 2)\n"
      "with open('f') as f: data = f.read()\n"
      "def plain(a, b):\n"
      "    return a + b\n"
      "def uses_lambda(xs):\n"
      "    return sorted(xs, key=lambda t: t[0])\n"
      "@functools.cache\n"
      "def cached():\n"
      "    yield 1\n"
      "async def fetch():\n"
      "    await thing()\n"
      "def variadic(*args, **kwargs): return args\n"
      "@triton.jit\n"
      "def kernel(x):\n"
      "    pass\n"
      "def plain():\n"
      "    return 2\n";
  auto module = parse(source);
  std::vector<std::string> kept;
  for (const ast::StmtPtr& stmt : module->statements) {
    switch (stmt->kind) {
      case ast::StmtKind::Import:
        kept.push_back("import " + stmt->module +
                       (stmt->alias.empty() ? "" : " as " + stmt->alias));
        break;
      case ast::StmtKind::ImportFrom:
        kept.push_back("from " + stmt->module + " import " + stmt->name + " as " + stmt->alias);
        break;
      case ast::StmtKind::Assign: kept.push_back("= " + stmt->targets[0]->name); break;
      case ast::StmtKind::AnnAssign: kept.push_back(": " + stmt->target->name); break;
      case ast::StmtKind::FunctionDef: kept.push_back("def " + stmt->function->name); break;
      default: kept.push_back("?");
    }
  }
  CHECK(kept ==
        std::vector<std::string>{"import torch", "import triton", "import triton.language as tl",
                                 "from . import helpers as helpers", "from ..pkg.mod import a as b",
                                 "from ..pkg.mod import c as c", "= BLOCK", ": SCALE", "= LIMIT",
                                 "= OTHER", "def plain", "def kernel", "def plain"});
  CHECK(module->skipped_functions ==
        std::vector<std::string>{"uses_lambda", "cached", "fetch", "variadic"});
  // The later `plain` wins, as when Python runs the module.
  const ast::FunctionDef* plain = module->find_function("plain");
  REQUIRE(plain != nullptr);
  CHECK(plain->loc.line == 39);
  CHECK(module->find_function("uses_lambda") == nullptr);
  CHECK(module->statements[10]->function->body[0]->value->kind == ast::ExprKind::Binary);
}

TEST_CASE("parser: a jit function must parse, others are skipped", "[parser]") {
  ErrorAt e = parse_error(
      "def helper(x):\n"
      "    return lambda: x\n"
      "@triton.jit\n"
      "def k(x):\n"
      "    f = lambda: 0\n");
  CHECK(e.message == "unsupported syntax: lambda expressions are not supported in kernels");
  CHECK(e.line == 5);
  CHECK(e.col == 9);
  // Any decorator whose name ends in `jit` marks a jit function, called or not.
  for (const char* decorator : {"@jit", "@tritium.jit(do_not_specialize=[0])", "@a.b.my_jit"}) {
    INFO(decorator);
    ErrorAt jit_error = parse_error(std::string(decorator) + "\ndef k(x):\n    return {}\n");
    CHECK(jit_error.message == "unsupported syntax: dict literals are not supported in kernels");
    CHECK(jit_error.line == 3);
    CHECK(jit_error.col == 12);
  }
  auto module = parse("@other.decorator\ndef k(x):\n    return {}\n");
  CHECK(module->statements.empty());
  CHECK(module->skipped_functions == std::vector<std::string>{"k"});
  // A jit decorator on something that is not a def is an error too.
  CHECK(parse_error("@triton.jit\nclass K:\n    pass\n").message.find("expected 'def'") !=
        std::string::npos);
}

TEST_CASE("parser: constructs kernels cannot use are located errors", "[parser]") {
  struct Case {
    std::string source;
    std::string message;  // a substring of the message
    int line;
    int col;
  };
  const Case cases[] = {
      {kernel("    f = lambda: 0\n"), "lambda expressions are not supported", 3, 9},
      {kernel("    class A: pass\n"), "class definitions are not supported", 3, 5},
      {kernel("    try:\n        pass\n    except E:\n        pass\n"), "try statements", 3, 5},
      {kernel("    with x:\n        pass\n"), "with statements are not supported", 3, 5},
      {kernel("    global g\n"), "global statements are not supported", 3, 5},
      {kernel("    nonlocal g\n"), "nonlocal statements are not supported", 3, 5},
      {kernel("    x = 1\n    del x\n"), "del statements are not supported", 4, 5},
      {kernel("    y = yield x\n"), "yield expressions are not supported", 3, 9},
      {kernel("    yield x\n"), "yield expressions are not supported", 3, 5},
      {kernel("    async for i in x:\n        pass\n"), "async functions and statements", 3, 5},
      {"@triton.jit\nasync def k():\n    pass\n", "async functions are not supported", 2, 1},
      {kernel("    y = await x\n"), "await expressions are not supported", 3, 9},
      {kernel("    f(x, **k)\n"), "star arguments (**kwargs) are not supported", 3, 10},
      {"@triton.jit\ndef k(x, *args):\n    pass\n", "star parameters (*args)", 2, 10},
      {"@triton.jit\ndef k(x, **kw):\n    pass\n", "star parameters (**kwargs)", 2, 10},
      // A bare `*` marks keyword-only parameters (supported); Python's errors around it.
      {"@triton.jit\ndef k(x, *):\n    pass\n", "named arguments must follow bare *", 2, 10},
      {"@triton.jit\ndef k(x, *, y, *, z):\n    pass\n", "* argument may appear only once", 2, 16},
      {"@triton.jit\ndef k(x, /, y):\n    pass\n", "positional-only parameter markers", 2, 10},
      {kernel("    y = [i for i in x for j in i]\n"), "nested comprehensions are not supported", 3, 23},
      {kernel("    y = [i async for i in x]\n"), "async comprehensions are not supported", 3, 9},
      {kernel("    y = {i for i in x}\n"), "set comprehensions are not supported", 3, 9},
      {kernel("    y = {i: i for i in x}\n"), "dict comprehensions are not supported", 3, 9},
      {kernel("    y = (i for i in x)\n"), "generator expressions are not supported", 3, 9},
      {kernel("    y = sum(i for i in x)\n"), "generator expressions are not supported", 3, 13},
      {kernel("    y = {1: 2}\n"), "dict literals are not supported", 3, 9},
      {kernel("    y = {}\n"), "dict literals are not supported", 3, 9},
      {kernel("    y = {1, 2}\n"), "set literals are not supported", 3, 9},
      // f-strings parse (their fields must be expressions); lowering formats constexprs
      {kernel("    y = f'{}'\n"), "f-string: valid expression required before '}'", 3, 12},
      {kernel("    y = f'{x!z}'\n"), "f-string: invalid conversion character", 3, 12},
      {kernel("    y = f'{x y}'\n"), "expected ')' to close the parenthesis, found 'y'", 3, 14},
      {kernel("    if (n := x):\n        pass\n"), "assignment expressions (:=)", 3, 9},
      {kernel("    def inner():\n        pass\n"), "nested function definition is not supported", 3,
       5},
      {kernel("    @triton.jit\n    def inner():\n        pass\n"),
       "decorators are not supported inside a function", 3, 5},
      {kernel("    match x:\n        case 1:\n            pass\n"), "match statements", 3, 5},
      {kernel("    a, *b = x\n"), "starred expressions (*x) are not supported", 3, 8},
      {kernel("    y = b'abc'\n"), "bytes literals are not supported", 3, 9},
      {kernel("    y = 1j\n"), "complex literals are not supported", 3, 9},
      {kernel("    y = x[...]\n"), "Ellipsis ('...') expressions are not supported", 3, 11},
      {kernel("    from m import *\n"), "star imports", 3, 19},
      // Plain syntax errors.
      {kernel("    if x\n        pass\n"), "expected ':' after the condition, found end of line", 3,
       9},
      {kernel("    f() = 1\n"), "cannot assign to a function call", 3, 5},
      {kernel("    a + 1 += 2\n"), "illegal target for augmented assignment", 3, 5},
      {kernel("    a, b: int = 1, 2\n"), "only a single target", 3, 5},
      {kernel("    f(a=1, b)\n"), "positional argument follows keyword argument", 3, 12},
      {kernel("    f(a=1, a=2)\n"), "keyword argument repeated: a", 3, 12},
      {kernel("    y = a if b\n"), "expected 'else'", 3, 15},
      {kernel("    x = 1\n      y = 2\n"), "unexpected indent", 4, 7},
      {kernel("    1 +\n"), "expected an expression, found end of line", 3, 8},
      {kernel("    for 1 in x:\n        pass\n"), "cannot assign to a literal", 3, 9},
      {kernel("    else:\n        pass\n"), "expected an expression, found 'else'", 3, 5},
      {"@triton.jit\ndef k(a=1, b):\n    pass\n", "parameter without a default", 2, 12},
      {"@triton.jit\ndef k(a, a):\n    pass\n", "duplicate parameter 'a'", 2, 10},
      {"@triton.jit\ndef k(a):\nreturn a\n", "expected an indented block, found 'return'", 3, 1},
  };
  for (const Case& c : cases) {
    INFO(c.source);
    ErrorAt e = parse_error(c.source);
    CHECK_THAT(e.message, Catch::Contains(c.message));
    CHECK(e.line == c.line);
    CHECK(e.col == c.col);
  }
}

TEST_CASE("parser: errors carry the real line of an offset source", "[parser]") {
  ErrorAt e = parse_error("    @triton.jit\n    def k(x):\n        y = {x}\n", 100);
  CHECK(e.message == "unsupported syntax: set literals are not supported in kernels");
  CHECK(e.line == 102);
  CHECK(e.col == 13);
}

TEST_CASE("parser: absurd nesting is an error, not a crash", "[parser]") {
  auto body_with = [](const std::string& expression) {
    return kernel("    y = " + expression + "\n");
  };
  CHECK(parse_error(body_with(std::string(100000, '-') + "x")).message ==
        "expression nested too deeply");
  CHECK(parse_error(body_with(std::string(100000, '~') + "x")).message ==
        "expression nested too deeply");
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  CHECK(parse_error(body_with(nots + "x")).message == "expression nested too deeply");
  std::string sum = "x";
  for (int i = 0; i < 20000; ++i) sum += "+x";
  CHECK(parse_error(body_with(sum)).message == "expression nested too deeply");
  std::string chain = "x";
  for (int i = 0; i < 20000; ++i) chain += ".a()";
  CHECK(parse_error(body_with(chain)).message == "expression nested too deeply");
  std::string powers = "x";
  for (int i = 0; i < 20000; ++i) powers += "**x";
  CHECK(parse_error(body_with(powers)).message == "expression nested too deeply");
  std::string ternaries = "x";
  for (int i = 0; i < 20000; ++i) ternaries += " if x else x";
  CHECK(parse_error(body_with(ternaries)).message == "expression nested too deeply");
  std::string elifs = "    if a:\n        pass\n";
  for (int i = 0; i < 5000; ++i) elifs += "    elif a:\n        pass\n";
  CHECK(parse_error(kernel(elifs)).message == "too many elif clauses in one if statement");
  // Nesting that real kernels use stays fine.
  std::string nested = "x";
  for (int i = 0; i < 50; ++i) nested = "(" + nested + " + 1) * f(x)";
  auto module = parse(body_with(nested));
  CHECK(only_function(*module).body.size() == 1);
}

TEST_CASE("parser: never crashes on truncated or mangled sources", "[parser]") {
  const std::string source =
      "import triton\nimport triton.language as tl\nBLOCK = 64\n"
      "class H:\n    def m(self): return [i for i in range(3)]\n"
      "@triton.jit\ndef k(x_ptr, y_ptr, n, B: tl.constexpr = 16):\n"
      "    pid = tl.program_id(axis=0)\n    offs = pid * B + tl.arange(0, B)\n"
      "    m = offs[:, None] < n if B > 1 else -offs ** 2\n"
      "    for i in range(0, n, B):\n        if i == 0: continue\n"
      "        elif not (i & 1): acc += tl.load(x_ptr + offs, mask=m, other=0.)\n"
      "    a, b = (1, 2)\n    tl.store(y_ptr + offs, acc, mask=m)\n";
  for (size_t length = 0; length <= source.size(); ++length) {
    try {
      parse(source.substr(0, length));
    } catch (const CompileError&) {
    }
  }
  std::mt19937 random(777);
  for (int round = 0; round < 3000; ++round) {
    std::string mangled = source;
    for (int edit = 0; edit < 3; ++edit) {
      size_t at = random() % mangled.size();
      const char* pieces[] = {"(",  ")", ":", "\n", "    ", "lambda", "*", ",",   "=", "if",
                              "\\", "'", "[", "]",  "not",  "**",     "@", "def", ";", "else"};
      mangled.insert(at, pieces[random() % 20]);
    }
    try {
      parse(mangled);
    } catch (const CompileError&) {
    }
  }
  SUCCEED();
}

TEST_CASE("dump_ast: a stable indented tree with locations", "[parser][ast_printer]") {
  const std::string source =
      "import triton.language as tl\n"
      "@triton.jit\n"
      "def add_kernel(x_ptr, BLOCK: tl.constexpr):\n"
      "    pid = tl.program_id(0)\n"
      "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
      "    x = tl.load(x_ptr + offs[:, None], mask=offs < 8, other=-1.5)\n"
      "    if pid == 0:\n"
      "        x += 1\n"
      "    else:\n"
      "        return x if x else None\n";
  auto module = parse(source);
  const ast::FunctionDef& fn = *module->find_function("add_kernel");
  CHECK(tritium::dump_ast(fn) ==
        "FunctionDef add_kernel @3:1\n"
        "  decorator Attribute(Name(triton).jit) @2:2\n"
        "  Param x_ptr @3:16\n"
        "  Param BLOCK @3:23 annotation=Attribute(Name(tl).constexpr)\n"
        "  Assign @4:5\n"
        "    target Name(pid) @4:5\n"
        "    value Call @4:11\n"
        "      func Attribute(Name(tl).program_id) @4:11\n"
        "      arg Int(0) @4:25\n"
        "  Assign @5:5\n"
        "    target Name(offs) @5:5\n"
        "    value Binary + @5:12\n"
        "      lhs Binary * @5:12\n"
        "        lhs Name(pid) @5:12\n"
        "        rhs Name(BLOCK) @5:18\n"
        "      rhs Call @5:26\n"
        "        func Attribute(Name(tl).arange) @5:26\n"
        "        arg Int(0) @5:36\n"
        "        arg Name(BLOCK) @5:39\n"
        "  Assign @6:5\n"
        "    target Name(x) @6:5\n"
        "    value Call @6:9\n"
        "      func Attribute(Name(tl).load) @6:9\n"
        "      arg Binary + @6:17\n"
        "        lhs Name(x_ptr) @6:17\n"
        "        rhs Subscript @6:25\n"
        "          value Name(offs) @6:25\n"
        "          index Slice @6:30\n"
        "          index None @6:33\n"
        "      keyword mask=Compare [<] @6:45\n"
        "        operand Name(offs) @6:45\n"
        "        operand Int(8) @6:52\n"
        "      keyword other=Unary - @6:61\n"
        "        operand Float(1.5) @6:62\n"
        "  If @7:5\n"
        "    cond Compare [==] @7:8\n"
        "      operand Name(pid) @7:8\n"
        "      operand Int(0) @7:15\n"
        "    body\n"
        "      AugAssign += @8:9\n"
        "        target Name(x) @8:9\n"
        "        value Int(1) @8:14\n"
        "    orelse\n"
        "      Return @10:9\n"
        "        value Ternary @10:16\n"
        "          then Name(x) @10:16\n"
        "          cond Name(x) @10:21\n"
        "          else None @10:28\n");
  std::string whole = tritium::dump_ast(*module);
  CHECK(whole.rfind("Module\n  Import triton.language as tl @1:8\n  FunctionDef add_kernel @3:1\n",
                    0) == 0);
  std::shared_ptr<ast::Module> holder;
  CHECK(tritium::dump_ast(parse_expr("a[1:2:3]", holder)) ==
        "Subscript @3:9\n"
        "  value Name(a) @3:9\n"
        "  index Slice @3:11\n"
        "    lower Int(1) @3:11\n"
        "    upper Int(2) @3:13\n"
        "    step Int(3) @3:15\n");
  CHECK(tritium::dump_ast(parse_expr("'a\\n\"b' < 2.0 and x.y.z", holder)) ==
        "BoolOp and @3:9\n"
        "  operand Compare [<] @3:9\n"
        "    operand Str(\"a\\n\\\"b\") @3:9\n"
        "    operand Float(2.0) @3:19\n"
        "  operand Attribute(Attribute(Name(x).y).z) @3:27\n");
}

// The registry learns the prelude's builtins from a scan of its text, so that start-up
// parses nothing (src/lower/prelude.cpp); the scan must agree with the parse.
TEST_CASE("the prelude's scanned builtins agree with its parse", "[parser][prelude]") {
  std::shared_ptr<const ast::Module> module = tritium::lower::prelude_module();
  std::set<std::string> parsed, methods;
  for (const auto& stmt : module->statements) {
    if (stmt->kind != ast::StmtKind::FunctionDef || !ast::is_jit(*stmt->function)) continue;
    if (stmt->function->name[0] == '_') continue;
    parsed.insert(stmt->function->name);
    for (const auto& decorator : stmt->function->decorators) {
      if (decorator->kind == ast::ExprKind::Name && decorator->name == "_tensor_member_fn") {
        methods.insert(stmt->function->name);
      }
    }
  }
  std::set<std::string> scanned, scanned_methods;
  for (const auto& p : tritium::lower::prelude_builtins()) {
    scanned.insert(p.name);
    if (p.method) scanned_methods.insert(p.name);
    const tritium::lower::Builtin* b = tritium::lower::builtin_table().find(p.name);
    REQUIRE(b != nullptr);
    CHECK(b->prelude);
    CHECK(b->method == p.method);
  }
  CHECK(scanned == parsed);
  CHECK(scanned_methods == methods);
  CHECK(scanned.count("sigmoid") == 1);
  CHECK(methods.count("sigmoid") == 1);
  CHECK(tritium::lower::builtin_table().find("_swizzle2d_group") == nullptr);
}

namespace tritium::lower {
extern const char* const kPreludeText;  // src/lower/prelude_text.cpp, generated by CMake
}

TEST_CASE("the prelude is parsed once per process, and quickly", "[parser][prelude][perf]") {
  CHECK(tritium::lower::prelude_module() == tritium::lower::prelude_module());
  // What the first call of a prelude builtin adds to a cold compile: one parse of the text.
  const int n = 50;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) parse(tritium::lower::kPreludeText);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / n;
  WARN("one parse of the prelude: " << ms << " ms");
  CHECK(ms < 20.0);  // measured 0.15-0.7 ms (Release, a loaded machine); loose for sanitizers
}


TEST_CASE("parser: list comprehensions and star arguments", "[parser]") {
  // One `for` clause with optional `if` filters; a `*t` argument of a call.
  CHECK(expr_shape("[v + 1 for v in t]") == "(comp (+ v 1) v t)");
  CHECK(expr_shape("[a * b for a, b in pairs if a if b]") == "(comp (* a b) (tuple a b) pairs a b)");
  CHECK(expr_shape("f(x, *t)") == "(call f x (* t))");
  CHECK(expr_shape("f(*t, k=1)") == "(call f (* t) k=1)");
}

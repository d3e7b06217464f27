// The IR core that rewriting passes rely on: each value's users kept exact through every
// operand change, replace_all_uses_with, erasing and moving ops, and the Builder's
// insertion before and after an op.
#include <catch2/catch.hpp>

#include "ir/builder.h"
#include "ir/ir.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tritium/errors.h"

using namespace tritium;
using namespace tritium::ir;

namespace {

const Type* i32() { return Type::scalar(ScalarKind::I32); }

// Every operand slot of every op under `region` appears in its value's uses(), and every
// use points back at such a slot.
void check_use_lists(const Region& region) {
  for (const auto& op : region.ops()) {
    for (int i = 0; i < op->num_operands(); ++i) {
      bool found = false;
      for (const Use& use : op->operand(i)->uses()) found = found || (use.user == op.get() && use.index == i);
      CHECK(found);
    }
    for (const auto& result : op->results()) {
      for (const Use& use : result->uses()) CHECK(use.user->operand(use.index) == result.get());
    }
    for (const auto& inner : op->regions()) check_use_lists(*inner);
  }
}

}  // namespace

TEST_CASE("users follow every operand change", "[ir][uses]") {
  Function fn("k", Loc{});
  Value* a = fn.body().add_arg(i32());
  Value* b = fn.body().add_arg(i32());
  Builder builder(&fn.body());
  Op* add = builder.create(OpKind::Add, {i32()}, {a, a}, Loc{});
  CHECK(a->num_uses() == 2);
  CHECK(a->uses().size() == 2);
  CHECK(a->uses()[1].index == 1);
  CHECK_FALSE(b->has_uses());

  add->set_operand(1, b);
  CHECK(a->num_uses() == 1);
  CHECK(b->users() == std::vector<Op*>{add});
  add->add_operand(b);
  CHECK(b->num_uses() == 2);
  add->truncate_operands(1);
  CHECK_FALSE(b->has_uses());
  add->set_operands({b, b});
  CHECK_FALSE(a->has_uses());
  CHECK(b->num_uses() == 2);

  Op* mul = builder.create(OpKind::Mul, {i32()}, {add->result(), b}, Loc{});
  b->replace_all_uses_with(a);
  CHECK_FALSE(b->has_uses());
  CHECK(a->num_uses() == 3);
  CHECK(add->operand(0) == a);
  CHECK(mul->operand(1) == a);
  check_use_lists(fn.body());
}

TEST_CASE("erasing an op drops its uses; erasing a used op is an internal error", "[ir][uses]") {
  Function fn("k", Loc{});
  Value* a = fn.body().add_arg(i32());
  Builder builder(&fn.body());
  Value* sum = builder.create_value(OpKind::Add, i32(), {a, a}, Loc{});
  Value* product = builder.create_value(OpKind::Mul, i32(), {sum, a}, Loc{});
  CHECK_THROWS_AS(fn.body().erase(sum->def()), InternalError);
  CHECK(fn.body().ops().size() == 2);
  fn.body().erase(product->def());
  CHECK(a->num_uses() == 2);
  CHECK_FALSE(sum->has_uses());
  fn.body().erase(sum->def());
  CHECK_FALSE(a->has_uses());
  CHECK(fn.body().ops().empty());
}

TEST_CASE("an op erased with its regions drops the uses made inside them", "[ir][uses]") {
  auto fn = parse(R"(func @k(%c: i1, %n: i32) {
  %0 = if %c -> i32 {
    %1 = add %n, %n : i32
    yield %1
  } else {
    yield %n
  }
  return
}
)");
  Value* n = fn->body().arg(1);
  CHECK(n->num_uses() == 3);
  fn->body().erase(fn->body().ops()[0].get());
  CHECK_FALSE(n->has_uses());
  CHECK_FALSE(fn->body().arg(0)->has_uses());
}

TEST_CASE("a function whose ops use values across regions is destroyed cleanly", "[ir][uses]") {
  // The ASan build of this test catches a destructor reaching a destroyed value.
  for (int i = 0; i < 3; ++i) {
    auto fn = parse(R"(func @k(%n: i32) {
  %0 = add %n, %n : i32
  %1 = for %n, %0, %n, %n -> i32 {
  ^(%2: i32, %3: i32):
    %4 = mul %0, %3 : i32
    yield %4
  }
  %5 = add %1, %0 : i32
  return
}
)");
    CHECK(fn->body().ops()[0]->result()->num_uses() == 3);
  }
}

TEST_CASE("Builder inserts before and after an op, in creation order", "[ir][builder]") {
  auto fn = parse(R"(func @k(%n: i32) {
  %0 = add %n, %n : i32
  %1 = mul %0, %0 : i32
  return
}
)");
  Op* add = fn->body().ops()[0].get();
  Op* mul = fn->body().ops()[1].get();
  Builder before = Builder::before(mul);
  Value* c1 = before.int_constant(i32(), 1, Loc{});
  Value* c2 = before.int_constant(i32(), 2, Loc{});
  Builder after = Builder::after(add);
  after.int_constant(i32(), 3, Loc{});
  Builder at_end = Builder::after(fn->body().terminator());
  at_end.int_constant(i32(), 4, Loc{});
  mul->set_operand(1, c2);
  CHECK(c1->def()->parent() == &fn->body());
  CHECK(print(*fn) == R"(func @k(%n: i32) {
  %0 = add %n, %n : i32
  %1 = constant {value = 3} : i32
  %2 = constant {value = 1} : i32
  %3 = constant {value = 2} : i32
  %4 = mul %0, %3 : i32
  return
  %5 = constant {value = 4} : i32
}
)");
  check_use_lists(fn->body());
}

TEST_CASE("take and insert move an op with its uses intact", "[ir][uses]") {
  auto fn = parse(R"(func @k(%n: i32, %c: i1) {
  %0 = if %c -> i32 {
    %1 = add %n, %n : i32
    yield %1
  } else {
    yield %n
  }
  return
}
)");
  Op* if_op = fn->body().ops()[0].get();
  Region& then_region = *if_op->region(0);
  std::unique_ptr<Op> add = then_region.take(then_region.ops()[0].get());
  CHECK(add->parent() == nullptr);
  Op* moved = fn->body().insert(0, std::move(add));
  CHECK(moved->parent() == &fn->body());
  CHECK(moved->result()->users()[0]->kind() == OpKind::Yield);
  if_op->result()->replace_all_uses_with(moved->result());
  fn->body().erase(if_op);
  CHECK(fn->body().arg(0)->num_uses() == 2);
  CHECK(print(*fn) == R"(func @k(%n: i32, %c: i1) {
  %0 = add %n, %n : i32
  return
}
)");
}
